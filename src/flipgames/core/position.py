"""Position notation: one line of text for a whole position, FEN-like, that round-trips.

A game that has one names its codec in :attr:`flipgames.core.game.Game.position_notation`
(a ``module:NAME`` string, imported on first use, or the codec itself); the codec writes a
state as text and parses text into a state with no history. :meth:`State.position` and
:meth:`Game.from_position` are the calls everything else makes, and
:func:`has_position_notation` lets the command line and the web ask whether a game has one
without naming it. Games with chance or hidden information have none: their states depend on
what chance drew and what a player may not see.

Like FEN, a position leaves the repetition history out: a state parsed from text has seen
its position once, whatever happened before.

>>> from flipgames import make
>>> game = make("flipflop")
>>> text = game.new_initial_state().position()
>>> text
'rrrrr/5/5/5/RRRRR w'
>>> game.from_position(text).key() == game.new_initial_state().key()
True
>>> has_position_notation(make("flip-switch"))
False
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Container, Sequence
from typing import TYPE_CHECKING, Protocol

from flipgames.core.errors import PositionError, quote

if TYPE_CHECKING:
    from flipgames.core.game import Game, State

#: The longest position text read: every game's position is well under a hundred characters.
MAX_POSITION_CHARS = 200


class PositionCodec(Protocol):
    """A game's position notation: ``format`` a state, ``parse`` text into a new state."""

    def format(self, state: State) -> str:
        """The position of ``state`` as text."""
        ...

    def parse(self, game: Game, text: str) -> State:
        """A state of ``game`` with no history at the position ``text`` (already stripped);
        :class:`PositionError` naming what is wrong otherwise."""
        ...


def codec_of(game: Game) -> PositionCodec | None:
    """``game``'s position codec, or None when it has no position notation."""
    where = type(game).position_notation
    if where is None or not isinstance(where, str):
        return where
    module, _, name = where.partition(":")
    codec: PositionCodec = getattr(importlib.import_module(module), name)
    return codec


def has_position_notation(game: Game | type[Game]) -> bool:
    """True when ``game`` (a game or its class) writes and reads positions as text."""
    cls = game if isinstance(game, type) else type(game)
    return cls.position_notation is not None


def require_codec(game: Game) -> PositionCodec:
    """``game``'s codec; :class:`PositionError` saying the game has none otherwise."""
    codec = codec_of(game)
    if codec is None:
        raise PositionError(
            f"{game.title} has no position notation (its states depend on chance or hidden "
            "information): give the actions from the start instead"
        )
    return codec


def parse_position(game: Game, text: object) -> State:
    """The state of ``game`` at the position ``text``, with no history (see
    :meth:`Game.from_position`)."""
    codec = require_codec(game)
    if not isinstance(text, str):
        raise PositionError(f"a position is text, not {quote(text)}")
    if len(text) > MAX_POSITION_CHARS:
        raise PositionError(f"position {quote(text)} is too long to be a {game.title} position")
    return codec.parse(game, text.strip())


def start_position(state: State) -> str | None:
    """The position the game leading to ``state`` started from, as text, or None when it
    started at the game's initial state (or the game has no position notation)."""
    root = state
    while root.parent is not None:
        root = root.parent
    if codec_of(state.game) is None or root.key() == state.game.new_initial_state().key():
        return None
    return root.position()


def split_fields(text: str, names: Sequence[str], optional: int = 0) -> list[str]:
    """``text`` split at spaces into the fields ``names`` (the last ``optional`` of them may be
    left out); :class:`PositionError` naming the fields expected otherwise.

    >>> split_fields("5/5 w", ("board", "side to move"))
    ['5/5', 'w']
    >>> split_fields("5/5", ("board", "side to move"))
    Traceback (most recent call last):
    ...
    flipgames.core.errors.PositionError: position '5/5' has 1 field, expected 2: board, side to move
    """
    fields = text.split()
    if not len(names) - optional <= len(fields) <= len(names):
        count = f"{len(fields)} field{'' if len(fields) == 1 else 's'}"
        expected = str(len(names)) if not optional else f"{len(names) - optional} to {len(names)}"
        raise PositionError(
            f"position {quote(text)} has {count}, expected {expected}: {', '.join(names)}"
        )
    return fields


def parse_board(field: str, size: int, pieces: Container[str], letters: str) -> dict[int, str]:
    """The squares of a board field (ranks from the last to the first, ``/`` between them,
    a digit for a run of empty squares): square number (``a1 = 0``, rank-major) -> letter.

    ``pieces`` holds the letters that are pieces; ``letters`` lists them for the error message.

    >>> parse_board("1r1/3/R2", 3, {"R", "r"}, "R, r")
    {7: 'r', 0: 'R'}
    >>> parse_board("1r1/4/R2", 3, {"R", "r"}, "R, r")
    Traceback (most recent call last):
    ...
    flipgames.core.errors.PositionError: rank 2 has 4 squares, expected 3
    """
    ranks = field.split("/")
    if len(ranks) != size:
        raise PositionError(
            f"the board {quote(field)} has {len(ranks)} ranks, expected {size} separated by '/'"
        )
    squares: dict[int, str] = {}
    for row, text in enumerate(ranks):
        rank = size - row  # the first rank written is the last rank of the board
        file = 0
        for char in text:
            if char in "123456789":
                file += int(char)
            elif char in pieces:
                if file < size:
                    squares[(rank - 1) * size + file] = char
                file += 1
            else:
                raise PositionError(
                    f"unknown piece {char!r} on rank {rank}: pieces are {letters}, "
                    "digits count empty squares"
                )
        if file != size:
            raise PositionError(f"rank {rank} has {file} squares, expected {size}")
    return squares


def format_board(size: int, letter_at: Callable[[int], str | None]) -> str:
    """A board field from ``letter_at(square)`` (None: empty), the inverse of
    :func:`parse_board`.

    >>> format_board(3, lambda sq: "R" if sq < 3 else None)
    '3/3/RRR'
    """
    ranks = []
    for rank in range(size - 1, -1, -1):
        text, empty = "", 0
        for file in range(size):
            letter = letter_at(rank * size + file)
            if letter is None:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += letter
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)
