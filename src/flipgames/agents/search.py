"""Depth-limited search: alpha-beta minimax with iterative deepening and a transposition
table, and expectiminimax at chance nodes.

Values are from the point of view of the player to move at the root: maximised where that
player moves, minimised where the opponent moves (turns need not alternate), averaged with
exact weights at chance nodes. Wins score ``WIN - plies`` so a quicker win is preferred;
positions at the depth limit score ``SCALE * state.evaluate(player)``.

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
from dataclasses import dataclass, field

from flipgames.agents.base import Agent
from flipgames.core.game import State

WIN = 10_000.0
INF = 2 * WIN
SCALE = 100.0
_EXACT, _LOWER, _UPPER = 0, 1, 2


class _OutOfTime(Exception):
    pass


@dataclass
class SearchResult:
    """The outcome of a search from the root's player's point of view."""

    action: int
    score: float
    depth: int
    nodes: int
    pv: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)


class AlphaBetaAgent(Agent):
    """Iterative-deepening alpha-beta (expectiminimax at chance nodes).

    ``depth`` caps the deepening; ``seconds`` stops it early, keeping the last full depth.
    Among equally scored root actions the choice is random (seeded), so play varies.
    """

    name = "alphabeta"

    def __init__(
        self,
        rng: random.Random,
        depth: int = 6,
        seconds: float | None = None,
        max_nodes: int | None = None,
    ) -> None:
        super().__init__(rng)
        if depth < 1:
            raise ValueError("search depth must be at least 1")
        self.depth = depth
        self.seconds = seconds
        self.max_nodes = max_nodes
        self._table: dict[object, tuple[int, float, int, int]] = {}
        self._nodes = 0
        self._deadline: float | None = None

    def choose(self, state: State) -> int:
        return self.search(state).action

    def search(self, state: State) -> SearchResult:
        """Search ``state`` (a player node) and return the best action with its score."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("search needs a state where a player is to move")
        self._table = {}
        self._nodes = 0
        self._deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        player = state.current_player
        result: SearchResult | None = None
        for depth in range(1, self.depth + 1):
            try:
                scores = self._root_scores(state, depth, player)
            except _OutOfTime:
                break
            best_score = max(scores.values())
            best = [a for a, s in scores.items() if s == best_score]
            action = best[0] if len(best) == 1 else self.rng.choice(best)
            pv = [action, *self._principal_variation(state.apply(action), depth - 1)]
            result = SearchResult(action, best_score, depth, self._nodes, pv, scores)
            if abs(best_score) >= WIN - 1000:
                break  # a proven result does not change with more depth
        if result is None:  # out of time before depth 1 finished: any legal action
            action = self.rng.choice(state.legal_actions())
            result = SearchResult(action, 0.0, 0, self._nodes, [action])
        return result

    def _root_scores(self, state: State, depth: int, player: int) -> dict[int, float]:
        # Every root action gets a full window: analysis wants each one's exact score.
        return {
            action: self._value(state.apply(action), depth - 1, -INF, INF, player, 1)
            for action in self._ordered(state, state.legal_actions())
        }

    def _ordered(self, state: State, actions: tuple[int, ...]) -> list[int]:
        entry = self._table.get(state.key())
        if entry is None:
            return list(actions)
        best = entry[3]
        return sorted(actions, key=lambda a: a != best)

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
        if entry is not None and entry[0] >= depth:
            _, value, flag, _ = entry
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
        for action in self._ordered(state, state.legal_actions()):
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
        self._table[key] = (depth, best_value, flag, best_action)
        return best_value

    def _check_budget(self) -> None:
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise _OutOfTime
        if self.max_nodes is not None and self._nodes > self.max_nodes:
            raise _OutOfTime

    def _principal_variation(self, state: State, depth: int) -> list[int]:
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
