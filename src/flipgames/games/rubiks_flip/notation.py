"""Rubik's Flip notation: square names, the action id layout, and turn text <-> parts.

One action is one whole turn: an optional flip part, ``/``, then the placement square and the
letter of the colour placed face up (``R`` or ``B`` for the first player, ``Y`` or ``W`` for
the second). With ``flip=inplace`` the flip part is the flipped tile's square (``b2/c3W``);
with ``flip=flap`` it is the tile's square, ``-``, and the orthogonally adjacent empty square it
is turned over onto (``b2-b3/c3W``). A turn without a flip is just the placement (``c3R``).
Input is case-insensitive and may have spaces around ``/``; output is canonical (lower-case
squares, upper-case colour letter).

Squares are numbered ``file + 4 * rank`` from 0: ``a1`` = 0, ``b1`` = 1, ..., ``d4`` = 15.

Action ids: ``id = flip_part * 32 + place * 2 + colour`` where ``place`` is the square placed
on, ``colour`` is 0 for the first face (``R`` / ``Y``) and 1 for the second (``B`` / ``W``),
and ``flip_part`` is 0 for "no flip", otherwise

- ``flip=inplace``: ``1 + square`` of the flipped tile (17 parts: ids 0..543);
- ``flip=flap``: ``1 + 4 * square + direction``, direction 0 north (up a rank), 1 east,
  2 south, 3 west (65 parts: ids 0..2079).

>>> encode(NO_FLIP, parse_square("c3"), 1)
21
>>> format_action(21, player=1, flap=False)
'c3W'
>>> format_action(encode(inplace_part(parse_square("b2")), 10, 0), player=0, flap=False)
'b2/c3R'
>>> parse_turn(" B2 / c3w", flap=False)
ParsedTurn(flip=(5, 5), place=10, letter='W')
>>> format_action(encode(flap_part(5, 9), 10, 1), player=1, flap=True)
'b2-b3/c3W'
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from flipgames.core.errors import IllegalActionError, NotationError, quote
from flipgames.core.grid import grid

SIZE: Final = 4
NUM_SQUARES: Final = SIZE * SIZE
#: Action ids per flip part: 16 placement squares x 2 colours.
PLACEMENTS: Final = NUM_SQUARES * 2
NO_FLIP: Final = 0
#: Number of flip parts (the "no flip" part included) for each flip option.
FLIP_PARTS: Final = {False: 1 + NUM_SQUARES, True: 1 + 4 * NUM_SQUARES}

GRID: Final = grid(SIZE)
FILES: Final = GRID.files
SQUARE_NAMES: Final = GRID.names
_SQUARE_INDEX: Final = GRID.index

#: Colour letters by player, indexed by face (0 = first face, 1 = second face).
COLOUR_LETTERS: Final = (("R", "B"), ("Y", "W"))
#: Letter -> (player owning tiles of that colour, face).
LETTER_OWNER: Final = {
    letter: (player, face)
    for player, letters in enumerate(COLOUR_LETTERS)
    for face, letter in enumerate(letters)
}

#: Flap directions as (file step, rank step): north, east, south, west.
DIRECTIONS: Final = ((0, 1), (1, 0), (0, -1), (-1, 0))


def _flap_targets(square: int) -> tuple[int, ...]:
    file, rank = square % SIZE, square // SIZE
    targets = []
    for df, dr in DIRECTIONS:
        f, r = file + df, rank + dr
        targets.append(f + SIZE * r if 0 <= f < SIZE and 0 <= r < SIZE else -1)
    return tuple(targets)


#: FLAP_TARGET[square][direction]: the square a flap in that direction lands on, -1 if none.
FLAP_TARGET: Final = tuple(_flap_targets(s) for s in range(NUM_SQUARES))

_TURN = re.compile(
    r"\s*(?:(?P<src>[a-d][1-4])(?:-(?P<dst>[a-d][1-4]))?\s*/\s*)?"
    r"(?P<place>[a-d][1-4])(?P<letter>[rbyw])\s*",
    re.IGNORECASE | re.ASCII,
)


class ParsedTurn(NamedTuple):
    """A turn as written, squares as indices.

    ``flip`` is ``(from, to)`` (``to == from`` for an in-place flip), None without a flip.
    """

    flip: tuple[int, int] | None
    place: int
    letter: str


def notation_help(flap: bool) -> str:
    """How to write a turn, with examples (the terminal's in-game ``help``)."""
    flip = (
        "b2-b3/c3W (flap the tile on b2 over onto b3, then place)"
        if flap
        else "b2/c3W (flip the tile on b2, then place)"
    )
    return (
        f"One turn: [flip/]SQUARE+COLOUR. Place only: c3R. Flip first:\n{flip}.\n"
        "Colour letters: R or B for the first player, Y or W for the second. Squares a1 to d4,\n"
        "file letter then rank; letters in any case."
    )


def square_name(square: int) -> str:
    """``a1`` for 0 up to ``d4`` for 15."""
    return SQUARE_NAMES[square]


def parse_square(text: str) -> int:
    """The index of a square name such as ``c3`` (case-insensitive).

    >>> parse_square("C3")
    10
    """
    try:
        return _SQUARE_INDEX[text.lower()]
    except KeyError:
        raise NotationError(f"{quote(text)} is not a square: write a1 to d4") from None


def inplace_part(square: int) -> int:
    """The flip part of flipping the tile on ``square`` in place."""
    return 1 + square


def flap_direction_part(source: int, direction: int) -> int:
    """The flip part of flapping ``source`` in ``direction`` (0 north, 1 east, 2 south, 3 west)."""
    return 1 + 4 * source + direction


def flap_part(source: int, target: int) -> int | None:
    """The flip part of flapping ``source`` onto ``target``; None unless orthogonal neighbours."""
    targets = FLAP_TARGET[source]
    return flap_direction_part(source, targets.index(target)) if target in targets else None


def format_flip(source: int, target: int, flap: bool) -> str:
    """The flip part as written: ``b2`` in place, ``b2-b3`` for a flap."""
    if flap:
        return f"{SQUARE_NAMES[source]}-{SQUARE_NAMES[target]}"
    return SQUARE_NAMES[source]


def encode(flip_part: int, place: int, colour: int) -> int:
    """The action id of a flip part, a placement square and a colour face."""
    return flip_part * PLACEMENTS + place * 2 + colour


def decode_flip(flip_part: int, flap: bool) -> tuple[int, int] | None:
    """``(from, to)`` of a flip part (``to == from`` in place), None for no flip.

    >>> decode_flip(flap_part(5, 9) or 0, flap=True)
    (5, 9)
    """
    if flip_part == NO_FLIP:
        return None
    if not flap:
        return flip_part - 1, flip_part - 1
    source, direction = divmod(flip_part - 1, 4)
    return source, FLAP_TARGET[source][direction]


def format_action(action: int, player: int, flap: bool) -> str:
    """The canonical text of ``action`` played by ``player``.

    Raises :class:`IllegalActionError` for an id outside the layout (or a flap off the board).
    """
    flip_part, rest = divmod(action, PLACEMENTS)
    if not 0 <= flip_part < FLIP_PARTS[flap]:
        raise IllegalActionError(
            f"action id {action} is outside 0..{FLIP_PARTS[flap] * PLACEMENTS - 1}"
        )
    place, colour = divmod(rest, 2)
    text = SQUARE_NAMES[place] + COLOUR_LETTERS[player][colour]
    flip = decode_flip(flip_part, flap)
    if flip is None:
        return text
    source, target = flip
    if target < 0:
        raise IllegalActionError(f"action id {action} flaps {SQUARE_NAMES[source]} off the board")
    return f"{format_flip(source, target, flap)}/{text}"


def parse_turn(text: str, flap: bool) -> ParsedTurn:
    """Split turn text into its parts; :class:`NotationError` if it is not well formed."""
    example = "b2-b3/c3W" if flap else "b2/c3W"
    match = _TURN.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        flip_form = "FROM-TO" if flap else "SQUARE"
        raise NotationError(
            f"{quote(text)} is not a Rubik's Flip turn: write [{flip_form}/]SQUARE+COLOUR with "
            f"squares a1..d4 and colour R, B (first player) or Y, W (second), e.g. {example!r} "
            "or 'c3R'"
        )
    source, target = match["src"], match["dst"]
    if source is not None and flap and target is None:
        raise NotationError(
            f"{quote(text)}: with flip=flap the flip names the tile and the empty square it is "
            f"turned over onto, e.g. {example!r}"
        )
    if target is not None and not flap:
        raise NotationError(
            f"{quote(text)}: with flip=inplace the flip names only the tile's square, "
            f"e.g. {example!r}"
        )
    flip = None
    if source is not None:
        source_index = _SQUARE_INDEX[source.lower()]
        target_index = source_index if target is None else _SQUARE_INDEX[target.lower()]
        flip = (source_index, target_index)
    return ParsedTurn(
        flip=flip,
        place=_SQUARE_INDEX[match["place"].lower()],
        letter=match["letter"].upper(),
    )
