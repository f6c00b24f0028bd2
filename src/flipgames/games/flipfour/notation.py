"""FlipFour notation and action ids.

Notation (ruling R2, docs/rulings.md): a drop names the face put up, ``R@c3`` (rook face,
``+``) or ``B@c3`` (bishop face, ``x``); a move is ``from-to``, e.g. ``c3-e5``. Input may also name
the face the moving piece shows before it moves, ``Rc3-c5`` / ``Bc3-e5`` (checked against the
board), and letters may be in either case; output is always the short canonical form.

Action ids are dense, 370 in all:

=========  =====================================================================
ids        action
=========  =====================================================================
0..24      ``R@sq``: drop rook face up on square ``id`` (a1 = 0 ... e5 = 24)
25..49     ``B@sq``: drop bishop face up on square ``id - 25``
50..369    moves: one id for each ordered pair (from, to) of distinct squares on
           a common rank, file or diagonal (200 orthogonal + 120 diagonal
           pairs), numbered by from-square, then to-square
=========  =====================================================================

>>> action_text(12), action_text(37), action_text(move_id(12, 24))
('R@c3', 'B@c3', 'c3-e5')
>>> parse_text("c3-e5") == Move(12, 24, None), parse_text(" b@A1 ") == Drop(BISHOP, 0)
(True, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from flipgames.core.errors import IllegalActionError, NotationError, quote
from flipgames.games.flipfour.board import (
    BISHOP,
    FACE_LETTERS,
    NUM_SQUARES,
    REACH,
    ROOK,
    SQUARE_INDEX,
    SQUARE_NAMES,
    squares,
)

DROP_BISHOP: Final = NUM_SQUARES
MOVE_BASE: Final = 2 * NUM_SQUARES

#: ``MOVES[id - MOVE_BASE]``: (from, to) of a move id.
MOVES: Final = tuple(
    (frm, to)
    for frm in range(NUM_SQUARES)
    for to in range(NUM_SQUARES)
    if (REACH[ROOK][frm] | REACH[BISHOP][frm]) >> to & 1
)
_ID_OF_PAIR = {pair: MOVE_BASE + index for index, pair in enumerate(MOVES)}
#: ``MOVE_IDS[from * 25 + to]``: the move id, or -1 where no face goes from ``from`` to ``to``.
MOVE_IDS: Final = tuple(
    _ID_OF_PAIR.get((frm, to), -1) for frm in range(NUM_SQUARES) for to in range(NUM_SQUARES)
)
NUM_ACTIONS: Final = MOVE_BASE + len(MOVES)
#: ``MOVES_FROM[face][from]``: (bit of the target square, move id) for every square a piece
#: showing ``face`` reaches from ``from``, ascending, so move generation is one filter.
MOVES_FROM: Final = tuple(
    tuple(
        tuple((1 << to, MOVE_IDS[frm * NUM_SQUARES + to]) for to in squares(REACH[face][frm]))
        for frm in range(NUM_SQUARES)
    )
    for face in (ROOK, BISHOP)
)

EXPECTED: Final = (
    "write a drop as R@square or B@square (e.g. R@c3) or a move as from-to (e.g. c3-e5), "
    "squares a1..e5"
)

_SQUARE = r"([a-eA-E][1-5])"
_DROP = re.compile(rf"([RBrb])@{_SQUARE}")
_MOVE = re.compile(rf"([RBrb])?{_SQUARE}-{_SQUARE}")
_CAPTURE = re.compile(rf"[RBrb]?{_SQUARE}[xX:]{_SQUARE}")


@dataclass(frozen=True, slots=True)
class Drop:
    """A drop of a piece from hand onto ``square`` with ``face`` up."""

    face: int
    square: int

    @property
    def action(self) -> int:
        """The action id."""
        return self.face * NUM_SQUARES + self.square


@dataclass(frozen=True, slots=True)
class Move:
    """A move ``frm``-``to``; ``face`` is the face the text claims the piece shows, if any."""

    frm: int
    to: int
    face: int | None

    @property
    def action(self) -> int | None:
        """The action id, or None when no face moves from ``frm`` to ``to``."""
        return move_id(self.frm, self.to)


def move_id(frm: int, to: int) -> int | None:
    """The id of the move ``frm``-``to``, or None if no face moves that way.

    >>> move_id(0, 1), move_id(0, 7) is None
    (50, True)
    """
    action = MOVE_IDS[frm * NUM_SQUARES + to]
    return None if action < 0 else action


def action_text(action: int) -> str:
    """The canonical notation of an action id (the same in every position).

    >>> action_text(0), action_text(NUM_ACTIONS - 1)
    ('R@a1', 'e5-d5')
    """
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(
            f"{quote(action)} is not a FlipFour action id: ids run from 0 to {NUM_ACTIONS - 1}"
        )
    if action < MOVE_BASE:
        face, square = divmod(action, NUM_SQUARES)
        return f"{FACE_LETTERS[face]}@{SQUARE_NAMES[square]}"
    frm, to = MOVES[action - MOVE_BASE]
    return f"{SQUARE_NAMES[frm]}-{SQUARE_NAMES[to]}"


def notation_help() -> str:
    """How to write an action, with examples (the terminal's in-game ``help``)."""
    return (
        "Drop a piece from your hand with a face up: R@c3 (R = + rook face) or B@c3\n"
        "(B = x bishop face). Move a piece on the board: from-to, e.g. c3-e5 (it flips as it\n"
        "moves). Squares a1 to e5, file letter then rank; letters in any case."
    )


def _square(text: str) -> int:
    return SQUARE_INDEX[text.lower()]


def _face(letter: str) -> int:
    return FACE_LETTERS.index(letter.upper())


def parse_text(text: object) -> Drop | Move:
    """Parse notation into a :class:`Drop` or :class:`Move` without looking at a position.

    Raises :class:`NotationError` quoting ``text`` and showing the expected form.

    >>> parse_text("Rc3-c5")
    Move(frm=12, to=22, face=0)
    >>> parse_text("c3xe5")
    Traceback (most recent call last):
    ...
    flipgames.core.errors.NotationError: 'c3xe5' is not a FlipFour action: FlipFour has no \
captures; write a move as from-to, e.g. c3-e5
    """
    if not isinstance(text, str):
        raise NotationError(f"an action must be text in notation, got {quote(text)}; {EXPECTED}")
    if parsed := _CANONICAL.get(text):
        return parsed
    stripped = text.strip()
    if match := _DROP.fullmatch(stripped):
        return Drop(_face(match[1]), _square(match[2]))
    if match := _MOVE.fullmatch(stripped):
        face = None if match[1] is None else _face(match[1])
        return Move(_square(match[2]), _square(match[3]), face)
    if _CAPTURE.fullmatch(stripped):
        hint = "FlipFour has no captures; write a move as from-to, e.g. c3-e5"
    elif stripped.lower() in SQUARE_INDEX:
        hint = f"a drop names the face put up: R@{stripped.lower()} or B@{stripped.lower()}"
    else:
        hint = EXPECTED
    raise NotationError(f"{quote(text)} is not a FlipFour action: {hint}")


def _unparsed(action: int) -> Drop | Move:
    if action < MOVE_BASE:
        return Drop(*divmod(action, NUM_SQUARES))
    return Move(*MOVES[action - MOVE_BASE], face=None)


#: Canonical text -> parsed action: replaying a record reads these, so skip the expressions.
_CANONICAL: Final = {action_text(a): _unparsed(a) for a in range(NUM_ACTIONS)}
