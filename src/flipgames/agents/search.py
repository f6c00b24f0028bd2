"""Depth-limited search: alpha-beta minimax with iterative deepening and a transposition
table, and expectiminimax at chance nodes.

Values are from the point of view of the player to move at the root: maximised where that
player moves, minimised where the opponent moves (turns need not alternate), averaged with
exact weights at chance nodes. A win scores ``WIN - plies`` (a loss ``plies - WIN``) so a
quicker win and a slower loss are preferred; positions at the depth limit score
``SCALE * state.evaluate(player)``.

Moves are tried in this order: the best move stored for the position by an earlier, shallower
iteration, then by the history heuristic (actions that caused cut-offs elsewhere, weighted by
the depth of the cut-off; action ids mean the same move in every position of a game). At the
root the previous iteration's scores order the moves.

>>> import random
>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> result = AlphaBetaAgent(random.Random(0), depth=3).search(state)
>>> result.depth, state.action_to_string(result.action) in ("a1-a2", "b1-b2", "b1xb3", "c1-c2")
(3, True)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from flipgames.agents.base import Agent
from flipgames.agents.budget import timing
from flipgames.core.game import State

WIN = 10_000.0
INF = 2 * WIN
SCALE = 100.0
#: Scores this close to WIN are proven wins or losses, not evaluations.
PROVEN = WIN - 1000
_EXACT, _LOWER, _UPPER = 0, 1, 2
# At the root, moves are searched with alpha just below the best score so far: a move that
# ties the best gets its exact score (the random choice among equals stays fair) while a worse
# one is cut off as soon as it is shown to be worse.
_TIE_MARGIN = 1e-6


class _OutOfTime(Exception):
    pass


@dataclass
class SearchResult:
    """The outcome of a search from the root's player's point of view.

    ``scores`` holds every root action's score at ``depth``: exact for the actions that tie
    the best (all of them when the agent has ``exact_scores``), otherwise an upper bound that
    is below the best score. ``pv`` is the principal variation, starting with ``action``.
    """

    action: int
    score: float
    depth: int
    nodes: int
    pv: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)


class AlphaBetaAgent(Agent):
    """Iterative-deepening alpha-beta (expectiminimax at chance nodes).

    ``depth`` caps the deepening (in plies; a chance outcome counts as a ply); ``seconds`` and
    ``max_nodes`` stop it early, keeping the last depth that finished (node budgets are
    reproducible, seconds are not). ``depth_step=2`` deepens two plies at a time, from 1 for
    an odd ``depth`` and from 2 for an even one, so the horizon always falls after the same
    side's move (in Rubik's Flip the evaluation judges odd horizons much better). Among
    equally scored root actions the choice is random (seeded), so play varies.
    ``exact_scores`` gives every root action an exact score, for analysis; play does not need
    it and prunes more without it. ``clock`` measures ``seconds``: wall-clock by default,
    ``time.process_time`` for CPU time (matches at equal CPU time on a loaded machine).
    """

    name = "alphabeta"

    def __init__(
        self,
        rng: random.Random,
        depth: int = 6,
        seconds: float | None = None,
        max_nodes: int | None = None,
        exact_scores: bool = False,
        depth_step: int = 1,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(rng)
        if depth < 1:
            raise ValueError(f"search depth must be at least 1, got {depth}")
        if depth_step not in (1, 2):
            raise ValueError(f"depth_step must be 1 or 2, got {depth_step}")
        self.depth = depth
        self.depth_step = depth_step
        self.seconds = seconds
        self.clock = clock
        self.max_nodes = max_nodes
        self.exact_scores = exact_scores
        # key -> (depth searched, value stored relative to the node, bound kind, best action)
        self._table: dict[Hashable, tuple[int, float, int, int]] = {}
        self._history: dict[int, int] = {}
        self._nodes = 0
        self._deadline: float | None = None
        #: Nodes visited by the last search, all iterations (for benchmarks and analysis).
        self.last_nodes = 0
        #: The depth the last search completed.
        self.last_depth = 0

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1 and not state.is_chance_node():
            return legal[0]  # nothing to decide: save the budget
        return self.search(state).action

    def search(self, state: State) -> SearchResult:
        """Search ``state`` (a player node) and return the best action with its score."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("search needs a state where a player is to move")
        with timing(self.clock):
            return self._search(state)

    def _search(self, state: State) -> SearchResult:
        self._table = {}
        self._history = {}
        self._nodes = self.last_nodes = 0
        self._deadline = None if self.seconds is None else self.clock() + self.seconds
        player = state.current_player
        legal = state.legal_actions()
        result: SearchResult | None = None
        order = list(legal)
        start = 1 if self.depth_step == 1 else 2 - self.depth % 2
        for depth in range(start, self.depth + 1, self.depth_step):
            try:
                scores = self._root_scores(state, depth, player, order)
            except _OutOfTime:
                break
            best_score = max(scores.values())
            best = [a for a in legal if scores[a] == best_score]
            action = best[0] if len(best) == 1 else self.rng.choice(best)
            pv = [action, *self.principal_variation(state.apply(action), depth - 1)]
            result = SearchResult(action, best_score, depth, self._nodes, pv, scores)
            if abs(best_score) >= PROVEN and state.game.deterministic:
                break  # a proven result does not change with more depth
            # The next iteration tries the best moves of this one first (stable for ties).
            order.sort(key=lambda a: -scores[a])
        if result is None:  # out of budget before depth 1 finished: any legal action
            action = self.rng.choice(legal)
            result = SearchResult(action, 0.0, 0, self._nodes, [action])
        self.last_nodes = self._nodes
        self.last_depth = result.depth
        return result

    def _root_scores(
        self, state: State, depth: int, player: int, order: list[int]
    ) -> dict[int, float]:
        scores: dict[int, float] = {}
        best = -INF
        for action in order:
            alpha = -INF if self.exact_scores else best - _TIE_MARGIN
            value = self._value(state.apply(action), depth - 1, alpha, INF, player, 1)
            scores[action] = value
            best = max(best, value)
        return scores

    def _ordered(self, actions: tuple[int, ...], first: int) -> list[int]:
        history = self._history
        ordered = sorted(actions, key=lambda a: -history.get(a, 0))
        if first >= 0:
            ordered.remove(first)
            ordered.insert(0, first)
        return ordered

    def _value(
        self, state: State, depth: int, alpha: float, beta: float, player: int, ply: int
    ) -> float:
        self._nodes += 1
        if self._nodes & 1023 == 0:
            self._check_budget()
        if state.is_terminal():
            r = state.returns()[player]
            return r * (WIN - ply) if r else 0.0
        if depth <= 0:
            return SCALE * state.evaluate(player)
        if state.is_chance_node():
            return float(
                sum(
                    p * self._value(state.apply(o), depth - 1, -INF, INF, player, ply + 1)
                    for o, p in state.chance_outcomes()
                )
            )
        key = state.key()
        entry = self._table.get(key)
        first = -1
        if entry is not None:
            stored_depth, stored, flag, first = entry
            if stored_depth >= depth:
                value = _from_table(stored, ply)
                if flag == _EXACT:
                    return value
                if flag == _LOWER and value >= beta:
                    return value
                if flag == _UPPER and value <= alpha:
                    return value
        maximising = state.current_player == player
        original_alpha, original_beta = alpha, beta
        best_value = -INF if maximising else INF
        best_action = -1
        for action in self._ordered(state.legal_actions(), first):
            value = self._value(state.apply(action), depth - 1, alpha, beta, player, ply + 1)
            if maximising:
                if value > best_value:
                    best_value, best_action = value, action
                alpha = max(alpha, value)
            else:
                if value < best_value:
                    best_value, best_action = value, action
                beta = min(beta, value)
            if alpha >= beta:
                self._history[action] = self._history.get(action, 0) + depth * depth
                break
        # Values are from the root player's point of view at every node, so a result at or
        # below the original alpha is an upper bound and one at or above beta a lower bound,
        # whichever side moved here.
        if best_value <= original_alpha:
            flag = _UPPER
        elif best_value >= original_beta:
            flag = _LOWER
        else:
            flag = _EXACT
        self._table[key] = (depth, _to_table(best_value, ply), flag, best_action)
        return best_value

    def _check_budget(self) -> None:
        if self._deadline is not None and self.clock() > self._deadline:
            raise _OutOfTime
        if self.max_nodes is not None and self._nodes > self.max_nodes:
            raise _OutOfTime

    def principal_variation(self, state: State, max_plies: int | None = None) -> list[int]:
        """The best line from ``state`` as the last search left it in its transposition
        table (for a root action ``a``: call it with ``root.apply(a)``). It stops at a chance
        node, at the end of the game, at a position not searched, on a repetition, or after
        ``max_plies`` (default: the depth of the last search).

        >>> import random
        >>> from flipgames import make
        >>> state = make("flipflop-3x3").new_initial_state()
        >>> agent = AlphaBetaAgent(random.Random(0), depth=4, exact_scores=True)
        >>> result = agent.search(state)
        >>> agent.principal_variation(state.apply(result.action), 3) == result.pv[1:]
        True
        """
        depth = self.last_depth if max_plies is None else max_plies
        line: list[int] = []
        seen = set()
        while depth > 0 and not state.is_terminal() and not state.is_chance_node():
            entry = self._table.get(state.key())
            if entry is None or entry[3] < 0 or state.key() in seen:
                break
            seen.add(state.key())
            line.append(entry[3])
            state = state.apply(entry[3])
            depth -= 1
        return line


def _to_table(value: float, ply: int) -> float:
    """A proven score counted from the root becomes one counted from this node, so the
    entry is right wherever the position turns up again (at another ply)."""
    if value >= PROVEN:
        return value + ply
    if value <= -PROVEN:
        return value - ply
    return value


def _from_table(value: float, ply: int) -> float:
    """The inverse of :func:`_to_table` for a node at ``ply``."""
    if value >= PROVEN:
        return value - ply
    if value <= -PROVEN:
        return value + ply
    return value
