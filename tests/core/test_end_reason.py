"""Typed endings over the whole registry: every game says why it ended, as data.

Random playouts of every registered game and option choice: every terminal state has a
:class:`~flipgames.core.ending.Termination` and no state in play has one; and the ending
agrees with the result where the member implies it (a repetition or a full board draws).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from flipgames import Termination, game_class, game_names, make, random_action

#: Members that always mean a draw, whatever the game.
DRAWING = {Termination.REPETITION, Termination.BOARD_FULL}


def option_sets() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for name in game_names():
        cases.append((name, {}))
        for option in game_class(name).option_spec:
            cases.extend(
                (name, {option.name: choice})
                for choice in option.choices or ()
                if choice != option.default
            )
    return cases


@pytest.mark.parametrize(("name", "options"), option_sets(), ids=lambda v: str(v))
def test_every_terminal_state_has_a_reason_and_no_state_in_play_has_one(
    name: str, options: dict[str, Any]
):
    game = make(name, options)
    rng = random.Random(20261202)
    seen: set[Termination] = set()
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            assert state.end_reason() is None, state.history_notation()
            state = state.apply(random_action(state, rng))
        reason = state.end_reason()
        assert isinstance(reason, Termination), (state.history_notation(), reason)
        if reason in DRAWING:
            assert state.result() == "1/2-1/2", state.history_notation()
        seen.add(reason)
    assert seen


def test_a_match_of_several_rounds_ends_on_rounds_played_and_one_round_says_how():
    """Flip Switch: a match of rounds is decided by the rounds won; a single round ends by
    its own rule (a line, no legal action, a repetition or the switch limit)."""
    rng = random.Random(5)
    for rounds, allowed in (
        (3, {Termination.ROUNDS_PLAYED}),
        (
            1,
            {
                Termination.LINES_MADE,
                Termination.NO_LEGAL_MOVE,
                Termination.REPETITION,
                Termination.MOVE_LIMIT,
            },
        ),
    ):
        game = make("flip-switch", {"rounds": rounds, "switch_limit": 4})
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                state = state.apply(random_action(state, rng))
            assert state.end_reason() in allowed
