"""The Unicode terminal picture of a Rubik's Flip position.

A tile shows its colour letter; a locked tile is bracketed (``[R]``) and the tiles of a
winning row are starred (``*R*``).

>>> from flipgames import make
>>> state = make("rubiks-flip").new_initial_state()
>>> for text in ("a1R", "a1/b1Y", "b1/a2B", "a1/b2W"):
...     state = state.apply(state.parse_action(text))
>>> print(state.render())
    a   b   c   d
  ┌───┬───┬───┬───┐
4 │ · │ · │ · │ · │ 4
  ├───┼───┼───┼───┤
3 │ · │ · │ · │ · │ 3
  ├───┼───┼───┼───┤
2 │ B │ W │ · │ · │ 2
  ├───┼───┼───┼───┤
1 │[R]│ W │ · │ · │ 1
  └───┴───┴───┴───┘
    a   b   c   d
In hand: Red/Blue (R/B) 6, Yellow/White (Y/W) 6   [X] locked
Red/Blue to move: flip one of b1, b2, then place a tile, red or blue side up
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flipgames.games.rubiks_flip.notation import COLOUR_LETTERS, FILES, SIZE, parse_square

if TYPE_CHECKING:
    from flipgames.games.rubiks_flip.rules import RubiksFlipState


def _cell(state: RubiksFlipState, square: int, locked: int, winning: int) -> str:
    letter = state.tile(square)
    if letter is None:
        return " · "
    if winning >> square & 1:
        return f"*{letter}*"
    if locked >> square & 1:
        return f"[{letter}]"
    return f" {letter} "


def _border(left: str, middle: str, right: str) -> str:
    return "  " + left + middle.join(["───"] * SIZE) + right


def render_state(state: RubiksFlipState) -> str:
    """The board with coordinates (rank 1 at the bottom), tiles in hand and a status line."""
    locked = state.locked_mask()
    winning = sum(1 << parse_square(name) for name in state.winning_squares)
    files = "    " + "   ".join(FILES)
    lines = [files, _border("┌", "┬", "┐")]
    for rank in reversed(range(SIZE)):
        cells = "│".join(_cell(state, f + SIZE * rank, locked, winning) for f in range(SIZE))
        lines.append(f"{rank + 1} │{cells}│ {rank + 1}")
        lines.append(_border("├", "┼", "┤") if rank else _border("└", "┴", "┘"))
    lines.append(files)
    names = state.game.player_names
    hands = ", ".join(
        f"{names[p]} ({'/'.join(COLOUR_LETTERS[p])}) {state.in_hand(p)}" for p in (0, 1)
    )
    legend = "   [X] locked" + ("   *X* winning row" if winning else "")
    lines.append(f"In hand: {hands}{legend}")
    lines.append(state.status_text())
    return "\n".join(lines)
