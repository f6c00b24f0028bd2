"""A real ``flipgames serve`` process for the tests and scripts that need one: started on
``--port 0`` (the server binds a free port itself and prints its address), the wait for that
address and for its health check, and stopping it::

    process, port = launch([sys.executable, "-m", "flipgames", "serve", "--port", "0"], log)
    try:
        ...  # http://127.0.0.1:{port}/
    finally:
        stop(process)

A restart test that needs the same address again passes the first server's port instead of 0.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

#: The line ``flipgames serve`` prints once it has bound its port.
_ADDRESS = re.compile(rb"flipgames arcade: open http://[^/\s]+:(\d+)/")


def launch(
    command: Sequence[str],
    log: Path,
    env: Mapping[str, str] | None = None,
    seconds: float = 60.0,
) -> tuple[subprocess.Popen[bytes], int]:
    """Start the server ``command`` (with its ``--port``, 0 or a given one), appending its
    output to ``log``, with ``env`` as its whole environment (default: this process's); wait
    for the address it prints and its health check (``seconds`` each, bounded waits, failing
    with the log); the running process and its port. A server that fails to come up is
    stopped before the failure is raised."""
    start = log.stat().st_size if log.exists() else 0  # other servers may have logged here
    with log.open("ab") as output:
        process = subprocess.Popen(
            list(command),
            stdout=output,
            stderr=subprocess.STDOUT,
            env=dict(os.environ if env is None else env),
        )
    try:
        port = reported_port(process, log, start, seconds)
        wait_healthy(port, process, log, seconds)
    except BaseException:
        stop(process)
        raise
    return process, port


def reported_port(
    process: subprocess.Popen[bytes], log: Path, start: int = 0, seconds: float = 60.0
) -> int:
    """The port in the address ``process`` printed to ``log`` (after its first ``start``
    bytes); fail with the log if it exits first or prints none within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        with log.open("rb") as text:
            text.seek(start)
            found = _ADDRESS.search(text.read())
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            raise AssertionError(f"the server exited before printing its address:\n{_tail(log)}")
        if time.monotonic() > deadline:
            raise AssertionError(f"the server printed no address in {seconds} s:\n{_tail(log)}")
        time.sleep(0.05)


def wait_healthy(
    port: int, process: subprocess.Popen[bytes], log: Path, seconds: float = 30.0
) -> None:
    """Wait until the server on ``port`` answers its health check; fail with its log if it
    exits or does not come up within ``seconds`` (a bounded wait, not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise AssertionError(f"the server exited:\n{_tail(log)}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                if answer.read() == b"ok":
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"the server did not come up:\n{_tail(log)}") from None
            time.sleep(0.05)


def stop(process: subprocess.Popen[bytes], seconds: float = 20.0) -> None:
    """Stop a server as its operator would (SIGTERM), killing it if it has not gone in
    ``seconds``."""
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _tail(log: Path, lines: int = 60) -> str:
    """The end of a server's log, for a failure message."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
