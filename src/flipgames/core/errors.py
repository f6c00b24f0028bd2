"""Exceptions raised by flipgames.

Everything raised on bad input derives from :class:`FlipgamesError`, so an edge (CLI, web API)
can catch one root and translate it. Each message quotes the bad input and says what is allowed.
"""

from __future__ import annotations

#: About how many characters of bad input an error message quotes.
QUOTE_LIMIT = 80


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters: a message
    names what was wrong, never all of a huge input (a 50 MB action, a record of NULs).

    >>> quote("b1xb3")
    "'b1xb3'"
    >>> quote("abc" * 1_000_000, limit=10)
    "'abcabcabc... (3,000,000 characters)"
    >>> print(quote(bytes(50), limit=10))
    b'\\x00\\x00... (50 bytes)
    >>> quote(list(range(100)), limit=12)
    '[0, 1, 2, 3,... (390 characters)'
    """
    whole = len(value) if isinstance(value, str | bytes) else None
    # Text is cut before repr: the repr of a 50 MB action is 50 MB.
    text = repr(value[:limit] if isinstance(value, str | bytes) else value)
    if len(text) <= limit + 2 and (whole is None or whole <= limit):
        return text
    unit = "bytes" if isinstance(value, bytes) else "characters"
    return f"{text[:limit]}... ({whole if whole is not None else len(text):,} {unit})"


def quote_path(path: object, limit: int = QUOTE_LIMIT) -> str:
    """A file path for an error message: whole when it is short, else cut at the *start*,
    since a file is known by its name, at the end of its path (a long temporary folder would
    otherwise hide it).

    >>> quote_path("game.json")
    "'game.json'"
    >>> quote_path("/tmp/" + "x" * 100 + "/bad-track.json", limit=30)
    "'...xxxxxxxxxxxxxxx/bad-track.json' (120 characters)"
    """
    text = str(path)
    if len(text) <= limit:
        return repr(text)
    return f"{'...' + text[len(text) - limit :]!r} ({len(text):,} characters)"


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


class PositionError(FlipgamesError, ValueError):
    """Position text (:mod:`flipgames.core.position`) that is malformed or describes a
    position the rules cannot reach, or a game that has no position notation."""
