"""The Checkered Flag lesson, on the short track with Player 1 starting: choosing gears,
the spinners, a crash and leaving it, playing safe in 1st gear, a no-passing space, and the
finish line.

Spins are chance, so each step is reached by actions from the start (gears and spins, as a
record lists them) and the spin after the learner's choice is set by the lesson (``then``),
never drawn: a lesson plays the same every time and has nothing to do with any real race.

>>> from flipgames.core.lessons import lesson_for
>>> len(lesson_for("checkered-flag").steps)
8
"""

from __future__ import annotations

from flipgames.core.game import State
from flipgames.core.lessons import Goal, Lesson, Step, any_move, wins

#: The gear circles a crash sends a marker to.
CRASH_CIRCLES = ("C2", "C3")

GEAR_RULE = (
    "Each car has a gear shift marker that starts on N (neutral). On your turn you choose a "
    "gear, then spin and drive that many spaces. From N the only choice is 1st gear, which "
    "spins Spinner A (1 to 3)."
)
SHIFT_RULE = (
    "You may shift one gear up or down a turn, never back to N. 2nd gear spins Spinner B (1 to 6)."
)
THIRD_RULE = "3rd gear spins both spinners and adds them: the fastest gear, 2 to 9 spaces."
CRASH_RULE = (
    "Some spaces are crash spaces. Ending your move exactly on one in 2nd gear sends your "
    "marker to the crash circle C2; in 3rd gear to C3."
)
LEAVE_RULE = (
    "A crashed car loses turns: from C3 your turn moves the marker to C2, from C2 to N. The "
    "car does not move, and you start again from 1st gear."
)
SAFE_RULE = "In 1st gear nothing happens on a crash space: the slow gear is the safe one."
PASSING_RULE = (
    "On a no-passing space nobody may pass the car standing there: a move that would pass "
    "it stops on the space just behind it instead. Landing on the car's space is allowed."
)
FINISH_RULE = "The first car to drive the whole track (one lap here) wins. There are no draws."


def _crashed(state: State, player: int) -> bool:
    return state.observation(None)["board"]["cars"][player]["gear"] in CRASH_CIRCLES


def _shifts(gear: str, says: str, miss: str) -> Goal:
    """A choice of ``gear``."""
    return Goal(
        says, miss, lambda before, action, _after: before.action_info(action)["gear"] == gear
    )


def _crashes(before: State, _action: int, after: State) -> bool:
    return not after.is_chance_node() and _crashed(after, before.current_player)


def _safe(before: State, _action: int, after: State) -> bool:
    return not after.is_chance_node() and not _crashed(after, before.current_player)


#: Player 1 in 1st gear on space 2, Player 2 on space 1: Player 1 to choose.
IN_FIRST = ("1", "2", "1", "1")
#: Then Player 1 in 2nd gear on space 5, Player 2 on space 2.
IN_SECOND = (*IN_FIRST, "2", "3", "1", "1")

LESSON = Lesson(
    intro="Checkered Flag in eight short steps, on the 16-space short track: you are Player 1 "
    "and start. The spinners are set in each step, so you can see what every rule does.",
    options={"start": "first", "track": "short"},
    steps=(
        Step(
            "Into 1st gear",
            GEAR_RULE,
            any_move("Shift into 1st gear: the spinner is set to stop on 2."),
            ("1",),
            "1st gear, Spinner A showed 2: your car drove 2 spaces.",
            then=("2",),
        ),
        Step(
            "Shift up",
            SHIFT_RULE,
            _shifts("2", "Shift up into 2nd gear.", "it stays in 1st gear: shift up one."),
            ("2",),
            "2nd gear, Spinner B showed 3: three spaces on.",
            actions=IN_FIRST,
            then=("3",),
        ),
        Step(
            "Third gear",
            THIRD_RULE,
            _shifts("3", "Shift up into 3rd gear.", "3rd gear is one up from 2nd: choose 3."),
            ("3",),
            "3rd gear: 3 + 6, nine spaces in one turn.",
            actions=IN_SECOND,
            then=("3+6",),
        ),
        Step(
            "A crash",
            CRASH_RULE,
            Goal(
                "See a crash: shift into 2nd gear. The spinner is set to 4, exactly onto the "
                "crash space 6.",
                "in 1st gear a crash space does nothing: choose 2nd gear to see a crash.",
                _crashes,
            ),
            ("2",),
            "Crash! Exactly onto a crash space in 2nd gear: your marker goes to C2.",
            actions=IN_FIRST,
            then=("4",),
        ),
        Step(
            "Leave the crash circle",
            LEAVE_RULE,
            any_move("Your marker is on C2: move it back to N."),
            ("N",),
            "Back on N: this turn the car stood still. Next turn, 1st gear again.",
            actions=(*IN_FIRST, "2", "4", "1", "1"),
        ),
        Step(
            "Play safe",
            SAFE_RULE,
            Goal(
                "The spinner is set to stop on 1, and space 6 is a crash space: choose the "
                "gear that drives there safely.",
                "only 1st gear drives onto the crash space 6 safely.",
                _safe,
            ),
            ("1",),
            "On the crash space in 1st gear, and nothing happened.",
            actions=IN_SECOND,
            then=("1",),
        ),
        Step(
            "No passing",
            PASSING_RULE,
            _shifts(
                "2",
                "Player 2 stands on the no-passing space 5. Shift into 2nd: the spinner is "
                "set to 6.",
                "choose 2nd gear to see the no-passing rule.",
            ),
            ("2",),
            "6 would have carried you past Player 2 on a no-passing space: you stopped just "
            "behind, on 4.",
            actions=("1", "1", "1", "3", "1", "1", "1", "2"),
            then=("6",),
        ),
        Step(
            "The finish",
            FINISH_RULE,
            wins(
                "Two spaces to the line: the spinners are set to 1 + 1. Choose the gear "
                "that spins both.",
                "this turn only 3rd gear, with both spinners, gets you there.",
            ),
            ("3",),
            "Over the line: Player 1 wins!",
            actions=(*IN_SECOND, "3", "3+6", "1", "1"),
            then=("1+1",),
        ),
    ),
)
