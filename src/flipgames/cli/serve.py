"""``flipgames serve``: run the web arcade on uvicorn.

``flipgames serve [--host 127.0.0.1] [--port 8000] [--db URL] [--workers N]`` prints the
address to open. ``--workers N`` runs N server processes on the port (PostgreSQL only: they
share the database, and each match's updates reach every process's WebSockets).
``--engine NAME=CMD`` (repeatable) offers an outside program speaking the engine protocol as
an opponent named NAME (docs/web.md, "Outside engines"); web users only ever pick the name.
Without ``--db`` matches are kept in an SQLite file in the user's data folder
(``$FLIPGAMES_DATA``, else ``$XDG_DATA_HOME/flipgames``, else ``~/.local/share/flipgames``).
``python -m flipgames.cli.serve`` takes the same arguments.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flipgames")
>>> add_serve_command(parser.add_subparsers())
>>> args = parser.parse_args(["serve", "--port", "8123"])
>>> args.host, args.port, args.db, args.workers
('127.0.0.1', 8123, None, 1)
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from flipgames.core.errors import FlipgamesError

_TOKEN = re.compile(r"(token=)[^&\s\"]+")


class RedactTokens(logging.Filter):
    """Keep seat tokens out of the access log: whoever reads a log must not get a seat.

    >>> record = logging.LogRecord("a", 20, "", 0, "%s", ("/play/x?token=secret&a=1",), None)
    >>> RedactTokens().filter(record), record.args
    (True, ('/play/x?token=***&a=1',))
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                _TOKEN.sub(r"\1***", arg) if isinstance(arg, str) else arg for arg in record.args
            )
        return True


#: More server processes than this on one host only thrash (each holds its own AI pool).
MAX_WORKERS = 64

_PASSWORD = re.compile(r"(\w+://[^:/@\s]*:)[^@\s]*@")


def add_serve_command(subparsers: Any, port_type: Callable[[str], int] = int) -> None:
    """Add ``serve`` to a ``flipgames`` sub-command parser (its handler is ``args.run``);
    ``port_type`` parses and checks ``--port``."""
    help_text = "run the web arcade (play in the browser)"
    parser = subparsers.add_parser("serve", help=help_text, description=help_text)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port_type, default=8000, help="port to listen on")
    parser.add_argument(
        "--db",
        metavar="URL",
        help="SQLAlchemy database URL, e.g. sqlite:///arcade.sqlite or "
        "postgresql://user@host/db (default: an SQLite file in your data folder)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes (more than one needs a PostgreSQL --db)",
    )
    parser.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="NAME=CMD",
        help="offer an outside program speaking the engine protocol as an opponent named NAME "
        "(repeatable), e.g. --engine toy='flipgames engine --level easy'",
    )
    parser.add_argument(
        "--reports",
        metavar="DIR",
        help="the designer's reports the Lab page shows (default: reports in the data folder)",
    )
    parser.set_defaults(run=cmd_serve)


def _cannot_open(exc: Exception) -> FlipgamesError:
    """A URL that names no database SQLAlchemy can open, or a server that refuses us, as one
    line. The password of a URL never reaches the screen (or a log that captures it)."""
    reason = _PASSWORD.sub(r"\1***@", str(exc).splitlines()[0])
    return FlipgamesError(f"--db: cannot open the database: {reason}")


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the arcade until interrupted."""
    try:
        import uvicorn
        from sqlalchemy.exc import SQLAlchemyError

        from flipgames.web.app import create_app
        from flipgames.web.db import make_engine, migrate
        from flipgames.web.settings import Settings, default_database_url
    except ImportError as exc:
        raise FlipgamesError(
            f"the web arcade needs the 'web' extra ({exc.name} is missing): "
            "run pip install -e '.[web]' in the flipgames repository folder"
        ) from None
    from flipgames.web.engines import parse_engine, register

    specs = tuple(parse_engine(text) for text in args.engine)
    if args.reports:
        os.environ["FLIPGAMES_REPORTS"] = os.path.abspath(args.reports)  # for every worker
    settings = Settings(database_url=args.db or default_database_url(), engines=specs)
    if not 1 <= args.workers <= MAX_WORKERS:
        raise FlipgamesError(f"--workers must be from 1 to {MAX_WORKERS}, not {args.workers}")
    if args.workers > 1 and not settings.database_url.startswith(("postgresql", "postgres")):
        raise FlipgamesError(
            "--workers above 1 needs a PostgreSQL database (--db postgresql://...): SQLite "
            "is for one server process"
        )
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    logging.getLogger("uvicorn.access").addFilter(RedactTokens())
    # WebSocket messages get the same limit as request bodies (with room for framing).
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": "info",
        "ws_max_size": settings.max_body_bytes * 2,
    }
    if args.workers > 1:
        # Each worker process builds its own app from the environment.
        os.environ["FLIPGAMES_DATABASE_URL"] = settings.database_url
        os.environ["FLIPGAMES_ENGINES"] = json.dumps(specs)
        register(specs, timeout=settings.engine_seconds)  # a broken engine stops us here
        try:
            engine = make_engine(settings.database_url)
            migrate(engine)  # once, before the workers would race to
        except SQLAlchemyError as exc:
            raise _cannot_open(exc) from None
        engine.dispose()
        print(f"flipgames arcade: open http://{shown}:{args.port}/", flush=True)
        uvicorn.run(
            "flipgames.web.app:app_from_environment",
            factory=True,
            workers=args.workers,
            **options,
        )
        return 0
    try:
        app = create_app(settings)
    except SQLAlchemyError as exc:
        raise _cannot_open(exc) from None
    print(f"flipgames arcade: open http://{shown}:{args.port}/", flush=True)
    uvicorn.run(app, **options)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``serve`` on its own (before it is wired into the ``flipgames`` command)."""
    parser = argparse.ArgumentParser(prog="flipgames")
    add_serve_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    try:
        code: int = args.run(args)
    except FlipgamesError as exc:
        print(f"flipgames: error: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
