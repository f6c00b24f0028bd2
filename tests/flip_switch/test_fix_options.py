"""The Flip Switch options added for the designer's lab: ``line`` (tiles in a scoring line),
and the candidate fixes for endless switching, ``must_flip`` and ``switch_limit``."""

from __future__ import annotations

import random

import pytest

from flipgames import make
from flipgames.core.errors import IllegalActionError, OptionError
from flipgames.core.game import sample_chance

# Nine flips that make no line: hearts a1 c2 a3, squares b1 a2 b3, stars c1 b2 c3.
NO_LINE = [
    "a1", "heart", "b1", "square", "c1", "star",
    "a2", "square", "b2", "star", "c2", "heart",
    "a3", "heart", "b3", "square", "c3", "star",
]  # fmt: skip


def test_must_flip_forbids_a_switch_while_a_tile_is_face_down() -> None:
    opening = ["a1", "heart", "b1", "square"]
    free = make("flip-switch", rounds=1).state_from_actions(opening)
    assert "a1-b1" in free.observation(None)["legal"]
    duty = make("flip-switch", rounds=1, must_flip="yes").state_from_actions(opening)
    assert duty.observation(None)["legal"] == ["c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    with pytest.raises(IllegalActionError, match="a1-b1"):
        duty.parse_action("a1-b1")


def test_must_flip_allows_switches_once_every_tile_is_face_up() -> None:
    state = make("flip-switch", rounds=1, must_flip="yes").state_from_actions(NO_LINE)
    assert state.observation(None)["board"]["nullified"] == {}
    assert "a1-b1" in state.observation(None)["legal"]


def test_switch_limit_ends_a_level_round_as_a_draw() -> None:
    game = make("flip-switch", rounds=1, switch_limit=4)
    state = game.state_from_actions([*NO_LINE, "a1-b1", "c2-c3", "a1-b1", "c2-c3"])
    assert state.is_terminal() and state.returns() == (0, 0)
    assert "4 turns in a row without a flip or a score" in state.status_text()
    # Three switches are not yet the limit.
    assert not game.state_from_actions([*NO_LINE, "a1-b1", "c2-c3", "a1-b1"]).is_terminal()


def test_switch_limit_gives_the_round_to_the_player_with_more_shapes() -> None:
    """Seeded random rounds until one ends on the limit with a winner: the winner holds more
    shapes than the loser at the end."""
    game = make("flip-switch", rounds=1, switch_limit=2)
    rng = random.Random(5)
    for _ in range(500):
        state = game.new_initial_state()
        while not state.is_terminal():
            before = state
            if state.is_chance_node():
                state = state.apply(sample_chance(state, rng))
            else:
                state = state.apply(rng.choice(state.legal_actions()))
        if "switch limit" in state.status_text():
            credited = before.observation(None)["board"]["credited"]
            winner = 0 if state.returns()[0] > 0 else 1
            assert len(credited[winner]) > len(credited[1 - winner])
            return
    pytest.fail("no round of 500 ended on the switch limit with a winner")


def test_switch_limit_is_part_of_the_position() -> None:
    game = make("flip-switch", rounds=1, switch_limit=6)
    once = game.state_from_actions([*NO_LINE, "a1-b1"])
    later = game.state_from_actions([*NO_LINE, "a1-b1", "c2-c3", "a1-b1", "c2-c3", "a1-b1"])
    assert once.observation(None)["board"] == later.observation(None)["board"]
    assert once.key() != later.key()  # the later one is nearer the limit


def test_line_four_on_4x4_needs_four_in_a_row() -> None:
    moves = ["a1", "heart", "b1", "heart", "c1", "heart"]
    three = make("flip-switch", rounds=1, size=4, shapes=4, copies=4)
    assert three.state_from_actions(moves).observation(None)["board"]["nullified"] == {"heart": 0}
    four = make("flip-switch", rounds=1, size=4, shapes=4, copies=4, line=4)
    state = four.state_from_actions(moves)
    assert state.observation(None)["board"]["nullified"] == {}
    state = four.state_from_actions([*moves, "d1", "heart"])
    assert state.observation(None)["board"]["nullified"] == {"heart": 1}


def test_a_line_longer_than_the_board_is_refused() -> None:
    with pytest.raises(OptionError, match="line=4 does not fit: a line is at most the board"):
        make("flip-switch", line=4)
    assert make("flip-switch", size=6, shapes=2, copies=18, line=6).line == 6
