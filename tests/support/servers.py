"""A real ``flipgames serve`` process for the tests and scripts that need one: a free port, the
wait for its health check, and stopping it."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    """A TCP port nobody listens on right now.

    The servers are given a port rather than binding port 0 because ``serve`` prints its
    address before uvicorn binds, and the restart tests start a second server on the first's
    port.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_healthy(
    port: int, process: subprocess.Popen[bytes], log: Path, seconds: float = 30.0
) -> None:
    """Wait until the server on ``port`` answers its health check; fail with its log if it
    exits or does not come up within ``seconds`` (a bounded wait, not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise AssertionError(f"the server exited:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                if answer.read() == b"ok":
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"the server did not come up:\n{log.read_text()}") from None
            time.sleep(0.1)


def stop(process: subprocess.Popen[bytes], seconds: float = 20.0) -> None:
    """Stop a server as its operator would (SIGTERM), killing it if it has not gone in
    ``seconds``."""
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
