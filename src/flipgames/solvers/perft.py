"""perft: count the distinct legal action sequences of a given length.

As RULINGS.md defines it: a terminal position has no legal actions and repetition draws are
ignored. Only deterministic games have a perft.

>>> from flipgames import make
>>> perft_counts(make("flipflop-3x3").new_initial_state(), 2)
[4, 10]
"""

from __future__ import annotations

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import State


class PerftUnsupportedError(FlipgamesError, ValueError):
    """perft asked of a game with chance nodes."""


def _require_deterministic(state: State) -> None:
    if not state.game.deterministic:
        raise PerftUnsupportedError(
            f"perft is defined only for deterministic games; {state.game.name!r} has chance"
        )


def perft(state: State, depth: int) -> int:
    """The number of legal action sequences of length ``depth`` from ``state``."""
    _require_deterministic(state)
    return _perft(state, depth)


def _perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    actions = state.perft_actions()
    if depth == 1:
        return len(actions)
    return sum(_perft(state.apply_perft(a), depth - 1) for a in actions)


def perft_counts(state: State, depth: int) -> list[int]:
    """``[perft(1), ..., perft(depth)]`` from ``state``."""
    if depth < 1:
        raise ValueError(f"perft depth must be at least 1, got {depth}")
    _require_deterministic(state)
    return [_perft(state, d) for d in range(1, depth + 1)]


def divide(state: State, depth: int) -> dict[str, int]:
    """perft(depth - 1) below each legal action, keyed by notation (for finding a bug)."""
    _require_deterministic(state)
    return {
        state.action_to_string(a): _perft(state.apply_perft(a), depth - 1)
        for a in state.perft_actions()
    }
