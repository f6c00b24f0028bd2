"""``python -m flipgames`` with bad arguments and inputs, as a user types them: one line on
stderr naming what is wrong, a non-zero exit code, never a traceback, nothing played lost."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flipgames import make

Run = Callable[..., Any]  # the ``flipgames`` fixture


def assert_one_line_error(done: Any, code: int, *words: str) -> None:
    assert done.code == code, done.err
    assert "Traceback" not in done.err + done.out
    lines = done.err.strip().splitlines()
    assert len(lines) == 1, done.err
    assert lines[0].startswith("flipgames: error: ")
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["analyze", "flipflop", "--depth", "0"], ["--depth", "at least 1, got 0"]),
        (["analyze", "flipflop", "--depth", "-3"], ["--depth", "at least 1, got -3"]),
        (["analyze", "flipflop", "--depth", "six"], ["--depth", "whole number", "'six'"]),
        (["arena", "flipflop-3x3", "--games", "0"], ["--games", "at least 1, got 0"]),
        (["arena", "flipflop-3x3", "--games", "-2"], ["--games", "at least 1, got -2"]),
        (["perft", "flipflop", "-1"], ["DEPTH", "at least 1"]),
        (["play", "flipflop", "--seat", "0"], ["--seat", "at least 1"]),
        (["solve", "flipflop", "--max-positions", "0"], ["--max-positions"]),
        (["serve", "--port", "70000"], ["--port", "0 (any free one) to 65535"]),
        (["frobnicate"], ["invalid choice: 'frobnicate'"]),
    ],
)
def test_bad_numbers_and_commands_are_usage_errors(
    flipgames: Run, argv: list[str], words: list[str]
) -> None:
    assert_one_line_error(flipgames(*argv), 2, *words)


def test_save_into_a_missing_folder_is_refused_before_the_game(
    flipgames: Run, tmp_path: Path
) -> None:
    target = tmp_path / "no" / "such" / "game.json"
    done = flipgames("play", "flipflop-3x3", "--save", str(target), stdin="b1xb3\n")
    assert_one_line_error(done, 1, "--save", "does not exist")
    assert "to move" not in done.out  # no board, no prompt: nothing was played and lost


def test_save_onto_a_folder_is_refused_before_the_game(flipgames: Run, tmp_path: Path) -> None:
    done = flipgames("play", "flipflop-3x3", "--save", str(tmp_path), stdin="b1xb3\n")
    assert_one_line_error(done, 1, "is a folder")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"\xff\xfe{}", ["not UTF-8", "0xff"]),
        (b"[" * 100_000, ["nested too deeply"]),
        (b'{"format": "flipgames-record", "version": 1, "seed": ' + b"9" * 5000 + b"}", ["long"]),
        (b"", ["not valid JSON"]),
        (b"[1, 2]", ["must be a JSON object"]),
    ],
)
def test_replay_of_a_file_that_is_no_record(
    flipgames: Run, tmp_path: Path, content: bytes, words: list[str]
) -> None:
    record = tmp_path / "bad.json"
    record.write_bytes(content)
    assert_one_line_error(flipgames("replay", str(record)), 1, *words)


def test_replay_of_an_unfinished_game_says_unfinished(flipgames: Run, tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    played = flipgames(
        "play", "flipflop-3x3", "--seed", "1", "--save", str(record), stdin="b1xb3\n"
    )
    assert played.code == 0
    assert json.loads(record.read_text())["result"] == "*"
    done = flipgames("replay", str(record))
    assert done.code == 0
    assert "result: unfinished (*)" in done.out
    assert "draw" not in done.out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["perft", "flipflop", "100"], ["perft 100 of flipflop", "years", "--force"]),
        (["analyze", "flipflop", "--depth", "100"], ["depth-100 search", "years", "--force"]),
    ],
)
def test_unbounded_requests_are_refused_with_an_estimate(
    flipgames: Run, argv: list[str], words: list[str]
) -> None:
    assert_one_line_error(flipgames(*argv), 1, *words)


def test_a_solve_budget_beyond_memory_is_refused(flipgames: Run) -> None:
    done = flipgames("solve", "rubiks-flip", "--max-positions", "99999999999999999999")
    assert_one_line_error(done, 1, "--max-positions", "GB of memory", "--force")


def test_a_request_within_the_limit_runs_without_force(flipgames: Run) -> None:
    done = flipgames("analyze", "flipflop", "--depth", "2", "--json")
    assert done.code == 0
    assert json.loads(done.out)["kind"] == "alpha-beta depth 2"


def test_analyze_flip_switch_honours_depth_instead_of_solving(flipgames: Run) -> None:
    """With --depth, the solved one-round game is searched, not solved (a solve would take
    minutes and GBs): the answer comes at once and names the search."""
    done = flipgames("analyze", "flip-switch", "--depth", "2", "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["kind"] == "alpha-beta depth 2"
    assert report["options"]["rounds"] == 1
    assert {row["action"] for row in report["actions"]} == {
        "a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3",
    }  # fmt: skip


def test_flip_switch_plays_three_rounds_unless_asked(flipgames: Run) -> None:
    assert "round 1 of 3" in flipgames("play", "flip-switch", "--seed", "1").out
    assert "round 1 of 1" in flipgames("play", "flip-switch", "-o", "rounds=1").out
    assert make("flip-switch").options["rounds"] == 3


def test_solve_and_analyze_study_one_round_and_say_so(flipgames: Run) -> None:
    done = flipgames("analyze", "flip-switch", "--moves", "b2")
    assert done.code == 0
    assert "one round (rounds=1)" in done.err
    assert "chance node" in done.out
    # An explicit choice is kept: three rounds has no exact solution, so it is searched.
    done = flipgames("analyze", "flip-switch", "-o", "rounds=3", "--depth", "1", "--json")
    assert done.code == 0
    assert json.loads(done.out)["options"]["rounds"] == 3


def test_the_perfect_level_on_a_match_says_how_to_get_one_round(flipgames: Run) -> None:
    done = flipgames("play", "flip-switch", "--vs", "perfect")
    assert_one_line_error(done, 1, "needs a solved game", "add -o rounds=1")


def test_checkered_flag_speaks_of_players_1_and_2(flipgames: Run) -> None:
    rules = flipgames("rules", "checkered-flag").out
    assert "player 0" not in rules
    assert "or player 1 starts without a spin" in rules
    played = flipgames("play", "checkered-flag", "-o", "start=first", stdin="5\n")
    assert "player 1 chooses a gear" in played.out
    assert "player 0" not in played.out


def test_every_command_has_a_description(flipgames: Run) -> None:
    overview = flipgames("--help").out
    for command in ("list", "rules", "play", "replay", "perft", "solve", "analyze", "arena"):
        assert f"    {command} " in overview
        assert flipgames(command, "--help").out.count("\n") > 3
    assert "list the games" in flipgames("list", "--help").out
    assert "checking every action" in flipgames("replay", "--help").out


def test_output_that_cannot_be_written_is_a_one_line_error() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "flipgames", "list"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr == "flipgames: error: No space left on device\n"
