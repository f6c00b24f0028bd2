"""FlipFlop's board geometry as arrays: the rays each face moves along and the goals.

Shared by the compiled kernels (:mod:`.kernel`, :mod:`.bitboard`: sizes, goals and the
start; the bitboard's attack lookups are built from the rays, :mod:`.attacks`) and the numpy
graph builder (:mod:`.batch_graph`); it imports no numba, so the builder can use it without
loading the kernel.

>>> g = Geometry.of(3)
>>> g.goals, g.start, g.rays[4, 0, :, 0].tolist()
((1, 7), (7, 448), [5, 3, 7, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from flipgames.core.grid import grid

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Geometry:
    """The tables of one board size, as arrays (what the compiled functions take)."""

    size: int
    area: int
    #: ``rays[sq, face, direction, k]``: the k-th square along a ray (face 0 rook, 1 bishop).
    rays: I64
    #: ``lengths[sq, face, direction]``: how many squares that ray has.
    lengths: I64
    #: White's goal (middle of rank 1) and Black's (middle of the last rank).
    goals: tuple[int, int]

    @classmethod
    def of(cls, size: int) -> Geometry:
        area = size * size
        directions = (
            ((1, 0), (-1, 0), (0, 1), (0, -1)),
            ((1, 1), (1, -1), (-1, 1), (-1, -1)),
        )
        rays = np.full((area, 2, 4, size), -1, dtype=np.int64)
        lengths = np.zeros((area, 2, 4), dtype=np.int64)
        for sq in range(area):
            for face, steps in enumerate(directions):
                for d, (df, dr) in enumerate(steps):
                    ray = grid(size).ray(sq, df, dr)
                    rays[sq, face, d, : len(ray)] = ray
                    lengths[sq, face, d] = len(ray)
        middle = size // 2
        return cls(size, area, rays, lengths, (middle, area - size + middle))

    @property
    def start(self) -> tuple[int, int]:
        """White's and Black's starting bitboards: full first and last ranks."""
        rank = (1 << self.size) - 1
        return rank, rank << (self.area - self.size)
