"""How many of Rubik's Flip ``hard``'s trap moves the frozen old *hard* really falls for.

Run: ``.venv/bin/python studies/rubiks-flip-traps/old_hard_judge.py [--positions 5]
[--seat 1] [--ply 9] [--seed 911] [--seconds 0.9]``.

1. Plays ``hard`` (seat ``--seat``) against the old *hard* (``baseline_hard`` in
   ``bench/_common.py``), both ``--seconds`` CPU s a move, until ``hard`` is to move at
   ``--ply`` tiles in a drawn position its exact search solved; ``--positions`` such positions,
   from new games.
2. The judge: for every drawing action, the old *hard* itself searches the position after it
   (``--seconds`` CPU s, as in a match), and the figure is the share of losing replies
   (checked exactly) among the replies its search ranks first (it picks one at random).
3. Prints per position the best figure (what choosing with hindsight would win), that of the
   best actions judged again with new tie-breaks and timing (what hindsight really buys, as
   the best of some 60 figures is partly one search's luck), the mean,
   the figure of the action ``hard``'s searcher model ranks first when every figure is
   measured to the end (outside the timed move) and the model's own figure for it (how well
   the model is calibrated), the figure of the move ``hard`` made there in its time (step 1),
   then the means over positions; and how
   many actions lose, and how many of those lose at once (a reply ends the game), which is
   what a player who gambled on a losing action against a short horizon would face.

The old *hard*'s search stops on a CPU deadline, so the judge's figures are one draw of its
timing: the best of them is an upper bound that no choice made in advance reaches. The
second player's ninth tile (``--seat 1 --ply 9``) and the first player's tenth
(``--seat 0 --ply 10``) are where the old *hard* can be caught (log.md). About 75 s a
position on one core.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time
from pathlib import Path

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _traps import modelled

from _common import baseline_hard, cpu_name, new_hard
from flipgames import make
from flipgames.agents.exact import ExactSearchAgent
from flipgames.agents.kernel_search import kernel_searcher
from flipgames.agents.opponent_models import LURE_DEPTHS, LureProbe
from flipgames.agents.search import PROVEN, AlphaBetaAgent
from flipgames.core.game import Game, State
from flipgames.kernels.search import iterative_deepening

#: Bins of the kernel's nodes for a new five-ply search (the finish table).
BIN = 5_000


def position(
    game: Game, seat: int, ply: int, seed: str, seconds: float
) -> tuple[State, ExactSearchAgent, int] | None:
    """The position at ``ply`` tiles of one game, if ``hard`` solved it as a draw there, and
    the action ``hard`` chose there in its time."""
    hard = new_hard(game, random.Random(f"{seed}:a"), seconds)
    assert isinstance(hard, ExactSearchAgent)  # Rubik's Flip's hard
    old = baseline_hard(game, random.Random(f"{seed}:b"), seconds, time.process_time)
    state = game.new_initial_state()
    while len(state.history) < ply:
        if state.is_terminal():
            return None
        agent = hard if state.current_player == seat else old
        gc.collect()  # before every move, as in a match (bench_ai.py)
        state = state.apply(agent.choose(state))
    if state.is_terminal() or state.current_player != seat:
        return None
    gc.collect()
    chosen = hard.choose(state)
    report = hard.last
    if not (report.exact and report.value == 0 and len(report.keeping) > 1):
        return None
    return state, hard, chosen


def judged(
    game: Game,
    state: State,
    hard: ExactSearchAgent,
    seconds: float,
    actions: list[int],
    finished: dict[int, list[bool]] | None = None,
    salt: str = "",
) -> dict[int, float]:
    """Each of the drawing ``actions``' figure by the old *hard* itself (see the module
    docstring; ``salt`` seeds its tie-breaks anew); ``finished``, if given, gets per bin of
    the kernel's nodes for a new search of the last of ``LURE_DEPTHS`` whether the old *hard*
    finished that depth."""
    hard.stats[:] = (0, 10**12, 0)  # no node limit: outside the timed move
    searcher = kernel_searcher(game, 16)
    assert searcher is not None  # Rubik's Flip has a compiled searcher
    figures = {}
    for action in actions:
        child = state.apply(action)
        if child.is_terminal():
            continue
        probe = LureProbe(hard, child, hard.kernel.position(child))
        rng = random.Random(f"{action}{salt}" if salt else action)
        judge = baseline_hard(game, rng, seconds, time.process_time)
        assert isinstance(judge, AlphaBetaAgent)
        gc.collect()  # as in a match (bench_ai.py): no earlier garbage charged to the search
        result = judge.search(child)
        top = max(result.scores.values())
        first = [reply for reply, score in result.scores.items() if score == top]
        figures[action] = sum(map(probe.loses, first)) / len(first)
        if finished is None:
            continue
        deepest = LURE_DEPTHS[-1]
        searcher.forget()  # a new search's nodes, as the model counts them
        nodes = iterative_deepening(searcher, child, random.Random(0), deepest, depth_step=2).nodes
        if result.depth == deepest or abs(top) < PROVEN:  # else a proof ended the deepening
            finished.setdefault(nodes // BIN, []).append(result.depth == deepest)
    return figures


def losing(state: State, hard: ExactSearchAgent) -> tuple[int, int]:
    """How many actions lose (those the exact search did not keep), and how many of them
    lose at once: the game ends on them, or the opponent has a reply that wins at once."""
    kernel, keeping = hard.kernel, set(hard.last.keeping)
    lost = at_once = 0
    for action, child, end in kernel.children(kernel.position(state)):
        if action in keeping:
            continue
        lost += 1
        at_once += end is not None or any(
            value is not None and value < 0 for _, _, value in kernel.children(child)
        )
    return lost, at_once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--seat", type=int, choices=(0, 1), default=1)
    parser.add_argument("--ply", type=int, default=9)
    parser.add_argument("--seed", type=int, default=911)
    parser.add_argument("--seconds", type=float, default=0.9, help="CPU s a move, both sides")
    args = parser.parse_args()
    if args.positions < 1 or args.seconds <= 0 or not 0 < args.ply < 16:
        parser.error("--positions and --seconds must be positive, --ply within 1-15")
    game = make("rubiks-flip")
    print(f"machine: {cpu_name()}; CPython {platform.python_version()}")
    print(f"hard (seat {args.seat}) against the old hard at {args.ply} tiles, {args.seconds:g} s\n")
    print(
        "| position | drawing actions | best | best, judged again | mean "
        "| hard's model's first choice "
        "| the model's figure for it | hard's move in its time | losing actions (at once) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    bests: list[float] = []
    means: list[float] = []
    picks: list[float] = []
    tops: list[float] = []
    agains: list[float] = []
    moves: list[float] = []
    finished: dict[int, list[bool]] = {}
    game_index = 0
    while len(bests) < args.positions:
        game_index += 1
        found = position(game, args.seat, args.ply, f"{args.seed}:{game_index}", args.seconds)
        if found is None:
            print(f"  game {game_index}: no solved draw there", file=sys.stderr, flush=True)
            continue
        state, hard, chosen = found
        lost, at_once = losing(state, hard)
        truth = judged(game, state, hard, args.seconds, hard.last.keeping, finished)
        # The best figure is partly the luck of one search's timing: judged again, the
        # best actions show what choosing them with hindsight would really catch.
        top_figure = max(truth.values())
        best = [action for action in truth if truth[action] == top_figure] if top_figure else []
        again = judged(game, state, hard, args.seconds, best, salt=":again")
        model = modelled(state, hard, list(truth))
        top = max(model.values())
        pick = statistics.mean(truth[a] for a in truth if model[a] == top)
        bests.append(top_figure)
        agains.append(statistics.mean(again.values()) if again else 0.0)
        means.append(statistics.mean(truth.values()))
        picks.append(pick)
        tops.append(top)
        moves.append(truth.get(chosen, 0.0))  # 0 if it ended the game: nothing to catch
        print(
            f"| {len(bests)} | {len(truth)} | {bests[-1]:.2f} | {agains[-1]:.2f} "
            f"| {means[-1]:.3f} | {pick:.2f} "
            f"| {top:.2f} | {moves[-1]:.2f} | {lost} ({at_once}) |",
            flush=True,
        )
    print(
        f"| **mean** | | **{statistics.mean(bests):.3f}** | **{statistics.mean(agains):.3f}** "
        f"| {statistics.mean(means):.3f} "
        f"| **{statistics.mean(picks):.3f}** | {statistics.mean(tops):.3f} "
        f"| **{statistics.mean(moves):.3f}** | |"
    )
    print("\nThe old hard's five-ply searches by the kernel's nodes for a new one (thousands):\n")
    print("| nodes | searches | finished |")
    print("| --- | ---: | ---: |")
    for key in sorted(finished):
        done = finished[key]
        print(f"| {key * BIN // 1000}-{(key + 1) * BIN // 1000} | {len(done)} | {sum(done)} |")


if __name__ == "__main__":
    main()
