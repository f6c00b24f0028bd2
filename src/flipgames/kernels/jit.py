"""What every compiled kernel shares: the numba decorator and the seeded random numbers.

Only kernel modules import this (it imports numba), and only when a game's
:meth:`~flipgames.core.game.Game.kernel` is first asked for, so the CLI and the reference
engines never pay for numba.

Random numbers follow one convention, so a seed means the same in every kernel: a batch
seeded with ``seed`` starts its xorshift64* generator at ``splitmix64(seed mod 2**64)`` (never
zero), held in a one-element ``uint64`` array that the kernel's loops advance in place;
:func:`below` draws an integer in ``[0, n)`` by multiply-shift (as the C yardstick in the
issue does). The generator is statistically plain but fast; playouts need no more.

Repetition draws ("the same position for the third time") are counted the way the reference
engines count them, from the last irreversible action (a capture, a drop): a line of play
keeps its positions in a ``(plies + 1, 3)`` int64 array (three words per position; the side
to move alternates, so it is implied by the ply), and :func:`occurrences` compares a new
position only with the same side's ancestors since then, and only when a 1024-bit filter of
those positions says it may have occurred.

>>> rng = seeded(7)
>>> draws = [below(rng, 10) for _ in range(1000)]
>>> min(draws), max(draws), bool(seeded(7)[0] == seeded(7)[0] != seeded(8)[0])
(0, 9, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit, types
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from flipgames.core.kernel import FIRST_WINS, ONGOING, SECOND_WINS

F = TypeVar("F", bound=Callable[..., Any])

I64 = npt.NDArray[np.int64]

_MASK64 = (1 << 64) - 1


def jit(function: F) -> F:
    """Compile ``function`` with numba in nopython mode, cached on disk (``cache=True``: the
    compile cost is paid once per machine, later processes load the machine code)."""
    return cast(F, njit(cache=True)(function))


@intrinsic
def _ctpop(typingctx: Any, src: Any) -> Any:
    """LLVM's ctpop (the CPU's popcount instruction: numba compiles for the host CPU)."""
    if not isinstance(src, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return src(src), codegen


#: The number of set bits of a mask (one instruction), for bitboard kernels; typed for mypy.
popcount = cast(Callable[[int], int], _ctpop)
#: The index of a mask's lowest set bit (LLVM's cttz, one instruction); typed for mypy.
trailing_zeros = cast(Callable[[int], int], _trailing_zeros)


@jit
def _splitmix64(value: np.uint64) -> np.uint64:
    value = value + np.uint64(0x9E3779B97F4A7C15)
    value = (value ^ (value >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    value = (value ^ (value >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return value ^ (value >> np.uint64(31))


def seeded(seed: int) -> npt.NDArray[np.uint64]:
    """A generator state for ``seed`` (any integer; equal seeds give equal streams)."""
    state = _splitmix64(np.uint64(seed & _MASK64))
    return np.array([state if state else np.uint64(1)], dtype=np.uint64)


@jit
def below(rng: npt.NDArray[np.uint64], n: int) -> int:
    """Advance ``rng`` (xorshift64*) and return an integer in ``[0, n)``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    high = (x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return int((high * np.uint64(n)) >> np.uint64(32))


#: Words (int64) of the filter :func:`occurrences` keeps per line of play; clear it at an
#: irreversible action.
FILTER_WORDS = 16


@jit
def occurrences(history: I64, ply: int, since: int, seen: I64) -> int:
    """How often the position ``history[ply]`` has occurred since ply ``since`` (itself
    included), marking it in the ``seen`` filter (:data:`FILTER_WORDS` words, or any power of
    two: a longer filter lets fewer positions through to the comparison). Only every second
    ancestor can match: the side to move is part of a position."""
    a, b, c = history[ply, 0], history[ply, 1], history[ply, 2]
    bucket = ((a * 0x9E3779B1 + b * 0x85EBCA77 + c * 0xC2B2AE3D) >> 13) & (len(seen) * 64 - 1)
    word, bit = bucket >> 6, 1 << (bucket & 63)
    count = 1
    if seen[word] & bit:
        for back in range(ply - 2, since - 1, -2):
            if history[back, 0] == a and history[back, 1] == b and history[back, 2] == c:
                count += 1
    seen[word] |= bit
    return count


@jit
def grow(array: I64, needed: int) -> I64:
    """``array``, or a copy at least twice as long when it holds fewer than ``needed``."""
    if needed <= len(array):
        return array
    bigger = np.empty(max(needed, 2 * len(array)), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger


@jit
def store_playout(
    returns: npt.NDArray[np.int8],
    plies: npt.NDArray[np.int32],
    record: I64,
    actions: I64,
    game: int,
    status: int,
    length: int,
) -> int:
    """Store one finished playout of a batch: the first player's return for ``status`` (a
    :mod:`flipgames.core.kernel` status code), its length and, for the first games, its actions.
    Returns 1 if the playout was cut at the ply cap (still ongoing), else 0."""
    plies[game] = length
    if status == FIRST_WINS:
        returns[game] = 1
    elif status == SECOND_WINS:
        returns[game] = -1
    if game < record.shape[0]:
        record[game, :] = actions[: record.shape[1]]
    return 1 if status == ONGOING else 0
