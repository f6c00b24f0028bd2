"""What every compiled kernel shares: the numba decorator and the seeded random numbers.

Only kernel modules import this (it imports numba), and only when a game's
:meth:`~flipgames.core.game.Game.kernel` is first asked for, so the CLI and the reference
engines never pay for numba.

Random numbers follow one convention, so a seed means the same in every kernel: a batch
seeded with ``seed`` starts its xorshift64* generator at ``splitmix64(seed mod 2**64)`` (never
zero), held in a one-element ``uint64`` array that the kernel's loops advance in place;
:func:`below` draws an integer in ``[0, n)`` by multiply-shift (as the C yardstick in the
issue does). The generator is statistically plain but fast; playouts need no more.

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
from numba import njit

F = TypeVar("F", bound=Callable[..., Any])

_MASK64 = (1 << 64) - 1


def jit(function: F) -> F:
    """Compile ``function`` with numba in nopython mode, cached on disk (``cache=True``: the
    compile cost is paid once per machine, later processes load the machine code)."""
    return cast(F, njit(cache=True)(function))


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
