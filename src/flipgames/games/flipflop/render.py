# ruff: noqa: RUF001, RUF002 - the bishop face symbol is the multiplication sign, not a letter.
"""The Unicode text picture of a FlipFlop position.

Rank 1 (White's side) is at the bottom, files a.. left to right, coordinates on all four sides.
A piece is its owner's disc (``○`` White, ``●`` Black) and its face up (``+`` moves like a
rook, ``×`` like a bishop); goal squares are bracketed ``[ ]``.

>>> print(draw_board(3, {1: (0, 0), 7: (1, 1)}, (1, 7), ["White to move"]))
    a    b    c
  ┌────┬────┬────┐
3 │    │[●×]│    │ 3
  ├────┼────┼────┤
2 │    │    │    │ 2
  ├────┼────┼────┤
1 │    │[○+]│    │ 1
  └────┴────┴────┘
    a    b    c
○ White  ● Black  + rook face  × bishop face  [ ] goal: b1 White's, b3 Black's
White to move
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flipgames.core.grid import grid
from flipgames.games.flipflop.notation import square_name

DISCS = "○●"
#: By face: ROOK, BISHOP.
FACE_SYMBOLS = "+×"


def _cell(piece: tuple[int, int] | None, goal: bool) -> str:
    inside = "  " if piece is None else DISCS[piece[0]] + FACE_SYMBOLS[piece[1]]
    return f"[{inside}]" if goal else f" {inside} "


def draw_board(
    size: int,
    pieces: Mapping[int, tuple[int, int]],
    goals: tuple[int, int],
    status: Sequence[str],
) -> str:
    """Draw a board: ``pieces`` maps squares to (owner, face); ``goals`` are White's, Black's."""
    files = "    ".join(grid(size).files)
    header = f"    {files}"
    rule = "────"
    lines = [header, "  ┌" + "┬".join([rule] * size) + "┐"]
    for rank in reversed(range(size)):
        cells = [_cell(pieces.get(rank * size + f), rank * size + f in goals) for f in range(size)]
        lines.append(f"{rank + 1} │" + "│".join(cells) + f"│ {rank + 1}")
        if rank:
            lines.append("  ├" + "┼".join([rule] * size) + "┤")
    lines += ["  └" + "┴".join([rule] * size) + "┘", header]
    white_goal, black_goal = (square_name(g, size) for g in goals)
    lines.append(
        f"{DISCS[0]} White  {DISCS[1]} Black  {FACE_SYMBOLS[0]} rook face  "
        f"{FACE_SYMBOLS[1]} bishop face  [ ] goal: {white_goal} White's, {black_goal} Black's"
    )
    lines.extend(status)
    return "\n".join(lines)
