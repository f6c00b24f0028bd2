"""``flipgames admin``: the operator's commands on the arcade's players (docs/web-operations.md,
"Operating on players").

``flipgames admin disable NAME``, ``flipgames admin enable NAME`` and ``flipgames admin
remove-lines NAME`` act on the database ``serve`` would use: ``--db URL`` (or
``--database URL``), by default the SQLite file in the data folder. A running server need not
be stopped. An unknown name, a database that cannot be opened or a missing 'web' extra is one
line on stderr and exit code 1.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flipgames")
>>> add_admin_command(parser.add_subparsers())
>>> args = parser.parse_args(["admin", "disable", "Mallory", "--db", "sqlite://"])
>>> args.action, args.name, args.db
('disable', 'Mallory', 'sqlite://')
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

from flipgames.core.errors import FlipgamesError, quote_path

#: What each action does, for ``--help``.
ACTIONS = {
    "disable": "the player can no longer sign in or chat; their sessions end, their seeks go",
    "enable": "the player may sign in again",
    "remove-lines": "the player's chat lines are removed from every match",
}


def add_admin_command(subparsers: Any) -> None:
    """Add ``admin`` and its actions to a ``flipgames`` sub-command parser."""
    help_text = "the operator's commands on players: disable, enable, remove-lines"
    parser = subparsers.add_parser("admin", help=help_text, description=help_text)
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, what in ACTIONS.items():
        sub = actions.add_parser(action, help=what, description=what)
        sub.add_argument("name", metavar="NAME", help="the player's name (any case)")
        sub.add_argument(
            "--db",
            "--database",
            dest="db",
            metavar="URL",
            help="the arcade's SQLAlchemy database URL, as for serve (default: the SQLite "
            "file in your data folder)",
        )
        sub.set_defaults(run=cmd_admin)


def cmd_admin(args: argparse.Namespace) -> int:
    """Run one admin action and print what it did."""
    try:
        importlib.import_module("sqlalchemy")
        from flipgames.web.community import admin
        from flipgames.web.db import SchemaError, make_engine, migrate
        from flipgames.web.settings import default_database_url
    except ImportError as exc:
        raise FlipgamesError(
            f"flipgames admin needs the 'web' extra ({exc.name} is missing): "
            "run pip install -e '.[web]' in the flipgames repository folder"
        ) from None
    from sqlalchemy.exc import SQLAlchemyError

    from flipgames.cli.serve import cannot_open

    act = {"disable": admin.disable, "enable": admin.enable, "remove-lines": admin.remove_lines}
    url = args.db or default_database_url()
    _require_sqlite_file(url)
    try:
        engine = make_engine(url)
        try:
            migrate(engine)  # as serve would: the tables are the current ones
            print(act[args.action](engine, args.name))
        finally:
            engine.dispose()
    except SQLAlchemyError as exc:
        raise cannot_open(exc) from None
    except SchemaError as exc:
        raise FlipgamesError(str(exc)) from None
    return 0


def _require_sqlite_file(url: str) -> None:
    """An SQLite URL must name an arcade's file: opening a mistyped path would make an empty
    database and answer that nobody has the name."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return  # make_engine refuses it, in cannot_open's words
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = Path(str(parsed.database))
        if not path.is_file():
            raise FlipgamesError(f"--db: no arcade database at {quote_path(path)}")
