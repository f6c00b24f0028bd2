"""The FlipFour lesson: drops, moves that flip and leap, four in a row by a drop and by a
move, and a block, each a position in FlipFour's position notation.

>>> from flipgames.core.lessons import lesson_for
>>> len(lesson_for("flipfour").steps)
5
"""

# The rules show the pieces' own symbols: + and a multiplication sign, not the letter x.
# ruff: noqa: RUF001

from __future__ import annotations

from flipgames.core.lessons import Lesson, Step, of_kind, stops_win, wins

DROP_RULE = (
    "On your turn you either drop or move. A drop puts one of the four pieces in your hand "
    "on any empty square, with the face you choose up: + or ×. A dropped piece does not flip."
)
MOVE_RULE = (
    "A move takes one of your pieces on the board along its lines: + along its row or column, "
    "× diagonally, to any empty square at any distance. It may leap over any pieces, and it "
    "turns over when it lands. Nothing is ever captured."
)
FOUR_RULE = (
    "Four of your pieces in an unbroken straight line, a row, a column or a diagonal, win at "
    "once, whatever faces they show."
)
MOVE_FOUR_RULE = (
    "Once your four pieces are on the board you can only move them, and a move can make "
    "four in a row too."
)
BLOCK_RULE = (
    "Watch the other side's lines: three in a row with an empty square to complete them "
    "is a threat. Take that square before they do."
)

LESSON = Lesson(
    intro="FlipFour in five short steps: you play White. Each step sets up a position; play "
    "the move it asks for.",
    steps=(
        Step(
            "Drop a piece",
            DROP_RULE,
            of_kind("drop", "Drop a piece on any empty square, + or × face up.", ""),
            ("R@c3", "B@b2"),
            "Dropped. You have three pieces left in hand.",
            position="5/5/5/5/5 w 44",
        ),
        Step(
            "Move a piece",
            MOVE_RULE,
            of_kind(
                "move",
                "Move your piece on b2 instead of dropping one: it may leap over the Black piece.",
                "it is a drop: this step is about moving the piece already on the board.",
            ),
            ("b2-b4", "b2-e2"),
            "It moved and flipped: a + piece now shows ×, so next time it moves diagonally.",
            position="5/5/1b3/1R3/5 w 33",
        ),
        Step(
            "Four in a row",
            FOUR_RULE,
            wins(
                "Win: drop your last piece to make four in a row.",
                "it does not make four in a row.",
            ),
            ("R@d1", "B@d1"),
            "Four in a row: White wins!",
            position="5/b3b/5/2b2/RRR2 w 11",
        ),
        Step(
            "Four by a move",
            MOVE_FOUR_RULE,
            wins(
                "Win: your hand is empty, so move a piece to make four in a row.",
                "it does not make four in a row: the piece showing × moves diagonally.",
            ),
            ("e2-d1",),
            "Four in a row by a move: White wins!",
            position="b3b/5/1b1b1/4B/RRR2 w 00",
        ),
        Step(
            "Block",
            BLOCK_RULE,
            stops_win(
                "Black has three in a row: stop Black from making four next turn.",
                "Black can still make four in a row next turn.",
            ),
            ("R@d3", "B@d3"),
            "Blocked: Black has no four in reach.",
            position="5/5/rrr2/5/R1R2 w 21",
        ),
    ),
)
