"""The attack lookups of FlipFlop's bitboard kernel (:mod:`.bitboard`), one set per board size.

A piece's sliding targets depend only on the occupancy of the squares along its rays short of
the board's edge (nothing lies beyond the last square of a ray, so it blocks nothing): at most
six squares on 5x5. For each square and face a multiplier ("magic") is found that sends every
such occupancy, multiplied modulo 2**64, to one of 64 slots (the product's top six bits)
shared only with occupancies of the same attacks; the slot holds the attacked squares (empty
squares up to and including the first occupied one along each ray). Plain Python and numpy,
no numba: the search is seeded, so every process builds the same tables.

>>> t = tables(3)
>>> sq, face = 0, 0  # a1, rook face: b1 and a2 can block; empty, it reaches c1 and a3
>>> bin(int(t.masks[sq, face])), bin(int(t.attacks[sq, face, 0]))
('0b1010', '0b1001110')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from flipgames.games.flipflop.geometry import Geometry

I64 = npt.NDArray[np.int64]

#: Every lookup has 64 slots, indexed by the top six bits of ``occupancy * magic``.
SLOT_BITS = 6
_MASK64 = (1 << 64) - 1


def _ray_attacks(geometry: Geometry, sq: int, face: int, occupied: int) -> int:
    """The squares a piece on ``sq`` showing ``face`` attacks: along each ray, empty squares
    up to and including the first occupied one."""
    attacked = 0
    for d in range(4):
        for k in range(int(geometry.lengths[sq, face, d])):
            target = int(geometry.rays[sq, face, d, k])
            attacked |= 1 << target
            if occupied >> target & 1:
                break
    return attacked


def _find_magic(
    subsets: npt.NDArray[np.uint64], attacks: npt.NDArray[np.uint64], rng: np.random.Generator
) -> int:
    """A multiplier that sends every occupancy in ``subsets`` to a slot (top six bits of the
    64-bit product) shared only with occupancies of the same attacks; tried in batches of
    sparse random candidates (seeded, so the tables are the same in every process)."""
    shift = np.uint64(64 - SLOT_BITS)
    while True:
        candidates = (
            rng.integers(0, 2**64, size=2048, dtype=np.uint64, endpoint=False)
            & rng.integers(0, 2**64, size=2048, dtype=np.uint64, endpoint=False)
            & rng.integers(0, 2**64, size=2048, dtype=np.uint64, endpoint=False)
        )
        slots = (candidates[:, None] * subsets[None, :]) >> shift  # wraps modulo 2**64
        # Sort by (slot, attacks): a good candidate has equal attacks wherever slots tie.
        order = np.sort((slots << np.uint64(32)) | attacks[None, :], axis=1)
        same_slot = (order[:, 1:] >> np.uint64(32)) == (order[:, :-1] >> np.uint64(32))
        same_attack = order[:, 1:] == order[:, :-1]
        good = np.flatnonzero(~np.any(same_slot & ~same_attack, axis=1))
        if len(good):
            return int(candidates[good[0]])


@dataclass(frozen=True)
class Tables:
    """The lookups of one board size (what the compiled functions take)."""

    #: ``masks[sq, face]``: the squares whose occupancy can block a piece there.
    masks: I64
    #: ``magics[sq, face]``: the multiplier, as a signed 64-bit int (the product wraps).
    magics: I64
    #: ``attacks[sq, face, slot]``: the attacked squares of each slot.
    attacks: I64
    #: Both goals as one mask, and each side's own goal as a mask.
    goals: int
    own_goal: I64


@cache
def tables(size: int) -> Tables:
    """The lookups of a ``size`` x ``size`` board, built once per process (under 0.1 s)."""
    geometry = Geometry.of(size)
    area = geometry.area
    masks = np.zeros((area, 2), dtype=np.int64)
    magics = np.zeros((area, 2), dtype=np.int64)
    attacks = np.zeros((area, 2, 1 << SLOT_BITS), dtype=np.int64)
    rng = np.random.default_rng(size)
    for sq in range(area):
        for face in range(2):
            mask = 0
            for d in range(4):
                # The last square of a ray blocks nothing: nothing lies beyond it.
                for k in range(int(geometry.lengths[sq, face, d]) - 1):
                    mask |= 1 << int(geometry.rays[sq, face, d, k])
            subsets, subset = [], 0
            while True:  # every subset of the mask, by the carry-rippler
                subsets.append(subset)
                subset = (subset - mask) & mask
                if not subset:
                    break
            attacked = [_ray_attacks(geometry, sq, face, s) for s in subsets]
            magic = _find_magic(
                np.array(subsets, dtype=np.uint64), np.array(attacked, dtype=np.uint64), rng
            )
            for s, a in zip(subsets, attacked, strict=True):
                attacks[sq, face, ((s * magic) & _MASK64) >> (64 - SLOT_BITS)] = a
            masks[sq, face] = mask
            magics[sq, face] = magic - (1 << 64) if magic >= 1 << 63 else magic
    white_goal, black_goal = geometry.goals
    own_goal = np.array([1 << white_goal, 1 << black_goal], dtype=np.int64)
    return Tables(masks, magics, attacks, (1 << white_goal) | (1 << black_goal), own_goal)
