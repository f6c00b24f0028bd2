"""Exceptions raised by flipgames.

Everything raised on bad input derives from :class:`FlipgamesError`, so an edge (CLI, web API)
can catch one root and translate it. Each message quotes the bad input and says what is allowed.
"""

from __future__ import annotations


class FlipgamesError(Exception):
    """Root of every error flipgames raises on bad input."""


class UnknownGameError(FlipgamesError, KeyError):
    """A game name that is not in the registry."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class OptionError(FlipgamesError, ValueError):
    """An unknown option name or a value the option does not allow."""


class NotationError(FlipgamesError, ValueError):
    """Text that is not a well-formed action in the game's notation."""


class IllegalActionError(FlipgamesError, ValueError):
    """A well-formed action that is not legal in the current state."""


class RecordError(FlipgamesError, ValueError):
    """A game record or serialised state that is malformed or fails to replay.

    ``index`` and ``action`` name the first action that failed to replay, when that is the
    cause (``index`` counts from 0 in the record's action list).
    """

    def __init__(self, message: str, *, index: int | None = None, action: str | None = None):
        super().__init__(message)
        self.index = index
        self.action = action
