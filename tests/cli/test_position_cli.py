"""``--position`` through the real entry point (``python -m flipgames``): perft and analyze
start from a position, ``--moves`` are played after it, and a bad position is one line on
stderr with exit code 2 and no traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

Run = Callable[..., Any]  # the ``flipgames`` fixture


def assert_one_line_error(done: Any, code: int, *words: str) -> None:
    """One ``flipgames: error:`` line naming ``words``, exit ``code``, no traceback."""
    assert done.code == code, done.err
    assert "Traceback" not in done.err + done.out
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flipgames: error: "), done.err
    assert all(word in lines[0] for word in words), lines[0]


def test_perft_from_a_position_counts_what_the_moves_reaching_it_count(flipgames: Run) -> None:
    by_moves = flipgames("perft", "flipflop-3x3", "4", "--moves", "b1xb3 a3xb3", "--json")
    by_position = flipgames("perft", "flipflop-3x3", "4", "--position", "1br/3/R1R w", "--json")
    assert by_moves.code == by_position.code == 0, by_moves.err + by_position.err
    assert json.loads(by_position.out)["counts"] == json.loads(by_moves.out)["counts"]


def test_moves_are_played_after_the_position(flipgames: Run) -> None:
    after = flipgames(
        "perft", "flipfour", "2", "--position", "5/5/2B2/5/5 b 34", "--moves", "r@a1", "--json"
    )
    assert after.code == 0, after.err
    reached = flipgames("perft", "flipfour", "2", "--position", "5/5/2B2/5/r4 w 33", "--json")
    assert json.loads(reached.out)["counts"] == json.loads(after.out)["counts"]


def test_analyze_reports_the_position_it_analysed(flipgames: Run) -> None:
    done = flipgames(
        "analyze", "flipflop-3x3", "--position", "r1r/1r1/R1B w", "--moves", "a1-a2", "--json"
    )
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["moves"] == ["a1-a2"]
    assert report["position"] == "r1r/Br1/2B b"
    assert report["kind"] == "exact" and report["actions"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["perft", "flipflop", "2", "--position", "rrrrr/5/5/5/RRRRR q"], ["side to move"]),
        (["perft", "flipflop", "2", "--position", "rrrrr/5/6/5/RRRRR w"], ["rank 3 has 6"]),
        (["analyze", "flipfour", "--position", "5/5/5/5/5 w 54"], ["pieces in hand"]),
        (["analyze", "rubiks-flip", "--position", "4/4/4/R3 r"], ["side to move is 'r'"]),
        (["perft", "flip-switch", "2", "--position", "3/3/3 w"], ["no position notation"]),
        (["analyze", "checkered-flag", "--position", "x"], ["no position notation"]),
    ],
)
def test_a_bad_position_is_a_usage_error(flipgames: Run, argv: list[str], words: list[str]) -> None:
    assert_one_line_error(flipgames(*argv), 2, "--position", *words)


def test_a_bad_move_after_a_good_position_names_the_move(flipgames: Run) -> None:
    done = flipgames(
        "perft", "flipflop", "1", "--position", "rrrrr/5/5/5/RRRRR w", "--moves", "a5-a4"
    )
    assert_one_line_error(done, 1, "--moves action 1", "'a5-a4'")
