"""FlipFlop's position notation (both sizes): the board, then the side to move.

The board is written rank by rank from the last (Black's home rank) to the first, ``/``
between ranks, files ``a`` to the last within a rank; ``R`` and ``B`` are White's pieces
showing the rook (``+``) and the bishop (``x``) face, ``r`` and ``b`` Black's, and a digit
counts empty squares. The side to move is ``w`` or ``b``. Repetition history is not part of
a position: a parsed state has seen its position once.

A position is accepted when the rules can reach it: at most N pieces a side (N = the board
size: nothing adds pieces), at least one piece for the side that just moved (its last move
was made by a piece that is still there), no piece of the side to move on the other side's
goal (that side would have been in check and had to capture it), and, while both sides still
have every piece, as many ``x`` faces as plies played in parity (each move flips one piece;
White moves on even plies), so an even number with White to move.

>>> from flipgames import make
>>> make("flipflop").new_initial_state().position()
'rrrrr/5/5/5/RRRRR w'
>>> state = make("flipflop-3x3").new_initial_state()
>>> state.apply(state.parse_action("b1xb3")).position()
'rBr/3/R1R b'
>>> make("flipflop").from_position("rrrrr/5/5/5/RRRRR x")
Traceback (most recent call last):
...
flipgames.core.errors.PositionError: side to move must be w or b, not 'x'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from flipgames.core.errors import PositionError, quote
from flipgames.core.position import format_board, parse_board, split_fields
from flipgames.games.flipflop.board import BLACK, COLOUR_NAMES, WHITE
from flipgames.games.flipflop.notation import square_name

if TYPE_CHECKING:
    from flipgames.core.game import Game, State
    from flipgames.games.flipflop.rules import FlipFlop, FlipFlopState

#: Piece letter -> (colour, shows the bishop face).
PIECES: Final = {"R": (WHITE, False), "B": (WHITE, True), "r": (BLACK, False), "b": (BLACK, True)}
LETTERS: Final = {value: letter for letter, value in PIECES.items()}
SIDES: Final = "wb"
FIELDS: Final = ("board", "side to move")


class FlipFlopPosition:
    """The codec :attr:`FlipFlop.position_notation` names."""

    def format(self, state: State) -> str:
        flipflop = cast("FlipFlopState", state)
        white, bishops = flipflop.white, flipflop.bishops
        occupied = white | flipflop.black

        def letter(square: int) -> str | None:
            if not occupied >> square & 1:
                return None
            return LETTERS[(WHITE if white >> square & 1 else BLACK, bool(bishops >> square & 1))]

        return f"{format_board(flipflop.board.size, letter)} {SIDES[flipflop.side]}"

    def parse(self, game: Game, text: str) -> State:
        flipflop = cast("FlipFlop", game)
        board = flipflop.board
        field, side_text = split_fields(text, FIELDS)
        squares = parse_board(field, board.size, PIECES, "R, B (White) and r, b (Black)")
        if side_text not in SIDES:
            raise PositionError(f"side to move must be w or b, not {quote(side_text)}")
        side = SIDES.index(side_text)
        colours = [0, 0]
        bishops = 0
        for square, letter in squares.items():
            colour, bishop = PIECES[letter]
            colours[colour] |= 1 << square
            bishops |= bishop << square
        _check_reachable(flipflop, colours, bishops, side)
        return flipflop.state_at(colours[WHITE], colours[BLACK], bishops, side)


def _check_reachable(game: FlipFlop, colours: list[int], bishops: int, side: int) -> None:
    """:class:`PositionError` unless the rules can reach the position (module docstring)."""
    board = game.board
    counts = [colours[WHITE].bit_count(), colours[BLACK].bit_count()]
    for colour in (WHITE, BLACK):
        if counts[colour] > board.size:
            raise PositionError(
                f"{COLOUR_NAMES[colour]} has {counts[colour]} pieces, at most {board.size} "
                f"on {board.size}x{board.size}"
            )
    if not counts[1 - side]:
        raise PositionError(
            f"{COLOUR_NAMES[1 - side]} has no piece but made the last move "
            f"({COLOUR_NAMES[side]} to move)"
        )
    other_goal = board.goal[1 - side]
    if colours[side] >> other_goal & 1:
        raise PositionError(
            f"{COLOUR_NAMES[side]}'s piece on {square_name(other_goal, board.size)} (the goal of "
            f"{COLOUR_NAMES[1 - side]}) would have had to be captured: "
            f"{COLOUR_NAMES[1 - side]} was in check"
        )
    if counts == [board.size, board.size] and bishops.bit_count() % 2 != side:
        raise PositionError(
            f"with every piece on the board, {bishops.bit_count()} x faces cannot be shown with "
            f"{COLOUR_NAMES[side]} to move: each move flips one piece, so the count is "
            f"{'even' if side == WHITE else 'odd'}"
        )


CODEC: Final = FlipFlopPosition()
