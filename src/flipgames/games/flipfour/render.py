"""The FlipFour board as Unicode text for terminals.

White's pieces are capitals, Black's small letters; the letter is the face showing: ``R``
rook face (moves orthogonally), ``B`` bishop face (moves diagonally), the same letters the
notation uses (``R@c3``, in any case). Rank 1 is at the bottom; a winning four is bracketed.
The legend under the board says exactly that.

>>> from flipgames import make
>>> state = make("flipfour").new_initial_state()
>>> for text in "R@a1 B@e5 R@b2 B@d4 R@c3 B@b4".split():
...     state = state.apply(state.parse_action(text))
>>> print(state.render())
FlipFour · White to move
    a   b   c   d   e
  ┌───┬───┬───┬───┬───┐
5 │   │   │   │   │ b │ 5
  ├───┼───┼───┼───┼───┤
4 │   │ b │   │ b │   │ 4
  ├───┼───┼───┼───┼───┤
3 │   │   │ R │   │   │ 3
  ├───┼───┼───┼───┼───┤
2 │   │ R │   │   │   │ 2
  ├───┼───┼───┼───┼───┤
1 │ R │   │   │   │   │ 1
  └───┴───┴───┴───┴───┘
    a   b   c   d   e
In hand: White 1, Black 1
R rook face up (moves orthogonally), B bishop face up (moves diagonally);
White's pieces in capitals (R, B), Black's in small letters (r, b); [ ] a winning four
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flipgames.games.flipfour.board import FACE_LETTERS, FILES, SIZE

if TYPE_CHECKING:
    from flipgames.games.flipfour.rules import FlipFourState

_FILE_LABELS = "    " + "   ".join(FILES)
_LEGEND = (
    "R rook face up (moves orthogonally), B bishop face up (moves diagonally);\n"
    "White's pieces in capitals (R, B), Black's in small letters (r, b); [ ] a winning four"
)


def _cell(state: FlipFourState, square: int, winning: tuple[int, ...]) -> str:
    piece = state.piece_at(square)
    if piece is None:
        return "   "
    owner, face = piece
    letter = FACE_LETTERS[face] if owner == 0 else FACE_LETTERS[face].lower()
    return f"[{letter}]" if square in winning else f" {letter} "


def render_state(state: FlipFourState) -> str:
    """The board with coordinates, the status line and the pieces in hand."""
    winning = state.winning_line()
    lines = [
        f"FlipFour · {state.status_text()}",
        _FILE_LABELS,
        "  ┌" + "┬".join(["───"] * SIZE) + "┐",
    ]
    for rank in range(SIZE, 0, -1):
        cells = "│".join(_cell(state, (rank - 1) * SIZE + f, winning) for f in range(SIZE))
        lines.append(f"{rank} │{cells}│ {rank}")
        if rank > 1:
            lines.append("  ├" + "┼".join(["───"] * SIZE) + "┤")
    lines.append("  └" + "┴".join(["───"] * SIZE) + "┘")
    lines.append(_FILE_LABELS)
    lines.append(f"In hand: White {state.pieces_in_hand(0)}, Black {state.pieces_in_hand(1)}")
    lines.append(_LEGEND)
    return "\n".join(lines)
