"""The FlipFlop lessons (5x5 and 3x3): moving, the flip, captures on a goal, check, answering
check, blocking the enemy in and winning on the goal, each a position in FlipFlop's position
notation.

>>> from flipgames.core.lessons import lesson_for
>>> len(lesson_for("flipflop-3x3").steps), len(lesson_for("flipflop").steps)
(7, 7)
"""

# The rules show the pieces' own symbols: + and a multiplication sign, not the letter x.
# ruff: noqa: RUF001

from __future__ import annotations

from flipgames.core.game import State
from flipgames.core.lessons import Goal, Lesson, Step, any_move, of_kind, wins

MOVE_RULE = (
    "Each piece shows one of two faces. A piece showing + moves like a rook: any distance "
    "along its row or column. A piece showing × moves like a bishop: any distance diagonally. "
    "A piece never jumps over another piece. At the start every piece shows +."
)
FLIP_RULE = (
    "After every move the piece that moved turns over: a + becomes a ×, a × becomes a +. So "
    "a piece moves like a rook and a bishop in turn."
)
CAPTURE_RULE = (
    "Each side has a goal square, marked with a flag: the middle square of its back row. A "
    "piece can be captured only where it stands on a goal, either side's. Anywhere else, "
    "pieces cannot land on each other."
)
CHECK_RULE = (
    "A piece standing on the opponent's goal gives check. The side in check must capture "
    "that piece at once: no other move is allowed."
)
ANSWER_RULE = (
    "When your own goal holds an enemy piece you are in check: the only legal moves are "
    "captures of that piece."
)
BLOCK_RULE = (
    "A side with no legal move loses, and so does a side with no pieces left: shut the enemy's "
    "pieces in and you win without going near the goal."
)
WIN_RULE = (
    "Land on the enemy goal where the enemy cannot capture your piece: they are checkmated "
    "and you win."
)


def _moves_face(face: str, says: str, miss: str) -> Goal:
    """A move of a piece showing ``face`` (``rook`` or ``bishop``) before it moves."""
    return Goal(
        says, miss, lambda before, action, _after: before.action_info(action)["face"] == face
    )


def _gives_check(before: State, _action: int, after: State) -> bool:
    return not after.is_terminal() and bool(after.observation(None)["board"]["in_check"])


def _checks(says: str, miss: str) -> Goal:
    return Goal(says, miss, _gives_check)


#: The steps of both board sizes, in order: (name, title, rule, goal, done); each size gives
#: the position and solutions per name.
STEPS: tuple[tuple[str, str, str, Goal, str], ...] = (
    (
        "move",
        "Move a piece",
        MOVE_RULE,
        any_move("Move one of your pieces: click it, then one of the marked squares."),
        "It moved, and it turned over: the piece now shows ×. Every move flips the piece that "
        "moved.",
    ),
    (
        "flip",
        "The flip",
        FLIP_RULE,
        _moves_face(
            "bishop",
            "Move the piece that shows ×: it goes diagonally.",
            "it moves a piece showing +: this step is about the × piece.",
        ),
        "The × piece moved diagonally and turned over: it shows + again.",
    ),
    (
        "capture",
        "Capture on a goal",
        CAPTURE_RULE,
        of_kind(
            "capture",
            "Capture the Black piece standing on its goal.",
            "it captures nothing: pieces are captured only on a goal square.",
        ),
        "Captured: a piece on a goal square can be taken, by either side.",
    ),
    (
        "check",
        "Check",
        CHECK_RULE,
        _checks(
            "Put Black in check: move a piece onto Black's goal.",
            "it does not put Black in check: land on Black's goal (the flag in Black's row).",
        ),
        "Check! Black must now capture your piece on the goal, and can.",
    ),
    (
        "answer",
        "Answer a check",
        ANSWER_RULE,
        of_kind(
            "capture",
            "A Black piece stands on your goal: capture it.",
            "it does not capture the piece on your goal.",
        ),
        "Check answered: the piece on your goal is gone.",
    ),
    (
        "block",
        "Block them in",
        BLOCK_RULE,
        wins(
            "Black has one piece left: take away its last move.",
            "Black still has a legal move: take the square the × piece needs.",
        ),
        "Black has no legal move left, so Black loses. White wins!",
    ),
    (
        "win",
        "Win on the goal",
        WIN_RULE,
        wins(
            "Win: reach Black's goal where no Black piece can capture you.",
            "Black is not checkmated by it: land on Black's goal, out of reach of every Black "
            "piece.",
        ),
        "Checkmate: Black cannot capture your piece on the goal. White wins!",
    ),
)


def _lesson(intro: str, positions: dict[str, str], solutions: dict[str, tuple[str, ...]]) -> Lesson:
    """The steps on one board size: ``positions`` and ``solutions`` per step name."""
    return Lesson(
        intro=intro,
        steps=tuple(
            Step(title, rule, goal, solutions[name], done, position=positions[name])
            for name, title, rule, goal, done in STEPS
        ),
    )


SMALL = _lesson(
    "FlipFlop on 3x3 in seven short steps: you play White, moving up the board. Each step sets "
    "up a position; play the move it asks for.",
    positions={
        "move": "rrr/3/RRR w",
        "flip": "1r1/3/R1B w",
        "capture": "rrr/3/RRR w",
        "check": "r1r/3/RR1 w",
        "answer": "r2/1b1/RrR w",
        "block": "2b/R2/2R w",
        "win": "3/r2/1RR w",
    },
    solutions={
        "move": ("a1-a2", "c1-c2"),
        "flip": ("c1-b2", "c1-a3"),
        "capture": ("b1xb3",),
        "check": ("b1-b3",),
        "answer": ("a1xb1", "c1xb1"),
        "block": ("a2-b2",),
        "win": ("b1-b3",),
    },
)

LARGE = _lesson(
    "FlipFlop on 5x5 in seven short steps: you play White, moving up the board. Each step sets "
    "up a position; play the move it asks for.",
    positions={
        "move": "rrrrr/5/5/5/RRRRR w",
        "flip": "r1r1r/5/5/1B3/R1R1R w",
        "capture": "r1r1r/5/2R2/5/R3R w",
        "check": "1r1r1/5/2R2/5/R3R w",
        "answer": "r1b1r/5/5/3R1/1RbR1 w",
        "block": "b4/5/5/5/1R1R1 w",
        "win": "1b3/5/5/5/R1R1R w",
    },
    solutions={
        "move": ("a1-a2", "e1-e4"),
        "flip": ("b2-c3", "b2-d4"),
        "capture": ("c3xc5",),
        "check": ("c3-c5",),
        "answer": ("b1xc1", "d1xc1"),
        "block": ("b1-b4",),
        "win": ("c1-c5",),
    },
)
