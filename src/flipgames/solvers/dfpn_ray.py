"""The df-pn search spread over a Ray cluster: one task per first move, up to symmetry.

Each question ("does this side force a win?") is split at the root: every child of the start
(one per class of the 8 board symmetries) is searched by its own task, with its own table of
``memory`` bytes, for "the same attacker wins" from there. The root's answer follows as in
one process: where the attacker is to move, one proven child proves it and only disproven
children disprove it; where the defender is, the other way round. A proof is the root's
move (when the attacker moves there) and each needed child's strategy, written by its task;
a draw's proof is the same for both disproven questions, each with the defender's non-losing
strategy (:meth:`~flipgames.solvers.dfpn.Solver.drawing_strategy`) in place of the prover's.
The value is the one a single process finds; the node counts differ (each task has its own
table), and a child disproof never rests on a repetition of the start (tasks do not see it),
which can only make a task's search longer, not its answer wrong.

The tasks go out most promising first: a short search in this process (:data:`PROBE` nodes)
ranks the children by its numbers (the attacker's proof number where the attacker moves at
the root, else the disproof number), so that the child that decides the question usually runs
at once, not after others that each spend the whole time limit (on two CPUs an ending the
one-process search proves in 603 nodes waited 120 s for its fifth child's task).

Ray comes with the ``lab`` extra (:mod:`flipgames.lab.cluster` connects and explains what to
install when it is missing).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flipgames.core.game import Game, State
from flipgames.core.registry import make
from flipgames.lab import cluster
from flipgames.solvers.dfpn import DfpnError, Phase, Report, Solver, proof_search

#: Nodes a task may spend rebuilding a replaced part of its proof.
REBUILD = 50_000_000
#: Nodes (and table bytes) of the search here that orders the tasks.
PROBE = 20_000
PROBE_MEMORY = 1 << 22


def prove_child(
    name: str,
    options: dict[str, Any],
    position: str,
    attacker: int,
    memory: int,
    seconds: float | None,
) -> dict[str, Any]:
    """One task: does ``attacker`` force a win from ``position``? With the attacker's strategy
    when proven, the defender's non-losing one when disproven (a draw's proof needs it)."""
    game = make(name, options)
    solver = Solver(game, game.from_position(position), memory=memory, attackers=(attacker,))
    phase = solver.solve(max_time=seconds).phases[0]
    lines = []
    if phase.status == "proven":
        lines = list(solver.strategy(solver.position, attacker, REBUILD))
    elif phase.status == "disproven":
        lines = list(solver.drawing_strategy(solver.position, 1 - attacker, REBUILD))
    return {"phase": phase.__dict__, "lines": lines}


def solve_on_ray(
    game: Game,
    address: str,
    memory: int,
    max_time: float | None,
    say: Callable[[str], None],
    state: State | None = None,
) -> tuple[Report, list[dict[str, Any]] | None]:
    """Both questions from ``state`` (default: the start) on Ray; the report and, for a
    proven value, the proof's lines (claim first)."""
    search = proof_search(game)
    if search is None:
        raise DfpnError(f"{game.name} has no proof search (df-pn runs on FlipFour)")
    start = game.new_initial_state() if state is None else state
    if start.is_terminal():
        raise DfpnError("the position is over: there is nothing to prove")
    ray = cluster._ray()
    started = cluster.connect(address)
    try:
        task = ray.remote(prove_child)
        mover = start.current_player
        phases: list[Phase] = []
        strategies: list[dict[str, Any]] = []
        clock = time.monotonic()
        for attacker in (mover, 1 - mover):
            phase, strategy = _ask(ray, task, game, search, start, attacker, memory, max_time, say)
            phases.append(phase)
            if phase.status == "proven":
                strategies = strategy  # the prover's: a disproof's lines are not needed
            elif phase.status == "disproven":
                strategies += strategy
            if phase.status != "disproven":
                break
    finally:
        if started:
            cluster.shutdown()
    status = {phase.attacker: phase.status for phase in phases}
    value: str | None = None
    if status.get(mover) == "proven":
        value = "win"
    elif status.get(1 - mover) == "proven":
        value = "loss"
    elif status.get(mover) == status.get(1 - mover) == "disproven":
        value = "draw"
    lines = None
    if value is not None:
        lines = [{"game": game.name, "start": start.position(), "value": value}, *strategies]
    report = Report(
        game=game.name,
        start=start.position(),
        value=value,
        phases=phases,
        nodes=sum(p.nodes for p in phases),
        seconds=round(time.monotonic() - clock, 3),
    )
    return report, lines


def _ask(
    ray: Any,
    task: Any,
    game: Game,
    search: Any,
    start: State,
    attacker: int,
    memory: int,
    max_time: float | None,
    say: Callable[[str], None],
) -> tuple[Phase, list[dict[str, Any]]]:
    """One question, one task per class of children; the phase and the strategy that
    resolved it (the attacker's when proven, the defender's non-losing one when disproven)."""
    key = start.key()
    assert isinstance(key, int)
    root = search.root(key)
    mine = start.current_player == attacker
    phase = Phase(attacker=attacker)
    children: dict[tuple[int, int], tuple[int, Any]] = {}
    for action, child, four in search.children(root):
        if four:  # the side to move wins at once
            phase.status, phase.plies = ("proven", 1) if mine else ("disproven", 0)
            line = {"position": start.position(), "value": "win" if mine else "draw"}
            return phase, [{**line, "move": search.action_text(action)}]
        children.setdefault(search.key(child), (action, child))
    clock = time.monotonic()
    options = dict(game.options)
    pending = {
        task.remote(game.name, options, search.position_text(child), attacker, memory, max_time): (
            action,
            child,
        )
        for action, child in _ranked(game, start, attacker, list(children.values()))
    }
    results: list[tuple[int, dict[str, Any]]] = []
    name = game.player_names[attacker]
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        action, _child = pending.pop(ready[0])
        result = ray.get(ready[0])
        results.append((action, result))
        say(
            f"{name} wins? {len(results)}/{len(children)} first moves searched; "
            f"{search.action_text(action)}: {result['phase']['status']}"
        )
        decided = result["phase"]["status"] == ("proven" if mine else "disproven")
        if decided:
            for other in pending:
                ray.cancel(other, force=True)
            pending = {}
    phase.seconds = round(time.monotonic() - clock, 3)
    phase.nodes = sum(r["phase"]["nodes"] for _, r in results)
    proven = [(r["phase"]["plies"], a, r) for a, r in results if r["phase"]["status"] == "proven"]
    if mine and proven:
        plies, action, result = min(proven, key=lambda item: item[0])
        phase.status, phase.plies = "proven", plies + 1
        first = {"position": start.position(), "value": "win", "move": search.action_text(action)}
        return phase, [first, *result["lines"]]
    if not mine and len(proven) == len(children):
        phase.status, phase.plies = "proven", max(p for p, _, _ in proven) + 1
        return phase, _merged([r["lines"] for _, _, r in proven])
    disproven = [(a, r) for a, r in results if r["phase"]["status"] == "disproven"]
    if disproven and not mine:
        action, result = disproven[0]
        phase.status = "disproven"
        first = {"position": start.position(), "value": "draw", "move": search.action_text(action)}
        return phase, [first, *result["lines"]]
    if mine and len(disproven) == len(children):
        phase.status = "disproven"
        return phase, _merged([r["lines"] for _, r in disproven])
    return phase, []


def _ranked(
    game: Game, start: State, attacker: int, children: list[tuple[int, Any]]
) -> list[tuple[int, Any]]:
    """The children most promising first by a :data:`PROBE`-node search from ``start``: the
    side to move's best guesses (lowest proof numbers for the attacker, lowest disproof
    numbers for the defender); children it did not reach keep their order, last."""
    probe = Solver(game, start, memory=PROBE_MEMORY, attackers=(attacker,))
    probe.solve(max_nodes=PROBE)
    side = 0 if start.current_player == attacker else 1  # pn for the attacker, dn else

    def rank(child: tuple[int, Any]) -> int:
        entry = probe.search.entry(child[1], probe.table)
        return probe.search.infinity + 1 if entry is None else entry[side]

    return sorted(children, key=rank)


def _merged(parts: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The strategies of several tasks, each position once."""
    seen: set[str] = set()
    merged = []
    for part in parts:
        for line in part:
            if line["position"] not in seen:
                seen.add(line["position"])
                merged.append(line)
    return merged
