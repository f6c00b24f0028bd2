"""The Flip Switch lesson (one round, the published rules): a flip, a switch, scoring a line
by a switch and by a flip, nullified shapes, and winning the round.

Flip Switch has no position notation, so each step is reached by actions from the start,
the shapes of its flips written in (chance outcomes, as a record lists them). The shape a
flip shows in a step is set by the lesson (``then``), never drawn: nothing here comes from,
or tells anything of, the tiles of a real match, whose shapes are drawn only when flipped.

>>> from flipgames.core.lessons import lesson_for
>>> len(lesson_for("flip-switch").steps)
6
"""

from __future__ import annotations

from flipgames.core.game import State
from flipgames.core.lessons import Goal, Lesson, Step, of_kind, wins

FLIP_RULE = (
    "Nine tiles lie face down: three hearts, three squares and three stars, in no order "
    "anyone knows. On your turn you either flip a face-down tile, which stays where it is, "
    "face up, or switch two tiles."
)
SWITCH_RULE = (
    "A switch swaps two face-up tiles side by side (never diagonally). Two tiles of the same "
    "shape cannot be switched, nor two nullified shapes, nor a face-down tile, nor the very "
    "switch your opponent just made."
)
SCORE_RULE = (
    "Make a line of three face-up tiles of one shape, a row, a column or a diagonal, and that "
    "shape is yours: you are credited with it."
)
FLIP_SCORE_RULE = (
    "A flip can make a line too, if the tile turns out to be the right shape. Nobody knows "
    "what a face-down tile shows until it is flipped: in this lesson it is set for you."
)
NULLIFIED_RULE = (
    "A shape that has been scored is nullified for the rest of the round, for both players: "
    "its lines never score again."
)
WIN_RULE = (
    "The first player credited with two shapes wins the round. A match is several rounds; "
    "most rounds won wins it."
)


def _credited(state: State, player: int) -> int:
    return len(state.observation(None)["board"]["credited"][player])


def _scores(says: str, miss: str) -> Goal:
    """A move after which the learner is credited with one more shape."""

    def check(before: State, _action: int, after: State) -> bool:
        learner = before.current_player
        return _credited(after, learner) > _credited(before, learner)

    return Goal(says, miss, check)


NO_LINE = "it makes no line of three of a shape that can still score."

LESSON = Lesson(
    intro="Flip Switch in six short steps, one round: you are Player 1. Each step sets up "
    "a position; play the move it asks for.",
    options={"rounds": 1},
    steps=(
        Step(
            "Flip a tile",
            FLIP_RULE,
            of_kind("flip", "Flip any face-down tile.", ""),
            ("b2", "a1"),
            "Face up: it is a heart.",
            then=("heart",),
        ),
        Step(
            "Switch two tiles",
            SWITCH_RULE,
            of_kind(
                "switch",
                "Switch two face-up tiles that are side by side.",
                "it is a flip: this step is about switching two face-up tiles.",
            ),
            ("a1-b1", "a2-b2"),
            "Switched: the two tiles changed places.",
            actions=("a1", "heart", "b1", "star", "a2", "square", "b2", "star"),
        ),
        Step(
            "Score a line",
            SCORE_RULE,
            _scores("Switch two tiles to make a row of three hearts.", NO_LINE),
            ("c1-c2",),
            "Three hearts in a row: hearts are yours.",
            actions=("a1", "heart", "b1", "heart", "c2", "heart", "c1", "star"),
        ),
        Step(
            "Score with a flip",
            FLIP_SCORE_RULE,
            _scores("Flip the tile that completes the hearts on the bottom row.", NO_LINE),
            ("c1",),
            "It is a heart: three in a row, and hearts are yours.",
            actions=("a1", "heart", "b1", "heart", "a3", "star", "c3", "square"),
            then=("heart",),
        ),
        Step(
            "Nullified shapes",
            NULLIFIED_RULE,
            _scores(
                "Player 2 has scored hearts, so hearts are nullified: score another shape.",
                NO_LINE,
            ),
            ("c2-c3",),
            "Three stars in a row: stars are yours. Hearts could never score again.",
            actions=(
                *("a1", "heart", "b1", "heart", "a3", "star", "c1", "heart"),
                *("b3", "star", "c2", "star", "c3", "square", "a2", "square"),
            ),
        ),
        Step(
            "Win the round",
            WIN_RULE,
            wins(
                "You have hearts already: score a second shape to win the round.",
                NO_LINE,
            ),
            ("c2-c3",),
            "Squares too: two shapes, and Player 1 wins the round!",
            actions=(
                *("a1", "heart", "a2", "square", "b1", "heart", "b2", "square"),
                *("c1", "heart", "c3", "square", "c2", "star", "a3", "star"),
            ),
        ),
    ),
)
