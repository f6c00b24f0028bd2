"""Square boards as the games number them: square names, parsing, bounds and rays.

Every square-board game here (FlipFlop 5x5 and 3x3, FlipFour, Rubik's Flip, Flip Switch)
numbers an ``N`` x ``N`` board rank-major from ``a1 = 0``: square ``rank * N + file``, named
by its file letter (``a``...) and rank number (``1``...), so on 5x5 ``b1 = 1``, ``a2 = 5`` and
``e5 = 24``. :func:`grid` gives the one :class:`Grid` of a size.

>>> board = grid(5)
>>> board.name(7), board.parse("C2"), board.names[-1]
('c2', 7, 'e5')
>>> board.ray(0, 1, 1)  # from a1 towards e5
(6, 12, 18, 24)
>>> grid(3).parse("d1")
Traceback (most recent call last):
...
flipgames.core.errors.NotationError: no square 'd1' on the 3x3 board: squares run a1 to c3
"""

from __future__ import annotations

import re
from functools import cache

from flipgames.core.errors import NotationError, quote

# Explicit ASCII classes: ``\d`` would also accept other scripts' digits.
_SQUARE = re.compile(r"([a-z])([0-9]{1,2})")


class Grid:
    """The squares of an ``size`` x ``size`` board (see the module docstring)."""

    __slots__ = ("area", "files", "index", "names", "size")

    def __init__(self, size: int) -> None:
        if not 1 <= size <= 26:
            raise ValueError(f"a board is 1 to 26 squares wide, not {size}")
        self.size = size
        self.area = size * size
        #: The file letters, ``a`` first.
        self.files = "".join(chr(ord("a") + file) for file in range(size))
        #: ``names[square]``: ``a1``, ``b1``, ...
        self.names: tuple[str, ...] = tuple(
            f"{self.files[square % size]}{square // size + 1}" for square in range(self.area)
        )
        #: ``index[name]``: the square of a lower-case name.
        self.index: dict[str, int] = {name: square for square, name in enumerate(self.names)}

    def name(self, square: int) -> str:
        """The name of ``square``, e.g. ``c2``."""
        return self.names[square]

    def find(self, text: str) -> int | None:
        """The square whose name is exactly ``text`` (any case), or None."""
        return self.index.get(text.lower())

    def parse(self, text: str) -> int:
        """The square written ``text``: a file letter and a rank number, any case (``C2``,
        and ``c02`` too); :class:`NotationError` if it is not on the board."""
        match = _SQUARE.fullmatch(text.lower())
        if match is not None:
            file, rank = ord(match[1]) - ord("a"), int(match[2]) - 1
            if self.in_bounds(file, rank):
                return self.square(file, rank)
        raise NotationError(
            f"no square {quote(text)} on the {self.size}x{self.size} board: squares run a1 to "
            f"{self.names[-1]}"
        )

    def in_bounds(self, file: int, rank: int) -> bool:
        """True when file ``file`` and rank ``rank`` (both from 0) are on the board."""
        return 0 <= file < self.size and 0 <= rank < self.size

    def square(self, file: int, rank: int) -> int:
        """The number of the square on ``file`` and ``rank`` (both from 0)."""
        return rank * self.size + file

    def ray(self, square: int, file_step: int, rank_step: int) -> tuple[int, ...]:
        """The squares from ``square`` (excluded) in steps of ``file_step`` files and
        ``rank_step`` ranks, nearest first, to the edge of the board."""
        found = []
        file, rank = square % self.size + file_step, square // self.size + rank_step
        while self.in_bounds(file, rank):
            found.append(self.square(file, rank))
            file, rank = file + file_step, rank + rank_step
        return tuple(found)


@cache
def grid(size: int) -> Grid:
    """The :class:`Grid` of a ``size`` x ``size`` board (one per size)."""
    return Grid(size)
