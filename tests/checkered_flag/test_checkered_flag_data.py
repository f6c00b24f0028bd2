"""Checkered Flag tracks and spinners: bundled data files ship with the package, custom files
load, bad files are rejected with an OptionError naming the file and the problem; options,
rules summary, render and observation."""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest

from flipgames import Game, OptionError, make
from flipgames.core.conformance import check_random_games
from flipgames.games.checkered_flag.rules import CheckeredFlag, CheckeredFlagState
from flipgames.games.checkered_flag.tracks import bundled_names, load_spinners, load_track

GOOD_TRACK = {"name": "oval", "length": 20, "start": 5, "crash": [9], "no_passing": [8]}
GOOD_SPINNERS = {"A": {"1": 2, "2": 1}, "B": {"2": 1, "4": 3}}


def replay(game: Game, moves: str) -> CheckeredFlagState:
    """The state after ``moves`` (notation, space-separated) from the initial state."""
    state = game.state_from_actions(moves.split())
    assert isinstance(state, CheckeredFlagState)
    return state


def write(tmp_path: Path, data: object, name: str = "data.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_bundled_data_files_are_package_resources() -> None:
    """Tracks and spinners load through importlib.resources from the installed package."""
    folder = resources.files("flipgames.games.checkered_flag").joinpath("data")
    assert json.loads(folder.joinpath("tracks", "default.json").read_text())["length"] == 48
    assert bundled_names("tracks") == [
        "default",
        "default-no-crash",
        "default-no-passing",
        "default-plain",
        "short",
    ]
    assert bundled_names("spinners") == ["default"]


def test_default_track_and_spinners_are_the_rulings_invented_defaults() -> None:
    """Ruling R37: 48-space loop from space 0; crash and no-passing spaces; A 1-3, B 1-6."""
    track = load_track("default")
    assert (track.length, track.start) == (48, 0)
    assert track.crash == (10, 11, 22, 23, 24, 34, 35, 44)
    assert track.no_passing == (7, 8, 9, 19, 20, 21, 31, 32, 33, 41, 42, 43)
    spinners = load_spinners("default")
    assert spinners.a == ((1, 1), (2, 1), (3, 1))
    assert spinners.b == tuple((v, 1) for v in range(1, 7))


def test_custom_track_file_loads_and_counts_from_its_start_space(tmp_path: Path) -> None:
    """A user's track: spaces are board numbers; distance counts from the start space."""
    game = CheckeredFlag({"start": "first", "track": write(tmp_path, GOOD_TRACK)})
    assert game.goal == 20
    # 1st gear, spin 3 from space 5: space 8. Player 1 too; then 2nd gear, 1 to crash space 9.
    state = replay(game, "1 3 1 3 2 1")
    assert [car["space"] for car in state.observation(None)["board"]["cars"]] == [9, 8]
    assert state.distances == (4, 3) and state.gears == ("C2", "1")


def test_custom_spinner_file_gives_exact_weighted_probabilities(tmp_path: Path) -> None:
    """Faces with integer weights become exact probabilities; the spin moves the face value."""
    game = make("checkered-flag", start="first", spinners=write(tmp_path, GOOD_SPINNERS))
    state = game.state_from_actions(["1"])
    assert [(state.action_to_string(a), p) for a, p in state.chance_outcomes()] == [
        ("1", Fraction(2, 3)),
        ("2", Fraction(1, 3)),
    ]
    third = replay(game, "1 2 1 1 2 4 1 1 3")
    probs = {third.action_to_string(a): p for a, p in third.chance_outcomes()}
    assert probs == {
        "1+2": Fraction(2, 12),
        "1+4": Fraction(6, 12),
        "2+2": Fraction(1, 12),
        "2+4": Fraction(3, 12),
    }
    assert check_random_games(game, games=20, seed=3).games == 20


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("{not json", "is not valid JSON"),
        ([1, 2], "must be a JSON object"),
        ({k: v for k, v in GOOD_TRACK.items() if k != "length"}, "has no 'length' field"),
        (GOOD_TRACK | {"no-passing": []}, "unknown field 'no-passing'"),
        (GOOD_TRACK | {"length": 2}, "'length' is 2, must be at least 3"),
        (GOOD_TRACK | {"length": "48"}, "'length' must be an integer"),
        (GOOD_TRACK | {"length": True}, "'length' must be an integer"),
        (GOOD_TRACK | {"start": 20}, "'start' is 20, must be from 0 to 19"),
        (GOOD_TRACK | {"crash": [3, 20]}, "'crash' space is 20, must be from 0 to 19"),
        (GOOD_TRACK | {"no_passing": [-1]}, "'no_passing' space is -1"),
        (GOOD_TRACK | {"crash": [3, 3]}, "'crash' lists space 3 twice"),
        (GOOD_TRACK | {"crash": 3}, "'crash' must be a list"),
        (GOOD_TRACK | {"name": ""}, "'name' must not be empty"),
        (GOOD_TRACK | {"description": 7}, "'description' must be a string"),
    ],
)
def test_bad_track_file_is_rejected_naming_file_and_problem(
    tmp_path: Path, data: object, problem: str
) -> None:
    """Malformed JSON, missing or unknown fields, spaces out of range: OptionError."""
    path = write(tmp_path, data, "bad-track.json")
    with pytest.raises(OptionError, match=r"bad-track\.json") as error:
        make("checkered-flag", track=path)
    assert problem in str(error.value)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("[", "is not valid JSON"),
        ({"A": {"1": 1}}, "has no 'B' field"),
        (GOOD_SPINNERS | {"C": {}}, "unknown field 'C'"),
        (GOOD_SPINNERS | {"A": {}}, "spinner A must be a non-empty object"),
        (GOOD_SPINNERS | {"A": [1, 2]}, "spinner A must be a non-empty object"),
        (GOOD_SPINNERS | {"B": {"0": 1}}, "face '0' is not a positive integer"),
        (GOOD_SPINNERS | {"B": {"x": 1}}, "face 'x' is not a positive integer"),
        (GOOD_SPINNERS | {"B": {"2": 0}}, "face 2 weight is 0, must be at least 1"),
        (GOOD_SPINNERS | {"B": {"2": -1}}, "face 2 weight is -1"),
        (GOOD_SPINNERS | {"B": {"2": 1.5}}, "face 2 weight must be an integer"),
    ],
)
def test_bad_spinner_file_is_rejected_naming_file_and_problem(
    tmp_path: Path, data: object, problem: str
) -> None:
    """Malformed JSON, missing fields, non-positive or non-integer weights: OptionError."""
    path = write(tmp_path, data, "bad-spin.json")
    with pytest.raises(OptionError, match=r"bad-spin\.json") as error:
        make("checkered-flag", spinners=path)
    assert problem in str(error.value)


def test_missing_file_and_unknown_bundled_name_are_rejected(tmp_path: Path) -> None:
    """A path that does not exist, or a name that is not bundled: OptionError."""
    with pytest.raises(OptionError, match="cannot read track file"):
        make("checkered-flag", track=str(tmp_path / "nope.json"))
    with pytest.raises(OptionError, match=r"allowed a bundled spinners \(default\)"):
        make("checkered-flag", spinners="fancy")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"laps": "0"}, "option 'laps': allowed an integer 1 <= n"),
        ({"laps": "two"}, "option 'laps'"),
        ({"start": "coin"}, "option 'start': allowed spin | first"),
        ({"pits": "1"}, "unknown option 'pits'"),
    ],
)
def test_bad_option_values_are_rejected(options: dict[str, str], message: str) -> None:
    """Every option is validated, naming the option and what is allowed."""
    with pytest.raises(OptionError, match=message):
        make("checkered-flag", options)


def test_rules_summary_lists_rules_rulings_and_options_with_defaults() -> None:
    """rules_summary: rulebook clauses, rulings, each option with default and allowed values."""
    text = make("checkered-flag", laps=2).rules_summary()
    assert "YOU CANNOT" not in text and "cannot move from 1st to neutral" in text
    assert "\n- Laps: 1 " in text and ", default 1. " in text and "This game: 2." in text
    assert "- Who starts: the higher spin of Spinner B (default) or player 1." in text
    assert "- Track: “default” unless" in text and "- Spinners: “default” unless" in text
    assert "goal 96 spaces driven (2 laps)" in text
    assert "no-passing spaces: 7 8 9 19 20 21" in text
    assert "Spinner B: 1: 1/6" in text


def test_render_shows_cars_gears_and_status() -> None:
    """render: track with space kinds, both cars, gear boxes, whose turn."""
    state = replay(make("checkered-flag", start="first"), "1 3 1 1 2 6")
    picture = state.render()
    assert "▲ player 1   C3  C2  N   1  [2]  3   driven 9/48" in picture
    assert "● player 2   C3  C2  N  [1]  2   3   driven 1/48" in picture
    assert picture.endswith("» Player 2 to choose a gear (in 1st): 1 2")
    crashed = replay(make("checkered-flag", start="first"), "1 3 1 1 1 1 1 1 2 6 1 1").render()
    assert "▲ player 1   C3 [C2] N   1   2   3   driven 10/48" in crashed
    assert crashed.endswith("» Player 1 is on C2: move the marker to N (no spin)")


def test_observation_is_json_and_complete() -> None:
    """observation: JSON-able board, cars, side to move, status; same for every viewer."""
    state = make("checkered-flag").state_from_actions(["2:5", "1"])
    obs = state.observation(0)
    json.dumps(obs)
    board = obs["board"]
    assert board["phase"] == "spin" and board["mover"] == 1 and board["spinner"] == "Spinner A"
    assert obs["to_move"] is None and obs["status"] == "chance"
    assert obs["legal"] == ["1", "2", "3"]
    assert board["track"]["no_passing"][:3] == [7, 8, 9]
    assert board["spinners"] == {"A": [1, 2, 3], "B": [1, 2, 3, 4, 5, 6]}
    assert {k: v for k, v in state.observation(None).items() if k != "viewer"} == {
        k: v for k, v in obs.items() if k != "viewer"
    }


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"start": "first"},
        {"laps": 2},
        {"track": "short"},
        {"track": "short", "laps": 3, "start": "first"},
    ],
)
def test_random_games_pass_the_conformance_kit(options: dict[str, object]) -> None:
    """check_random_games over each option set (the registry-wide test runs 1000 games)."""
    stats = check_random_games(make("checkered-flag", options), games=40, seed=11)
    assert stats.games == 40 and set(stats.results) <= {"1-0", "0-1"}
