"""Running ``flipgames`` as a user does: ``python -m flipgames`` in a child process, or in a
pseudo-terminal when the test needs a terminal (progress, thinking lines, Ctrl-C)."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest


@dataclass
class Done:
    """A finished command: exit code, stdout and stderr."""

    code: int
    out: str
    err: str


Run = Callable[..., Done]


def run_flipgames(*argv: str, stdin: str = "", timeout: float = 120) -> Done:
    """``python -m flipgames ARGV`` with ``stdin`` typed in; pipes, so no terminal."""
    done = subprocess.run(
        [sys.executable, "-m", "flipgames", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Done(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def flipgames() -> Run:
    return run_flipgames


class Terminal:
    """``python -m flipgames`` on a pseudo-terminal: read what it shows, type, press Ctrl-C."""

    def __init__(self, *argv: str, env: dict[str, str] | None = None) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the command (stdin, stdout, stderr are the terminal)
            # Ctrl-C must reach the command whoever started the tests: a shell's background
            # job ignores SIGINT, the command would inherit that and ignore the key.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execvpe(
                sys.executable,
                [sys.executable, "-m", "flipgames", *argv],
                {**os.environ, "COLUMNS": "100", "TERM": "xterm", **(env or {})},
            )
        self.pid, self.fd = pid, fd
        self.shown = ""
        self.code: int | None = None

    def read_until(self, text: str, timeout: float = 120) -> str:
        """Read the screen output until ``text`` appears; fail with what was shown if not."""
        deadline = time.monotonic() + timeout
        while text not in self.shown:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never appeared; the terminal showed:\n{self.shown}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child closed the terminal (it exited)
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"exited before {text!r}; it showed:\n{self.shown}")
                self.shown += chunk.decode("utf-8", "replace")
        return self.shown

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def ctrl_c(self) -> None:
        """Press Ctrl-C: the terminal turns it into SIGINT for the program."""
        self.type("\x03")

    def wait(self, timeout: float = 60) -> int:
        """Wait for the exit (reading the rest of the output); return the exit code."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                self.shown += chunk.decode("utf-8", "replace")
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.code = os.waitstatus_to_exitcode(status)
                return self.code
        raise AssertionError(f"still running after {timeout} s; it showed:\n{self.shown}")

    def close(self) -> None:
        if self.code is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(self.fd)


@pytest.fixture
def terminal() -> Iterator[Callable[..., Terminal]]:
    """Start ``flipgames`` on pseudo-terminals (``env``: extra environment variables); each
    is killed at the end if still running."""
    started: list[Terminal] = []

    def start(*argv: str, env: dict[str, str] | None = None) -> Terminal:
        started.append(Terminal(*argv, env=env))
        return started[-1]

    yield start
    for term in started:
        term.close()
