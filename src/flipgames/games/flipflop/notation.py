"""FlipFlop notation: square names and moves, in the short form and the designer's long form.

Squares are named file letter then rank number (``a1`` is White's left corner) and numbered
rank-major from ``a1 = 0``: on 5x5 ``b1 = 1``, ``a2 = 5``, ``e5 = 24``.

A move is ``from-to`` and a capture ``fromxto`` (the canonical form this module prints). The
designer's long form adds the face shown before the move in front (``R``: the ``+``/rook face,
``B``: the ``x``/bishop face) and the face after the flip behind ``=``: ``Rb1xb3=B``.

Input is case-insensitive (``A1-A2``, ``B1XB3``, ``rb1xb3=b``); output is canonical: lower-case
squares and separator, upper-case face letters. Parsing here checks only the form; whether the
move is legal (and whether the faces and the separator fit the position) is for the state to
say.

>>> parse_move("Rb1xb3=B", 3)
Move(origin=1, target=7, capture=True, face_before=0, face_after=1)
>>> parse_move("B1XB3", 3) == parse_move("b1xb3", 3)
True
>>> format_move(1, 7, True, 3), format_long(1, 7, True, ROOK, 3)
('b1xb3', 'Rb1xb3=B')
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from flipgames.core.errors import NotationError, quote
from flipgames.core.grid import grid

#: Piece faces. A piece shows ``+`` (moves like a rook) or ``x`` (moves like a bishop).
ROOK: Final = 0
BISHOP: Final = 1
FACE_LETTERS: Final = "RB"
FACE_NAMES: Final = ("rook", "bishop")

# Explicit ASCII classes: ``\d`` would also accept other scripts' digits.
_MOVE = re.compile(
    r"([RB]?)([a-z])([0-9]{1,2})([-x])([a-z])([0-9]{1,2})(?:=([RB]))?", re.IGNORECASE | re.ASCII
)


class Move(NamedTuple):
    """A move as written: squares, separator, and the faces named in the long form."""

    origin: int
    target: int
    capture: bool
    face_before: int | None
    face_after: int | None


def square_name(square: int, size: int) -> str:
    """The name of ``square`` on a ``size`` x ``size`` board.

    >>> square_name(0, 5), square_name(7, 5), square_name(8, 3)
    ('a1', 'c2', 'c3')
    """
    return grid(size).name(square)


def _expected(size: int) -> str:
    last = square_name(size * size - 1, size)
    mid = grid(size).files[size // 2]
    return (
        f"expected a move like 'a1-a2', a capture like '{mid}1x{mid}{size}' or the long form "
        f"'R{mid}1x{mid}{size}=B', with squares a1 to {last}"
    )


def parse_square(text: str, size: int) -> int:
    """The number of the square named ``text`` (any case); :class:`NotationError` if none.

    >>> parse_square("c2", 5), parse_square("C2", 5)
    (7, 7)
    >>> parse_square("d1", 3)
    Traceback (most recent call last):
    ...
    flipgames.core.errors.NotationError: no square 'd1' on the 3x3 board: squares run a1 to c3
    """
    return grid(size).parse(text)


def parse_move(text: str, size: int) -> Move:
    """Parse the short or long form of a move; :class:`NotationError` if malformed.

    Surrounding spaces are ignored. Both long-form faces are optional, so ``Rb1xb3`` and
    ``b1xb3=B`` are accepted too.

    >>> parse_move(" a1-a2 ", 5)
    Move(origin=0, target=5, capture=False, face_before=None, face_after=None)
    >>> parse_move("a1a2", 5)
    Traceback (most recent call last):
    ...
    flipgames.core.errors.NotationError: 'a1a2' is not a FlipFlop move: expected a move like \
'a1-a2', a capture like 'c1xc5' or the long form 'Rc1xc5=B', with squares a1 to e5
    """
    match = _MOVE.fullmatch(text.strip())
    if match is None:
        raise NotationError(f"{quote(text)} is not a FlipFlop move: {_expected(size)}")
    before, origin_file, origin_rank, sep, target_file, target_rank, after = match.groups()
    try:
        origin = parse_square(origin_file + origin_rank, size)
        target = parse_square(target_file + target_rank, size)
    except NotationError as exc:
        raise NotationError(f"{quote(text)}: {exc}") from None
    return Move(
        origin,
        target,
        sep.lower() == "x",
        FACE_LETTERS.index(before.upper()) if before else None,
        FACE_LETTERS.index(after.upper()) if after else None,
    )


def notation_help(size: int) -> str:
    """How to write a move, with examples (the terminal's in-game ``help``)."""
    mid = grid(size).files[size // 2]
    return (
        f"Write a move as from-to, e.g. a1-a2, and a capture as fromxto, e.g. {mid}1x{mid}3;\n"
        f"squares a1 to {square_name(size * size - 1, size)}, file letter then rank, in any "
        "case.\n"
        f"The designer's long form R{mid}1x{mid}3=B is accepted too: the face shown before "
        "the move\n(R = + rook face, B = x bishop face), then = and the face after the flip."
    )


def format_move(origin: int, target: int, capture: bool, size: int) -> str:
    """The canonical short form.

    >>> format_move(0, 5, False, 5)
    'a1-a2'
    """
    sep = "x" if capture else "-"
    return f"{square_name(origin, size)}{sep}{square_name(target, size)}"


def format_long(origin: int, target: int, capture: bool, face: int, size: int) -> str:
    """The designer's long form, for a piece showing ``face`` before it moves (it flips).

    >>> format_long(0, 5, False, ROOK, 5)
    'Ra1-a2=B'
    """
    short = format_move(origin, target, capture, size)
    return f"{FACE_LETTERS[face]}{short}={FACE_LETTERS[1 - face]}"
