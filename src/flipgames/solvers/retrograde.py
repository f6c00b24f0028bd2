"""Strong solutions of small deterministic games by retrograde analysis.

Every position reachable from the start is enumerated (positions are ``State.key()`` values;
repetition is a property of a path, not a position), then values are propagated backwards from
the terminal positions in order of distance:

* a position is a **win** for the player to move if some action reaches a position that is a
  win for them (remoteness: the fewest plies to the end, the winner hurrying);
* a **loss** if every action reaches a position that is a win for the opponent (remoteness:
  the most plies, the loser delaying);
* every other position is a **draw**: either a drawn terminal is reachable or both sides can
  keep the game going forever, which the third-repetition rule turns into a draw. Draws have
  no remoteness (``None``).

This is exact for the repetition rule: a side that can force a win can force it without
repeating a position, and a side that can avoid losing forever gets at least the draw.

>>> from flipgames import make
>>> solution = solve(make("flipflop-3x3"))
>>> solution.value(make("flipflop-3x3").new_initial_state())
('win', 15)
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State
from flipgames.core.progress import Progress, silent

WIN, DRAW, LOSS = 1, 0, -1
WORDS = {WIN: "win", DRAW: "draw", LOSS: "loss"}


def _thaw(key: Hashable) -> Any:
    """A position key as JSON: tuples become lists."""
    return [_thaw(k) for k in key] if isinstance(key, tuple) else key


def _freeze(data: Any) -> Hashable:
    """Undo :func:`_thaw`."""
    if isinstance(data, list):
        return tuple(_freeze(d) for d in data)
    if isinstance(data, int | str) and not isinstance(data, bool):
        return data
    raise ValueError(f"not a position key: {data!r}")


class SolverError(FlipgamesError, ValueError):
    """A solver asked of a game it cannot handle, or a position it has not solved."""


@dataclass
class Solution:
    """Value (for the player to move) and remoteness of every reachable position."""

    game: Game
    values: dict[Hashable, tuple[int, int | None]]
    seconds: float

    def lookup(self, state: State) -> tuple[int, int | None]:
        """(WIN/DRAW/LOSS for the player to move, remoteness or None for draws)."""
        if state.is_terminal():
            return self._terminal_value(state)
        try:
            return self.values[state.key()]
        except KeyError:
            raise SolverError("that position is not reachable from the start") from None

    def _terminal_value(self, state: State) -> tuple[int, int | None]:
        _, value = _terminal(state)
        return (value, 0)

    def to_payload(self) -> dict[str, Any]:
        """A JSON-native form for the disk cache (keys must be ints or nested lists)."""
        return {
            "seconds": self.seconds,
            "values": [[_thaw(k), v, r] for k, (v, r) in self.values.items()],
        }

    @classmethod
    def from_payload(cls, game: Game, payload: Any) -> Solution:
        """Rebuild from :meth:`to_payload`; ValueError if the payload is malformed."""
        try:
            values = {
                _freeze(k): (int(v), None if r is None else int(r)) for k, v, r in payload["values"]
            }
            seconds = float(payload["seconds"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed retrograde solution: {exc}") from None
        if not all(v in WORDS for v, _ in values.values()):
            raise ValueError("malformed retrograde solution: values must be -1, 0 or 1")
        return cls(game, values, seconds)

    def value(self, state: State) -> tuple[str, int | None]:
        """Like :meth:`lookup` with the value in words."""
        v, rem = self.lookup(state)
        return WORDS[v], rem

    def action_values(self, state: State) -> dict[int, tuple[int, int | None]]:
        """Per legal action: (value for the player to move at ``state``, remoteness after it
        plus one). A move into a position repeated for the third time is a draw."""
        player = state.current_player
        result: dict[int, tuple[int, int | None]] = {}
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                r = child.returns()[player]
                result[action] = (WIN if r > 0 else LOSS if r < 0 else DRAW, 1)
                continue
            v, rem = self.values[child.key()]
            if child.current_player != player:
                v = -v
            result[action] = (v, None if rem is None else rem + 1)
        return result

    def best_actions(self, state: State) -> list[int]:
        """The actions that keep the best value: the quickest win, any draw, the slowest
        loss."""
        scored = self.action_values(state)
        best_value = max(v for v, _ in scored.values())
        candidates = {a: rem for a, (v, rem) in scored.items() if v == best_value}
        if best_value == DRAW:
            return sorted(candidates)
        pick = min if best_value == WIN else max
        target = pick(rem for rem in candidates.values() if rem is not None)
        return sorted(a for a, rem in candidates.items() if rem == target)


def _terminal(state: State) -> tuple[int, int]:
    """(the player who would move, WIN/DRAW/LOSS for them) at a terminal state: the player who
    did not make the last action."""
    previous = state.parent
    player = 1 - previous.current_player if previous is not None else 0
    r = state.returns()[player]
    return player, WIN if r > 0 else LOSS if r < 0 else DRAW


def solve(
    game: Game, progress: Progress | None = None, max_positions: int | None = None
) -> Solution:
    """Solve a deterministic two-player game completely (see the module docstring).

    With ``max_positions``, give up with :class:`SolverError` once more positions than that
    are reachable, saying how far the enumeration got.
    """
    if not game.deterministic or game.num_players != 2:
        raise SolverError(f"retrograde analysis needs a deterministic 2-player game: {game.name}")
    started = time.perf_counter()
    say = progress or silent

    # 1. Enumerate. BFS reaches each position first along a shortest path, which never
    # repeats a position, so no repetition draw can cut the enumeration short.
    root = game.new_initial_state()
    index: dict[Hashable, int] = {root.key(): 0}
    states: list[State | None] = [root]
    players: list[int] = []
    parents: list[list[int]] = [[]]
    unresolved: list[int] = []
    values: list[int] = []
    remoteness: list[int] = []
    terminal: deque[int] = deque()
    depths = [0]  # plies from the start along a shortest path, for progress reports
    node = 0
    while node < len(states):
        state = states[node]
        assert state is not None
        states[node] = None  # drop the state object once expanded: keys are enough
        values.append(DRAW)
        remoteness.append(-1)
        if state.is_terminal():
            player, value = _terminal(state)
            players.append(player)
            unresolved.append(0)
            if value != DRAW:
                values[node] = value
                remoteness[node] = 0
                terminal.append(node)
        else:
            players.append(state.current_player)
            actions = state.perft_actions()
            unresolved.append(len(actions))
            for action in actions:
                child = state.apply_perft(action)
                key = child.key()
                child_index = index.get(key)
                if child_index is None:
                    child_index = index[key] = len(states)
                    states.append(child)
                    parents.append([])
                    depths.append(depths[node] + 1)
                parents[child_index].append(node)
        node += 1
        if max_positions is not None and len(states) > max_positions:
            seconds = time.perf_counter() - started
            raise SolverError(
                f"{game.name} is too large to solve here: more than {max_positions:,} positions "
                f"are reachable; every position up to ply {depths[node] - 1} was expanded "
                f"({node:,} positions, {seconds:.0f} s)"
            )
        if node % 50_000 == 0:
            say(
                f"expanded {node:,} positions (ply {depths[node - 1]}), "
                f"{len(states) - node:,} waiting",
                done=node,
            )
    say(f"enumerated {len(states):,} positions; propagating values", done=len(states))

    # 2. Propagate from the decided terminals in order of remoteness.
    queue = terminal
    while queue:
        decided = queue.popleft()
        child_player = players[decided]
        child_value = values[decided]
        for parent in parents[decided]:
            if remoteness[parent] >= 0:  # already decided
                continue
            value = child_value if players[parent] == child_player else -child_value
            if value == WIN:
                values[parent] = WIN
                remoteness[parent] = remoteness[decided] + 1
                queue.append(parent)
            else:
                unresolved[parent] -= 1
                if unresolved[parent] == 0:
                    values[parent] = LOSS
                    remoteness[parent] = remoteness[decided] + 1
                    queue.append(parent)
    solved = {
        key: (values[i], remoteness[i] if values[i] != DRAW else None) for key, i in index.items()
    }
    return Solution(game, solved, time.perf_counter() - started)
