"""``python -m flipgames puzzle`` as a user runs it: puzzles in text and JSON, and one-line
errors for games without puzzles and bad counts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from flipgames import make

Run = Any  # the ``flipgames`` fixture


def test_puzzle_prints_position_question_answer_and_values(flipgames: Run) -> None:
    done = flipgames("puzzle", "flipflop-3x3", "--seed", "4", "--count", "2")
    assert done.code == 0, done.err
    assert done.out.count("Puzzle ") == 2
    assert "Position: " in done.out and "to play and win in" in done.out
    assert "Answer: " in done.out and "<- the answer" in done.out


def test_puzzle_json_replays_and_is_reproducible(flipgames: Run) -> None:
    done = flipgames("puzzle", "checkered-flag", "-o", "track=short", "--seed", "3", "--json")
    assert done.code == 0, done.err
    (puzzle,) = json.loads(done.out)
    assert puzzle["options"]["track"] == "short" and puzzle["kind"] == "best-gear"
    state = make("checkered-flag", puzzle["options"]).state_from_actions(puzzle["actions"])
    assert puzzle["answer"] in [state.action_to_string(a) for a in state.legal_actions()]
    again = flipgames("puzzle", "checkered-flag", "-o", "track=short", "--seed", "3", "--json")
    assert json.loads(again.out) == [puzzle]


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["puzzle", "flipfour"], 1, ["flipfour has no puzzles", "flipflop-3x3"]),
        (["puzzle", "flipflop-3x3", "--count", "0"], 2, ["--count", "at least 1, got 0"]),
        (["puzzle", "flipflop-3x3", "--count", "lots"], 2, ["--count", "'lots'"]),
        (["puzzle", "flipflop-3x3", "--count", "101"], 1, ["--count must be 1 to 100"]),
        (["puzzle", "flipflop-3x3", "--seed", "x"], 2, ["--seed"]),
        (["puzzle", "nowhere"], 1, ["unknown game 'nowhere'"]),
        (["puzzle", "checkered-flag", "-o", "track=moon"], 1, ["'moon'", "track"]),
    ],
)
def test_puzzle_bad_input_is_one_line(
    flipgames: Run, argv: list[str], code: int, words: list[str]
) -> None:
    done = flipgames(*argv)
    assert done.code == code, done.err
    assert "Traceback" not in done.err + done.out and done.out == ""
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flipgames: error: "), done.err
    for word in words:
        assert word in lines[0]
