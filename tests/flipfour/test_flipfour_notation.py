"""FlipFour notation and action ids: round-trips, accepted variants, rejected text."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgames import IllegalActionError, NotationError, make
from flipgames.games.flipfour.notation import (
    NUM_ACTIONS,
    Move,
    action_text,
    move_id,
    parse_text,
)
from flipgames.games.flipfour.rules import FlipFourState


def play(line: str) -> FlipFourState:
    state = make("flipfour").new_initial_state()
    for text in line.split():
        state = state.apply(state.parse_action(text))
    assert isinstance(state, FlipFourState)
    return state


def random_state(seed: int, plies: int) -> FlipFourState:
    rng = random.Random(seed)
    state = make("flipfour").new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_actions()))
    assert isinstance(state, FlipFourState)
    return state


def test_action_id_layout():
    """Ids: rook drops 0..24, bishop drops 25..49, then the 320 from-to pairs by from, to."""
    assert NUM_ACTIONS == 370
    assert [action_text(a) for a in (0, 24, 25, 49, 50, 369)] == [
        "R@a1",
        "R@e5",
        "B@a1",
        "B@e5",
        "a1-b1",
        "e5-d5",
    ]
    assert move_id(0, 1) == 50 and move_id(0, 7) is None and move_id(12, 12) is None


def test_every_action_id_prints_and_parses_back():
    """Every one of the 370 ids has one canonical text that parses back to it."""
    texts = [action_text(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    assert [parse_text(t).action for t in texts] == list(range(NUM_ACTIONS))


def test_ids_outside_the_layout_are_rejected():
    """An id outside 0..369 has no notation."""
    state = play("")
    for bad in (-1, NUM_ACTIONS):
        with pytest.raises(IllegalActionError, match="not a FlipFour action id"):
            state.action_to_string(bad)


@given(st.integers(0, 2**32), st.integers(0, 60))
def test_legal_actions_round_trip_through_notation(seed, plies):
    """In random positions every legal action prints and parses back to the same id."""
    state = random_state(seed, plies)
    for action in state.legal_actions():
        assert state.parse_action(state.action_to_string(action)) == action


@given(st.integers(0, 2**32), st.integers(1, 60), st.data())
def test_accepted_variants_parse_to_the_canonical_action(seed, plies, data):
    """Either case, surrounding spaces and a move's optional face letter are accepted."""
    state = random_state(seed, plies)
    if not state.legal_actions():
        return
    action = data.draw(st.sampled_from(state.legal_actions()))
    text = state.action_to_string(action)
    variants = [f"  {text} ", text.upper(), text.lower()]
    parsed = parse_text(text)
    if isinstance(parsed, Move):
        piece = state.piece_at(parsed.frm)
        assert piece is not None
        variants.append(f"{'RB'[piece[1]]}{text}")
    assert all(state.parse_action(v) == action for v in variants)


def test_a_move_may_name_the_face_its_piece_shows():
    """``Rc3-c5`` is accepted for a rook-face piece on c3, and checked against the board."""
    state = play("R@c3 R@a1")
    assert state.parse_action("Rc3-c5") == state.parse_action("c3-c5")
    assert state.parse_action("rc3-c5") == state.parse_action("c3-c5")
    with pytest.raises(IllegalActionError, match=r"shows its rook face \(R\), not B"):
        state.parse_action("Bc3-c5")
    assert state.action_to_string(state.parse_action("Rc3-c5")) == "c3-c5"


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("", "write a drop as R@square or B@square"),
        ("c3", "a drop names the face put up: R@c3 or B@c3"),
        ("c3xe5", "FlipFour has no captures"),
        ("Q@c3", "e.g. R@c3"),
        ("R@f6", "squares a1..e5"),
        ("c3-e5-a1", "e.g. c3-e5"),
        ("R@c3 R@c4", "e.g. R@c3"),
        ("c0-c3", "squares a1..e5"),
        ("c3-e5=B", "e.g. c3-e5"),
    ],
)
def test_malformed_text_raises_notation_error_quoting_it(text, hint):
    """Malformed text raises NotationError quoting the text and showing the expected form."""
    with pytest.raises(NotationError) as error:
        play("").parse_action(text)
    assert repr(text) in str(error.value) and hint in str(error.value)


@pytest.mark.parametrize("bad", [None, 12, b"R@c3", ["R@c3"]])
def test_non_text_raises_notation_error(bad):
    """Only text is notation."""
    with pytest.raises(NotationError, match="an action must be text"):
        play("").parse_action(bad)


@pytest.mark.parametrize(
    ("line", "text", "reason"),
    [
        ("", "a1-b3", "there is no piece on a1"),
        ("R@a1 R@e5", "a1-b3", "moves along its rank or file"),
        ("B@a1 R@e5", "a1-a3", "moves along its diagonals"),
        ("R@a1 R@c5", "a1-e5", "moves along its rank or file"),
        ("R@a1 R@a3", "a1-a3", "a3 is occupied and FlipFour has no captures"),
        ("R@a1", "a1-a2", "the piece on a1 is White's"),
    ],
)
def test_well_formed_but_illegal_text_raises_illegal_action_error(line, text, reason):
    """Well-formed actions that cannot be played say why and list the legal actions."""
    state = play(line)
    with pytest.raises(IllegalActionError) as error:
        state.parse_action(text)
    message = str(error.value)
    assert repr(text) in message and reason in message
    assert "legal: " in message and all(
        state.action_to_string(a) in message for a in state.legal_actions()
    )


@given(st.text(max_size=12))
def test_random_text_raises_only_notation_or_illegal_action_errors(text):
    """Any string either parses to a legal action or raises NotationError/IllegalActionError."""
    state = play("R@c3 B@a1")
    try:
        action = state.parse_action(text)
    except (NotationError, IllegalActionError):
        return
    assert action in state.legal_actions()


@given(st.text(alphabet="RBrbQ@-x:= abcdefABC0123456", max_size=9), st.integers(0, 40))
def test_near_miss_text_raises_only_notation_or_illegal_action_errors(text, plies):
    """Strings built from notation's own characters: legal, NotationError or IllegalActionError."""
    state = random_state(plies, plies)
    try:
        action = state.parse_action(text)
    except (NotationError, IllegalActionError):
        return
    assert action in state.legal_actions()
    assert text.strip().lower().endswith(state.action_to_string(action).lower())
