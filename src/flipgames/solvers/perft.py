"""perft: count the distinct legal action sequences of a given length.

As ruling R3 (docs/rulings.md) defines it: a terminal position has no legal actions and
repetition draws are ignored. Only deterministic games have a perft. A game with a compiled kernel
counts in it (one call into machine code for the whole tree); ``FLIPGAMES_KERNEL=python``, or a game
without a kernel, counts through the reference engine (:func:`reference_perft`), which the
differential tests compare with the kernel.

>>> from flipgames import make
>>> perft_counts(make("flipflop-3x3").new_initial_state(), 2)
[4, 10]
>>> reference_perft(make("flipflop-3x3").new_initial_state(), 2)
10
"""

from __future__ import annotations

from collections.abc import Callable

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import State
from flipgames.core.kernel import kernel_for


class PerftUnsupportedError(FlipgamesError, ValueError):
    """perft asked of a game with chance nodes."""


def _require_deterministic(state: State) -> None:
    if not state.game.deterministic:
        raise PerftUnsupportedError(
            f"perft is defined only for deterministic games; {state.game.name!r} has chance"
        )


def _counter(state: State) -> Callable[[State, int], int]:
    """The fastest perft available for ``state``'s game: its kernel's, else the reference."""
    kernel = kernel_for(state.game)
    return _reference if kernel is None else kernel.perft


def perft(state: State, depth: int) -> int:
    """The number of legal action sequences of length ``depth`` from ``state``."""
    _require_deterministic(state)
    return _counter(state)(state, depth)


def reference_perft(state: State, depth: int) -> int:
    """:func:`perft` through the reference engine, whatever ``FLIPGAMES_KERNEL`` says."""
    _require_deterministic(state)
    return _reference(state, depth)


def _reference(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    actions = state.perft_actions()
    if depth == 1:
        return len(actions)
    return sum(_reference(state.apply_perft(a), depth - 1) for a in actions)


def perft_counts(state: State, depth: int) -> list[int]:
    """``[perft(1), ..., perft(depth)]`` from ``state``."""
    if depth < 1:
        raise ValueError(f"perft depth must be at least 1, got {depth}")
    _require_deterministic(state)
    count = _counter(state)
    return [count(state, d) for d in range(1, depth + 1)]


def divide(state: State, depth: int) -> dict[str, int]:
    """perft(depth - 1) below each legal action, keyed by notation (for finding a bug)."""
    _require_deterministic(state)
    count = _counter(state)
    return {
        state.action_to_string(a): count(state.apply_perft(a), depth - 1)
        for a in state.perft_actions()
    }
