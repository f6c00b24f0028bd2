"""simulate and compare as users run them: the real entry point, bad arguments, Ctrl-C."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Start = Callable[..., Any]  # the ``terminal`` fixture
Run = Callable[..., Any]  # the ``flipgames`` fixture


def one_line_error(done: Any, code: int = 1) -> str:
    assert done.code == code, done
    assert done.out == ""
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flipgames: error: "), done.err
    assert "Traceback" not in done.err
    return str(lines[0])


def test_simulate_json(flipgames: Run) -> None:
    done = flipgames(
        "simulate",
        "flipflop-3x3",
        "--agents",
        "random,easy",
        "--games",
        "12",
        "--seed",
        "4",
        "--json",
    )
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert (data["game"], data["agents"], data["games"], data["seed"]) == (
        "flipflop-3x3",
        ["random", "easy"],
        12,
        4,
    )
    assert sum(data["wins"]) + data["draws"] == 12 == sum(data["agent_wins"]) + data["draws"]
    low, high = data["first_player_win_ci"]
    assert low <= data["first_player_win_rate"] <= high
    assert sum(count for _, count in data["length"]["histogram"]) == 12
    assert set(data) >= {
        "options",
        "draws",
        "first_player_advantage",
        "branching",
        "repetition_draws",
        "capped",
        "lead_changes",
        "seconds_per_move",
        "decided",
        "drawishness",
        "metrics",
    }
    assert data["metrics"]["drama"]["games"] == 12 and data["metrics_computed"] == "default"
    assert done.err == ""  # no progress bar without a terminal


def test_simulate_text_and_report(flipgames: Run, tmp_path: Path) -> None:
    report = tmp_path / "reports" / "ff3"
    done = flipgames(
        "simulate",
        "flipflop-3x3",
        "--agents",
        "random,random",
        "--games",
        "6",
        "--report",
        str(report),
    )
    assert done.code == 0, done.err
    assert "FlipFlop 3x3: random (A) against random (B)" in done.out
    assert "First player wins" in done.out and f"report: {report / 'index.html'}" in done.out
    assert (report / "index.html").is_file() and (report / "win-rates.png").is_file()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--agents", "easy,grandmaster"], "unknown level 'grandmaster' for flipflop-3x3"),
        (["--agents", "easy"], "--agents 'easy': give two levels"),
        (["-o", "colour=red"], "unknown option 'colour'"),
        (["--agents", "perfect,easy", "-o", "nope"], "malformed option 'nope'"),
    ],
)
def test_simulate_bad_arguments(flipgames: Run, argv: list[str], words: str) -> None:
    assert words in one_line_error(flipgames("simulate", "flipflop-3x3", *argv))


def test_simulate_bad_game_level_and_report_folder(flipgames: Run, tmp_path: Path) -> None:
    assert "unknown game 'flipflap'" in one_line_error(flipgames("simulate", "flipflap"))
    assert "level 'perfect' needs a solved game" in one_line_error(
        flipgames("simulate", "flipflop", "--agents", "perfect,easy")
    )
    a_file = tmp_path / "taken"
    a_file.write_text("keep me")
    line = one_line_error(flipgames("simulate", "flipflop-3x3", "--report", str(a_file)))
    assert "is a file" in line and a_file.read_text() == "keep me"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--games", "0"], "--games: must be at least 1"),
        (["--workers", "2", "--ray", "auto"], "not allowed with argument"),
        (["--seed", "x"], "invalid int value"),
        (["--metrics", "most"], "argument --metrics: invalid choice: 'most'"),
    ],
)
def test_simulate_malformed_command_lines(flipgames: Run, argv: list[str], words: str) -> None:
    assert words in one_line_error(flipgames("simulate", "flipflop-3x3", *argv), code=2)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--vary", "colour=red,blue"], "unknown option 'colour'; rubiks-flip's options are"),
        (["--vary", "lock=king,diagonal"], "bad value 'diagonal' for option 'lock'"),
        (["--vary", "lock"], "write name=value,value"),
        (["--vary", "lock=king", "-o", "lock=king"], "given twice"),
        (["--vary", "lock=king", "--agents", "easy,wizard"], "unknown level 'wizard'"),
    ],
)
def test_compare_bad_arguments(flipgames: Run, argv: list[str], words: str) -> None:
    assert words in one_line_error(flipgames("compare", "rubiks-flip", *argv))


def test_simulate_bad_ray_address_fails_at_once(flipgames: Run) -> None:
    with socket.socket() as probe:  # a port on this machine where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    line = one_line_error(flipgames("simulate", "flipflop-3x3", "--ray", f"127.0.0.1:{port}"))
    assert f"nothing answers at 127.0.0.1:{port}" in line
    line = one_line_error(flipgames("simulate", "flipflop-3x3", "--ray", "head-node"))
    assert "write auto, HOST:PORT or ray://HOST:PORT" in line


def test_compare_needs_vary(flipgames: Run) -> None:
    assert "--vary" in one_line_error(flipgames("compare", "rubiks-flip"), code=2)


def test_compare_table_and_json(flipgames: Run, tmp_path: Path) -> None:
    done = flipgames("compare", "checkered-flag", "--vary", "start=spin,first", "--json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert [v["varied"] for v in data["variants"]] == [{"start": "spin"}, {"start": "first"}]
    assert all(v["method"] == "solved" for v in data["variants"])
    done = flipgames(
        "compare",
        "rubiks-flip",
        "--vary",
        "lock=king,orthogonal",
        "--agents",
        "random,random",
        "--games",
        "4",
        "--report",
        str(tmp_path / "cmp"),
    )
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[0] == "rubiks-flip: options compared"
    assert "Seed 1; 4 games per simulated variant" in done.out
    start = next(n for n, line in enumerate(lines) if line.startswith("lock "))
    header, rule, *rows = lines[start : start + 4]
    assert header.split()[:3] == ["lock", "method", "first-player"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert rows[0].startswith("king ") and "self-play random,random x4" in rows[0]
    assert (tmp_path / "cmp" / "comparison.png").is_file()


@pytest.mark.parametrize(
    ("games", "extra"),
    [("100,000", []), ("5,000", ["--workers", "2"])],
    ids=["one-process", "workers"],
)
def test_ctrl_c_reports_the_games_finished(
    terminal: Start, tmp_path: Path, games: str, extra: list[str]
) -> None:
    report = tmp_path / "interrupted"
    term = terminal(
        "simulate",
        "flipflop-3x3",
        "--agents",
        "easy,easy",
        "--games",
        games.replace(",", ""),
        "--report",
        str(report),
        *extra,
    )
    term.read_until(f"/{games}")  # the progress bar counts games: some are finished
    term.ctrl_c()
    assert term.wait() == 130
    assert "Traceback" not in term.shown
    finished = re.search(rf"interrupted: ([\d,]+) of {games} games finished", term.shown)
    assert finished, term.shown
    done = int(finished.group(1).replace(",", ""))
    assert done >= 1
    assert "First player wins" in term.shown
    assert f"{done:,} games (interrupted: {games} asked)" in (report / "report.md").read_text()
