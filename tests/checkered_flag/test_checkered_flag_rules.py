"""Checkered Flag: one test per rulebook clause and per ruling (the Flipsiders: Checkered
Flag rulebook, docs/rulings.md), positions built by playing actions in notation from the
initial state.

Tracks used: ``default`` (48 spaces; no-passing 7-9, 19-21, 31-33, 41-43; crash 10-11, 22-24,
34-35, 44) and ``short`` (16 spaces; no-passing 4, 5, 12; crash 6, 7, 11, 12).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from flipgames import CHANCE, TERMINAL, IllegalActionError, OptionError, make
from flipgames.games.checkered_flag.rules import CheckeredFlag, CheckeredFlagState


def play(moves: str = "", **options: object) -> CheckeredFlagState:
    """The state after ``moves`` (notation, space-separated) from the initial state."""
    state = make("checkered-flag", options).state_from_actions(moves.split())
    assert isinstance(state, CheckeredFlagState)
    return state


def legal(state: CheckeredFlagState) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def outcomes(state: CheckeredFlagState) -> dict[str, Fraction]:
    return {state.action_to_string(a): p for a, p in state.chance_outcomes()}


def write_track(tmp_path: Path, **fields: object) -> str:
    data = {"name": "test", "length": 10, "crash": [], "no_passing": []} | fields
    path = tmp_path / "track.json"
    path.write_text(json.dumps(data))
    return str(path)


# --- set-up and who starts ---------------------------------------------------------------------


def test_setup_both_cars_on_start_line_with_markers_in_neutral() -> None:
    """Set-up: race cars on the START/FINISH line, gear shift markers in NEUTRAL."""
    state = play(start="first")
    assert state.distances == (0, 0)
    assert state.gears == ("N", "N")
    assert state.observation(None)["board"]["cars"][1]["space"] == 0


def test_start_spin_outcomes_are_ordered_non_tie_pairs_with_exact_probabilities() -> None:
    """Who starts: both spin B; ties spin again, so each ordered non-tie pair has 1/30."""
    state = play()
    assert state.current_player == CHANCE
    probs = outcomes(state)
    assert len(probs) == 30
    assert set(probs.values()) == {Fraction(1, 30)}
    assert "5:3" in probs and "3:5" in probs
    assert not any(text.split(":")[0] == text.split(":")[1] for text in probs)


def test_higher_spinner_b_goes_first() -> None:
    """The player who spins the highest number on Spinner B goes first."""
    assert play("5:3").current_player == 0
    assert play("2:6").current_player == 1
    assert play("2:6").distances == (0, 0)


def test_start_spin_tie_is_spun_again_so_never_an_outcome() -> None:
    """Ties spin again: a tie is not a legal chance outcome."""
    with pytest.raises(IllegalActionError, match="tie"):
        play().parse_action("4:4")


def test_start_spin_probabilities_follow_weighted_spinner_b(tmp_path: Path) -> None:
    """Ruling: start outcomes have exact probabilities conditioned on no tie (weights 1, 2, 3)."""
    path = tmp_path / "spin.json"
    path.write_text(json.dumps({"A": {"1": 1}, "B": {"1": 1, "2": 2, "3": 3}}))
    probs = outcomes(play(spinners=str(path)))
    # P(no tie) = (36 - 14) / 36, so each pair has w0 * w1 / 22.
    assert probs == {
        "1:2": Fraction(2, 22),
        "1:3": Fraction(3, 22),
        "2:1": Fraction(2, 22),
        "2:3": Fraction(6, 22),
        "3:1": Fraction(3, 22),
        "3:2": Fraction(6, 22),
    }


def test_start_first_option_player_zero_starts_without_a_spin() -> None:
    """Option start=first: player 0 starts and there is no start spin."""
    state = play(start="first")
    assert state.current_player == 0
    assert state.history == ()


# --- gear changes ------------------------------------------------------------------------------


def test_from_neutral_only_first_gear() -> None:
    """NEUTRAL -> 1st is the only shift out of neutral."""
    state = play(start="first")
    assert legal(state) == ["1"]
    with pytest.raises(IllegalActionError, match="one gear at a time"):
        state.parse_action("2")


def test_from_first_gear_stay_or_shift_to_second_never_neutral() -> None:
    """From 1st: 1st or 2nd; YOU CANNOT MOVE FROM 1ST -> NEUTRAL."""
    state = play("1 3 1 1", start="first")
    assert state.gears[0] == "1"
    assert legal(state) == ["1", "2"]
    with pytest.raises(IllegalActionError, match="never moves back to N"):
        state.parse_action("N")
    with pytest.raises(IllegalActionError, match="one gear at a time"):
        state.parse_action("3")


def test_from_second_gear_first_second_or_third() -> None:
    """From 2nd: down to 1st, stay, or up to 3rd."""
    state = play("1 1 1 1 2 1 1 1", start="first")
    assert state.gears[0] == "2"
    assert legal(state) == ["1", "2", "3"]


def test_from_third_gear_second_or_third() -> None:
    """From 3rd (the highest): 2nd or 3rd."""
    state = play("1 1 1 1 2 1 1 1 3 1+1 1 1", start="first")
    assert state.gears[0] == "3"
    assert legal(state) == ["2", "3"]


def test_shifting_down_from_second_to_first() -> None:
    """2nd -> 1st is allowed, and 1st gear then spins Spinner A."""
    state = play("1 1 1 1 2 1 1 1 1", start="first")
    assert state.gears[0] == "1"
    assert set(outcomes(state)) == {"1", "2", "3"}


# --- spinners and moving -----------------------------------------------------------------------


def test_first_gear_moves_spinner_a() -> None:
    """1st gear: move the number on Spinner A (uniform 1-3 by default)."""
    state = play("1", start="first")
    assert state.current_player == CHANCE
    assert outcomes(state) == {str(v): Fraction(1, 3) for v in (1, 2, 3)}


def test_second_gear_moves_spinner_b() -> None:
    """2nd gear: move the number on Spinner B (uniform 1-6 by default)."""
    state = play("1 1 1 1 2", start="first")
    assert outcomes(state) == {str(v): Fraction(1, 6) for v in range(1, 7)}


def test_third_gear_moves_spinners_a_and_b_added() -> None:
    """3rd gear: move Spinners A and B; each (A, B) pair has the product probability."""
    state = play("1 1 1 1 2 1 1 1 3", start="first")
    probs = outcomes(state)
    assert len(probs) == 18
    assert set(probs.values()) == {Fraction(1, 18)}
    assert play("1 1 1 1 2 1 1 1 3 2+5", start="first").distances[0] == 2 + 7


def test_always_move_the_full_count() -> None:
    """Always move the full count of the spinner(s)."""
    assert play("1 3", start="first").distances == (3, 0)
    assert play("1 3 1 1 2 6", start="first").distances == (9, 1)


def test_may_land_on_or_pass_the_opponent_off_no_passing_spaces() -> None:
    """You may land on your opponent's space, or pass your opponent's car."""
    assert play("1 3 1 3", start="first").distances == (3, 3)
    assert play("1 1 1 3", start="first").distances == (1, 3)


def test_after_moving_the_turn_is_over() -> None:
    """After you move your race car marker, your turn is over."""
    assert play("1 3", start="first").current_player == 1


# --- no passing zones --------------------------------------------------------------------------


def test_no_passing_car_stops_mover_on_the_space_behind() -> None:
    """Opponent on a no-passing space: you cannot pass; stop on the space behind it."""
    state = play("1 3 1 3 2 5", start="first")
    assert state.distances == (8, 3)
    after = play("1 3 1 3 2 5 2 6", start="first")
    assert after.distances == (8, 7)
    assert after.current_player == 0


def test_landing_on_the_opponents_no_passing_space_is_allowed() -> None:
    """Ruling: landing on the opponent's space is allowed, no-passing space or not."""
    assert play("1 3 1 3 2 5 2 5", start="first").distances == (8, 8)


def test_moving_off_a_shared_no_passing_space_is_not_passing() -> None:
    """Decision: both cars on one space, the mover drives ahead freely (it passes no space)."""
    state = play("1 3 1 3 2 5 2 5 2 4", start="first")
    assert state.distances == (12, 8)


def test_no_passing_space_without_a_car_does_not_stop_anyone() -> None:
    """Only a car on a no-passing space blocks; the space itself does not."""
    assert play("1 3 1 1 2 6 1 1 3 3+6", start="first").distances[0] == 18


def test_lapped_car_on_a_no_passing_space_blocks_the_leader() -> None:
    """Decision: blocking is physical, so a car a lap behind still blocks the leader."""
    # Player 0 laps to distance 18 (space 2); player 1 stands on no-passing space 5.
    state = play("1 3 1 1 2 6 1 3 3 3+6 1 1 3 1+3", start="first", track="short", laps=2)
    assert state.distances == (20, 5)
    assert state.observation(None)["board"]["cars"][0]["space"] == 4


def test_finish_line_is_no_exception_to_no_passing(tmp_path: Path) -> None:
    """Decision: a blocked car stops behind the blocker even if its count would finish."""
    track = write_track(tmp_path, length=10, no_passing=[9])
    state = play("1 3 1 3 1 3 1 2 1 3 2 6", start="first", track=track)
    assert state.distances == (9, 8)
    assert not state.is_terminal()


# --- crash zones -------------------------------------------------------------------------------


def test_crash_in_second_gear_moves_marker_to_crash_2() -> None:
    """Landing on a crash space by the exact count in 2nd gear: marker to Crash 2."""
    state = play("1 3 1 1 1 1 1 1 2 6", start="first")
    assert state.distances == (10, 2)
    assert state.gears == ("C2", "1")
    assert state.current_player == 1


def test_crash_in_third_gear_moves_marker_to_crash_3() -> None:
    """Landing on a crash space by the exact count in 3rd gear: marker to Crash 3."""
    state = play("1 3 1 1 2 1 1 1 3 3+3", start="first")
    assert state.distances == (10, 2)
    assert state.gears == ("C3", "1")


def test_crash_space_in_first_gear_has_no_penalty() -> None:
    """In 1st gear when you crash there is NO PENALTY: the marker stays in 1st."""
    state = play("1 3 1 1 2 6 1 1 1 1", start="first")
    assert state.distances == (10, 2)
    assert state.gears == ("1", "1")


def test_landing_on_the_opponent_on_a_crash_space_is_a_crash() -> None:
    """Decision: landing on the opponent's crash space by the exact count is still a crash."""
    state = play("1 3 1 1 1 1 1 1 2 6 2 6 N 2 2", start="first")
    assert state.distances == (10, 10)
    assert state.gears == ("N", "C2")


def test_stopping_behind_a_no_passing_car_on_a_crash_space_is_not_a_crash() -> None:
    """Ruling: stopping on a crash space because of a no-passing car is not a crash."""
    # Player 0 crashes onto space 12 (crash and no-passing) and sits there in Crash 2.
    moves = "1 3 1 1 2 6 1 2 2 3 2 6 N 2 5"
    state = play(moves, start="first", track="short")
    assert state.distances == (12, 11)
    assert state.gears == ("N", "2")


def test_blocked_car_right_behind_the_blocker_does_not_move() -> None:
    """Decision: stopping 'on the space behind' can mean not moving at all."""
    # Player 0 crashes in 3rd gear onto space 12 (no-passing) and sits there two turns.
    moves = "1 3 1 1 2 6 1 2 3 1+2 2 6 C2 2 5 N 2 4"
    state = play(moves, start="first", track="short")
    assert state.distances == (12, 11)
    assert state.gears == ("N", "2")


# --- crash circles -----------------------------------------------------------------------------


def test_crash_3_moves_to_crash_2_then_neutral_without_moving() -> None:
    """On Crash 3 move to Crash 2; on Crash 2 move to N; no spin and no car move."""
    moves = "1 3 1 1 2 1 1 1 3 3+3 1 1"
    crashed = play(moves, start="first")
    assert crashed.current_player == 0 and legal(crashed) == ["C2"]
    c2 = play(moves + " C2", start="first")
    assert c2.gears[0] == "C2" and c2.distances == crashed.distances
    assert c2.current_player == 1
    c2 = play(moves + " C2 1 1", start="first")
    assert legal(c2) == ["N"]
    neutral = play(moves + " C2 1 1 N", start="first")
    assert neutral.gears[0] == "N" and neutral.distances == (10, 4)
    assert neutral.current_player == 1


def test_crash_circle_allows_no_gear_choice() -> None:
    """You CAN ONLY move your gear shift marker one circle toward N."""
    crashed = play("1 3 1 1 1 1 1 1 2 6 1 1", start="first")
    with pytest.raises(IllegalActionError, match="C2: one circle toward N"):
        crashed.parse_action("1")


def test_from_neutral_after_a_crash_shift_to_first_and_move() -> None:
    """At the start of your turn in NEUTRAL you can move to 1st, spin and move."""
    state = play("1 3 1 1 1 1 1 1 2 6 1 1 N 1 1 1", start="first")
    assert state.gears[0] == "1"
    assert play("1 3 1 1 1 1 1 1 2 6 1 1 N 1 1 1 2", start="first").distances[0] == 12


# --- winning -----------------------------------------------------------------------------------


def test_first_car_to_reach_laps_times_length_wins() -> None:
    """The first player to cross the Finish Line wins (distance reaches laps x length)."""
    state = play("1 3 1 1 2 6 1 1 3 3+6", start="first", track="short")
    assert state.distances == (18, 2)
    assert state.current_player == TERMINAL
    assert state.returns() == (1, -1) and state.result() == "1-0"
    assert state.legal_actions() == ()


def test_laps_option_races_more_laps() -> None:
    """Option laps=2: to make the game longer, race more laps (goal 2 x 16 here)."""
    state = play("1 3 1 1 2 6 1 1 3 3+6", start="first", track="short", laps=2)
    assert not state.is_terminal()
    assert state.observation(None)["board"]["cars"][0]["lap"] == 2
    won = play("1 3 1 1 2 6 1 1 3 3+6 1 1 3 2+6 1 1 3 3+6", start="first", track="short", laps=2)
    assert won.distances[0] == 35 and won.result() == "1-0"


def test_player_one_can_win() -> None:
    """Returns are per player: player 1 reaching the goal first wins."""
    state = play("1 1 1 3 1 1 2 6 1 1 3 3+6", start="first", track="short")
    assert state.distances == (3, 18)
    assert state.result() == "0-1" and state.returns() == (-1, 1)


def test_crash_on_the_finish_line_win_takes_precedence(tmp_path: Path) -> None:
    """Decision: a move that wins is not a crash; crossing on an earlier lap can crash."""
    track = write_track(tmp_path, crash=[0])
    moves = "1 3 1 1 1 1 1 1 2 6"
    won = play(moves, start="first", track=track)
    assert won.result() == "1-0" and won.gears[0] == "2"
    crashed = play(moves, start="first", track=track, laps=2)
    assert crashed.distances[0] == 10 and crashed.gears[0] == "C2"


def test_stopping_behind_a_blocker_past_the_finish_line_still_wins(tmp_path: Path) -> None:
    """Decision: a car stopped behind a blocker that stands past the line has crossed it."""
    track = write_track(tmp_path, crash=[2], no_passing=[2])
    # Player 1 crashes onto space 2 and sits there; player 0 at 8 drives 5 and stops on 11.
    state = play("1 1 1 1 1 1 2 1 2 6 N 3 1+4", start="first", track=track)
    assert state.distances == (11, 2)
    assert state.result() == "1-0"


def test_start_spin_option_must_have_two_faces_on_b(tmp_path: Path) -> None:
    """start=spin with a one-face Spinner B would tie for ever: rejected, start=first works."""
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"A": {"1": 1}, "B": {"2": 1}}))
    with pytest.raises(OptionError, match="start=first"):
        make("checkered-flag", spinners=str(path))
    assert CheckeredFlag({"spinners": str(path), "start": "first"}).goal == 48
