"""Settings of the web arcade, built by the caller (the CLI or a test), never at import time.

>>> data_dir({"FLIPGAMES_DATA": "/srv/arcade"})
PosixPath('/srv/arcade')
>>> data_dir({"XDG_DATA_HOME": "/home/ada/.data"})
PosixPath('/home/ada/.data/flipgames')
>>> default_database_url({"FLIPGAMES_DATA": "/srv/arcade"})
'sqlite:////srv/arcade/arcade.sqlite'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's data folder: ``$FLIPGAMES_DATA``, else ``$XDG_DATA_HOME/flipgames``, else
    ``~/.local/share/flipgames``."""
    env = os.environ if environ is None else environ
    if env.get("FLIPGAMES_DATA"):
        return Path(env["FLIPGAMES_DATA"])
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "flipgames"


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
    templates_dir: Path = field(default=_PACKAGE_DIR / "templates")
    static_dir: Path = field(default=_PACKAGE_DIR / "static")
