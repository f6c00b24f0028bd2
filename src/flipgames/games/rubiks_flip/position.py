"""Rubik's Flip's position notation: the board, then the side to move.

The board is written rank by rank from ``4`` down to ``1``, ``/`` between ranks, files ``a``
to ``d`` within a rank; each tile is the letter of the colour it shows, ``R`` or ``B`` (the
first player's red/blue tiles), ``Y`` or ``W`` (the second player's yellow/white tiles), and
a digit counts empty squares. Then ``r`` when Red/Blue is to move, ``y`` when Yellow/White
is. The side to move is also what the tile count says (Red/Blue moves when it is even): the
field is there to be read, and must agree.

Nothing else is state: locks follow from which squares are occupied (and the ``lock``
option), the tiles in hand from the tiles on the board, and a winner is judged as after the
last placement. The rule options (``flip``, ``lock``, ``both``) belong to the game, not the
position. There is no repetition: every turn places a tile.

A position is accepted when each player's tile count fits the turns: Red/Blue has as many
tiles as Yellow/White or one more.

>>> from flipgames import make
>>> make("rubiks-flip").new_initial_state().position()
'4/4/4/4 r'
>>> state = make("rubiks-flip").from_position("4/4/1WR1/4 r")
>>> state.tile("b2"), state.tile("c2"), state.current_player
('W', 'R', 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from flipgames.core.errors import PositionError, quote
from flipgames.core.position import format_board, parse_board, split_fields
from flipgames.games.rubiks_flip.notation import LETTER_OWNER, SIZE

if TYPE_CHECKING:
    from flipgames.core.game import Game, State
    from flipgames.games.rubiks_flip.rules import RubiksFlip, RubiksFlipState

SIDES: Final = "ry"
NAMES: Final = ("Red/Blue", "Yellow/White")
FIELDS: Final = ("board", "side to move")


class RubiksFlipPosition:
    """The codec :attr:`RubiksFlip.position_notation` names."""

    def format(self, state: State) -> str:
        rubiks = cast("RubiksFlipState", state)
        return f"{format_board(SIZE, rubiks.tile)} {SIDES[rubiks.to_move]}"

    def parse(self, game: Game, text: str) -> State:
        field, side_text = split_fields(text, FIELDS)
        squares = parse_board(field, SIZE, LETTER_OWNER, "R, B (Red/Blue) and Y, W (Yellow/White)")
        if side_text not in SIDES:
            raise PositionError(
                f"side to move must be r (Red/Blue) or y (Yellow/White), not {quote(side_text)}"
            )
        tiles = [0, 0]
        faces = 0
        for square, letter in squares.items():
            owner, face = LETTER_OWNER[letter]
            tiles[owner] |= 1 << square
            faces |= face << square
        counts = [tiles[0].bit_count(), tiles[1].bit_count()]
        if not 0 <= counts[0] - counts[1] <= 1:
            raise PositionError(
                f"Red/Blue has {counts[0]} tiles and Yellow/White {counts[1]}: Red/Blue places "
                "first and each turn places one, so it has as many or one more"
            )
        to_move = (counts[0] + counts[1]) & 1
        if SIDES.index(side_text) != to_move:
            raise PositionError(
                f"side to move is {side_text!r}, but with {counts[0]} and {counts[1]} tiles "
                f"placed {NAMES[to_move]} moves: write {SIDES[to_move]!r}"
            )
        return cast("RubiksFlip", game).state_at((tiles[0], tiles[1]), faces)


CODEC: Final = RubiksFlipPosition()
