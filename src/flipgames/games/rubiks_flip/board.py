"""Rubik's Flip board geometry: the full board, the lock neighbourhoods, the rows of three.

Squares are bits ``file + 4 * rank`` of a 16-bit mask (``a1`` = bit 0), as in
:mod:`.notation`. The rules and the kernel both read these tables.

>>> len(LINES), bin(FULL).count("1")
(24, 16)
"""

from __future__ import annotations

from typing import Final

from flipgames.games.rubiks_flip.notation import GRID, NUM_SQUARES, SIZE

FULL: Final = (1 << NUM_SQUARES) - 1
# Masks that drop bits shifted across the board edge (a shift east must not wrap d -> a).
_NOT_FILE_A: Final = 0xEEEE
_NOT_FILE_D: Final = 0x7777


def spread_king(mask: int) -> int:
    """``mask`` plus every square a king step away from it (the lock neighbourhood, seed rule).

    >>> from flipgames.games.rubiks_flip.notation import SQUARE_NAMES
    >>> SQUARE_NAMES[0], [SQUARE_NAMES[s] for s in range(16) if spread_king(1) >> s & 1]
    ('a1', ['a1', 'b1', 'a2', 'b2'])
    """
    row = mask | ((mask << 1) & _NOT_FILE_A) | ((mask >> 1) & _NOT_FILE_D)
    return row | ((row << SIZE) & FULL) | (row >> SIZE)


def spread_orthogonal(mask: int) -> int:
    """``mask`` plus every square orthogonally next to it (``lock=orthogonal``).

    >>> from flipgames.games.rubiks_flip.notation import SQUARE_NAMES
    >>> [SQUARE_NAMES[s] for s in range(16) if spread_orthogonal(1) >> s & 1]
    ['a1', 'b1', 'a2']
    """
    return (
        mask
        | ((mask << 1) & _NOT_FILE_A)
        | ((mask >> 1) & _NOT_FILE_D)
        | ((mask << SIZE) & FULL)
        | (mask >> SIZE)
    )


def _lines() -> tuple[int, ...]:
    lines = []
    for rank in range(SIZE):
        for file in range(SIZE):
            for df, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                cells = [(file + i * df, rank + i * dr) for i in range(3)]
                if all(GRID.in_bounds(f, r) for f, r in cells):
                    lines.append(sum(1 << (f + SIZE * r) for f, r in cells))
    return tuple(lines)


#: Every three consecutive squares in a row, column or diagonal, as bit masks.
LINES: Final = _lines()
