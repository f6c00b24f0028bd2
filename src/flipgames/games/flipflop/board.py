"""FlipFlop's board for one size: colours, goals, the starting position and the move tables.

Built once per board size (:func:`board_of`); the rules (:mod:`.rules`) generate moves from
these tables and the evaluation (:mod:`.heuristics`) reads the goals.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Final

from flipgames.core.grid import grid
from flipgames.games.flipflop.notation import BISHOP, ROOK

WHITE: Final = 0
BLACK: Final = 1
COLOUR_NAMES: Final = ("White", "Black")

_ORTHOGONAL: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))


# A move table: the mask to apply to the occupancy key, and the action ids per masked key.
MoveTable = tuple[int, dict[int, tuple[int, ...]]]


def _subsets(mask: int) -> Iterator[int]:
    """Every subset of the bits of ``mask`` (the carry-rippler trick), 0 first."""
    subset = 0
    while True:
        yield subset
        subset = (subset - mask) & mask
        if not subset:
            return


def _rays(size: int, square: int, directions: tuple[tuple[int, int], ...]) -> list[tuple[int, ...]]:
    """The squares along each direction from ``square`` to the edge, nearest first."""
    return [grid(size).ray(square, df, dr) for df, dr in directions]


def _move_table(size: int, square: int, face: int, goals: int) -> MoveTable:
    """Action ids of a piece on ``square`` showing ``face``, for every occupancy of its rays.

    The key is ``occupied | capturable << N*N`` restricted to the rays, where ``capturable``
    are the enemy pieces standing on a goal square: the only pieces that can be taken.
    """
    area = size * size
    rays = _rays(size, square, _DIAGONAL if face == BISHOP else _ORTHOGONAL)
    mask = sum(1 << s for ray in rays for s in ray)
    table: dict[int, tuple[int, ...]] = {}
    for occupied in _subsets(mask):
        for capturable in _subsets(occupied & goals):
            targets = []
            for ray in rays:
                for s in ray:
                    if occupied >> s & 1:
                        if capturable >> s & 1:
                            targets.append(s)
                        break  # no leaping
                    targets.append(s)
            table[occupied | capturable << area] = tuple(square * area + t for t in sorted(targets))
    return mask | mask << area, table


class Board:
    """What never changes for one board size: goals, starting position and move tables."""

    __slots__ = ("area", "goal", "goals", "size", "start", "tables")

    def __init__(self, size: int) -> None:
        self.size = size
        self.area = area = size * size
        middle = size // 2
        #: Goal square per colour: White's on rank 1, Black's on the last rank.
        self.goal = (middle, area - size + middle)
        self.goals = (1 << self.goal[WHITE]) | (1 << self.goal[BLACK])
        #: Starting bitboards per colour: full first and last ranks.
        self.start = ((1 << size) - 1, ((1 << size) - 1) << (area - size))
        #: Move tables indexed by face, then keyed by the single bit of the square.
        self.tables: tuple[dict[int, MoveTable], ...] = tuple(
            {1 << sq: _move_table(size, sq, face, self.goals) for sq in range(area)}
            for face in (ROOK, BISHOP)
        )


@cache
def board_of(size: int) -> Board:
    """The :class:`Board` of ``size``, built on first use (5x5's move tables take tens of
    milliseconds, which a 3x3 command should not pay)."""
    return Board(size)
