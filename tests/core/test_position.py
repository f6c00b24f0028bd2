"""Position notation (flipgames.core.position): round-trips on random playouts for every
registered game that has one, the documented start strings, every parse error, records and
serialised states that start from a position, and a clear refusal from the games without."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from flipgames import PositionError, RecordError, game_class, game_names, make
from flipgames.core.ending import Termination
from flipgames.core.game import Game, State
from flipgames.core.position import has_position_notation
from flipgames.core.record import (
    dumps_record,
    make_record,
    replay_record,
    state_from_json,
    state_to_json,
)
from support.toy_game import TurningTurtles

GAMES_WITH = [name for name in game_names() if has_position_notation(game_class(name))]
GAMES_WITHOUT = [name for name in game_names() if name not in GAMES_WITH]


def option_sets() -> list[Any]:
    """Every game with a notation, with its defaults and each other choice of each option."""
    cases = []
    for name in GAMES_WITH:
        cases.append(pytest.param(name, {}, id=name))
        for option in game_class(name).option_spec:
            for choice in option.choices or ():
                if choice != option.default:
                    cases.append(pytest.param(name, {option.name: choice}, id=f"{name}-{choice}"))
    return cases


def assert_same_position(parsed: State, played: State) -> None:
    """Everything that does not depend on history agrees: position, moves, outcome."""
    assert parsed.history == ()
    assert parsed.key() == played.key()
    assert parsed.position() == played.position()
    if played.end_reason() == Termination.REPETITION:
        return  # the third occurrence is history, which a position leaves out
    assert parsed.legal_actions() == played.legal_actions()
    assert parsed.perft_actions() == played.perft_actions()
    assert parsed.current_player == played.current_player
    assert parsed.returns() == played.returns()
    assert parsed.end_reason() == played.end_reason()


def playout_states(game: Game, rng: random.Random, max_plies: int = 300) -> list[State]:
    state = game.new_initial_state()
    states = [state]
    while not state.is_terminal() and len(states) <= max_plies:
        state = state.apply(rng.choice(state.legal_actions()))
        states.append(state)
    return states


def test_the_deterministic_games_have_a_notation_and_the_others_none() -> None:
    for name in game_names():
        cls = game_class(name)
        assert has_position_notation(cls) == (not cls.has_chance and not cls.hidden_information)


@pytest.mark.parametrize(("name", "options"), option_sets())
def test_every_position_of_random_playouts_round_trips(name: str, options: dict[str, Any]) -> None:
    game = make(name, options)
    rng = random.Random(f"position {name} {options}")
    checked = 0
    for _ in range(40):
        for state in playout_states(game, rng):
            text = state.position()
            assert_same_position(game.from_position(text), state)
            # Surrounding spaces and extra spaces between fields are accepted.
            assert game.from_position(f"  {text.replace(' ', '   ')} ").position() == text
            checked += 1
    assert checked > 200


def test_the_toy_game_given_its_codec_round_trips() -> None:
    game = TurningTurtles({"coins": 6})
    for state in playout_states(game, random.Random(5)):
        assert_same_position(game.from_position(state.position()), state)
    assert game.new_initial_state().position() == "HHHHHH 1"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("flipflop", "rrrrr/5/5/5/RRRRR w"),
        ("flipflop-3x3", "rrr/3/RRR w"),
        ("flipfour", "5/5/5/5/5 w 44"),
        ("rubiks-flip", "4/4/4/4 r"),
    ],
)
def test_the_documented_start_positions(name: str, text: str) -> None:
    game = make(name)
    assert game.new_initial_state().position() == text
    assert_same_position(game.from_position(text), game.new_initial_state())


@pytest.mark.parametrize("name", GAMES_WITHOUT)
def test_games_without_a_notation_say_so(name: str) -> None:
    game = make(name)
    for attempt in (game.new_initial_state().position, lambda: game.from_position("5/5 w")):
        with pytest.raises(PositionError, match="has no position notation"):
            attempt()


PARSE_ERRORS = [
    ("flipflop", "rrrrr/5/5/5/RRRRR", "has 1 field, expected 2: board, side to move"),
    ("flipflop", "rrrrr/5/5/5/RRRRR w 1", "has 3 fields, expected 2"),
    ("flipflop", "rrrrr/5/5/RRRRR w", "has 4 ranks, expected 5"),
    ("flipflop", "rrrrr/5/6/5/RRRRR w", "rank 3 has 6 squares, expected 5"),
    ("flipflop", "rrrrr/5/5/4/RRRRR w", "rank 2 has 4 squares, expected 5"),
    ("flipflop", "rrrrr/5/5/5/RRRRRR w", "rank 1 has 6 squares, expected 5"),
    ("flipflop", "rrrrr/5/2x2/5/RRRRR w", "unknown piece 'x' on rank 3"),
    ("flipflop", "rrrrr/5/5/5/RRRRR x", "side to move must be w or b, not 'x'"),
    ("flipflop", "rrrrr/5/R4/5/RRRRR w", "White has 6 pieces, at most 5"),
    ("flipflop", "5/5/5/5/RRRRR w", "Black has no piece but made the last move"),
    ("flipflop", "rrRrr/5/5/5/RR1RR w", "White's piece on c5 (the goal of Black)"),
    ("flipflop", "rrrrr/5/5/5/RRRRB w", "with every piece on the board, 1 x faces"),
    ("flipflop", "rrrrr/5/5/5/RRRRR b", "with every piece on the board, 0 x faces"),
    ("flipflop-3x3", "rrr/3/RRR/3 w", "has 4 ranks, expected 3"),
    ("flipflop-3x3", "rrrr/3/RRR w", "rank 3 has 4 squares, expected 3"),
    ("flipfour", "5/5/5/5/5 w", "has 2 fields, expected 3: board, side to move, pieces in hand"),
    ("flipfour", "5/5/5/5/5 w 4 4", "has 4 fields, expected 3"),
    ("flipfour", "5/5/5/5/5 w 45", "pieces in hand must be two digits 0 to 4"),
    ("flipfour", "5/5/5/5/5 w 444", "pieces in hand must be two digits 0 to 4"),
    ("flipfour", "5/5/5/5/5 W 44", "side to move must be w or b, not 'W'"),
    ("flipfour", "5/5/5/5/4q w 44", "unknown piece 'q' on rank 1"),
    ("flipfour", "5/5/2B2/5/5 b 44", "White has 1 piece on the board and 4 in hand"),
    ("flipfour", "5/5/5/5/5 b 44", "White has every piece in hand"),
    ("flipfour", "5/5/r4/5/5 w 43", "White has every piece in hand"),
    ("flipfour", "5/5/R4/5/5 w 34", "Black has every piece in hand, so White has played 0"),
    ("flipfour", "5/5/RR3/5/5 b 24", "Black has every piece in hand, so White has played 1"),
    ("flipfour", "5/5/5/r4/RRRR1 w 03", "White to move has four in a row"),
    ("rubiks-flip", "4/4/4 r", "has 3 ranks, expected 4"),
    ("rubiks-flip", "4/4/4/3X r", "unknown piece 'X' on rank 1"),
    ("rubiks-flip", "4/4/4/4 b", "side to move must be r (Red/Blue) or y (Yellow/White)"),
    ("rubiks-flip", "4/4/4/RRR1 y", "Red/Blue has 3 tiles and Yellow/White 0"),
    ("rubiks-flip", "4/4/4/Y3 y", "Red/Blue has 0 tiles and Yellow/White 1"),
    ("rubiks-flip", "4/4/4/R3 r", "side to move is 'r', but with 1 and 0 tiles placed"),
]


@pytest.mark.parametrize(("name", "text", "words"), PARSE_ERRORS)
def test_parse_errors_name_what_is_wrong(name: str, text: str, words: str) -> None:
    with pytest.raises(PositionError) as caught:
        make(name).from_position(text)
    assert words in str(caught.value)


@pytest.mark.parametrize("name", GAMES_WITH)
def test_text_that_is_no_position_at_all_is_refused(name: str) -> None:
    game = make(name)
    for text in ("", "   ", "x" * 10_000, "\x00"):
        with pytest.raises(PositionError) as caught:
            game.from_position(text)
        assert len(str(caught.value)) < 300
    with pytest.raises(PositionError, match="a position is text"):
        game.from_position(42)  # type: ignore[arg-type]


def test_a_finished_flipfour_position_is_won_by_the_side_that_made_the_four() -> None:
    state = make("flipfour").from_position("5/5/5/r4/RRRR1 b 03")
    assert state.is_terminal() and state.result() == "1-0"
    assert state.end_reason() == Termination.FOUR_IN_A_ROW


def test_a_flipflop_side_without_pieces_to_move_has_lost() -> None:
    state = make("flipflop").from_position("2r2/5/5/5/5 w")
    assert state.is_terminal() and state.result() == "0-1"
    assert state.end_reason() == Termination.NO_PIECES


def played_from(game: Game, text: str, moves: int, seed: int) -> State:
    rng = random.Random(seed)
    state = game.from_position(text)
    for _ in range(moves):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("flipflop", "r1r1r/1r3/5/2R1b/RR2R b"),
        ("flipflop-3x3", "r1r/1r1/R1B w"),
        ("flipfour", "5/1b3/2R2/5/5 w 33"),
        ("rubiks-flip", "4/1W2/1RB1/4 y"),
    ],
)
def test_records_and_states_start_from_a_position_and_round_trip(name: str, text: str) -> None:
    game = make(name)
    state = played_from(game, text, 3, seed=2)
    record = make_record(state, seed=2)
    assert record["position"] == text
    assert len(record["actions"]) == len(state.history) > 0
    replayed = replay_record(dumps_record(record))
    assert replayed.key() == state.key() and replayed.history == state.history
    assert state_from_json(state_to_json(state)).key() == state.key()
    assert json.loads(state_to_json(state))["position"] == text


def test_a_game_from_the_initial_state_records_no_position() -> None:
    state = played_from(make("flipfour"), "5/5/5/5/5 w 44", 3, seed=1)
    assert "position" not in make_record(state)
    assert "position" not in state.to_json()


def test_a_tampered_record_position_is_rejected() -> None:
    game = make("flipflop-3x3")
    state = played_from(game, "r1r/1r1/R1B w", 2, seed=4)
    record = make_record(state)
    for bad, words in (
        ("r1r/1r1/R1Bx w", "unknown piece"),
        ("rrr/3/RRR b", "x faces"),
        (7, "a position is text"),
    ):
        with pytest.raises(RecordError, match=words):
            replay_record({**record, "position": bad})
    # A different legal start: the actions no longer replay or the result no longer matches.
    with pytest.raises(RecordError):
        replay_record({**record, "position": "rrr/3/RRR w"})
