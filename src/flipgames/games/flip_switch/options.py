"""Flip Switch's rule options and the rules in words for a chosen set of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from flipgames.core.options import Option, options_for_players
from flipgames.games.flip_switch.notation import SHAPE_NAMES

if TYPE_CHECKING:
    from flipgames.games.flip_switch.rules import FlipSwitch

OPTION_SPEC: Final[tuple[Option, ...]] = (
    Option(
        "lines",
        "all",
        choices=("all", "edges"),
        help="all rows, columns and diagonals score, or only the four edges and the two "
        "corner-to-corner diagonals (the rulebook's literal 'entire side').",
        label="Lines that score",
        choice_words=("all lines", "edges only"),
    ),
    Option(
        "no_move",
        "draw",
        choices=("draw", "pass"),
        help="what happens when the player to move has no legal action.",
        label="No legal action",
        choice_words=("the round is drawn", "the player passes"),
    ),
    # The rulebook: "Winner is determined by number of rounds won", so play is a match.
    # One round (rounds=1) is the game the solver and the perfect level study.
    Option(
        "rounds",
        3,
        minimum=1,
        maximum=99,
        help="rounds in the match; 1 is a single round (the game the solver studies).",
        label="Number of rounds",
    ),
    Option(
        "size",
        3,
        minimum=3,
        maximum=6,
        help="squares along each side of the board.",
        label="Board size",
    ),
    Option(
        "shapes",
        3,
        minimum=2,
        maximum=len(SHAPE_NAMES),
        help=f"how many shapes ({', '.join(SHAPE_NAMES)}, in that order).",
        label="Number of shapes",
    ),
    Option(
        "copies", 3, minimum=3, maximum=18, help="tiles per shape.", label="Tiles of each shape"
    ),
    Option(
        "line",
        3,
        minimum=3,
        maximum=6,
        help="tiles in a scoring line (the rulebook: three; at most the board size).",
        label="Scoring line length",
    ),
    # Candidate fixes for the hole the audit finds (docs/lab/flip-switch.md): with best
    # play every round goes round in switches until the repetition rule draws it.
    Option(
        "must_flip",
        "no",
        choices=("no", "yes"),
        help="with yes, a player must flip while any tile is face down (no switch until "
        "all are up).",
        label="Flip first",
    ),
    Option(
        "switch_limit",
        0,
        minimum=0,
        maximum=99,
        help="0 means no limit; otherwise after that many turns in a row without a flip or "
        "a score the round ends, won by the player credited with more shapes (equal: drawn).",
        label="Turn limit",
    ),
)


def rules_text(game: FlipSwitch) -> str:
    """The rules as played with ``game``'s options, in words (``flipgames rules``)."""
    layout = game.layout
    names = ", ".join(layout.shapes)
    size = layout.size
    options = options_for_players(game.option_spec, game.options)
    return f"""\
Flip Switch (rulebook: the designer's Thingiverse page; rulings: flipgames docs/rulings.md)

Setup: {size * size} tiles, {game.copies} each of {names}, face down on a {size}x{size} grid.
  Nobody knows a face-down tile: a flip's shape is a chance outcome, each shape with
  probability proportional to how many of it are still unrevealed (the same as shuffling).
Turn: either
  1. flip a face-down tile (notation: its square, e.g. b2), or
  2. switch two orthogonally adjacent face-up tiles (e.g. a1-a2). A switch may not swap
     two tiles of the same shape, two nullified shapes (a nullified shape may switch with
     one that is not), a face-down tile, or the exact switch (same two squares) the opponent
     made in the immediately preceding turn (your own earlier switches are not restricted).
Lines: {game.line} tiles in a straight row: {_lines_text(game)}.{_fixes_text(game)}
Scoring: when an action makes a line of face-up tiles of one shape that is not yet
  nullified, the player who acted (for a flip, the flipper) is credited with that shape and
  it is nullified for both players for the rest of the round. One action can credit two
  shapes; a flip can score; a nullified shape never scores again that round.
Round: the first player credited with {game.target} shapes (a majority of {len(layout.shapes)}) \
wins the round.
  The round is drawn if the player to move has no legal action (unless the option below
  says such a player passes) or if a position (tiles, nullified shapes and their owners,
  last switch, side to move) occurs for the third time. Where the option says so, a player
  with no legal action must pass (notation: pass); if both players can only pass, the third
  repetition draws the round.
Match: {game.rounds} round(s); player 1 starts odd rounds, player 2 even rounds; each round is
  a fresh face-down grid. Most rounds won wins the match; equal is a draw.

{options}
"""


def _fixes_text(game: FlipSwitch) -> str:
    """The candidate fixes in force, in words (empty for the published rules)."""
    text = ""
    if game.must_flip:
        text += "\nDuty to flip (must_flip=yes): while any tile is face down, a turn is a flip."
    if game.switch_limit:
        text += (
            f"\nSwitch limit (switch_limit={game.switch_limit}): after "
            f"{game.switch_limit} turns in a row without a flip or a score the round ends;"
            "\n  the player credited with more shapes wins it, equal is a draw."
        )
    return text


def _lines_text(game: FlipSwitch) -> str:
    if game.options["lines"] == "edges":
        return "only along the four edges and the two corner-to-corner diagonals"
    return "any three consecutive squares of a row, column or diagonal"
