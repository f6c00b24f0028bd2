"""FlipFlop notation: round-trips, the designer's long form, and rejection of bad text."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgames import make
from flipgames.core.errors import IllegalActionError, NotationError
from flipgames.games.flipflop.notation import format_move, parse_move, square_name
from flipgames.games.flipflop.rules import FlipFlopState

NAMES = ["flipflop", "flipflop-3x3"]


def random_state(name: str, seed: int, plies: int) -> FlipFlopState:
    rng = random.Random(seed)
    state = make(name).new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_actions()))
    assert isinstance(state, FlipFlopState)
    return state


@given(name=st.sampled_from(NAMES), seed=st.integers(0, 10**6), plies=st.integers(0, 40))
def test_every_legal_action_round_trips_in_short_and_long_form(
    name: str, seed: int, plies: int
) -> None:
    """Notation parses and prints round-trip, in the canonical and the designer's form."""
    state = random_state(name, seed, plies)
    for action in state.legal_actions():
        assert state.parse_action(state.action_to_string(action)) == action
        assert state.parse_action(state.action_to_long(action)) == action


@given(size=st.sampled_from([3, 5]), data=st.data())
def test_any_two_squares_round_trip_through_the_move_form(size: int, data: st.DataObject) -> None:
    """Square names and the move form round-trip for every pair of squares on the board."""
    origin = data.draw(st.integers(0, size * size - 1))
    target = data.draw(st.integers(0, size * size - 1))
    capture = data.draw(st.booleans())
    move = parse_move(format_move(origin, target, capture, size), size)
    assert (move.origin, move.target, move.capture) == (origin, target, capture)


@given(name=st.sampled_from(NAMES), seed=st.integers(0, 1000), text=st.text(max_size=12))
def test_garbage_text_raises_only_notation_or_illegal_action_errors(
    name: str, seed: int, text: str
) -> None:
    """Random strings are rejected with NotationError or IllegalActionError, nothing else."""
    state = random_state(name, seed, seed % 12)
    try:
        action = state.parse_action(text)
    except (NotationError, IllegalActionError):
        return
    assert action in state.legal_actions()


@given(
    name=st.sampled_from(NAMES),
    seed=st.integers(0, 1000),
    text=st.text(alphabet="RBabcdef0123456789-x= ", max_size=10),
)
def test_near_miss_text_raises_only_notation_or_illegal_action_errors(
    name: str, seed: int, text: str
) -> None:
    """Text made of notation characters is parsed or rejected with one of the two errors."""
    state = random_state(name, seed, seed % 12)
    try:
        action = state.parse_action(text)
    except (NotationError, IllegalActionError):
        return
    assert action in state.legal_actions()
    assert state.parse_action(state.action_to_string(action)) == action


def test_canonical_forms_are_from_to_and_fromxto() -> None:
    """Ruling R2: move ``from-to``, capture ``fromxto``."""
    state = make("flipflop-3x3").new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "a1-a2",
        "b1-b2",
        "b1xb3",
        "c1-c2",
    ]
    assert square_name(24, 5) == "e5"


def test_action_ids_are_origin_times_area_plus_target() -> None:
    """Action id layout: origin * N*N + target, squares rank-major from a1 = 0."""
    state = make("flipflop").new_initial_state()
    assert state.parse_action("a1-a2") == 0 * 25 + 5
    assert state.parse_action("c1xc5") == 2 * 25 + 22
    assert make("flipflop-3x3").new_initial_state().parse_action("b1xb3") == 1 * 9 + 7


def test_long_form_is_accepted_and_its_faces_are_checked() -> None:
    """The designer's long form: face before, squares, ``=`` face after the flip."""
    state = make("flipflop-3x3").new_initial_state()
    assert state.parse_action("Rb1xb3=B") == state.parse_action("b1xb3")
    assert state.parse_action("Ra1-a2=B") == state.parse_action("a1-a2")
    assert state.parse_action("Ra1-a2") == state.parse_action("a1-a2=B")
    with pytest.raises(IllegalActionError, match=r"shows its R \(rook\) face: write Rb1xb3=B"):
        state.parse_action("Bb1xb3=R")
    with pytest.raises(IllegalActionError, match="flips to B: write Rb1xb3=B"):
        state.parse_action("Rb1xb3=R")


def test_wrong_separator_is_an_illegal_action_that_names_the_right_form() -> None:
    """Decision: ``-`` on a capture or ``x`` on a plain move is rejected, showing the fix."""
    state = make("flipflop-3x3").new_initial_state()
    with pytest.raises(IllegalActionError, match="'b1-b3' is a capture here: write b1xb3"):
        state.parse_action("b1-b3")
    with pytest.raises(IllegalActionError, match="'a1xa2' is not a capture here: write a1-a2"):
        state.parse_action("a1xa2")


@pytest.mark.parametrize("text", ["", "a1", "a1a2", "a1--a2", "a1-a2=", "Qa1-a2", "xx", "A1_A2"])
def test_malformed_text_is_a_notation_error_quoting_it_with_an_example(text: str) -> None:
    """Malformed text: NotationError that quotes the input and shows the expected form."""
    state = make("flipflop").new_initial_state()
    with pytest.raises(NotationError, match="expected a move like 'a1-a2'") as info:
        state.parse_action(text)
    assert repr(text) in str(info.value)


def test_square_off_the_board_is_a_notation_error() -> None:
    """Squares run a1..c3 on 3x3 and a1..e5 on 5x5."""
    with pytest.raises(NotationError, match="no square 'd1' on the 3x3 board"):
        make("flipflop-3x3").new_initial_state().parse_action("c1-d1")
    with pytest.raises(NotationError, match="no square 'a6'"):
        make("flipflop").new_initial_state().parse_action("a1-a6")


def test_well_formed_but_illegal_move_says_why_and_lists_the_legal_moves() -> None:
    """IllegalActionError: the reason, then the legal actions."""
    state = make("flipflop-3x3").new_initial_state()
    with pytest.raises(IllegalActionError, match="White has no piece on a3") as info:
        state.parse_action("a3-a2")
    assert str(info.value).endswith("legal: a1-a2 b1-b2 b1xb3 c1-c2")
    with pytest.raises(IllegalActionError, match="holds White's own piece"):
        state.parse_action("a1-b1")
    with pytest.raises(IllegalActionError, match="moves like a rook"):
        state.parse_action("a1-b2")
    with pytest.raises(IllegalActionError, match="must move to another square"):
        state.parse_action("a1-a1")


@pytest.mark.parametrize("text", ["A1-A2", "a1-A2", "Ra1-a2=b", "rA1-A2=B"])
def test_letters_may_be_in_any_case_as_in_every_game(text: str) -> None:
    """The input rule of every game (README, Notation): any case in, canonical out."""
    state = make("flipflop").new_initial_state()
    assert state.action_to_string(state.parse_action(text)) == "a1-a2"
