"""FlipFour's position notation: the board, the side to move, the pieces in hand.

The board is FlipFlop's field: ranks from ``5`` down to ``1``, ``/`` between them, files
``a`` to ``e`` within a rank; ``R`` and ``B`` are White's pieces showing the rook (``+``)
and the bishop (``x``) face, ``r`` and ``b`` Black's, a digit counts empty squares. Then
``w`` or ``b`` for the side to move, then the pieces in hand as two digits, White's then
Black's (a hand holds 0 to 4, so one digit each needs no separator). Repetition history is
not part of a position: a parsed state has seen its position once.

A position is accepted when the rules can reach it: FlipFour has no captures, so a side's
pieces on the board and in hand make four; a side with every piece in hand has not played
(its first action is a drop), so White with four in hand means Black has four too and White
is to move, and Black with four in hand means White has dropped at most once, as the side to
move says; and no four in a row for the side to move (the game would have ended when it was
made). A four of the side that just played is a finished game, won by that side.

>>> from flipgames import make
>>> make("flipfour").new_initial_state().position()
'5/5/5/5/5 w 44'
>>> make("flipfour").from_position("5/5/2B2/5/5 b 34").pieces_in_hand(0)
3
>>> make("flipfour").from_position("5/5/2B2/5/5 b 44")
Traceback (most recent call last):
...
flipgames.core.errors.PositionError: White has 1 piece on the board and 4 in hand, but \
has 4 pieces in all
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from flipgames.core.errors import PositionError, quote
from flipgames.core.position import format_board, parse_board, split_fields
from flipgames.games.flipfour.board import PIECES_IN_HAND, SIZE, WINDOWS

if TYPE_CHECKING:
    from flipgames.core.game import Game, State
    from flipgames.games.flipfour.rules import FlipFour, FlipFourState

#: Piece letter -> (player, shows the bishop face).
PIECES: Final = {"R": (0, False), "B": (0, True), "r": (1, False), "b": (1, True)}
LETTERS: Final = {value: letter for letter, value in PIECES.items()}
SIDES: Final = "wb"
NAMES: Final = ("White", "Black")
FIELDS: Final = ("board", "side to move", "pieces in hand")


class FlipFourPosition:
    """The codec :attr:`FlipFour.position_notation` names."""

    def format(self, state: State) -> str:
        four = cast("FlipFourState", state)
        white, bishops = four.white, four.bishops
        occupied = white | four.black

        def letter(square: int) -> str | None:
            if not occupied >> square & 1:
                return None
            return LETTERS[(0 if white >> square & 1 else 1, bool(bishops >> square & 1))]

        hands = "".join(str(h) for h in four.hands)
        return f"{format_board(SIZE, letter)} {SIDES[four.to_move]} {hands}"

    def parse(self, game: Game, text: str) -> State:
        field, side_text, hand_text = split_fields(text, FIELDS)
        squares = parse_board(field, SIZE, PIECES, "R, B (White) and r, b (Black)")
        if side_text not in SIDES:
            raise PositionError(f"side to move must be w or b, not {quote(side_text)}")
        player = SIDES.index(side_text)
        hands = _hands(hand_text)
        colours = [0, 0]
        bishops = 0
        for square, letter in squares.items():
            owner, bishop = PIECES[letter]
            colours[owner] |= 1 << square
            bishops |= bishop << square
        _check_reachable(colours, hands, player)
        return cast("FlipFour", game).state_at(colours[0], colours[1], bishops, hands, player)


def _hands(text: str) -> tuple[int, int]:
    """The pieces-in-hand field: two digits 0 to 4."""
    if len(text) != 2 or any(c not in "01234" for c in text):
        raise PositionError(
            f"pieces in hand must be two digits 0 to {PIECES_IN_HAND}, White's then Black's "
            f"(e.g. 44), not {quote(text)}"
        )
    return int(text[0]), int(text[1])


def _check_reachable(colours: list[int], hands: tuple[int, int], player: int) -> None:
    """:class:`PositionError` unless the rules can reach the position (module docstring)."""
    for side in (0, 1):
        on_board = colours[side].bit_count()
        if on_board + hands[side] != PIECES_IN_HAND:
            raise PositionError(
                f"{NAMES[side]} has {on_board} piece{'' if on_board == 1 else 's'} on the board "
                f"and {hands[side]} in hand, but has {PIECES_IN_HAND} pieces in all"
            )
    if hands[0] == PIECES_IN_HAND and (hands[1] != PIECES_IN_HAND or player != 0):
        raise PositionError(
            "White has every piece in hand, so nobody has played: Black has every piece in "
            "hand too and White is to move"
        )
    if hands[1] == PIECES_IN_HAND and hands[0] != PIECES_IN_HAND - player:
        raise PositionError(
            f"Black has every piece in hand, so White has played {player} action"
            f"{'' if player == 1 else 's'}: White has {PIECES_IN_HAND - player} in hand"
        )
    if any(window & colours[player] == window for window in WINDOWS):
        raise PositionError(
            f"{NAMES[player]} to move has four in a row: the game ended when it was made"
        )


CODEC: Final = FlipFourPosition()
