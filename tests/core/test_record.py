"""Game records and state JSON: round-trips, and every kind of tampering rejected."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgames import (
    RecordError,
    dumps_record,
    game_names,
    make,
    make_record,
    replay_record,
    state_from_json,
    state_to_json,
)
from flipgames.core.conformance import random_game


def finished_record(name: str, seed: int = 5) -> dict:
    state = random_game(make(name), random.Random(seed))
    return make_record(state, seed=seed)


@pytest.mark.parametrize("name", game_names())
def test_a_record_replays_to_the_same_final_state(name):
    state = random_game(make(name), random.Random(11))
    record = json.loads(dumps_record(make_record(state, seed=11)))
    assert record["game"] == name
    assert record["result"] == state.result() != "*"
    replayed = replay_record(record)
    assert replayed == state
    assert replayed.returns() == state.returns()


@pytest.mark.parametrize("name", game_names())
def test_a_state_round_trips_through_json(name):
    state = random_game(make(name), random.Random(3))
    for _ in range(5):
        parent = state.parent
        assert parent is not None
        assert state_from_json(state_to_json(parent)) == parent
        state = parent


def test_a_record_whose_action_fails_names_the_first_bad_action():
    record = finished_record("flipflop-3x3")
    bad_index = min(3, len(record["actions"]) - 1)
    record["actions"][bad_index] = "a1-c3"
    with pytest.raises(RecordError) as info:
        replay_record(record)
    assert info.value.index == bad_index
    assert info.value.action == "a1-c3"
    assert f"action {bad_index + 1} ('a1-c3')" in str(info.value)


def test_a_record_with_malformed_notation_is_rejected():
    record = finished_record("flipflop-3x3")
    record["actions"][0] = "z9??"
    with pytest.raises(RecordError, match=r"action 1 \('z9\?\?'\) does not replay"):
        replay_record(record)


def test_a_record_with_a_false_result_is_rejected():
    record = finished_record("flipflop-3x3")
    record["result"] = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[record["result"]]
    with pytest.raises(RecordError, match="record says the result is"):
        replay_record(record)


def test_a_record_cut_short_no_longer_matches_its_result():
    record = finished_record("checkered-flag")
    record["actions"] = record["actions"][:-1]
    with pytest.raises(RecordError, match="actions end in '\\*'"):
        replay_record(record)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"format": "pgn"}, "record format must be 'flipgames-record'"),
        ({"version": 99}, "record version must be 1"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"options": {"lines": "zigzag"}}, "bad value 'zigzag' for option 'lines'"),
        ({"options": ["lines"]}, "'options' must be an object"),
        ({"actions": "b2 heart"}, "'actions' must be a list"),
        ({"actions": [1, 2]}, "action 1 is 1, not a string"),
        ({"seed": "abc"}, "seed must be an integer or null"),
        ({"result": "win"}, "record result 'win' is not one of"),
    ],
)
def test_tampered_record_fields_are_rejected(change, words):
    record = finished_record("flip-switch")
    record.update(change)
    with pytest.raises(RecordError, match=words.replace("(", r"\(").replace("*", r"\*")):
        replay_record(record)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"record"', "\xff"])
def test_text_that_is_not_a_json_object_is_rejected(text):
    with pytest.raises(RecordError):
        replay_record(text)


@given(st.text(max_size=200))
def test_garbage_text_is_always_a_record_error(text):
    with pytest.raises(RecordError):
        replay_record(text)


@given(
    st.dictionaries(
        st.sampled_from(["format", "version", "game", "options", "actions", "result", "seed"]),
        st.one_of(st.none(), st.integers(), st.text(max_size=10), st.lists(st.text(max_size=6))),
    )
)
def test_garbage_records_are_always_record_errors(record):
    record.setdefault("format", "flipgames-record")
    record.setdefault("version", 1)
    try:
        state = replay_record(record)
    except RecordError:
        return
    # Only a record that genuinely replays may load.
    assert state.history_notation() == record["actions"]
