"""Flip Switch notation: round-trips (Hypothesis), accepted spellings, and garbage rejected."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgames import make
from flipgames.core.errors import IllegalActionError, NotationError
from flipgames.core.game import State, random_action
from flipgames.games.flip_switch.notation import action_layout
from flipgames.games.flip_switch.rules import FlipSwitchState

Play = Callable[..., FlipSwitchState]

# Every (size, shapes) the options allow, with copies = size * size / shapes >= 3.
LAYOUTS = [(3, 3), (4, 2), (4, 4), (5, 5), (6, 2), (6, 3), (6, 4), (6, 6)]
OPTION_SETS = [
    {},
    {"lines": "edges"},
    {"no_move": "pass", "size": 4, "shapes": 4, "copies": 4},
    {"rounds": 2},
    {"size": 6, "shapes": 6, "copies": 6},
]


def random_state(options: dict[str, object], seed: int, plies: int) -> State:
    """The state after up to ``plies`` random actions (chance drawn with its odds)."""
    rng = random.Random(seed)
    state = make("flip-switch", options).new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(random_action(state, rng))
    return state


@pytest.mark.parametrize(("size", "shapes"), LAYOUTS)
def test_every_action_id_prints_and_parses_back(size: int, shapes: int) -> None:
    """Dense ids: flips, switches, pass, then outcomes; each one's notation round-trips."""
    layout = action_layout(size, shapes)
    assert layout.num_actions == size * size + 2 * size * (size - 1) + 1 + shapes
    texts = [layout.to_string(a) for a in range(layout.num_actions)]
    assert len(set(texts)) == len(texts)
    assert [layout.parse(t) for t in texts] == list(range(layout.num_actions))


def test_standard_layout_ids() -> None:
    """The documented layout of the standard game: 0-8 flips, 9-20 switches, 21 pass, 22-24."""
    layout = action_layout(3, 3)
    assert [layout.to_string(a) for a in (0, 8, 9, 10, 20, 21, 22, 23, 24)] == [
        "a1", "c3", "a1-b1", "a1-a2", "b3-c3", "pass", "heart", "square", "star"
    ]  # fmt: skip


@given(
    options=st.sampled_from(OPTION_SETS),
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 120),
)
def test_legal_actions_round_trip_in_random_positions(
    options: dict[str, object], seed: int, plies: int
) -> None:
    """In any reachable state, every legal action's notation parses back to it."""
    state = random_state(options, seed, plies)
    for action in state.legal_actions():
        assert state.parse_action(state.action_to_string(action)) == action


@given(
    options=st.sampled_from(OPTION_SETS),
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 80),
    text=st.one_of(
        st.text(max_size=12),
        st.from_regex(r"\s*[a-h][0-9]{1,2}(-[a-h][0-9]{1,2})?\s*", fullmatch=True),
        st.from_regex(r"[A-Za-z]{1,9}", fullmatch=True),
    ),
)
def test_garbage_raises_only_notation_or_illegal_action_errors(
    options: dict[str, object], seed: int, plies: int, text: str
) -> None:
    """Any string is parsed to a legal action or rejected with NotationError/IllegalActionError."""
    state = random_state(options, seed, plies)
    before = (state.key(), state.history)
    try:
        action = state.parse_action(text)
    except (NotationError, IllegalActionError):
        pass
    else:
        assert action in state.legal_actions()
    assert (state.key(), state.history) == before


def test_input_is_case_insensitive_and_switches_take_either_order(play: Play) -> None:
    """Accepted spellings: any case, surrounding spaces, switch squares in either order."""
    state = play("a1 heart b1 square")
    assert state.parse_action(" A1-B1 ") == state.parse_action("b1-a1")
    assert state.action_to_string(state.parse_action("B1-A1")) == "a1-b1"
    flipping = play("c3")
    assert flipping.parse_action("HEART") == flipping.parse_action("heart")


def test_shapes_may_be_abbreviated_to_an_unambiguous_prefix(play: Play) -> None:
    """Chance outcomes are shape names; 'h', 'sq', 'st' are enough, 's' is ambiguous."""
    state = play("c3")
    assert [state.action_to_string(state.parse_action(t)) for t in ("h", "sq", "st")] == [
        "heart",
        "square",
        "star",
    ]
    with pytest.raises(NotationError, match="'s' is ambiguous: it could be square or star"):
        state.parse_action("s")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "'' is not Flip Switch notation: expected a flip like 'b2', a switch like 'a1-a2'"),
        ("b2b3", "'b2b3' is not Flip Switch notation"),
        ("d1", "'d1' names no square of the 3x3 board: squares run a1 to c3"),
        ("a1-a4", "'a1-a4' names no square"),
        ("circle", "is not Flip Switch notation: .* the shape the flip shows"),
    ],
)
def test_malformed_text_is_a_notation_error_quoting_it(play: Play, text: str, message: str) -> None:
    """Malformed input: NotationError quoting the text and showing the expected form."""
    with pytest.raises(NotationError, match=message):
        play("").parse_action(text)


def test_well_formed_but_illegal_lists_the_legal_actions(play: Play) -> None:
    """A well-formed action that is not legal here says why and lists what is legal."""
    state = play("a1 heart b1 square")
    with pytest.raises(IllegalActionError) as info:
        state.parse_action("heart")
    assert "no flip is being revealed" in str(info.value)
    assert str(info.value).endswith("legal: c1 a2 b2 c2 a3 b3 c3 a1-b1")
    with pytest.raises(IllegalActionError, match="flip of c3 is being revealed"):
        play("c3").parse_action("a1")


def test_no_action_is_legal_once_the_match_is_over(play: Play) -> None:
    """After the last round every action is refused, saying the match is over."""
    state = play("a1 heart a2 star b1 heart b2 star c1 star c2 heart c1-c2")
    with pytest.raises(IllegalActionError, match="the match is over; legal: none"):
        state.parse_action("c3")
