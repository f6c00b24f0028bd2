"""The AI side of the command line: solve, analyze, arena, play against levels, hints."""

from __future__ import annotations

import builtins
import json
import random
from collections.abc import Iterator

import pytest

from flipgames import make
from flipgames.cli.main import main
from flipgames.core.conformance import random_game


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def feed(monkeypatch, lines: list[str]) -> None:
    answers: Iterator[str] = iter(lines)

    def fake_input(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)


def test_solve_flipflop_3x3_reports_a_first_player_win_in_15(capsys):
    code, out, _ = run(capsys, "solve", "flipflop-3x3", "--json")
    assert code == 0
    report = json.loads(out)
    assert {k: report[k] for k in ("game", "positions", "value", "remoteness")} == {
        "game": "flipflop-3x3",
        "positions": 213_270,
        "value": "win",
        "remoteness": 15,
    }
    assert report["best_actions"] == ["b1xb3"]
    assert report["seconds"] > 0
    # The second call reads the disk cache.
    code, out, _ = run(capsys, "solve", "flipflop-3x3")
    assert "White, to move first, wins in 15 plies" in out


def test_solve_a_game_too_large_says_how_far_it_got(capsys):
    code, out, _ = run(capsys, "solve", "rubiks-flip", "--json", "--max-positions", "2000")
    assert code == 1
    report = json.loads(out)
    assert report["solved"] is False
    assert "more than 2,000 positions" in report["reason"]
    code, _, err = run(capsys, "solve", "flipfour", "--max-positions", "2000", "--quiet")
    assert code == 1
    assert "too large to solve here" in err


def test_solve_checkered_flag_with_fixed_policies(capsys):
    code, out, _ = run(
        capsys, "solve", "checkered-flag", "-o", "track=short", "--policies", "--json"
    )
    assert code == 0
    report = json.loads(out)
    assert report["solver"] == "stochastic"
    assert abs(sum(report["value"].values()) - 1) < 1e-12
    assert report["exact"]["win"] == report["exact"]["loss"] == "1/2"  # start=spin is fair
    pairs = {(row["first"], row["second"]) for row in report["policies"]}
    assert ("always 1st", "up to 3rd") in pairs
    assert ("optimal", "always 1st") in pairs
    assert ("optimal", "optimal") not in pairs


def test_analyze_a_solved_position_lists_values_and_remoteness(capsys):
    code, out, _ = run(capsys, "analyze", "flipflop-3x3", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["kind"] == "exact"
    rows = {row["action"]: (row["value"], row["remoteness"]) for row in report["actions"]}
    assert rows["b1xb3"] == ("win", 15)
    assert rows["b1-b2"][0] == "loss"
    assert report["actions"][0]["action"] == "b1xb3"


def test_analyze_an_unsolved_game_gives_scores_and_lines(capsys):
    code, out, _ = run(capsys, "analyze", "flipflop", "--depth", "2", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["kind"] == "alpha-beta depth 2"
    assert len(report["actions"]) == 16
    for row in report["actions"]:
        assert row["pv"][0] == row["action"]
    scores = [row["score"] for row in report["actions"]]
    assert scores == sorted(scores, reverse=True)


def test_analyze_a_chance_node_lists_the_outcomes(capsys):
    code, out, _ = run(capsys, "analyze", "flip-switch", "-o", "rounds=3", "--moves", "b2")
    assert code == 0
    assert "chance node" in out
    assert "heart" in out and "1/3" in out


def test_analyze_a_finished_game_is_an_error(capsys):
    finished = random_game(make("flipflop-3x3"), random.Random(3))
    moves = " ".join(finished.history_notation())
    code, _, err = run(capsys, "analyze", "flipflop-3x3", "--moves", moves)
    assert code == 1
    assert f"the game is over ({finished.result()})" in err


def test_analyze_with_illegal_moves_names_the_bad_one(capsys):
    code, _, err = run(capsys, "analyze", "flipflop-3x3", "--moves", "b1xb3 a3xb3 c1-c3")
    assert code == 1
    assert "--moves action 3 ('c1-c3')" in err


def test_arena_prints_the_score_with_an_interval(capsys):
    code, out, _ = run(
        capsys,
        "arena",
        "flipflop-3x3",
        "--a",
        "medium",
        "--b",
        "random",
        "--games",
        "4",
        "--json",
    )
    assert code == 0
    result = json.loads(out)
    assert result["games"] == 4
    assert result["wins"] + result["draws"] + result["losses"] == 4
    low, high = result["interval"]
    assert 0 <= low <= result["score"] <= high <= 1


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["arena", "flipflop-3x3", "--a", "genius"], "unknown level 'genius'"),
        (["arena", "flipflop", "--a", "perfect"], "level 'perfect' needs a solved game"),
        (["play", "rubiks-flip", "--vs", "perfect"], "level 'perfect' needs a solved game"),
    ],
)
def test_bad_levels_are_refused(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert words in err


def test_play_against_a_level_with_hints(capsys, monkeypatch):
    feed(monkeypatch, ["hint", "b1xb3", "quit"])
    assert main(["play", "flipflop-3x3", "--vs", "perfect", "--hint", "--seed", "4"]) == 0
    out, _ = capsys.readouterr()
    assert "hint (perfect): b1xb3" in out
    assert "Black (perfect) plays" in out


def test_hint_is_off_unless_asked_for(capsys, monkeypatch):
    feed(monkeypatch, ["hint", "quit"])
    main(["play", "flipflop-3x3", "--seed", "4"])
    assert "hints are off" in capsys.readouterr().out


def test_analyze_a_solved_chance_game_gives_expected_values_and_odds(capsys):
    code, out, _ = run(
        capsys,
        "analyze",
        "checkered-flag",
        "-o",
        "track=short",
        "-o",
        "start=first",
        "--moves",
        "1 2 1 3",
        "--json",
    )
    assert code == 0
    report = json.loads(out)
    assert report["kind"] == "exact"
    assert {row["action"] for row in report["actions"]} == {"1", "2"}
    for row in report["actions"]:
        assert abs(row["win"] + row["draw"] + row["loss"] - 1) < 1e-9
        assert abs(row["win"] - row["loss"] - row["value"]) < 1e-9
