"""Checkered Flag notation: round-trips, dense ids, and every malformed or illegal text rejected
with NotationError or IllegalActionError (never another exception)."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgames import IllegalActionError, NotationError, make
from flipgames.core.game import State, random_action
from flipgames.games.checkered_flag.rules import CheckeredFlag

OPTION_SETS: tuple[dict[str, object], ...] = ({}, {"start": "first"}, {"track": "short", "laps": 2})


def random_states(seed: int, options: dict[str, object]) -> list[State]:
    """Every state of one seeded random game (so every phase and gear shows up)."""
    rng = random.Random(seed)
    state: State = make("checkered-flag", options).new_initial_state()
    states = [state]
    while not state.is_terminal():
        state = state.apply(random_action(state, rng))
        states.append(state)
    return states


@given(seed=st.integers(0, 10_000), options=st.sampled_from(OPTION_SETS))
def test_every_legal_action_round_trips_through_notation(
    seed: int, options: dict[str, object]
) -> None:
    """parse_action(action_to_string(a)) == a for every legal action of every state."""
    for state in random_states(seed, options):
        for action in state.legal_actions():
            text = state.action_to_string(action)
            assert state.parse_action(text) == action
            assert state.parse_action(f"  {text.lower()} ") == action


@given(text=st.text(max_size=12), seed=st.integers(0, 1000))
def test_garbage_raises_notation_or_illegal_action_error(text: str, seed: int) -> None:
    """Any text either parses to a legal action or raises one of the two notation errors."""
    states = random_states(seed, {"track": "short"})
    for state in [*states[:: max(1, len(states) // 6)], states[-1]]:
        try:
            action = state.parse_action(text)
        except (NotationError, IllegalActionError):
            continue
        assert action in state.legal_actions()


@given(text=st.from_regex(r"\A\s?(?:[nNcC][0-9]?|[0-9]{1,8}(?:[+:x-][0-9]{0,8})?)\s?\Z"))
def test_near_miss_texts_raise_only_notation_errors(text: str) -> None:
    """Texts shaped like the notation (huge numbers, wrong separators) fail cleanly."""
    for state in random_states(5, {}):
        with contextlib.suppress(NotationError, IllegalActionError):
            state.parse_action(text)


def test_action_ids_are_dense_and_mean_the_same_in_every_state() -> None:
    """Ids 0-67 with the default spinners: gears 0-4, A 5-7, B 8-13, A+B 14-31, start 32-67."""
    game = CheckeredFlag()
    state = game.new_initial_state()
    texts = [state.action_to_string(a) for a in range(game.num_distinct_actions)]
    assert texts[:8] == ["N", "1", "2", "3", "C2", "1", "2", "3"]
    assert texts[8:14] == ["1", "2", "3", "4", "5", "6"]
    assert texts[14] == "1+1" and texts[31] == "3+6"
    assert texts[32] == "1:1" and texts[67] == "6:6"
    with pytest.raises(IllegalActionError, match="ids are 0-67"):
        state.action_to_string(68)


def test_malformed_text_is_quoted_with_the_expected_form() -> None:
    """A NotationError quotes the text and shows the forms with examples."""
    state = make("checkered-flag").new_initial_state()
    with pytest.raises(NotationError, match=r"malformed action '2 \+ 5'.*e\.g\. '5:3'"):
        state.parse_action("2 + 5")


@pytest.mark.parametrize(
    ("moves", "text", "reason"),
    [
        ("", "3", "first both players spin B"),
        ("", "7:1", "Spinner B has no such face"),
        ("5:3", "2+5", "chooses a gear"),
        ("5:3", "C2", "only by crashing"),
        ("5:3 1", "4", "Spinner A has no face 4"),
        ("5:3 1", "1+1", "spins Spinner A alone"),
        ("5:3 1 3 1 1 2 1 1 1 3", "5", "3rd gear spins A \\+ B"),
        ("5:3 1 3 1 1 2 1 1 1 3", "4+1", "Spinners A \\+ B have no such faces"),
    ],
)
def test_illegal_but_well_formed_text_says_why_and_lists_legal(
    moves: str, text: str, reason: str
) -> None:
    """An IllegalActionError says why (when cheap) and lists the legal actions."""
    state = make("checkered-flag").state_from_actions(moves.split())
    with pytest.raises(IllegalActionError, match=f"{reason}.*; legal: "):
        state.parse_action(text)


def test_parse_after_the_game_is_over_says_so() -> None:
    """Nothing parses once a car has won."""
    moves = "1 3 1 1 2 6 1 1 3 3+6"
    state = make("checkered-flag", start="first", track="short").state_from_actions(moves.split())
    with pytest.raises(IllegalActionError, match="game is over"):
        state.parse_action("1")
