"""FlipFour board geometry: squares, the lines each face moves along, four-in-a-row windows.

Squares are numbered rank-major from White's side: a1 = 0, b1 = 1, ..., e1 = 4, a2 = 5, ...,
e5 = 24. A set of squares is a bitboard: bit ``s`` stands for square ``s``. Every table here is
built once at import, so the rules only do bit arithmetic.

>>> SQUARE_NAMES[0], SQUARE_NAMES[24], SQUARE_INDEX["c3"]
('a1', 'e5', 12)
>>> [SQUARE_NAMES[s] for s in squares(REACH[BISHOP][SQUARE_INDEX["a1"]])]
['b2', 'c3', 'd4', 'e5']
>>> len(WINDOWS)
28
"""

from __future__ import annotations

from typing import Final

from flipgames.core.grid import grid

SIZE: Final = 5
#: Pieces each side starts with in hand.
PIECES_IN_HAND: Final = 4
NUM_SQUARES: Final = SIZE * SIZE
ALL_SQUARES: Final = range(NUM_SQUARES)

#: Faces of a piece: the rook face (``+``, moves orthogonally) and the bishop face (``x``).
ROOK: Final = 0
BISHOP: Final = 1
FACE_LETTERS: Final = "RB"
FACE_NAMES: Final = ("rook", "bishop")

GRID: Final = grid(SIZE)
FILES: Final = GRID.files
SQUARE_NAMES: Final = GRID.names
SQUARE_INDEX: Final = GRID.index

_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def squares(mask: int) -> list[int]:
    """The squares of a bitboard in ascending order.

    >>> squares(0b10011)
    [0, 1, 4]
    """
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def _reach(square: int, directions: tuple[tuple[int, int], ...]) -> int:
    """Every square along ``directions`` from ``square`` to the edge. Pieces leap over
    pieces in FlipFour, so nothing on the board ever shortens these lines."""
    return sum(1 << s for df, dr in directions for s in GRID.ray(square, df, dr))


#: ``REACH[face][square]``: the squares a piece showing ``face`` on ``square`` could move to
#: on an empty board (a move goes to any empty one of them).
REACH: Final = (
    tuple(_reach(s, _ORTHOGONAL) for s in range(NUM_SQUARES)),
    tuple(_reach(s, _DIAGONAL) for s in range(NUM_SQUARES)),
)


def _windows() -> tuple[int, ...]:
    """Every run of four squares in a straight line: 10 in rows, 10 in columns, 4 on the two
    long diagonals (two per five-square diagonal) and 4 on the four-square diagonals."""
    found = []
    for start in range(NUM_SQUARES):
        for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            file, rank = start % SIZE, start // SIZE
            if GRID.in_bounds(file + 3 * df, rank + 3 * dr):
                found.append(sum(1 << ((rank + i * dr) * SIZE + file + i * df) for i in range(4)))
    return tuple(found)


WINDOWS: Final = _windows()
#: ``WINDOWS_THROUGH[square]``: the windows containing ``square``. Only the piece that just
#: arrived can complete a four, so the win test looks at these alone.
WINDOWS_THROUGH: Final = tuple(tuple(w for w in WINDOWS if w >> s & 1) for s in range(NUM_SQUARES))
