"""Settings of the web arcade, built by the caller (the CLI or a test), never at import time.

>>> data_dir({"FLIPGAMES_DATA": "/srv/arcade"})
PosixPath('/srv/arcade')
>>> data_dir({"XDG_DATA_HOME": "/home/ada/.data"})
PosixPath('/home/ada/.data/flipgames')
>>> default_database_url({"FLIPGAMES_DATA": "/srv/arcade"})
'sqlite:////srv/arcade/arcade.sqlite'
>>> env_int("FLIPGAMES_ACTIONS_PER_MINUTE", 240, {"FLIPGAMES_ACTIONS_PER_MINUTE": "0"})
0
>>> env_int("FLIPGAMES_MATCHES_BURST", 10, {"FLIPGAMES_MATCHES_BURST": "lots"})
Traceback (most recent call last):
...
flipgames.core.errors.FlipgamesError: FLIPGAMES_MATCHES_BURST must be a whole number, not 'lots'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from flipgames.core.errors import FlipgamesError

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's data folder: ``$FLIPGAMES_DATA``, else ``$XDG_DATA_HOME/flipgames``, else
    ``~/.local/share/flipgames``."""
    env = os.environ if environ is None else environ
    if env.get("FLIPGAMES_DATA"):
        return Path(env["FLIPGAMES_DATA"])
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "flipgames"


def env_int(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    """An integer setting from the environment (a bad value is an error naming it)."""
    env = os.environ if environ is None else environ
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise FlipgamesError(f"{name} must be a whole number, not {text!r}") from None
    if value < 0:
        raise FlipgamesError(f"{name} must be 0 or more, not {value}")
    return value


def default_database_url(environ: Mapping[str, str] | None = None) -> str:
    """An SQLite file in the user's data folder (the folder is created when the engine is)."""
    return f"sqlite:///{data_dir(environ) / 'arcade.sqlite'}"


@dataclass(frozen=True)
class Settings:
    """Everything the app needs to know about where it runs.

    ``database_url`` is a SQLAlchemy URL: ``sqlite:///path`` or ``postgresql://user@host/db``
    (run through psycopg 3). The folders default to the pages shipped in the package.
    """

    database_url: str
    #: Request bodies (and WebSocket messages) larger than this are refused unread.
    max_body_bytes: int = 16 * 1024
    #: How long a request waits, in all, for a locked SQLite database before 503 ``busy``.
    lock_wait_seconds: float = 60.0
    #: Per client address: actions (HTTP and WebSocket), undo, hints and analysis a minute,
    #: and how many may come at once; 0 turns the limit off. The environment variables are
    #: read when the settings are made (``flipgames serve`` makes them at start).
    actions_per_minute: int = field(
        default_factory=lambda: env_int("FLIPGAMES_ACTIONS_PER_MINUTE", 240)
    )
    actions_burst: int = field(default_factory=lambda: env_int("FLIPGAMES_ACTIONS_BURST", 60))
    #: Per client address: matches created a minute, and how many at once; 0: no limit.
    matches_per_minute: int = field(
        default_factory=lambda: env_int("FLIPGAMES_MATCHES_PER_MINUTE", 20)
    )
    matches_burst: int = field(default_factory=lambda: env_int("FLIPGAMES_MATCHES_BURST", 10))
    #: Per client address: reads of a match (its state, a position, its record or replay)
    #: and WebSocket opens a minute, and how many at once; 0: no limit. A page reads a match
    #: once and then follows it on its socket, so this only stops floods.
    reads_per_minute: int = field(
        default_factory=lambda: env_int("FLIPGAMES_READS_PER_MINUTE", 600)
    )
    reads_burst: int = field(default_factory=lambda: env_int("FLIPGAMES_READS_BURST", 120))
    #: Per client address: puzzles asked for a minute (each new one is a solver search), and
    #: how many at once; 0: no limit.
    puzzles_per_minute: int = field(
        default_factory=lambda: env_int("FLIPGAMES_PUZZLES_PER_MINUTE", 60)
    )
    puzzles_burst: int = field(default_factory=lambda: env_int("FLIPGAMES_PUZZLES_BURST", 20))
    #: Per client address: sign-ins, sign-ups, new guests and password checks (a password
    #: change, an account's deletion) a minute, and how many at once; 0: no limit. Each is an
    #: Argon2id hash (64 MiB, tens of milliseconds) and a guess at a password.
    sign_ins_per_minute: int = field(
        default_factory=lambda: env_int("FLIPGAMES_SIGN_INS_PER_MINUTE", 10)
    )
    sign_ins_burst: int = field(default_factory=lambda: env_int("FLIPGAMES_SIGN_INS_BURST", 10))
    #: Mark the session cookie ``Secure`` on every answer (``FLIPGAMES_SECURE_COOKIES=1``):
    #: for a server behind an HTTPS proxy that it does not trust for ``X-Forwarded-Proto``.
    #: A request that came over HTTPS gets a ``Secure`` cookie anyway.
    secure_cookies: bool = field(default_factory=lambda: env_int("FLIPGAMES_SECURE_COOKIES", 0) > 0)
    #: Origins (``https://arcade.example.org``) whose pages may open the WebSocket besides
    #: the server's own (the request's Host); ``flipgames serve --allowed-origin`` sets
    #: ``FLIPGAMES_ALLOWED_ORIGINS`` (space-separated). Clients that send no Origin (not a
    #: browser) are not refused.
    allowed_origins: tuple[str, ...] = field(
        default_factory=lambda: tuple(os.environ.get("FLIPGAMES_ALLOWED_ORIGINS", "").split())
    )
    #: Worker processes choosing the computer's moves (``FLIPGAMES_AI_WORKERS``; default: one
    #: fewer than the machine's cores, at least one, so the server keeps a core to answer).
    ai_workers: int = field(
        default_factory=lambda: env_int("FLIPGAMES_AI_WORKERS", max(1, (os.cpu_count() or 2) - 1))
    )
    #: Matches kept live in memory (least recently used dropped first), and how long an
    #: unused one is kept (``FLIPGAMES_LIVE_MATCHES``, ``FLIPGAMES_LIVE_IDLE_SECONDS``).
    live_matches: int = field(default_factory=lambda: env_int("FLIPGAMES_LIVE_MATCHES", 1000))
    live_idle_seconds: int = field(
        default_factory=lambda: env_int("FLIPGAMES_LIVE_IDLE_SECONDS", 600)
    )
    #: How long a player who left the lobby keeps their seeks, in seconds
    #: (``FLIPGAMES_LOBBY_GRACE_SECONDS``; a reload reconnects well within the default).
    lobby_grace_seconds: int = field(
        default_factory=lambda: env_int("FLIPGAMES_LOBBY_GRACE_SECONDS", 10)
    )
    #: Outside engines the operator registered (``flipgames serve --engine NAME=CMD``): name
    #: and command, offered as opponents (web/engines.py); how long one may take to answer
    #: (``FLIPGAMES_ENGINE_SECONDS``), after which it forfeits the match.
    engines: tuple[tuple[str, str], ...] = ()
    engine_seconds: int = field(default_factory=lambda: env_int("FLIPGAMES_ENGINE_SECONDS", 30))
    #: The designer's reports the Lab page shows (``flipgames serve --reports DIR`` sets
    #: ``FLIPGAMES_REPORTS``; default: ``reports`` in the data folder).
    reports_dir: Path = field(
        default_factory=lambda: Path(os.environ.get("FLIPGAMES_REPORTS") or data_dir() / "reports")
    )
    templates_dir: Path = field(default=_PACKAGE_DIR / "templates")
    static_dir: Path = field(default=_PACKAGE_DIR / "static")
