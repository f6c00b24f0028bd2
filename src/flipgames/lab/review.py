"""Game review: the value of every position of a game, from the first player's point of view,
and the moves that threw value away.

A position's *value* here is the first player's expected score in [0, 1] (a win counts 1, a
draw 1/2, a loss 0), whoever is to move, so one chart shows a whole game. It comes from the
best source this machine has for the game, chosen from what the game offers, never from its
name:

* ``solution``: the exact solution (:mod:`flipgames.solvers.catalog`) where the game with its
  options is solved and the solution is ready: a deterministic game's win, draw or loss; a
  chance game's exact expectation, i.e. the win probability plus half the draw probability.
  The solution reads the position alone, which holds only what was public then (a face-down
  tile is not in any state before it is flipped), so no value foretells a chance outcome.
* ``search``: the kernel's exact alpha-beta (:mod:`flipgames.solvers.alphabeta`) for games
  proved by search, wherever it answers within :data:`EXACT_NODES` nodes (the cached proof at
  the first turn).
* ``engine``: elsewhere, the compiled alpha-beta with the game's evaluation and the
  manifest's node budget (:class:`~flipgames.core.manifest.ReviewFacts`), its score ``x`` (an
  estimate of the return in (-1, 1)) mapped to a winning chance ``1 / (1 + exp(-x / scale))``;
  a proven win or loss is 1 or 0. Games without a compiled search use the reference
  expectiminimax with the same budget.
* ``round``: in a match of rounds whose single round is solved (the manifest's ``rounds``
  splitter, :mod:`flipgames.core.match`, replays the round as one of that game), the exact
  value *of the round being played*: each round is valued on its own, from about even at its start.
* ``end``: a finished position's result.

A move is *marked* by how much of the mover's expected score it gave away (the value before
the move, for the mover, minus the value after it), with lichess's thresholds on its winning
chances, halved because this scale runs over [0, 1] rather than [-1, 1]: an **inaccuracy**
gives away at least 0.05, a **mistake** 0.10, a **blunder** 0.15 (:data:`THRESHOLDS`).
Chance outcomes are never marked: luck is nobody's mistake. In a solved deterministic game
every loss of value (a win to a draw is 0.5) is a blunder.

>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> state = game.state_from_actions(["b1xb3"])  # the winning first move
>>> review = review_game(state)
>>> [(p.ply, p.value, p.source) for p in review.points]
[(0, 1.0, 'solution'), (1, 1.0, 'solution')]
>>> review.points[1].mark is None, review.points[0].best
(True, ['b1xb3'])
>>> classify(0.5), classify(0.12), classify(0.07), classify(0.01)
('blunder', 'mistake', 'inaccuracy', None)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from flipgames.core.game import Game, State
from flipgames.core.manifest import ReviewFacts, has_manifest, manifest_of
from flipgames.core.match import MatchPosition, splitter
from flipgames.core.position import has_position_notation
from flipgames.solvers import alphabeta, catalog
from flipgames.solvers.solution import SolverError

if TYPE_CHECKING:
    from flipgames.agents.kernel_search import KernelAlphaBetaAgent
    from flipgames.solvers.solution import Solution

#: The marks, worst first, by the least share of the expected score the move gave away.
THRESHOLDS: Final = (("blunder", 0.15), ("mistake", 0.10), ("inaccuracy", 0.05))
#: Nodes the exact search may spend on one position of a game proved by search (about a
#: tenth of a CPU second on the machine of docs/solvers.md) before the engine answers instead.
EXACT_NODES: Final = 150_000
#: The transposition table of that search, kept for a whole review.
EXACT_TABLE_BYTES: Final = 16 << 20

#: Told how many positions of how many are done.
Progress = Callable[[int, int], None]


def classify(drop: float) -> str | None:
    """The mark for a move that gave away ``drop`` of the mover's expected score, or None."""
    for label, least in THRESHOLDS:
        if drop >= least - 1e-9:
            return label
    return None


@dataclass
class Assessment:
    """One position's value for the first player (None: unknown), where it came from, whether
    it is exact, and its best actions (ids; empty at chance nodes and ends); ``actions``: each
    legal action's value for the first player where the source knows them all exactly."""

    value: float | None
    source: str
    exact: bool
    best: list[int] = field(default_factory=list)
    actions: dict[int, float] | None = None


@dataclass
class Point:
    """One position of a reviewed game: after ``ply`` actions, reached by ``action`` (notation;
    None at the start) of player ``by`` (-1: chance), with its value and best moves
    (notation), and the mark of the move that reached it."""

    ply: int
    action: str | None
    by: int | None
    value: float | None
    source: str
    exact: bool
    best: list[str]
    drop: float | None = None
    mark: str | None = None
    position: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "action": self.action,
            "by": self.by,
            "value": None if self.value is None else round(self.value, 4),
            "source": self.source,
            "exact": self.exact,
            "best": self.best,
            "drop": None if self.drop is None else round(self.drop, 4),
            "mark": self.mark,
            "position": self.position,
        }


@dataclass
class Review:
    """A whole game's points, one per position from the start."""

    game: Game
    points: list[Point]

    def to_json(self) -> dict[str, Any]:
        marks = {label: 0 for label, _ in THRESHOLDS}
        for point in self.points:
            if point.mark:
                marks[point.mark] += 1
        return {
            "game": self.game.name,
            "options": dict(self.game.options),
            "players": list(self.game.player_names),
            "thresholds": dict(THRESHOLDS),
            "marks": marks,
            "points": [p.to_json() for p in self.points],
        }


def _first(value_for_mover: float, mover: int) -> float:
    """A mover's expected score as the first player's."""
    return value_for_mover if mover == 0 else 1.0 - value_for_mover


class Evaluator:
    """Values of ``game``'s positions from the best source it has (see the module docstring).
    Keeps its searches' tables from one position to the next: use one per review."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        self.game = game
        self.rng = random.Random(seed)
        self.facts = manifest_of(game).review if has_manifest(game) else ReviewFacts()
        self.solution: Solution | None = (
            catalog.solution(game) if catalog.solution_ready(game) else None
        )
        self._proof: Any = None
        self._exact: Any = None
        if self.solution is None and alphabeta.is_provable(game):
            import numpy as np  # only for a proof search: the module loads light

            self._exact = alphabeta.searchable(game)
            self._proof = alphabeta.cached_proof(game)
            self._table = np.zeros(alphabeta.table_entries(EXACT_TABLE_BYTES), dtype=np.int64)
        self._engine: KernelAlphaBetaAgent | None = None
        # A match of rounds (the manifest's ``rounds``) is valued round by round.
        self._split = splitter(game) if self.solution is None else None

    @property
    def kind(self) -> str:
        """Where most values come from: ``solution``, ``search`` or ``engine``."""
        if self.solution is not None:
            return "solution"
        return "search" if self._exact is not None else "engine"

    def assess(self, state: State) -> Assessment:
        """``state``'s value for the first player, its source and its best actions."""
        if state.is_terminal():
            return Assessment((state.returns()[0] + 1) / 2, "end", True)
        if self.solution is not None:
            try:
                return self._solved(self.solution, state)
            except SolverError:
                pass  # a position set up by hand that the start never reaches: search it
        if self._split is not None:
            found = self._by_round(self._split(state))
            if found is not None:
                return found
        if self._exact is not None and not state.is_chance_node():
            found = self._searched(state)
            if found is not None:
                return found
        return self._engine_value(state)

    def _solved(self, solution: Solution, state: State) -> Assessment:
        value = (float(solution.value(state, player=0).expected) + 1) / 2
        if state.is_chance_node():
            return Assessment(value, "solution", True)
        mover = state.current_player
        actions = {
            action: _first((float(v.expected) + 1) / 2, mover)
            for action, v in solution.action_values(state).items()
        }
        return Assessment(value, "solution", True, solution.best_actions(state), actions)

    def _by_round(self, seen: MatchPosition) -> Assessment | None:
        """The value of the round being played, by the solution of one round (seats swapped
        back where the round swaps them), or None where that solution is not ready."""
        single = seen.round_state
        if single is None or not catalog.solution_ready(single.game):
            return None
        try:
            found = self._solved(catalog.solution(single.game), single)
        except SolverError:
            return None
        found.source = "round"
        if seen.swapped and found.value is not None:
            found.value = 1.0 - found.value
            found.actions = {a: 1.0 - v for a, v in (found.actions or {}).items()}
        return found

    def _searched(self, state: State) -> Assessment | None:
        """The exact search's value and value-keeping actions, or None when over budget."""
        import numpy as np

        mover = state.current_player
        proof = self._proof
        if proof is not None and state.key() == self.game.new_initial_state().key():
            best = [
                state.parse_action(turn)
                for turn, value in proof.first_turns.items()
                if value == proof.value
            ]
            return Assessment(_first((proof.value + 1) / 2, mover), "search", True, sorted(best))
        stats = np.array([0, EXACT_NODES, 0], dtype=np.int64)
        position = self._exact.position(state)
        value = int(self._exact.search(position, -1, 1, self._table, stats))
        if stats[2]:
            return None
        keeping = alphabeta.best_actions(self._exact, state, self._table, EXACT_NODES)
        if keeping is None:
            return None
        return Assessment(_first((value + 1) / 2, mover), "search", True, sorted(keeping))

    def _chance(self, x: float, proven: bool) -> float:
        """An evaluation (the return's estimate in (-1, 1), side to move) as a winning chance;
        a proven win or loss (``proven``, ``x``'s sign) is 1 or 0."""
        if proven:
            return 1.0 if x > 0 else 0.0
        return 1 / (1 + math.exp(-x / self.facts.scale))

    def _engine_value(self, state: State) -> Assessment:
        if state.is_chance_node():
            # Each outcome's value, weighted: the position's expectation before the draw.
            total = 0.0
            for outcome, probability in state.chance_outcomes():
                found = self.assess(state.apply(outcome)).value
                if found is None:
                    return Assessment(None, "engine", False)
                total += float(probability) * found
            return Assessment(total, "engine", False)
        from flipgames.agents.kernel_search import has_kernel_search

        if has_kernel_search(self.game):
            return self._kernel_value(state)
        return self._reference_value(state)

    def _kernel_value(self, state: State) -> Assessment:
        from flipgames.agents.kernel_search import KernelAlphaBetaAgent
        from flipgames.kernels.search import PROVEN
        from flipgames.solvers.endgame import ready_endgame_table

        if self._engine is None:
            self._engine = KernelAlphaBetaAgent(self.rng, self.game, max_nodes=self.facts.nodes)
        # The endgame tables where the game has them and they are built (never built here).
        self._engine.probe(ready_endgame_table(self.game))
        result = self._engine.search(state)
        if not result.scores:
            return Assessment(None, "engine", False)
        top = max(result.scores.values())
        best = sorted(a for a, s in result.scores.items() if s == top)
        chance = self._chance(math.tanh(top / 1000), abs(top) > PROVEN)
        return Assessment(_first(chance, state.current_player), "engine", False, best)

    def _reference_value(self, state: State) -> Assessment:
        from flipgames.agents.search import PROVEN, SCALE, AlphaBetaAgent

        agent = AlphaBetaAgent(self.rng, depth=64, max_nodes=self.facts.nodes)
        result = agent.search(state)
        top = result.score
        chance = self._chance(top / SCALE, abs(top) > PROVEN)
        best = sorted(a for a, s in result.scores.items() if s >= top - 1e-9)
        return Assessment(_first(chance, state.current_player), "engine", False, best)


def _line(state: State) -> list[State]:
    steps = [state]
    while (parent := steps[-1].parent) is not None:
        steps.append(parent)
    steps.reverse()
    return steps


def review_game(final: State, progress: Progress | None = None, seed: int = 0) -> Review:
    """Every position from the start to ``final`` assessed, each move marked by the value it
    gave away; ``progress(done, total)`` after each position."""
    steps = _line(final)
    evaluator = Evaluator(final.game, seed)
    notation = has_position_notation(final.game)
    points: list[Point] = []
    assessed: list[Assessment] = []
    for ply, state in enumerate(steps):
        found = evaluator.assess(state)
        assessed.append(found)
        action = by = None
        if ply:
            before = steps[ply - 1]
            by = before.current_player
            action = before.action_to_string(state.history[-1])
        point = Point(
            ply,
            action,
            by,
            found.value,
            found.source,
            found.exact,
            [state.action_to_string(a) for a in found.best],
            position=state.position() if notation else None,
        )
        if ply and by is not None and by >= 0:
            _mark(point, assessed[ply - 1], found, by, state.history[-1])
        points.append(point)
        if progress is not None:
            progress(ply + 1, len(steps))
    return Review(final.game, points)


def _mark(point: Point, before: Assessment, after: Assessment, mover: int, action: int) -> None:
    """Mark ``point``'s move (``action`` of ``mover``) by what it gave away: the position's
    value minus the move's, by the source that valued the position before it where it values
    each action (so a move that ends a round is judged by that round's result), else minus
    the value after it."""
    chosen = (before.actions or {}).get(action, after.value)
    if before.value is None or chosen is None:
        return
    sign = 1.0 if mover == 0 else -1.0
    drop = max(0.0, sign * (before.value - chosen))
    point.drop = drop
    point.mark = classify(drop)
