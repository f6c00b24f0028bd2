"""``flipgames audit``: what a game designer should know about a rule set, with examples.

An audit is **exhaustive** where an exact solver finishes the game here (the manifest lists
the option set as solved: FlipFlop 3x3, one round of the 3x3 Flip Switch, Checkered Flag):
every reachable position is walked once (folded over the game's symmetries where its compiled
kernel folds them) and solved. Otherwise it is **sampled**: seeded uniformly random playouts
and playouts between two ``easy`` agents, and it says so, with the sample sizes.

Every finding carries a concrete example: a list of actions in the game's notation from the
start (chance outcomes included), which ``flipgames replay`` or
:meth:`~flipgames.core.game.Game.state_from_actions` replays. Finding kinds:

``solved-value``
    the value of the start under perfect play (win/draw/loss chances of the first player, the
    first-player advantage); the example is a line of optimal play.
``first-player-advantage``
    (sampled) the first player's win rate with a 95% Wilson interval, per kind of playout.
``no-legal-action``
    positions where the player to move has no legal action, and how the rules resolve them
    (the game's own words); the example ends in such a position.
``dead-clause``
    a rule clause that never changes any reachable outcome: here the clause for a player
    with no legal action, when no reachable position has none (the example reaches a position
    with the fewest legal actions there are).
``endless-play``
    play that returns to an earlier position, so only the repetition rule ends the game;
    which player (if any) can force it never to end; the example returns to a position.
``optimal-cycle``
    perfect play by both can go round a cycle (the value is kept on every move); the example
    is a line of optimal play that returns to a position.
``never-optimal``
    a choice (an action's notation, e.g. a gear) that is legal somewhere but never among the
    best moves anywhere; the example ends with that choice where it costs the most.
``option-flip``
    another value of a rule option changes the solved value (the example is optimal play
    under that option).
``candidate-fix``
    for a hole found in the standard game, a rule option that could close it, with its solved
    value, game length and first-player advantage, and a recommendation (see
    :data:`CANDIDATE_FIXES`).
``not-checked``
    (sampled) what a sample cannot establish.

How a game ended is read from its own words (:meth:`~flipgames.core.game.State.status_text`):
every game says "no legal action" or "no legal move" when that is why it ended.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from flipgames.agents.arena import wilson_interval
from flipgames.agents.levels import make_level_agent
from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import CHANCE, TERMINAL, Game, State, sample_chance
from flipgames.core.progress import Progress, silent
from flipgames.solvers import catalog
from flipgames.solvers.compiled import components
from flipgames.solvers.graph import enumerable_kernel

#: How a game says it ended because the player to move had nothing to do.
NO_LEGAL = re.compile(r"no legal (action|move)", re.IGNORECASE)

#: Sample sizes of a sampled audit: uniformly random playouts, and playouts of easy vs easy.
RANDOM_GAMES = 400
LEVEL_GAMES = 20

#: The most positions an exhaustive audit walks (a forced ``--method exhaustive`` on a game
#: too large stops there with a clear error rather than filling the memory).
MAX_POSITIONS = catalog.DEFAULT_MAX_POSITIONS

#: The longest optimal line an example shows (it stops earlier at the end or a repetition).
MAX_LINE = 120

#: Candidate fixes per game for a hole a finding kind reports in the standard game: named
#: rule options of the game (docs/lab/<game>.md explains each), compared by solving them.
CANDIDATE_FIXES: Mapping[str, Mapping[str, tuple[Mapping[str, object], ...]]] = {
    "flip-switch": {
        "optimal-cycle": (
            {"must_flip": "yes"},
            {"must_flip": "yes", "switch_limit": 4},
        ),
    },
}


class AuditError(FlipgamesError, ValueError):
    """An audit asked of something it cannot do (e.g. exhaustive on an unsolvable game)."""


@dataclass(frozen=True)
class Finding:
    """One thing the audit found, with an example line from the start."""

    kind: str
    summary: str
    example: list[str]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "summary": self.summary, "example": self.example, **self.details}


@dataclass(frozen=True)
class Audit:
    """The findings of one audit, and whether they cover every position."""

    game: Game
    method: str
    findings: list[Finding]

    def to_json(self) -> dict[str, Any]:
        """``{"game", "options", "method", "findings"}`` (the JSON of ``audit --json``)."""
        return {
            "game": self.game.name,
            "options": dict(self.game.options),
            "method": self.method,
            "findings": [f.to_json() for f in self.findings],
        }


def audit(
    game: Game,
    *,
    method: str = "auto",
    seed: int = 1,
    random_games: int = RANDOM_GAMES,
    level_games: int = LEVEL_GAMES,
    fixes: bool = False,
    progress: Progress = silent,
) -> Audit:
    """Audit ``game``: ``method`` ``"auto"`` (exhaustive where the game is solved here, else
    sampled), ``"exhaustive"`` or ``"sampled"``. ``fixes`` also solves the candidate fixes of
    the holes found (:data:`CANDIDATE_FIXES`), which takes minutes for Flip Switch."""
    if method not in ("auto", "exhaustive", "sampled"):
        raise AuditError(f"method must be auto, exhaustive or sampled, not {quote(method)}")
    if game.num_players != 2:
        raise AuditError(f"the audit studies two-player games; {game.name} has {game.num_players}")
    if method == "auto":
        method = "exhaustive" if catalog.is_solved(game) else "sampled"
    if method == "sampled":
        return Audit(game, method, _sampled(game, seed, random_games, level_games, progress))
    findings = _exhaustive(game, progress)
    if fixes:
        findings += _candidate_fixes(game, findings, progress)
    return Audit(game, method, findings)


# --- the exhaustive walk --------------------------------------------------------------------


class _Walk:
    """Every position reachable from the start (ignoring repetition draws, which the solvers
    leave to cycles), breadth first, each node with the first state that reached it, and its
    parent edge: so the actions along parent edges are a real line from the start."""

    def __init__(self, game: Game, progress: Progress) -> None:
        self.game = game
        # Positions are keyed as the game's graph builder folds them (FlipFlop: the mirror;
        # Flip Switch: 48 symmetries), endings included. The numpy builders need no
        # compiled code, so the reference path (FLIPGAMES_KERNEL=python) counts the same.
        builder = game.graph_builder() or enumerable_kernel(game)
        self._encode = builder.encode if builder is not None else None
        self._fold = getattr(builder, "fold", None)
        #: How many symmetries the counts fold over (1: every position counted).
        self.symmetries: int = getattr(builder, "symmetries", 1) if self._fold else 1
        self.solution = catalog.solve(game, progress, MAX_POSITIONS)
        self.root = game.new_initial_state()
        self.keys: list[Hashable] = []
        self.index: dict[Hashable, int] = {}
        self.parent: list[int] = []
        self.parent_edge: list[int] = []
        self.depth: list[int] = []
        self.to_move: list[int] = []
        self.value: list[Fraction] = []
        self.ending: list[str] = []
        self.edge_start: list[int] = [0]
        self.edge_child: list[int] = []
        self.edge_label: list[str] = []
        self._run(game, progress)

    def key_of(self, state: State) -> Hashable:
        # A finished game is kept apart by its own key and ending (graphs may merge endings
        # with one result), so each ending's reason stays visible; it is folded over the
        # same symmetries as the positions in play, or the counts would mix units.
        if state.is_terminal():
            end = self._fold(state) if self._fold is not None else state.key()
            return ("end", end, state.status_text())
        return self._encode(state) if self._encode is not None else state.key()

    @property
    def counted(self) -> str:
        """How the positions are counted, in words (the same on the kernel and the reference
        path wherever the game has a numpy graph builder)."""
        if self.symmetries > 1:
            return f"counted up to symmetry: alike under {self.symmetries} symmetries, once"
        return "every position counted, no symmetry folded"

    def _add(self, state: State, parent: int, edge: int) -> int:
        key = self.key_of(state)
        found = self.index.get(key)
        if found is not None:
            return found
        node = self.index[key] = len(self.keys)
        self.keys.append(key)
        self.parent.append(parent)
        self.parent_edge.append(edge)
        self.depth.append(self.depth[parent] + 1 if parent >= 0 else 0)
        player = state.current_player
        self.to_move.append(player)
        if player == TERMINAL:
            self.value.append(Fraction(state.returns()[0]))
            self.ending.append(state.status_text())
        else:
            self.value.append(self.solution.value(state, 0).expected)
            self.ending.append("")
        self._states.append(state)
        return node

    def _run(self, game: Game, progress: Progress) -> None:
        self._states: list[State | None] = []
        self._add(self.root, -1, -1)
        node = 0
        while node < len(self.keys):
            state = self._states[node]
            assert state is not None
            self._states[node] = None  # keys and arrays are enough once a state is expanded
            player = state.current_player
            if player == CHANCE:
                actions = [a for a, _ in state.chance_outcomes()]
            elif player == TERMINAL:
                actions = []
            else:
                actions = list(state.perft_actions())
            for action in actions:
                child = state.apply_perft(action)
                self.edge_label.append(state.action_to_string(action))
                self.edge_child.append(self._add(child, node, len(self.edge_child)))
            self.edge_start.append(len(self.edge_child))
            node += 1
            if len(self.keys) > MAX_POSITIONS:
                raise AuditError(
                    f"{game.name} is too large for an exhaustive audit here: more than "
                    f"{MAX_POSITIONS:,} positions; use --method sampled"
                )
            if node % 20_000 == 0:
                progress("audit: walking every position", done=node)
        progress("audit: walking every position", done=node, total=node)

    @property
    def nodes(self) -> int:
        return len(self.keys)

    def edges(self, node: int) -> range:
        return range(self.edge_start[node], self.edge_start[node + 1])

    def line(self, node: int) -> list[str]:
        """The actions from the start to ``node`` along parent edges."""
        labels: list[str] = []
        while node > 0:
            labels.append(self.edge_label[self.parent_edge[node]])
            node = self.parent[node]
        return labels[::-1]

    def replay(self, actions: Iterable[str]) -> State:
        state = self.game.new_initial_state()
        for text in actions:
            state = state.apply(state.parse_action(text))
        return state

    def follow(self, path: list[int], loop: list[int]) -> list[str] | None:
        """A line with the real rules through the nodes ``path`` (from the start, ``path[0]``
        is node 0) and then round ``loop`` (``loop[0] == loop[-1] == path[-1]``), again while
        the graph's cycle returns only to a symmetric copy, until a position repeats exactly.
        None if the rules end the game first."""
        state = self.root
        line: list[str] = []
        seen = {state.key()}
        targets = path[1:] + loop[1:] * 48  # a folded cycle closes within the symmetry group
        for target in targets:
            step = self._step_to(state, target)
            if step is None:
                return None
            action, state = step
            line.append(action)
            if state.is_terminal():
                return None
            if state.key() in seen:
                return line
            seen.add(state.key())
        return None

    def _step_to(self, state: State, target: int) -> tuple[str, State] | None:
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            actions = list(state.legal_actions())
        for action in actions:
            child = state.apply(action)
            if not child.is_terminal() and self.index.get(self.key_of(child)) == target:
                return state.action_to_string(action), child
        return None


def _exhaustive(game: Game, progress: Progress) -> list[Finding]:
    walk = _Walk(game, progress)
    progress("audit: looking for holes")
    findings = [_solved_value(walk)]
    findings += _no_legal_action(walk)
    findings += _endless_play(walk)
    findings += _never_optimal(walk)
    findings += _option_flips(game, walk, progress)
    return findings


def _percent(x: Fraction) -> str:
    return f"{float(x) * 100:.1f}%"


def _value_details(
    value: Fraction, win: Fraction, draw: Fraction, loss: Fraction
) -> dict[str, Any]:
    return {
        "value": str(value),
        "value_float": round(float(value), 6),
        "win": round(float(win), 6),
        "draw": round(float(draw), 6),
        "loss": round(float(loss), 6),
        "first_player_advantage": round(float(value), 6),
    }


def _optimal_line(game: Game, solution: Any, limit: int = MAX_LINE) -> list[str]:
    """Optimal play from the start: the solver's first best action for each player, the most
    likely outcome at chance; stops at the end, at a repeated position or after ``limit``."""
    state = game.new_initial_state()
    line: list[str] = []
    seen = {state.key()}
    while not state.is_terminal() and len(line) < limit:
        if state.is_chance_node():
            action = max(state.chance_outcomes(), key=lambda o: o[1])[0]
        else:
            action = solution.best_actions(state)[0]
        line.append(state.action_to_string(action))
        state = state.apply(action)
        if state.key() in seen:
            break
        seen.add(state.key())
    return line


def _solved_value(walk: _Walk) -> Finding:
    value = walk.solution.value(walk.root, 0)
    first = walk.game.player_names[0]
    summary = (
        f"With perfect play by both, {first} wins {_percent(value.win)}, draws "
        f"{_percent(value.draw)} and loses {_percent(value.loss)}: the first-player advantage "
        f"(expected result, +1 a sure win, -1 a sure loss) is {float(value.expected):+.4f}. "
        f"{walk.nodes:,} positions were walked ({walk.counted})."
    )
    details = _value_details(value.expected, value.win, value.draw, value.loss)
    details["positions"] = walk.nodes
    details["symmetries_folded"] = walk.symmetries
    return Finding("solved-value", summary, _optimal_line(walk.game, walk.solution), details)


def _no_legal_action(walk: _Walk) -> list[Finding]:
    stuck = [n for n in range(walk.nodes) if NO_LEGAL.search(walk.ending[n])]
    if stuck:
        ways = sorted({walk.ending[n] for n in stuck})
        node = min(stuck, key=lambda n: walk.depth[n])
        results = sorted({str(walk.value[n]) for n in stuck})
        return [
            Finding(
                "no-legal-action",
                f"{len(stuck):,} reachable endings ({walk.counted}) leave the player to move "
                f"with no legal action; the rules resolve them as: {'; '.join(ways[:3])}",
                walk.line(node),
                {"positions": len(stuck), "resolutions": ways[:10], "results": results},
            )
        ]
    playing = [n for n in range(walk.nodes) if walk.to_move[n] >= 0]
    fewest = min(
        playing,
        key=lambda n: (walk.edge_start[n + 1] - walk.edge_start[n], walk.depth[n]),
    )
    count = walk.edge_start[fewest + 1] - walk.edge_start[fewest]
    return [
        Finding(
            "dead-clause",
            "No reachable position leaves the player to move without a legal action, so the "
            "rule for that case (and any option about it) never changes an outcome. The "
            f"fewest legal actions anywhere is {count}; the example reaches such a position.",
            walk.line(fewest),
            {"clause": "no legal action", "fewest_legal_actions": count},
        )
    ]


def _on_cycles(walk: _Walk, keep: list[bool]) -> npt.NDArray[np.bool_]:
    """Per node, whether it lies on a cycle of kept edges (a strong component of two or
    more, or a loop)."""
    kept = np.array(keep, bool)
    children = np.array(walk.edge_child, np.int32)
    owner = np.repeat(np.arange(walk.nodes), np.diff(np.array(walk.edge_start)))
    start = np.zeros(walk.nodes + 1, np.int64)
    np.cumsum(np.bincount(owner[kept], minlength=walk.nodes), out=start[1:])
    members, bounds = components(start, children[kept])
    cyclic = np.zeros(walk.nodes, bool)
    sizes = np.diff(bounds)
    for i in np.nonzero(sizes > 1)[0]:
        cyclic[members[bounds[i] : bounds[i + 1]]] = True
    loops = kept & (owner == children)
    cyclic[owner[loops]] = True
    return cyclic


def _cycle_from_start(
    walk: _Walk, keep: list[bool], cycle_keep: list[bool] | None = None
) -> list[str] | None:
    """A line from the start along ``keep`` edges into a cycle of ``cycle_keep`` edges (by
    default the same), round it until a position repeats exactly; None when there is none."""
    cycle_keep = keep if cycle_keep is None else cycle_keep
    cyclic = _on_cycles(walk, cycle_keep)
    if not cyclic.any():
        return None
    # Breadth first from the start along kept edges: the nearest node on a cycle.
    before = {0: -1}
    queue = deque([0])
    entry = -1
    while queue:
        node = queue.popleft()
        if cyclic[node]:
            entry = node
            break
        for e in walk.edges(node):
            child = walk.edge_child[e]
            if keep[e] and child not in before:
                before[child] = node
                queue.append(child)
    if entry < 0:
        return None
    path = [entry]
    while before[path[-1]] >= 0:
        path.append(before[path[-1]])
    path.reverse()
    return walk.follow(path, _loop(walk, cycle_keep, entry))


def _loop(walk: _Walk, keep: list[bool], start: int) -> list[int]:
    """The nodes of a shortest kept-edge cycle through ``start``: ``start ... start``."""
    before: dict[int, int] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for e in walk.edges(node):
            child = walk.edge_child[e]
            if not keep[e]:
                continue
            if child == start:
                chain = [node]
                while chain[-1] != start:
                    chain.append(before[chain[-1]])
                return [*reversed(chain), start]
            if child not in before:
                before[child] = node
                queue.append(child)
    return [start]


def _can_force_endless(walk: _Walk, player: int) -> npt.NDArray[np.bool_]:
    """Per node, whether ``player`` can keep the game from ever ending (the other player and
    chance choosing against it), repetition rule aside."""
    n = walk.nodes
    reverse: list[list[int]] = [[] for _ in range(n)]
    left = np.zeros(n, np.int64)
    for node in range(n):
        left[node] = walk.edge_start[node + 1] - walk.edge_start[node]
        for e in walk.edges(node):
            reverse[walk.edge_child[e]].append(node)
    # The set from which the game surely ends: the attractor of the endings for the others.
    ends = np.zeros(n, bool)
    queue = deque(node for node in range(n) if walk.to_move[node] == TERMINAL)
    for node in queue:
        ends[node] = True
    while queue:
        node = queue.popleft()
        for before in reverse[node]:
            if ends[before]:
                continue
            if walk.to_move[before] == player:
                left[before] -= 1
                if left[before]:
                    continue
            ends[before] = True
            queue.append(before)
    return ~ends


def _endless_play(walk: _Walk) -> list[Finding]:
    everything = [True] * len(walk.edge_child)
    cyclic = _on_cycles(walk, everything)
    if not cyclic.any():
        return []
    findings: list[Finding] = []
    names = walk.game.player_names
    forcing = [p for p in (0, 1) if _can_force_endless(walk, p)[0]]
    who = (
        " and ".join(names[p] for p in forcing) + " can force it never to end from the start"
        if forcing
        else "neither player can force it never to end from the start"
    )
    example = _cycle_from_start(walk, everything)
    if example is not None:
        findings.append(
            Finding(
                "endless-play",
                f"{int(cyclic.sum()):,} of {walk.nodes:,} positions lie on cycles: play can "
                f"return to an earlier position, so only the repetition rule ends it; {who} "
                "(repetition rule aside). The example returns to a position it passed.",
                example,
                {"positions_on_cycles": int(cyclic.sum()), "forced_by": forcing},
            )
        )
    optimal = _optimal_edges(walk)
    # Only a drawn position can be gone round for ever with best play: a player who is ahead
    # must make progress, since going round ends in a draw by repetition.
    drawn = [keep and walk.value[walk.edge_child[e]] == 0 for e, keep in enumerate(optimal)]
    example = _cycle_from_start(walk, optimal, drawn)
    if example is not None:
        findings.append(
            Finding(
                "optimal-cycle",
                "Perfect play by both can go round a cycle: every move of the example keeps "
                "the solved value, and it returns to a position it passed, so with best play "
                "the game is decided by the repetition rule rather than by its goal.",
                example,
                {},
            )
        )
    return findings


def _optimal_edges(walk: _Walk) -> list[bool]:
    """Per edge, whether it keeps the solved value (every chance edge does)."""
    keep = [True] * len(walk.edge_child)
    for node in range(walk.nodes):
        player = walk.to_move[node]
        if player < 0:
            continue
        for e in walk.edges(node):
            keep[e] = walk.value[walk.edge_child[e]] == walk.value[node]
    return keep


def _never_optimal(walk: _Walk) -> list[Finding]:
    legal: dict[str, int] = {}
    best_somewhere: set[str] = set()
    worst: dict[str, tuple[Fraction, int, int]] = {}  # label -> (cost, depth, node)
    for node in range(walk.nodes):
        player = walk.to_move[node]
        if player < 0 or walk.edge_start[node + 1] - walk.edge_start[node] < 2:
            continue
        sign = 1 if player == 0 else -1
        values = {e: sign * walk.value[walk.edge_child[e]] for e in walk.edges(node)}
        best = max(values.values())
        for e, v in values.items():
            label = walk.edge_label[e]
            legal[label] = legal.get(label, 0) + 1
            if v == best:
                best_somewhere.add(label)
            else:
                cost = best - v
                known = worst.get(label)
                if known is None or (cost, -walk.depth[node]) > (known[0], -known[1]):
                    worst[label] = (cost, walk.depth[node], node)
    findings = []
    for label in sorted(set(legal) - best_somewhere, key=lambda x: (-legal[x], x)):
        cost, _, node = worst[label]
        findings.append(
            Finding(
                "never-optimal",
                f"The choice {label!r} is legal in {legal[label]:,} positions with a choice "
                "but never among the best moves. The example ends with it where it costs "
                f"the most ({float(cost):.4f} of expected result).",
                [*walk.line(node), label],
                {"choice": label, "positions": legal[label], "largest_cost": round(float(cost), 6)},
            )
        )
    return findings


def _variants(game: Game) -> list[tuple[str, object]]:
    """Every other value of each choice option that the solvers still finish here (every one
    when the audited game itself is not listed as solved: the caller asked for exhaustive)."""
    listed = catalog.is_solved(game)
    found: list[tuple[str, object]] = []
    for option in type(game).option_spec:
        for choice in option.choices or ():
            if choice == game.options[option.name]:
                continue
            try:
                variant = type(game)({**game.options, option.name: choice})
            except FlipgamesError:
                continue
            if catalog.is_solved(variant) or not listed:
                found.append((option.name, choice))
    return found


def _option_flips(game: Game, walk: _Walk, progress: Progress) -> list[Finding]:
    base = walk.solution.value(walk.root, 0)
    findings = []
    for name, choice in _variants(game):
        variant = type(game)({**game.options, name: choice})
        progress(f"audit: solving {name}={choice}")
        solution = catalog.solve(variant, progress)
        value = solution.value(variant.new_initial_state(), 0)
        if value.expected == base.expected:
            continue
        flipped = (value.expected > 0) != (base.expected > 0) or (value.expected < 0) != (
            base.expected < 0
        )
        how = "flips" if flipped else "changes"
        findings.append(
            Finding(
                "option-flip",
                f"Option {name}={choice} {how} the solved value: the first player's expected "
                f"result goes from {float(base.expected):+.4f} to {float(value.expected):+.4f}.",
                _optimal_line(variant, solution),
                {
                    "option": name,
                    "choice": choice,
                    "flips": flipped,
                    **_value_details(value.expected, value.win, value.draw, value.loss),
                },
            )
        )
    return findings


# --- candidate fixes ------------------------------------------------------------------------


def _candidate_fixes(game: Game, findings: list[Finding], progress: Progress) -> list[Finding]:
    table = CANDIDATE_FIXES.get(game.name, {})
    holes = {f.kind for f in findings} & set(table)
    rows: list[Finding] = []
    for hole in sorted(holes):
        for fix in table[hole]:
            rows.append(fix_row(game, hole, fix, progress))
    return rows


def fix_row(
    game: Game, hole: str, fix: Mapping[str, object], progress: Progress = silent
) -> Finding:
    """Solve ``game`` with the options ``fix``: value, perfect-play game length (mean over
    seeded games where the solver picks the moves) and a recommendation."""
    variant = type(game)({**game.options, **fix})
    label = " ".join(f"{k}={v}" for k, v in fix.items())
    progress(f"audit: solving the candidate fix {label}")
    solution = catalog.solve(variant, progress)
    value = solution.value(variant.new_initial_state(), 0)
    length, decided = perfect_play_length(
        variant, solution, games=200, seed=1, progress=progress, what=f"perfect play with {label}"
    )
    base_length, base_decided = perfect_play_length(
        game,
        catalog.solve(game, progress),
        games=200,
        seed=1,
        progress=progress,
        what="perfect play under the standard rules",
    )
    advice = recommendation(value.expected, decided, base_decided, variant.player_names)
    details = _value_details(value.expected, value.win, value.draw, value.loss)
    details.update(
        {
            "hole": hole,
            "fix": dict(fix),
            "mean_length": round(length, 2),
            "decided": round(decided, 4),
            "standard_mean_length": round(base_length, 2),
            "standard_decided": round(base_decided, 4),
            "recommendation": advice,
        }
    )
    return Finding(
        "candidate-fix",
        f"Fix for {hole} with {label}: first player wins {_percent(value.win)}, draws "
        f"{_percent(value.draw)}, loses {_percent(value.loss)} (advantage "
        f"{float(value.expected):+.4f}); perfect play lasts {length:.1f} plies on average and "
        f"is decided in {decided * 100:.1f}% of games (standard rules: {base_length:.1f} plies, "
        f"{base_decided * 100:.1f}%); {advice}.",
        _optimal_line(variant, solution),
        details,
    )


def recommendation(
    advantage: Fraction, decided: float, base_decided: float, names: tuple[str, ...]
) -> str:
    """A one-line verdict on a fix: it must make perfect play decide more rounds than the
    standard rules, most of them, without handing either player an edge of 1/4 or more.

    >>> names = ("player 1", "player 2")
    >>> recommendation(Fraction(-1, 2), 0.94, 0.0, names)
    'closes the hole but hands player 2 a large edge'
    >>> recommendation(Fraction(1, 10), 0.3, 0.0, names)
    'partial: perfect play still draws most rounds'
    >>> recommendation(Fraction(1, 10), 0.8, 0.0, names)
    'recommended'
    """
    if decided <= base_decided:
        return "not recommended: perfect play is no more decisive"
    if abs(advantage) >= Fraction(1, 4):
        return f"closes the hole but hands {names[0 if advantage > 0 else 1]} a large edge"
    if decided < 0.5:
        return "partial: perfect play still draws most rounds"
    return "recommended"


def perfect_play_length(
    game: Game,
    solution: Any,
    *,
    games: int,
    seed: int,
    progress: Progress = silent,
    what: str = "perfect play",
) -> tuple[float, float]:
    """Mean plies and share of decided games when both players take a best move (drawn at
    random among the best, seeded) and chance is drawn with its probabilities. ``progress``
    hears of each game played (``what`` names them: on Flip Switch 200 games take about 12 s)."""
    rng = random.Random(seed)
    plies = 0
    decided = 0
    for number in range(games):
        progress(f"audit: {what}", done=number, total=games)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                action = sample_chance(state, rng)
            else:
                action = rng.choice(solution.best_actions(state))
            state = state.apply(action)
            plies += 1
        decided += state.returns()[0] != 0
    progress(f"audit: {what}", done=games, total=games)
    return plies / games, decided / games


# --- sampling -------------------------------------------------------------------------------


@dataclass
class _Sample:
    kind: str
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    capped: int = 0
    repeated: int = 0
    stuck: int = 0
    plies: int = 0
    repeat_example: list[str] | None = None
    stuck_example: list[str] | None = None
    stuck_how: set[str] = field(default_factory=set)
    first_game: list[str] = field(default_factory=list)


def _play(game: Game, sample: _Sample, agents: list[Any] | None, rng: random.Random) -> None:
    state = game.new_initial_state()
    seen = {state.key(): 0}
    line: list[str] = []
    repeat_at: int | None = None
    while not state.is_terminal() and len(line) < game.max_game_length:
        if state.is_chance_node():
            action = sample_chance(state, rng)
        elif agents is None:
            action = rng.choice(state.legal_actions())
        else:
            action = agents[state.current_player].choose(state)
        line.append(state.action_to_string(action))
        state = state.apply(action)
        if repeat_at is None and not state.is_terminal():
            if state.key() in seen:
                repeat_at = len(line)
            seen[state.key()] = len(line)
    sample.games += 1
    sample.plies += len(line)
    if not sample.first_game:
        sample.first_game = line
    if not state.is_terminal():
        sample.capped += 1
        sample.draws += 1
    else:
        result = state.returns()[0]
        if result > 0:
            sample.wins[0] += 1
        elif result < 0:
            sample.wins[1] += 1
        else:
            sample.draws += 1
        if NO_LEGAL.search(state.status_text()):
            sample.stuck += 1
            sample.stuck_how.add(state.status_text())
            if sample.stuck_example is None:
                sample.stuck_example = line
    if repeat_at is not None:
        sample.repeated += 1
        if sample.repeat_example is None:
            sample.repeat_example = line[:repeat_at]


def _sampled(
    game: Game, seed: int, random_games: int, level_games: int, progress: Progress
) -> list[Finding]:
    samples = [_Sample("random"), _Sample("easy")]
    total = random_games + level_games
    done = 0
    for index in range(random_games):
        _play(game, samples[0], None, random.Random(f"{seed}:random:{index}"))
        done += 1
        progress("audit: sampling games", done=done, total=total)
    for index in range(level_games):
        rng = random.Random(f"{seed}:easy:{index}")
        agents = [
            make_level_agent(game, "easy", random.Random(f"{seed}:easy:{index}:{p}"))
            for p in (0, 1)
        ]
        _play(game, samples[1], agents, rng)
        done += 1
        progress("audit: sampling games", done=done, total=total)
    findings: list[Finding] = []
    first = game.player_names[0]
    for sample in samples:
        if not sample.games:
            continue
        rate = sample.wins[0] / sample.games
        low, high = wilson_interval(rate, sample.games)
        findings.append(
            Finding(
                "first-player-advantage",
                f"In {sample.games:,} {sample.kind} vs {sample.kind} games (seed {seed}), "
                f"{first} won {sample.wins[0]:,} ({rate * 100:.1f}%, 95% interval "
                f"{low * 100:.1f}-{high * 100:.1f}%), lost {sample.wins[1]:,}, drew "
                f"{sample.draws:,}; {sample.plies / sample.games:.1f} plies on average.",
                sample.first_game,
                {
                    "playouts": sample.kind,
                    "games": sample.games,
                    "first_wins": sample.wins[0],
                    "second_wins": sample.wins[1],
                    "draws": sample.draws,
                    "first_win_rate": round(rate, 6),
                    "first_win_ci": [round(low, 6), round(high, 6)],
                    "mean_length": round(sample.plies / sample.games, 2),
                    "capped": sample.capped,
                },
            )
        )
    games = sum(s.games for s in samples)
    stuck = [s for s in samples if s.stuck_example is not None]
    if stuck:
        how = sorted(set().union(*(s.stuck_how for s in stuck)))
        count = sum(s.stuck for s in samples)
        example = stuck[0].stuck_example
        assert example is not None
        findings.append(
            Finding(
                "no-legal-action",
                f"{count:,} of {games:,} sampled games ended with the player to move having no "
                f"legal action; the rules resolve it as: {'; '.join(how[:3])}",
                example,
                {"games": count, "resolutions": how[:10]},
            )
        )
    repeats = [s for s in samples if s.repeat_example is not None]
    if repeats:
        count = sum(s.repeated for s in samples)
        example = repeats[0].repeat_example
        assert example is not None
        findings.append(
            Finding(
                "endless-play",
                f"{count:,} of {games:,} sampled games returned to an earlier position (only the "
                f"repetition rule ends such play); {sum(s.capped for s in samples):,} hit the "
                f"{game.max_game_length}-ply cap. The example returns to a position it passed.",
                example,
                {"games": count, "capped": sum(s.capped for s in samples)},
            )
        )
    findings.append(
        Finding(
            "not-checked",
            f"Sampled, not exhaustive ({games:,} games): no solved value, no check that a "
            "choice is never optimal or that an option flips the value, and a case not seen "
            f"may still occur{'' if stuck else ' (no game ended with no legal action)'}.",
            [],
            {"games": games, "seed": seed},
        )
    )
    return findings


def describe(audit_result: Audit) -> str:
    """The audit as text for a terminal: the method, then each finding and its example."""
    game = audit_result.game
    options = " ".join(f"{k}={v}" for k, v in game.options.items())
    lines = [f"{game.title} ({options}): {audit_result.method} audit"]
    for finding in audit_result.findings:
        lines.append(f"- [{finding.kind}] {finding.summary}")
        if finding.example:
            lines.append(f"    example: {' '.join(finding.example)}")
    rows = [f for f in audit_result.findings if f.kind == "candidate-fix"]
    if rows:
        lines.append("")
        lines.append(_fix_table(rows))
    return "\n".join(lines)


def _fix_table(rows: list[Finding]) -> str:
    head = "| fix | win | draw | loss | advantage | plies | decided | recommendation |"
    out = [head, "|" + " --- |" * 8]
    for row in rows:
        d = row.details
        fix = " ".join(f"{k}={v}" for k, v in d["fix"].items())
        out.append(
            f"| {fix} | {d['win']:.3f} | {d['draw']:.3f} | {d['loss']:.3f} | "
            f"{d['first_player_advantage']:+.3f} | {d['mean_length']:.1f} | "
            f"{d['decided']:.2f} | {d['recommendation']} |"
        )
    return "\n".join(out)
