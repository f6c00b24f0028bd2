"""The Unicode picture of a Flip Switch position for terminals.

Face-down tiles show ``░``, the tile being flipped ``?``. A nullified shape is drawn hollow
(``♡ □ ☆``), like the rulebook's tip to swap in inverted tiles once a shape is nullified.

>>> print(render_state(
...     title="Flip Switch · round 1 of 1 · player 2 to move", size=3,
...     tiles=(0, -1, 2, -1, -1, -1, -1, -1, -1), owners=(-1, -1, -1),
...     shapes=("heart", "square", "star"), pending=-1, unrevealed=[2, 3, 2],
...     player_names=("player 1", "player 2"), target=2, banned=None, round_wins=(0, 0),
...     last_round=""))
Flip Switch · round 1 of 1 · player 2 to move
      a   b   c
    ┌───┬───┬───┐
  3 │ ░ │ ░ │ ░ │ 3
    ├───┼───┼───┤
  2 │ ░ │ ░ │ ░ │ 2
    ├───┼───┼───┤
  1 │ ♥ │ ░ │ ★ │ 1
    └───┴───┴───┘
      a   b   c
shapes: ♥ heart  ■ square  ★ star  (hollow = nullified, ░ face down)
credited (2 shapes win the round): player 1 none · player 2 none
face down: 2 heart, 3 square, 2 star
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from flipgames.core.grid import grid

#: Per shape (in SHAPE_NAMES order): the glyph face up, and hollow once nullified.
GLYPHS: Final = "♥■★●▲◆✚☾"
HOLLOW: Final = "♡□☆○△◇✛☽"
FACE_DOWN_GLYPH: Final = "░"
FLIPPING_GLYPH: Final = "?"


def render_state(
    *,
    title: str,
    size: int,
    tiles: Sequence[int],
    owners: Sequence[int],
    shapes: Sequence[str],
    pending: int,
    unrevealed: Sequence[int],
    player_names: Sequence[str],
    target: int,
    banned: str | None,
    round_wins: tuple[int, int],
    last_round: str,
) -> str:
    """Draw the board (rank 1 at the bottom, files and ranks all round) and the status lines.

    ``tiles`` holds a shape index per square (rank-major from a1) or -1 for face down;
    ``owners`` the crediting player per nullified shape, -1 for the others.
    """
    files = "      " + "   ".join(grid(size).files)

    def rule(left: str, middle: str, right: str) -> str:
        return "    " + left + middle.join(["───"] * size) + right

    def cell(square: int) -> str:
        shape = tiles[square]
        if square == pending:
            return FLIPPING_GLYPH
        if shape < 0:
            return FACE_DOWN_GLYPH
        return (HOLLOW if owners[shape] >= 0 else GLYPHS)[shape]

    lines = [title, files, rule("┌", "┬", "┐")]
    for rank in range(size - 1, -1, -1):
        cells = " │ ".join(cell(rank * size + f) for f in range(size))
        lines.append(f"  {rank + 1} │ {cells} │ {rank + 1}")
        if rank:
            lines.append(rule("├", "┼", "┤"))
    lines += [rule("└", "┴", "┘"), files]

    legend = "  ".join(f"{GLYPHS[k]} {name}" for k, name in enumerate(shapes))
    lines.append(f"shapes: {legend}  (hollow = nullified, {FACE_DOWN_GLYPH} face down)")
    credited = " · ".join(
        f"{name} "
        + (", ".join(f"{HOLLOW[k]} {shapes[k]}" for k, o in enumerate(owners) if o == p) or "none")
        for p, name in enumerate(player_names)
    )
    lines.append(f"credited ({target} shapes win the round): {credited}")
    hidden = ", ".join(f"{left} {shapes[k]}" for k, left in enumerate(unrevealed) if left)
    if hidden:
        lines.append(f"face down: {hidden}")
    if banned is not None:
        lines.append(f"banned switch (the opponent just made it): {banned}")
    if last_round:
        wins = " · ".join(f"{name} {w}" for name, w in zip(player_names, round_wins, strict=True))
        lines.append(f"{last_round}; rounds won: {wins}")
    return "\n".join(lines)
