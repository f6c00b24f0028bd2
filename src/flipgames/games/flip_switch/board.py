"""Flip Switch's board geometry: the scoring lines through each square.

Squares are numbered rank-major from a1 = 0 (:mod:`flipgames.games.flip_switch.notation`).
"""

from __future__ import annotations

from functools import cache
from typing import Final, cast

#: The squares of one scoring line (three of them unless the option ``line`` says more).
Line = tuple[int, ...]

_DIRECTIONS: Final = ((0, 1), (1, 0), (1, 1), (1, -1))  # (rank step, file step)


@cache
def lines_through(size: int, edges_only: bool, length: int = 3) -> tuple[tuple[Line, ...], ...]:
    """Per square, the scoring lines (``length`` squares in a straight row) that contain it.

    A line is any ``length`` consecutive squares of a row, column or diagonal (``lines=all``);
    with ``lines=edges`` only those on the four edges and the two corner-to-corner diagonals.
    On 3x3 that is 8 and 6 lines; on 4x4, 24 and 12 lines of three, 10 and 6 of four.

    >>> [len(set(sum(lines_through(3, e), ()))) for e in (False, True)]
    [8, 6]
    >>> lines_through(3, True)[4]  # the centre: only the two diagonals
    ((0, 4, 8), (2, 4, 6))
    >>> [len(set(sum(lines_through(4, e, 4), ()))) for e in (False, True)]
    [10, 6]
    """
    last = size - 1
    found: list[Line] = []
    for rank in range(size):
        for file in range(size):
            for dr, df in _DIRECTIONS:
                end_rank, end_file = rank + (length - 1) * dr, file + (length - 1) * df
                if not (0 <= end_rank <= last and 0 <= end_file <= last):
                    continue
                cells = [(rank + i * dr, file + i * df) for i in range(length)]
                if edges_only and not _on_edge_line(cells, dr, df, last):
                    continue
                found.append(cast(Line, tuple(r * size + f for r, f in cells)))
    return tuple(tuple(line for line in found if square in line) for square in range(size * size))


def _on_edge_line(cells: list[tuple[int, int]], dr: int, df: int, last: int) -> bool:
    rank, file = cells[0]
    if dr == 0:
        return rank in (0, last)
    if df == 0:
        return file in (0, last)
    if df == 1:
        return all(r == f for r, f in cells)
    return all(r + f == last for r, f in cells)
