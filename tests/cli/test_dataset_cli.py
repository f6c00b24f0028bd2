"""``flipgames dataset`` through the real entry point (``python -m flipgames``): a file numpy
loads alone, and bad arguments as one line on stderr with the right exit code, nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flipgames import game_names


@dataclass
class Done:
    code: int
    out: str
    err: str


def flipgames(*argv: str, cwd: Path) -> Done:
    """``python -m flipgames ARGV`` in the folder ``cwd`` (relative paths are the user's)."""
    done = subprocess.run(
        [sys.executable, "-m", "flipgames", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        check=False,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def assert_one_line_error(done: Done, code: int, *words: str) -> None:
    """One ``flipgames: error:`` line on stderr naming ``words``, exit ``code``, no traceback."""
    assert done.code == code, done.err
    assert "Traceback" not in done.err + done.out
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flipgames: error: "), done.err
    for word in words:
        assert word in lines[0]


def test_writes_a_file_numpy_loads_without_pickle(tmp_path: Path) -> None:
    target = tmp_path / "short.npz"
    done = flipgames(
        "dataset",
        "checkered-flag",
        "-o",
        "track=short",
        "--out",
        str(target),
        "--json",
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["path"] == str(target) and report["complete"] and not report["sampled"]
    assert report["solver"] == "stochastic" and report["options"]["track"] == "short"
    with np.load(target, allow_pickle=False) as data:
        assert len(data["value"]) == report["rows"] > 0
        assert str(data["game"]) == "checkered-flag"
        assert json.loads(str(data["options"]))["track"] == "short"


def test_text_report_and_default_file_name(tmp_path: Path) -> None:
    done = flipgames("dataset", "flipflop-3x3", "--limit", "25", "--quiet", cwd=tmp_path)
    assert done.code == 0, done.err
    assert "25 rows written to flipflop-3x3.npz" in done.out
    assert "nearest the start" in done.out and done.err == ""
    with np.load(tmp_path / "flipflop-3x3.npz") as data:
        assert data["observation"].shape == (25, 8, 3, 3)


def test_flip_switch_is_one_round_unless_told(tmp_path: Path) -> None:
    done = flipgames(
        "dataset", "flip-switch", "--limit", "10", "--out", "fs.npz", "--json", cwd=tmp_path
    )
    assert done.code == 0, done.err
    assert json.loads(done.out)["options"]["rounds"] == 1


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["dataset", "chess"], 1, ["unknown game 'chess'", *game_names()]),
        (["dataset", "flipfour", "--out", "data.csv"], 1, ["name a .npz file"]),
        (["dataset", "flipflop", "-o", "pieces=3"], 1, ["unknown option 'pieces'"]),
        (["dataset", "flipfour", "--max-nodes", "0"], 2, ["--max-nodes", "at least 1"]),
        (["dataset", "flip-switch", "-o", "must_flip=yes"], 1, ["not solved here"]),
        (["dataset", "flipflop-3x3", "--out", "data.csv"], 1, ["name a .npz file"]),
        (["dataset", "flipflop-3x3", "--out", "nowhere/x.npz"], 1, ["does not exist"]),
        (["dataset", "flipflop-3x3", "--limit", "0"], 2, ["--limit", "at least 1, got 0"]),
        (["dataset", "flipflop-3x3", "--limit", "many"], 2, ["--limit", "whole number"]),
        (["dataset", "rubiks-flip", "--max-nodes", "-5"], 2, ["--max-nodes", "at least 1"]),
        (["dataset", "flipflop-3x3", "-o", "size=4"], 1, ["size"]),
    ],
)
def test_bad_arguments_are_one_line_errors_and_write_nothing(
    tmp_path: Path, argv: list[str], code: int, words: list[str]
) -> None:
    assert_one_line_error(flipgames(*argv, cwd=tmp_path), code, *words)
    assert list(tmp_path.iterdir()) == []


def test_a_long_export_shows_progress_on_a_terminal(terminal: Any, tmp_path: Path) -> None:
    term = terminal("dataset", "checkered-flag", "--out", str(tmp_path / "cf.npz"))
    term.read_until("positions")
    assert term.wait(timeout=600) == 0
    assert "38,040 rows written to" in term.shown
    with np.load(tmp_path / "cf.npz") as data:
        assert len(data["value"]) == 38_040
