"""``flipgames warmup`` through the real entry point: it builds the endgame tables and plays
every level once (so the kernels are compiled), is idempotent (a warm game is skipped while
the compiled sources are unchanged, ``--force`` warms it again), refuses an unknown game
before any work, and ``flipgames serve`` starts it in the background, answering meanwhile."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from support.servers import launch, stop


def warmup(cache: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FLIPGAMES_CACHE": str(cache)}
    command = [sys.executable, "-m", "flipgames", "warmup", *argv]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)


def test_warmup_plays_every_level_once_then_skips_warm_games(tmp_path: Path) -> None:
    first = warmup(tmp_path, "flipflop-3x3", "checkered-flag")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].startswith("flipflop-3x3: levels easy, medium, hard, perfect played (")
    assert lines[1].startswith("checkered-flag: levels easy, medium, hard, perfect played (")
    # Checkered Flag's hard plays its solution: solved (and cached) by the warmup, not a move.
    assert any(tmp_path.glob("stochastic-*checkered-flag*"))
    again = warmup(tmp_path, "flipflop-3x3", "checkered-flag")
    assert [line.split(" (")[0] for line in again.stdout.splitlines()] == [
        "flipflop-3x3: warm already",
        "checkered-flag: warm already",
    ]
    forced = warmup(tmp_path, "--force", "flipflop-3x3")
    assert forced.stdout.startswith("flipflop-3x3: levels easy, medium, hard, perfect played")
    assert warmup(tmp_path, "--quiet", "flipflop-3x3").stdout == ""


def test_warmup_builds_the_endgame_tables_that_hard_then_plays_from(tmp_path: Path) -> None:
    done = warmup(tmp_path, "flipflop")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("flipflop: endgame tables to 4 pieces; levels easy, medium, hard")
    assert len(list(tmp_path.glob("endgame4-*flipflop*.npz"))) == 1
    # A fresh process's hard plays a covered position from the tables (loaded, not built).
    probe = (
        "import random\n"
        "from flipgames import make\n"
        "from flipgames.agents.levels import make_level_agent\n"
        "game = make('flipflop')\n"
        "agent = make_level_agent(game, 'hard', random.Random(1))\n"
        "state = game.state_at(1 << 2, 1 << 7, 0, 1)\n"
        "print(state.action_to_string(agent.choose(state)), agent.last.value)\n"
    )
    env = {**os.environ, "FLIPGAMES_CACHE": str(tmp_path)}
    played = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, env=env
    )
    assert played.stdout.strip() == "c2xc1 EndgameValue(value=1, distance=1)", played.stderr


def test_an_unknown_game_is_refused_before_any_work(tmp_path: Path) -> None:
    done = warmup(tmp_path, "flipflop-3x3", "chess")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("flipgames: error: unknown game 'chess'")
    assert "Traceback" not in done.stderr and not list(tmp_path.iterdir())


def _children(pid: int) -> dict[int, str]:
    """The command lines of ``pid``'s child processes (Linux /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            found[int(entry.name)] = command
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_serve_warms_up_in_the_background_and_answers_meanwhile(tmp_path: Path) -> None:
    """The server starts ``flipgames warmup --background`` (a fresh cache: it has all the
    work to do) and answers its pages meanwhile; stopping the server ends it."""
    # FLIPGAMES_WARMUP=1: the rest of the suite turns the warmup off (tests/conftest.py).
    env = {**os.environ, "FLIPGAMES_CACHE": str(tmp_path / "cache"), "FLIPGAMES_WARMUP": "1"}
    database = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    command = [sys.executable, "-m", "flipgames", "serve", "--port", "0", "--db", database]
    server, port = launch(command, tmp_path / "server.log", env)
    try:
        deadline = time.monotonic() + 60  # a bounded wait for the child, not a timing check
        warming: dict[int, str] = {}
        while not warming and time.monotonic() < deadline:
            warming = {
                pid: line for pid, line in _children(server.pid).items() if " warmup " in line
            }
            time.sleep(0.1)
        assert list(warming.values()) and "--background" in next(iter(warming.values()))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            assert answer.status == 200
    finally:
        stop(server)
    assert all(not Path(f"/proc/{pid}").exists() or _zombie(pid) for pid in warming)
    quiet = [*command, "--no-warmup"]
    server, port = launch(quiet, tmp_path / "server2.log", env)
    try:
        assert not [line for line in _children(server.pid).values() if " warmup " in line]
    finally:
        stop(server)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True
