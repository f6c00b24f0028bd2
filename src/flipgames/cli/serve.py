"""``flipgames serve``: run the web arcade on uvicorn.

``flipgames serve [--host 127.0.0.1] [--port 8000] [--db URL]`` prints the address to open.
Without ``--db`` matches are kept in an SQLite file in the user's data folder
(``$FLIPGAMES_DATA``, else ``$XDG_DATA_HOME/flipgames``, else ``~/.local/share/flipgames``).
``python -m flipgames.cli.serve`` takes the same arguments.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flipgames")
>>> add_serve_command(parser.add_subparsers())
>>> args = parser.parse_args(["serve", "--port", "8123"])
>>> args.host, args.port, args.db
('127.0.0.1', 8123, None)
"""

from __future__ import annotations

import argparse
import logging
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
    parser.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the arcade until interrupted."""
    try:
        import uvicorn
        from sqlalchemy.exc import SQLAlchemyError

        from flipgames.web.app import create_app
        from flipgames.web.settings import Settings, default_database_url
    except ImportError as exc:
        raise FlipgamesError(
            f"the web arcade needs the 'web' extra ({exc.name} is missing): "
            "pip install 'flipgames[web]'"
        ) from None
    settings = Settings(database_url=args.db or default_database_url())
    try:
        app = create_app(settings)
    except SQLAlchemyError as exc:
        # A URL that names no database SQLAlchemy can open, or a server that refuses us.
        # The password of a URL never reaches the screen (or a log that captures it).
        reason = _PASSWORD.sub(r"\1***@", str(exc).splitlines()[0])
        raise FlipgamesError(f"--db: cannot open the database: {reason}") from None
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    logging.getLogger("uvicorn.access").addFilter(RedactTokens())
    print(f"flipgames arcade: open http://{shown}:{args.port}/", flush=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="info",
        # WebSocket messages get the same limit as request bodies (with room for framing).
        ws_max_size=settings.max_body_bytes * 2,
    )
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
