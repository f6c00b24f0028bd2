"""Regression tests of issue 24's CLI, files and packaging items, through the real entry
point where the fix is a command's behaviour."""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import socket
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import flipgames
from flipgames import make
from flipgames.agents.arena import wilson_interval
from flipgames.core.errors import FlipgamesError
from flipgames.core.record import MAX_RECORD_BYTES, dumps_record, make_record
from flipgames.core.registry import game_names
from flipgames.lab.report import keep_and_report

REPO = Path(__file__).resolve().parents[2]


def _console_script() -> Path:
    """The installed ``flipgames`` command of this interpreter's environment."""
    script = Path(sys.executable).parent / "flipgames"
    assert script.is_file(), f"no console script at {script}: pip install -e ."
    return script


# -- item 19: a licence that ships, and one version -------------------------------------------


def test_version_is_printed_by_the_console_script() -> None:
    done = subprocess.run(
        [str(_console_script()), "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"flipgames {flipgames.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", flipgames.__version__)


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "src/flipgames/__init__.py"


def test_the_mit_licence_ships_in_the_package() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    assert project["project"]["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 the flipgames developers" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text


# -- item 18: install advice that works from a checkout ---------------------------------------

#: ``pip install`` of a flipgames distribution from a package index, where the name is not
#: ours: whoever registered it there would be installed. (Written so that this file does not
#: match itself.)
_INDEX_ADVICE = re.compile(
    r"pip install[^\n]*?\bflip" + r"games\[" + r"|pip install (?:-[a-zA-Z-]+ )*'?flip" + r"games\b"
)
_CHECKOUT_ADVICE = re.compile(r"pip install -e '\.\[([a-z,]+)\]'")


def _advice_files() -> list[Path]:
    files = [REPO / "README.md"]
    for folder, pattern in (
        ("src", "*.py"),
        ("docs", "*.md"),
        ("bench", "*.py"),
        ("tests", "*.py"),
    ):
        files += sorted((REPO / folder).rglob(pattern))
    return files


def test_no_advice_installs_flipgames_from_a_package_index() -> None:
    found = [
        f"{path.relative_to(REPO)}: {match.group(0)}"
        for path in _advice_files()
        for match in _INDEX_ADVICE.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found


def test_every_extra_the_advice_names_exists() -> None:
    extras = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    named = {
        extra
        for path in _advice_files()
        for match in _CHECKOUT_ADVICE.finditer(path.read_text(encoding="utf-8"))
        for extra in match.group(1).split(",")
    }
    assert {"web", "postgres", "report", "lab", "rl"} <= named
    assert named <= extras


def test_a_missing_web_extra_gets_advice_that_works(tmp_path: Path) -> None:
    done = _without(tmp_path, "uvicorn", "serve")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "flipgames: error: the web arcade needs the 'web' extra (uvicorn is missing): run "
        "pip install -e '.[web]' in the flipgames repository folder"
    ]


# -- item 20: PostgreSQL, reports and Ray are separate extras ----------------------------------


def _without(tmp_path: Path, module: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m flipgames ARGV`` in an environment where ``module`` is not installed: a
    package of that name earlier on the path refuses to import, as a missing one does."""
    fake = tmp_path / "missing" / module
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        f"raise ModuleNotFoundError({f'No module named {module!r}'!r}, name={module!r})\n"
    )
    path = os.pathsep.join([str(fake.parent), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "flipgames", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": path},
    )


def test_the_extras_are_split() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert not [d for d in extras["web"] if d.startswith("psycopg")]
    assert extras["postgres"] == ["psycopg[binary]>=3.1"]
    assert "flipgames[postgres]" in extras["test"]  # CI runs the PostgreSQL tests
    assert not [d for d in extras["report"] if d.startswith("ray")]
    assert {d.split(">")[0] for d in extras["report"]} == {"matplotlib", "markdown-it-py"}
    assert "flipgames[report]" in extras["lab"]
    assert [d for d in extras["lab"] if d.startswith("ray")]
    spiel = {d for deps in extras.values() for d in deps if d.startswith("open_spiel")}
    assert spiel == {"open_spiel>=2.0.2"}


def test_a_postgresql_url_without_psycopg_is_refused_with_advice(tmp_path: Path) -> None:
    url = "postgresql://ada:s3cret@127.0.0.1:9/arcade"
    done = _without(tmp_path, "psycopg", "serve", "--db", url, "--port", "8765")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "flipgames: error: a postgresql:// database needs psycopg (the 'postgres' extra): run "
        "pip install -e '.[postgres]' in the flipgames repository folder"
    ]
    assert "s3cret" not in done.stdout + done.stderr


def test_an_sqlite_arcade_never_imports_psycopg(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from flipgames.cli.serve import cmd_serve\n"
        "from flipgames.web.app import create_app\n"
        "from flipgames.web.db import make_engine, migrate\n"
        f"migrate(make_engine('sqlite:///{tmp_path}/arcade.sqlite'))\n"
        "print('psycopg' in sys.modules)\n"
    )
    fake = tmp_path / "missing" / "psycopg"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError('no', name='psycopg')\n")
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(fake.parent)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


# -- item 16: corrupt solver caches ------------------------------------------------------------


def test_solve_rebuilds_a_cache_file_nested_too_deep_with_one_warning(tmp_path: Path) -> None:
    env = {**os.environ, "FLIPGAMES_CACHE": str(tmp_path)}
    argv = [sys.executable, "-m", "flipgames", "solve", "flipflop-3x3"]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert first.returncode == 0, first.stderr
    files = sorted(tmp_path.glob("*.json.gz"))
    assert files
    for path in files:
        path.write_bytes(gzip.compress(b"[" * 200_000 + b"]" * 200_000))
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert again.returncode == 0, again.stderr
    timeless = re.compile(r"solved in \S+ s")
    assert timeless.sub("", again.stdout) == timeless.sub("", first.stdout)
    assert again.stderr.splitlines() == [
        f"flipgames: ignoring corrupt cache file {path}: it is nested too deep to be a "
        "solution; rebuilding"
        for path in files
    ]


# -- item 17: bounded records, bounded quotes --------------------------------------------------


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[:2000]
    assert lines[0].startswith("flipgames: error: ")
    return lines[0]


def _flipgames(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flipgames", *argv], capture_output=True, text=True, timeout=60
    )


def test_replay_of_an_endless_file_stops_at_the_bound() -> None:
    line = _one_error_line(_flipgames("replay", "/dev/zero"))
    assert (
        line == "flipgames: error: record '/dev/zero' is larger than 1 MiB: no record is that long"
    )


def test_replay_of_a_record_past_the_bound_is_refused(tmp_path: Path) -> None:
    record = make_record(make("flipflop-3x3").new_initial_state())
    record["padding"] = " " * MAX_RECORD_BYTES
    path = tmp_path / "big.json"
    path.write_text(dumps_record(record))
    assert "larger than 1 MiB" in _one_error_line(_flipgames("replay", str(path)))


def test_a_huge_action_is_quoted_short(tmp_path: Path) -> None:
    record = make_record(make("flipflop-3x3").new_initial_state())
    record["actions"] = ["b1xb3", "z" * 900_000]
    path = tmp_path / "huge-action.json"
    path.write_text(dumps_record(record))
    line = _one_error_line(_flipgames("replay", str(path)))
    assert line.startswith("flipgames: error: action 2 ('zzzz")
    assert "(900,000 characters)" in line
    assert len(line) < 500


@pytest.mark.parametrize(
    "argv",
    [
        ["perft", "flipflop", "2", "--moves", "q" * 100_000],
        ["rules", "checkered-flag", "-o", "laps=" + "9x" * 50_000],
        ["rules", "flip-switch", "-o", "w" * 100_000 + "=1"],
        ["rules", "g" * 100_000],
        ["simulate", "flipflop-3x3", "--agents", "e" * 100_000],
        ["solve", "rubiks-flip", "--memory", "q" * 100_000],
        ["compare", "flip-switch", "--vary", "w" * 100_000],
    ],
    ids=["moves", "option-value", "option-name", "game", "agents", "memory", "vary"],
)
def test_bad_input_is_quoted_short_on_the_command_line(argv: list[str]) -> None:
    line = _one_error_line(_flipgames(*argv))
    assert len(line) < 500
    assert "characters)" in line


@pytest.mark.parametrize("name", game_names())
def test_every_game_quotes_a_huge_action_short(name: str) -> None:
    state = make(name).new_initial_state()
    while state.is_chance_node():
        state = state.apply(state.chance_outcomes()[0][0])
    with pytest.raises(FlipgamesError) as caught:
        state.parse_action("x" * 1_000_000)
    assert len(str(caught.value)) < 500
    assert "(1,000,000 characters)" in str(caught.value)


# -- item 22: reports never lose the games ----------------------------------------------------


def test_a_wilson_interval_holds_its_rate_exactly() -> None:
    for games in range(1, 200):
        for wins in range(games + 1):
            score = wins / games
            low, high = wilson_interval(score, games)
            assert 0.0 <= low <= score <= high <= 1.0, (wins, games)


def test_simulate_reports_a_rate_of_exactly_zero(tmp_path: Path) -> None:
    # FlipFlop 3x3 has no draws: a draw rate of 0, whose interval over 7 games once began
    # 2.8e-17 above it and made the chart's error bar negative.
    done = _flipgames("simulate", "flipflop-3x3", "--games", "7", "--report", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"report: {tmp_path / 'index.html'}" in done.stdout
    assert (tmp_path / "win-rates.png").stat().st_size > 0
    assert json.loads((tmp_path / "results.json").read_text())["games"] == 7


def test_a_failing_report_keeps_the_finished_games(tmp_path: Path) -> None:
    (tmp_path / "win-rates.png").mkdir()  # the chart cannot be written there
    done = _flipgames("simulate", "flipflop-3x3", "--games", "7", "--report", str(tmp_path))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"flipgames: warning: the report in {tmp_path} failed (IsADirectoryError: [Errno 21] "
        f"Is a directory: '{tmp_path / 'win-rates.png'}'); the results are kept in "
        f"{tmp_path / 'results.json'}"
    ]
    assert "FlipFlop 3x3: easy (A) against easy (B)" in done.stdout  # printed all the same
    kept = json.loads((tmp_path / "results.json").read_text())
    assert kept["games"] == 7
    assert not (tmp_path / "index.html").exists()


def test_a_chart_that_raises_loses_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def draw() -> tuple[str, dict[str, Any]]:
        raise ValueError("'xerr' must not contain negative values")

    assert keep_and_report(tmp_path, {"games": 3}, "t", draw) is None
    assert json.loads((tmp_path / "results.json").read_text()) == {"games": 3}
    assert capsys.readouterr().err.splitlines() == [
        f"flipgames: warning: the report in {tmp_path} failed (ValueError: 'xerr' must not "
        f"contain negative values); the results are kept in {tmp_path / 'results.json'}"
    ]


def test_audit_fixes_report_progress_through_the_perfect_play_games() -> None:
    from flipgames.lab.audit import fix_row

    heard: list[tuple[str, int | None, int | None]] = []

    def progress(message: str, *, done: int | None = None, total: int | None = None) -> None:
        heard.append((message, done, total))

    fix_row(make("checkered-flag"), "demo", {"start": "first"}, progress)
    for what in ("perfect play with start=first", "perfect play under the standard rules"):
        counts = [(done, total) for message, done, total in heard if message == f"audit: {what}"]
        assert counts == [(done, 200) for done in range(201)], what


# -- item 21: serve, solve, replay, perft and --help say what they should ---------------------


def test_serve_on_a_busy_port_is_one_line_and_starts_nothing(tmp_path: Path) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        done = _flipgames(
            "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'arcade.sqlite'}"
        )
    assert _one_error_line(done) == (
        f"flipgames: error: port {port} on 127.0.0.1 is in use (another server is listening "
        "there): stop it, or choose another port with --port"
    )
    assert done.stdout == ""  # no address of the other server to open
    assert not (tmp_path / "arcade.sqlite").exists()


def test_serve_says_where_the_matches_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from flipgames.cli import serve
    from flipgames.cli.main import main

    bound: list[int] = []

    def record(_app: object, listening: socket.socket, _workers: int, _options: object) -> int:
        bound.append(listening.getsockname()[1])
        return 0

    monkeypatch.setattr(serve, "serve_forever", record)
    database = tmp_path / "arcade.sqlite"
    # --port 0: the port the server bound, which the system picked, is the one printed.
    assert main(["serve", "--port", "0", "--db", f"sqlite:///{database}"]) == 0
    [port] = bound
    assert port > 0
    assert capsys.readouterr().out.splitlines() == [
        f"flipgames arcade: matches are kept in {database}",
        f"flipgames arcade: open http://127.0.0.1:{port}/",
    ]


def test_every_help_shows_the_defaults() -> None:
    from flipgames.cli.main import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    checked = 0
    for name, command in commands.choices.items():
        text = " ".join(command.format_help().split())
        for action in command._actions:
            if action.default in (None, False, [], argparse.SUPPRESS) or not action.option_strings:
                continue
            shown = str(action.default)
            said = {shown, f"{action.default:,}" if isinstance(action.default, int) else shown}
            forms = ("default: {})", "default {}", "{} (default)")
            assert any(f.format(s) in text for f in forms for s in said), (
                name,
                action.option_strings,
            )
            checked += 1
    assert checked > 20


def test_serve_help_shows_its_defaults_through_the_console_script() -> None:
    done = subprocess.run(
        [str(_console_script()), "serve", "--help"], capture_output=True, text=True, timeout=60
    )
    text = " ".join(done.stdout.split())
    assert done.returncode == 0
    assert "address to listen on (default: 127.0.0.1)" in text
    assert (
        "port to listen on, 0 for a free one (the address printed names it) (default: 8000)" in text
    )
    assert "(default: 1)" in text  # --workers


@pytest.mark.slow  # three full Checkered Flag solves, each in a new process
def test_solve_prints_percentages_with_short_fractions() -> None:
    done = _flipgames("solve", "checkered-flag", "-o", "start=first")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:4] == [
        "  player 1 wins 54.31% (≈ 498/917), draws 0.00%, loses 45.69% (≈ 419/917) with "
        "perfect play by both",
        "  expected return for player 1: +0.0862 (≈ 79/917)",
        "  (≈: a near fraction; --json gives the exact ones)",
    ]
    exact = json.loads(_flipgames("solve", "checkered-flag", "-o", "start=first", "--json").stdout)
    win = Fraction(exact["exact"]["win"])
    assert len(str(win.denominator)) > 40 and abs(float(win) - 498 / 917) < 1e-5
    even = _flipgames("solve", "checkered-flag").stdout.splitlines()
    assert "  player 1 wins 50.00% (1/2), draws 0.00%, loses 50.00% (1/2)" in even[1]


def test_replay_names_the_options_in_words(tmp_path: Path) -> None:
    state = make("checkered-flag", laps=2).new_initial_state()
    path = tmp_path / "race.json"
    path.write_text(dumps_record(make_record(state)))
    done = _flipgames("replay", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        "Flipsiders: Checkered Flag (start=spin, laps=2, track=default, spinners=default)"
    )
    path.write_text(dumps_record(make_record(make("flipflop-3x3").new_initial_state())))
    assert _flipgames("replay", str(path)).stdout.splitlines()[0] == "FlipFlop 3x3"


def test_perft_divide_prints_the_total() -> None:
    done = _flipgames("perft", "flipflop-3x3", "3", "--divide")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    counts = [int(line.split(": ")[1]) for line in lines[:-1]]
    assert lines[-1] == f"total: {sum(counts)}"
    plain = _flipgames("perft", "flipflop-3x3", "3").stdout
    assert f"perft(3) = {sum(counts)}" in plain
