"""The real server for the tests that need one: ``flipgames serve`` in a subprocess, on a free
port, logging to a file (imported by the tests of this folder as ``servers``; see conftest.py).

``needs_postgres`` runs a test when ``FLIPGAMES_TEST_POSTGRES_URL`` names a database (CI sets
it), with conftest.py's ``schema_url`` fixture giving it a schema of its own.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

POSTGRES = os.environ.get("FLIPGAMES_TEST_POSTGRES_URL")
needs_postgres = pytest.mark.parametrize(
    "postgres", [POSTGRES] if POSTGRES else [], ids=["postgresql"]
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until the server on ``port`` answers its health check; fail with its log if it
    exits or does not come up."""
    for _ in range(300):  # a bounded wait (at most about 30 s), not a timing assertion
        if process.poll() is not None:
            raise AssertionError(f"the server exited:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                if answer.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"the server did not come up:\n{log.read_text()}")


@contextmanager
def serve(
    database: str, log: Path, *extra: str, env: Mapping[str, str] | None = None
) -> Iterator[int]:
    """``flipgames serve`` on ``database`` and a free port, appending to ``log``, with ``env``
    on top of this process's environment (the rate limits are off there: see conftest.py);
    its port. Stopped on leaving."""
    port = free_port()
    command = [sys.executable, "-m", "flipgames", "serve", "--port", str(port), "--db", database]
    with log.open("ab") as output:
        process = subprocess.Popen(
            [*command, *extra],
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
    try:
        wait_for(port, process, log)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
