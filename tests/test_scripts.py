"""Every benchmark and study script still starts: its ``--help`` runs and prints its usage.

The scripts are not imported by the package or the tests, so a moved module or a renamed
function would otherwise break them silently. All run at once (each is mostly interpreter
start-up and imports)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Scripts a maintainer runs; modules whose names start with ``_`` are their shared helpers.
SCRIPTS = sorted(
    path
    for path in [*ROOT.glob("bench/*.py"), *ROOT.glob("studies/*/*.py")]
    if not path.name.startswith("_")
)


def test_there_are_benchmarks_and_studies() -> None:
    assert any(path.parent.name == "bench" for path in SCRIPTS)
    assert any(path.parent.parent.name == "studies" for path in SCRIPTS)


def test_every_bench_and_study_script_answers_help() -> None:
    running = {
        path: subprocess.Popen(
            [sys.executable, str(path), "--help"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path in SCRIPTS
    }
    failed = []
    for path, process in running.items():
        out, err = process.communicate(timeout=120)
        if process.returncode != 0 or "usage:" not in out:
            failed.append(f"{path.relative_to(ROOT)}: exit {process.returncode}\n{err[-1500:]}")
    assert not failed, "\n".join(failed)


def test_the_lobby_benchmark_runs_at_a_tiny_size() -> None:
    """bench_lobby.py end to end against a real server (SQLite) with a few sockets and seeks:
    every socket hears every seek and its removal (the script exits 1 when one is missed)."""
    command = [sys.executable, "bench/bench_lobby.py", "--sockets", "4", "--per-minute", "600"]
    command += ["--seconds", "1", "--accept-after", "0.2"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "deliveries missed: 0 of 80" in done.stdout, done.stdout
    assert "seek made -> heard on every socket" in done.stdout
