"""Progress on the terminal: one facility for every long job of the command line.

Library code reports through :class:`flipgames.core.progress.Progress` (a message, and how
much is done of what total where it knows); :class:`TerminalProgress` draws those reports as
``rich`` progress bars on stderr: a count, a bar and an ETA when the total is known, a rate
always. The AI's moves and hints get a transient "thinking..." line.

Everything is drawn only when stderr is a terminal and the command was not asked for
``--json`` or ``--quiet``: piped or redirected output stays free of it.

How reports map to bars: a report continues the current bar when it has the same message, or
when it counts on from it (the same total, ``done`` not smaller), so a job may put changing
details in its message. Anything else finishes the current bar and starts a new one. A report
without ``done`` is a line of its own.

>>> import io
>>> from rich.console import Console
>>> console = Console(file=io.StringIO(), force_terminal=True, width=100)
>>> with TerminalProgress(console) as progress:
...     progress("solving", done=50, total=100)
...     progress("solving", done=100, total=100)
>>> "100/100" in console.file.getvalue()
True
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.status import Status
from rich.text import Text


class _CountColumn(ProgressColumn):
    """``done/total``, or just ``done`` when the total is unknown, with thousands separators."""

    def render(self, task: Task) -> Text:
        done = int(task.completed)
        if task.total is None:
            return Text(f"{done:,}")
        return Text(f"{done:,}/{int(task.total):,}")


class _RateColumn(ProgressColumn):
    """Items per second over rich's recent window."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text("")
        return Text(f"{speed:,.0f}/s" if speed >= 10 else f"{speed:.2f}/s")


def stderr_console() -> Console:
    """The console progress is drawn on."""
    return Console(stderr=True)


def wanted(*, json: bool = False, quiet: bool = False) -> bool:
    """True when progress should be drawn: stderr is a terminal and no --json or --quiet."""
    return not (json or quiet) and sys.stderr.isatty()


class TerminalProgress:
    """A :class:`flipgames.core.progress.Progress` drawing bars on a console (see module doc).

    Use it as a context manager around the job; ``TerminalProgress(None)`` draws nothing.
    """

    def __init__(self, console: Console | None) -> None:
        self._console = console
        self._status: Status | None = None
        self._bars: Progress | None = None
        self._task: TaskID | None = None
        self._message = ""
        self._done = 0
        self._total: int | None = None

    @classmethod
    def for_command(cls, *, json: bool = False, quiet: bool = False) -> TerminalProgress:
        """Drawing on stderr if :func:`wanted`, else silent."""
        return cls(stderr_console() if wanted(json=json, quiet=quiet) else None)

    @property
    def enabled(self) -> bool:
        """True when this draws anything."""
        return self._console is not None

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Finish the current bar (left on screen, so the last figures stay visible)."""
        if self._bars is not None:
            self._bars.stop()
            self._bars = None
            self._task = None

    def __call__(self, message: str, *, done: int | None = None, total: int | None = None) -> None:
        if self._console is None:
            return
        if self._status is not None:  # a report inside a thinking line replaces the line
            self._status.stop()
            self._status = None
        if done is None:
            self.close()
            self._console.print(f"  {message}", highlight=False)
            return
        continues = self._task is not None and (
            message == self._message or (total == self._total and done >= self._done)
        )
        if not continues:
            self.close()
            self._bars = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                _CountColumn(),
                _RateColumn(),
                TimeRemainingColumn(),
                TimeElapsedColumn(),
                console=self._console,
            )
            self._bars.start()
            self._task = self._bars.add_task(message, total=total)
        assert self._bars is not None and self._task is not None
        self._bars.update(self._task, description=message, completed=done, total=total)
        self._message, self._done, self._total = message, done, total

    @contextmanager
    def thinking(self, what: str) -> Iterator[None]:
        """A transient "``what``..." line with a spinner while the block runs, e.g.
        ``thinking("player 2 (hard) is thinking")``."""
        if self._console is None:
            yield
            return
        self.close()
        self._status = self._console.status(f"{what}...", spinner="dots")
        try:
            with self._status:
                yield
        finally:
            self._status = None
            self.close()
