"""Shared helper: build Flip Switch positions by playing notation from the initial state."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flipgames import make
from flipgames.games.flip_switch.rules import FlipSwitchState

Play = Callable[..., FlipSwitchState]


def play_moves(moves: str, **options: object) -> FlipSwitchState:
    """Play space-separated actions (flips, chance outcomes, switches) from the start.

    A single round unless ``rounds`` is given: the rule tests study one round, and the end of
    a round is the end of the game there.
    """
    state = make("flip-switch", {"rounds": 1, **options}).new_initial_state()
    for text in moves.split():
        state = state.apply(state.parse_action(text))
    assert isinstance(state, FlipSwitchState)
    return state


@pytest.fixture
def play() -> Play:
    return play_moves
