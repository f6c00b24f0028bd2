"""Exact draws for compiled kernels: chance outcomes with exactly their probabilities.

:func:`flipgames.kernels.jit.below` maps 32 random bits onto ``[0, n)`` by multiply-shift, which
is off by up to ``n / 2**32`` for an ``n`` that does not divide ``2**32``: fine for choosing
a playout's move, not for a chance outcome that must have *exactly* its probability. These
draw the 32 bits and reject the top ``2**32 mod n`` values, so every integer in ``[0, n)`` is
equally likely, then walk integer weights: an outcome of weight ``w`` out of a total ``t`` comes
up with probability exactly ``w / t`` (given uniform bits). Kernels call them with a generator
state from :func:`flipgames.kernels.jit.seeded`, as the reference engines call
:func:`flipgames.core.game.sample_chance`: no game package draws anything itself.

>>> import numpy as np
>>> from flipgames.kernels.jit import seeded
>>> rng = seeded(3)
>>> draws = [weighted(rng, np.array([1, 2, 0, 1]), 4) for _ in range(4000)]
>>> counts = np.bincount(draws, minlength=4).tolist()
>>> counts[2], all(abs(c - e) < 150 for c, e in zip(counts, [1000, 2000, 0, 1000]))
(0, True)
>>> sorted(set(uniform(rng, 3) for _ in range(100)))
[0, 1, 2]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from flipgames.kernels.jit import below

_BITS = 1 << 32


@njit(cache=True)
def uniform(rng: npt.NDArray[np.uint64], n: int) -> int:
    """An integer in ``[0, n)`` (``1 <= n < 2**32``), each exactly equally likely."""
    limit = _BITS - _BITS % n
    x = below(rng, _BITS)
    while x >= limit:
        x = below(rng, _BITS)
    return int(x % n)


@njit(cache=True)
def weighted(rng: npt.NDArray[np.uint64], weights: npt.NDArray[np.int64], count: int) -> int:
    """An index ``i < count`` with probability exactly ``weights[i] / sum(weights[:count])``
    (non-negative integer weights, positive sum below ``2**32``)."""
    total = 0
    for i in range(count):
        total += weights[i]
    point = uniform(rng, total)
    for i in range(count):
        point -= weights[i]
        if point < 0:
            return i
    return count - 1
