"""``flipgames serve --port 0``: the server binds a free port itself before printing its
address, and the address printed is the one that answers, with one process and with
``--workers 2`` (PostgreSQL; the workers share the socket the parent bound)."""

from __future__ import annotations

import sys
import time
import urllib.request
from pathlib import Path

from servers import needs_postgres

from support.servers import launch, stop

SERVE = [sys.executable, "-m", "flipgames", "serve", "--port", "0"]


def health(port: int) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as answer:
        return answer.read()


def started(log: Path, workers: int, seconds: float = 60.0) -> int:
    """How many server processes have logged their start, once ``workers`` have or
    ``seconds`` have passed (a bounded wait: one may still be starting when another answers)."""
    deadline = time.monotonic() + seconds
    while True:
        count = log.read_text().count("Application startup complete.")
        if count >= workers or time.monotonic() > deadline:
            return count
        time.sleep(0.05)


def test_port_0_prints_the_port_that_answers(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    process, port = launch([*SERVE, "--db", "sqlite://"], log)
    try:
        assert port > 0
        assert health(port) == b"ok"
        assert f"flipgames arcade: open http://127.0.0.1:{port}/\n" in log.read_text()
    finally:
        stop(process)


@needs_postgres
def test_port_0_with_two_workers_prints_the_port_both_serve(
    schema_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    process, port = launch([*SERVE, "--db", schema_url, "--workers", "2"], log)
    try:
        assert port > 0
        # Every request on the printed port is answered, whichever worker takes it.
        assert [health(port) for _ in range(8)] == [b"ok"] * 8
        assert started(log, 2) == 2  # both workers are up, on the parent's one socket
        assert log.read_text().count(f"flipgames arcade: open http://127.0.0.1:{port}/\n") == 1
    finally:
        stop(process)
