"""Rubik's Flip notation: round-trips, the id layout, and rejection of anything else."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgames import make
from flipgames.core.errors import IllegalActionError, NotationError
from flipgames.games.rubiks_flip.rules import RubiksFlipState

FLIP_OPTIONS = ["inplace", "flap"]


def random_state(flip: str, seed: int, plies: int) -> RubiksFlipState:
    rng = random.Random(seed)
    state = make("rubiks-flip", flip=flip).new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_actions()))
    assert isinstance(state, RubiksFlipState)
    return state


@given(
    flip=st.sampled_from(FLIP_OPTIONS),
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 16),
)
def test_every_legal_action_prints_and_parses_back(flip, seed, plies):
    """Notation round-trips: parse(print(a)) == a, also in other letter cases and spacing."""
    state = random_state(flip, seed, plies)
    for action in state.legal_actions():
        text = state.action_to_string(action)
        assert state.parse_action(text) == action
        assert state.parse_action(f"  {text.upper()} ") == action
        assert state.parse_action(text.lower().replace("/", " / ")) == action


@given(
    flip=st.sampled_from(FLIP_OPTIONS),
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 16),
    text=st.one_of(
        st.text(max_size=12),
        st.text(alphabet="abcde012345RBYWrbyw/- x", max_size=10),
    ),
)
def test_garbage_raises_only_notation_or_illegal_action_errors(flip, seed, plies, text):
    """Any string either parses to a legal action or raises NotationError/IllegalActionError."""
    state = random_state(flip, seed, plies)
    try:
        action = state.parse_action(text)
    except (NotationError, IllegalActionError) as exc:
        assert repr(text) in str(exc)
    else:
        assert action in state.legal_actions()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is not a Rubik's Flip turn"),
        ("c3", "is not a Rubik's Flip turn: write \\[SQUARE/\\]SQUARE\\+COLOUR"),
        ("e1R", "squares a1..d4"),
        ("c3G", "colour R, B .first player. or Y, W"),
        ("b2//c3Y", "e.g. 'b2/c3W' or 'c3R'"),
        ("b2-b3/c3Y", "with flip=inplace the flip names only the tile's square"),
    ],
)
def test_malformed_text_is_a_notation_error_quoting_it_with_an_example(text, message):
    """Malformed text raises NotationError quoting the input and showing the expected form."""
    with pytest.raises(NotationError, match=message) as info:
        make("rubiks-flip").new_initial_state().apply(0).parse_action(text)
    assert repr(text) in str(info.value)


def test_flap_needs_the_destination_in_its_notation():
    """With flip=flap the flip part is FROM-TO; a bare square is malformed."""
    state = make("rubiks-flip", flip="flap").new_initial_state()
    state = state.apply(state.parse_action("b2R"))
    with pytest.raises(NotationError, match=re.escape("e.g. 'b2-b3/c3W'")):
        state.parse_action("b2/c3Y")
    assert state.action_to_string(state.parse_action("b2-b3/c3Y")) == "b2-b3/c3Y"


def test_illegal_action_lists_the_legal_ones():
    """A well-formed illegal turn says why and lists the legal turns."""
    state = make("rubiks-flip").new_initial_state()
    state = state.apply(state.parse_action("d4B"))
    with pytest.raises(IllegalActionError, match="legal: d4/a1Y d4/a1W d4/b1Y"):
        state.parse_action("a1Y")


@pytest.mark.parametrize(
    ("flip", "moves", "text", "action"),
    [
        ("inplace", "", "a1R", 0),
        ("inplace", "", "d4B", 31),
        ("inplace", "b2R", "b2/c3W", (1 + 5) * 32 + 10 * 2 + 1),
        ("flap", "b2R", "b2-b3/c3W", (1 + 4 * 5 + 0) * 32 + 10 * 2 + 1),
        ("flap", "b2R", "b2-a2/d4Y", (1 + 4 * 5 + 3) * 32 + 15 * 2 + 0),
    ],
)
def test_action_id_layout(flip, moves, text, action):
    """id = flip_part * 32 + square * 2 + colour, as documented in notation.py."""
    state = make("rubiks-flip", flip=flip).state_from_actions(moves.split())
    assert state.parse_action(text) == action
    assert state.action_to_string(action) == text


@pytest.mark.parametrize(("flip", "size"), [("inplace", 17 * 32), ("flap", 65 * 32)])
def test_ids_outside_the_layout_cannot_be_printed(flip, size):
    """action_to_string rejects ids outside the layout with IllegalActionError."""
    state = make("rubiks-flip", flip=flip).new_initial_state()
    assert state.action_to_string(size - 1) in ("d4/d4B", "d4-c4/d4B")
    for bad in (-1, size):
        with pytest.raises(IllegalActionError, match="outside"):
            state.action_to_string(bad)


def test_a_flap_off_the_board_cannot_be_printed():
    """Flap parts pointing off the board (d4 north) are not actions."""
    state = make("rubiks-flip", flip="flap").new_initial_state()
    with pytest.raises(IllegalActionError, match="flaps d4 off the board"):
        state.action_to_string((1 + 4 * 15 + 0) * 32)
