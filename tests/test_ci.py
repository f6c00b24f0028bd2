"""What CI and the README's test command show: PostgreSQL runs are reported as skipped with
the reason when no server is configured, and the system package step prints nothing unless it
fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_postgresql_runs_show_as_skipped_with_the_reason_without_a_server() -> None:
    env = {k: v for k, v in os.environ.items() if k != "FLIPGAMES_TEST_POSTGRES_URL"}
    done = subprocess.run(
        # One process (-n0): the skip and its reason are the point, not parallel workers,
        # which would each start and collect again; only the PostgreSQL runs (-k), which is
        # what is checked, not the SQLite ones beside them.
        [
            *(sys.executable, "-m", "pytest", "tests/web/test_db.py", "-n0"),
            *("-p", "no:cacheprovider", "-k", "postgresql"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " skipped" in summary
    assert "SKIPPED" in done.stdout
    assert "PostgreSQL not configured: set FLIPGAMES_TEST_POSTGRES_URL" in done.stdout


def quietly(command: str) -> subprocess.CompletedProcess[str]:
    """Run ``command`` through the ``quietly`` function of .ci/run."""
    script = (ROOT / ".ci" / "run").read_text()
    function = script[script.index("quietly() {") : script.index("\n}\n") + 3]
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{function}\nquietly {command}"],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_package_step_is_silent_when_it_works() -> None:
    done = quietly("sh -c 'seq 450; echo chatter >&2'")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_package_step_shows_its_output_when_it_fails() -> None:
    done = quietly("sh -c 'echo E: Unable to locate package chromium; exit 100'")
    assert done.returncode == 1
    assert "E: Unable to locate package chromium" in done.stdout
