"""The Rubik's Flip lesson (the default rules: flips in place, king-move locks): placing,
the mandatory flip, locking, locked tiles, and a winning row, each a position in Rubik's
Flip's position notation.

>>> from flipgames.core.lessons import lesson_for
>>> len(lesson_for("rubiks-flip").steps)
5
"""

from __future__ import annotations

from flipgames.core.game import State
from flipgames.core.lessons import Goal, Lesson, Step, any_move, wins

PLACE_RULE = (
    "Each player has 8 tiles, red on one side and blue on the other (the second player's: "
    "yellow and white). A turn ends by placing one of your tiles on any empty square, either "
    "colour up. On the very first turn that is all."
)
FLIP_RULE = (
    "From the second turn on, you first turn over one of your opponent's tiles, if any can "
    "be turned: it now shows its other colour. The flip is not optional. Then you place."
)
LOCK_RULE = (
    "A tile is locked when every square around it, the 8 neighbours including diagonals "
    "(fewer at an edge or a corner), holds a tile of either player."
)
LOCKED_RULE = (
    "A locked tile can never be flipped again, by either player. Only unlocked tiles are "
    "offered for the flip."
)
WIN_RULE = (
    "You win with three of your tiles in a row (across, down or diagonally) that all show the "
    "same colour and are all locked. Sixteen tiles placed with no such row is a draw."
)


def _locks(square: str, says: str, miss: str) -> Goal:
    """A turn after which the tile on ``square`` is locked."""

    def check(_before: State, _action: int, after: State) -> bool:
        tile = after.observation(None)["board"]["squares"][square]
        return tile is not None and bool(tile["locked"])

    return Goal(says, miss, check)


LESSON = Lesson(
    intro="Rubik's Flip in five short steps: you play Red/Blue. Each step sets up a position; "
    "play the turn it asks for.",
    steps=(
        Step(
            "Place a tile",
            PLACE_RULE,
            any_move("Place a tile: pick the colour to show, then a square."),
            ("b2R", "c3B"),
            "Placed. From now on every turn starts with a flip.",
            position="4/4/4/4 r",
        ),
        Step(
            "The flip",
            FLIP_RULE,
            any_move("Flip the yellow tile over, then place one of your tiles."),
            ("b2/c3R", "b2/a1B"),
            "The yellow tile now shows white, and your tile is down.",
            position="4/4/1Y2/1R2 r",
        ),
        Step(
            "Locking",
            LOCK_RULE,
            _locks(
                "a1",
                "Lock your tile on a1: fill the last empty square next to it.",
                "your tile on a1 still has an empty neighbour.",
            ),
            ("b1/b2R", "c1/b2B"),
            "Locked: every square around a1 is taken, so that tile can never be flipped.",
            position="4/4/R3/RYY1 r",
        ),
        Step(
            "Locked tiles stay",
            LOCKED_RULE,
            any_move("Yellow's tile on a1 is locked: flip the one on b2 instead, then place."),
            ("b2/d4R", "b2/c3B"),
            "Only b2 could be flipped: a1 is locked in for good.",
            position="4/4/RY2/YR2 r",
        ),
        Step(
            "A winning row",
            WIN_RULE,
            wins(
                "Win: flip any yellow tile, then complete a row of three blue tiles, all locked.",
                "it makes no row of three locked tiles of one colour.",
            ),
            ("c2/c4B", "a3/c4B"),
            "Three blue tiles in a row, all locked: Red/Blue wins!",
            position="BB1W/WBRW/2W1/4 r",
        ),
    ),
)
