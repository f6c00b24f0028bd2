"""Progress reports from long jobs (solvers, perft, simulations) to whoever shows them.

Library code calls a :class:`Progress` with a message and, where it knows them, how much is
done and the total (``total=None``: unknown, so a display shows a count and a rate but no
ETA). It never prints: the CLI turns reports into a progress bar (quiet when not a terminal or
with ``--json``), the web into log lines, tests into a list.

>>> seen: list[tuple[str, int | None, int | None]] = []
>>> def record(message: str, *, done: int | None = None, total: int | None = None) -> None:
...     seen.append((message, done, total))
>>> report: Progress = record
>>> report("enumerating positions", done=1_000)
>>> report("solving", done=5, total=10)
>>> seen
[('enumerating positions', 1000, None), ('solving', 5, 10)]
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """A receiver of progress reports; see the module docstring."""

    def __call__(
        self, message: str, *, done: int | None = None, total: int | None = None
    ) -> None: ...


def silent(message: str, *, done: int | None = None, total: int | None = None) -> None:
    """A :class:`Progress` that shows nothing (the default of every long job)."""
