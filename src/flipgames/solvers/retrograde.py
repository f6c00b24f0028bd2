"""Strong solutions of small deterministic games by retrograde analysis.

The positions come from :func:`~flipgames.solvers.graph.solver_graph` (the game's compiled
kernel's graph where it has one, else the reference engine's walk; repetition is a property
of a path, not a position, so the graph keeps every cycle). Values are propagated backwards
from the decided terminal positions in order of distance, in compiled code:

* a position is a **win** for the player to move if some action reaches a position that is a
  win for them (remoteness: the fewest plies to the end, the winner hurrying);
* a **loss** if every action reaches a position that is a win for the opponent (remoteness:
  the most plies, the loser delaying);
* every other position is a **draw**: either a drawn terminal is reachable or both sides can
  keep the game going forever, which the third-repetition rule turns into a draw. Draws have
  no remoteness (``None``).

The propagation is numpy, one remoteness level at a time (:func:`propagate`): no compiled
code, so solving a game whose graph needs none (FlipFlop 3x3's) never loads numba.

This is exact for the repetition rule: a side that can force a win can force it without
repeating a position, and a side that can avoid losing forever gets at least the draw.

>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> solution = solve(game)
>>> value = solution.value(game.new_initial_state())
>>> value.outcome, value.remoteness
('win', 15)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import numpy.typing as npt

from flipgames.core.game import CHANCE, TERMINAL, Game, State
from flipgames.core.progress import Progress, silent
from flipgames.solvers import cache
from flipgames.solvers.graph import Locator, locator_from_payload, solver_graph, stored_keying
from flipgames.solvers.payload import pack_array, unpack_array
from flipgames.solvers.solution import SolverError, Value

#: Bump when the results or the payload format change: old cache files are then ignored.
VERSION = 2

__all__ = ["RetrogradeSolution", "SolverError", "cached_solve", "solve"]


class RetrogradeSolution:
    """Value and remoteness of every reachable position (a :class:`~.solution.Solution`)."""

    def __init__(
        self,
        game: Game,
        locator: Locator,
        values: npt.NDArray[np.int8],
        remoteness: npt.NDArray[np.int32],
        seconds: float,
    ) -> None:
        self.game = game
        self.seconds = seconds
        self._locator = locator
        # Player 0's value (+1, 0, -1) and the remoteness (-1 for draws) per node.
        self._values = values
        self._remoteness = remoteness

    @property
    def positions(self) -> int:
        return len(self._values)

    def node(self, state: State) -> int | None:
        """``state``'s position number in this solution, or None when it holds no such
        position (symmetric images share one)."""
        return self._locator.node(state)

    def value(self, state: State, player: int | None = None) -> Value:
        """The value for ``player`` (default: the player to move; player 0 once over). A
        finished position has remoteness 0."""
        if player is None:
            player = max(state.current_player, 0)
        elif player not in (0, 1):
            raise SolverError(f"player must be 0 or 1, got {player!r}")
        if state.is_terminal():
            return Value.certain(state.returns()[player], remoteness=0)
        node = self._locator.node(state)
        if node is None:
            raise SolverError("that position is not reachable from the start")
        result = int(self._values[node])
        remoteness = int(self._remoteness[node])
        return Value.certain(
            result if player == 0 else -result, None if remoteness < 0 else remoteness
        )

    def action_values(self, state: State) -> dict[int, Value]:
        """Per legal action: its value for the player to move at ``state``, the remoteness
        counted from ``state`` (one more than after the action). A move into a position
        repeated for the third time is a draw."""
        if state.current_player < 0:
            raise SolverError("action values need a player to move; the game is over")
        player = state.current_player
        result: dict[int, Value] = {}
        for action in state.legal_actions():
            value = self.value(state.apply(action), player)
            if value.remoteness is not None:
                value = Value.certain(int(value.expected), value.remoteness + 1)
            result[action] = value
        return result

    def best_actions(self, state: State) -> list[int]:
        """The actions that keep the best value: the quickest win, any draw, the slowest
        loss."""
        scored = self.action_values(state)
        best = max(v.expected for v in scored.values())
        candidates = {a: v.remoteness for a, v in scored.items() if v.expected == best}
        if best == 0:
            return sorted(candidates)
        pick = min if best > 0 else max
        target = pick(rem for rem in candidates.values() if rem is not None)
        return sorted(a for a, rem in candidates.items() if rem == target)

    def to_payload(self) -> dict[str, Any]:
        """A JSON-native form for the disk cache."""
        return {
            "positions": self.positions,
            "seconds": self.seconds,
            "locator": self._locator.to_payload(),
            "values": pack_array(self._values),
            "remoteness": pack_array(self._remoteness),
        }

    @classmethod
    def from_payload(cls, game: Game, payload: Any) -> RetrogradeSolution:
        """Rebuild from :meth:`to_payload`; :class:`SolverError` if the payload is malformed."""
        try:
            positions = int(payload["positions"])
            seconds = float(payload["seconds"])
            values = unpack_array(payload["values"], np.int8, positions, "values")
            remoteness = unpack_array(payload["remoteness"], np.int32, positions, "remoteness")
            # Payloads are written for solutions from the start (the disk cache's).
            locator = locator_from_payload(
                game, payload["locator"], positions, game.new_initial_state()
            )
        except SolverError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise SolverError(f"malformed retrograde solution: {exc!r}") from None
        if positions and (values.min() < -1 or values.max() > 1):
            raise SolverError("malformed retrograde solution: values must be -1, 0 or 1")
        return cls(game, locator, values, remoteness, seconds)


def solve(
    game: Game, progress: Progress = silent, max_positions: int | None = None
) -> RetrogradeSolution:
    """Solve a deterministic two-player game completely (see the module docstring).

    With ``max_positions``, give up with :class:`SolverError` once more positions than that
    are reachable, saying how far the enumeration got.
    """
    if not game.deterministic or game.num_players != 2:
        raise SolverError(f"retrograde analysis needs a deterministic 2-player game: {game.name}")
    started = time.perf_counter()
    solved = solver_graph(game, progress, max_positions=max_positions)
    graph = solved.graph
    if (graph.to_move == CHANCE).any():
        raise SolverError(f"{game.name}: the position graph has chance nodes")
    progress("propagating values", done=graph.nodes, total=graph.nodes)
    values, remoteness = propagate(
        graph.edge_start, graph.edge_child, graph.to_move, graph.terminal_return
    )
    return RetrogradeSolution(
        game, solved.locator, values, remoteness, time.perf_counter() - started
    )


def propagate(
    edge_start: npt.NDArray[np.int64],
    edge_child: npt.NDArray[np.int32],
    to_move: npt.NDArray[np.int8],
    terminal_return: npt.NDArray[np.int8],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]:
    """Player 0's value (+1, 0, -1) and remoteness (-1 for draws) of every position of a
    deterministic game's graph, propagated from the decided terminals one remoteness level
    at a time: a position is won for its mover once some child is won for them (at the
    level after that child's), lost once every child is lost for them (after the last
    one's); the rest are draws.

    A node cannot be both in one level: while an edge to a child won for its mover is left,
    not every edge has been counted down.

    >>> # Player 0 at 0 moves to 1 or 3; player 1 at 1 moves to 2, where player 0 has lost;
    >>> # 3 is a drawn end. Player 1 wins at 1 (in 1 ply), so player 0 takes the draw.
    >>> values, remoteness = propagate(
    ...     np.array([0, 2, 3, 3, 3]), np.array([1, 3, 2], np.int32),
    ...     np.array([0, 1, -2, -2], np.int8), np.array([0, 0, -1, 0], np.int8))
    >>> values.tolist(), remoteness.tolist()
    ([0, -1, -1, 0], [-1, 1, 0, -1])
    """
    n = len(to_move)
    degree = np.diff(edge_start)
    # Predecessor lists: the edges' parents ordered by child (in any order within a child).
    parents = np.repeat(np.arange(n, dtype=np.int32), degree)[np.argsort(edge_child)]
    pred_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(edge_child, minlength=n), out=pred_start[1:])
    # Edges not yet known to lose for the node's mover.
    unresolved = degree.copy()
    value = np.zeros(n, dtype=np.int8)
    remoteness = np.full(n, -1, dtype=np.int32)
    level = np.flatnonzero((to_move == TERMINAL) & (terminal_return != 0))
    value[level] = terminal_return[level]
    remoteness[level] = 0
    depth = 0
    while len(level):
        first, counts = pred_start[level], pred_start[level + 1] - pred_start[level]
        ends = np.cumsum(counts)
        edges = np.repeat(first - ends + counts, counts) + np.arange(ends[-1])
        node = parents[edges]
        child_value = np.repeat(value[level], counts)
        open_node = remoteness[node] < 0
        node, child_value = node[open_node], child_value[open_node]
        # The child's value for the node's mover: player 0's value, negated for player 1.
        mover = to_move[node]
        wins = (child_value > 0) == (mover == 0)
        losing = node[~wins]
        np.subtract.at(unresolved, losing, 1)
        lost = losing[unresolved[losing] == 0]
        won = node[wins]
        depth += 1
        value[won] = 1 - 2 * mover[wins]
        value[lost] = 2 * to_move[lost] - 1
        remoteness[won] = depth
        remoteness[lost] = depth
        # (The arrays above may repeat a node; the level lists each once.)
        level = np.flatnonzero(remoteness == depth)
    return value, remoteness


def cached_solve(
    game: Game, progress: Progress = silent, max_positions: int | None = None
) -> RetrogradeSolution:
    """:func:`solve` through the disk cache (keyed by the keying, see
    :func:`~flipgames.solvers.graph.keying`)."""
    return cache.cached(
        f"retrograde-{stored_keying(game, 'retrograde', VERSION)}",
        VERSION,
        game,
        lambda: solve(game, progress, max_positions=max_positions),
        RetrogradeSolution.to_payload,
        lambda payload: RetrogradeSolution.from_payload(game, payload),
    )
