"""``flipgames serve``: run the web arcade on uvicorn.

``flipgames serve [--host 127.0.0.1] [--port 8000] [--db URL] [--workers N]`` binds the
port, then prints the address to open (``--port 0``: a free port the system picks, which the
printed address names). ``--proxy-headers`` (with ``--forwarded-allow-ips``) trusts a reverse
proxy's ``X-Forwarded-For``; ``--allowed-origin`` (repeatable) lets another site's pages open
the WebSocket (docs/web-operations.md). ``--workers N`` runs N server processes on the port
(PostgreSQL only: they share the database, and each match's updates reach every process's
WebSockets). ``--engine NAME=CMD`` (repeatable) offers an outside program speaking the engine
protocol as an opponent named NAME (docs/web-operations.md, "Outside engines"); web users only
ever pick the name.
At start it runs ``flipgames warmup`` in the background (cli/warmup.py: kernels compiled,
tables built, while the arcade answers) unless ``--no-warmup``.
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
import errno
import importlib
import json
import os
import re
import socket
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from flipgames.core.errors import FlipgamesError, quote

if TYPE_CHECKING:
    from flipgames.web.settings import Settings

#: More server processes than this on one host only thrash (each holds its own AI pool).
MAX_WORKERS = 64

_PASSWORD = re.compile(r"(\w+://[^:/@\s]*:)[^@\s]*@")


def add_serve_command(subparsers: Any, port_type: Callable[[str], int] = int) -> None:
    """Add ``serve`` to a ``flipgames`` sub-command parser (its handler is ``args.run``);
    ``port_type`` parses and checks ``--port``."""
    help_text = "run the web arcade (play in the browser)"
    parser = subparsers.add_parser("serve", help=help_text, description=help_text)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port",
        type=port_type,
        default=8000,
        help="port to listen on, 0 for a free one (the address printed names it)",
    )
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
        "--proxy-headers",
        action="store_true",
        help="trust X-Forwarded-For and X-Forwarded-Proto from --forwarded-allow-ips (only "
        "behind a reverse proxy: whoever may send them can pose as any address)",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        help="with --proxy-headers: the proxy's addresses, comma-separated, or '*' for any "
        "(default: 127.0.0.1)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a site whose pages may open the arcade's WebSocket besides its own address "
        "(repeatable), e.g. https://arcade.example.org",
    )
    parser.add_argument(
        "--no-warmup",
        action="store_true",
        # The environment's FLIPGAMES_WARMUP=0 is the same (the test suite sets it: its many
        # short-lived servers would each start one).
        default=os.environ.get("FLIPGAMES_WARMUP") == "0",
        help="do not run flipgames warmup in the background at start (where it has been run "
        "already, e.g. when the install was built; FLIPGAMES_WARMUP=0 in the environment too)",
    )
    parser.add_argument(
        "--reports",
        metavar="DIR",
        help="the designer's reports the Lab page shows (default: reports in the data folder)",
    )
    parser.set_defaults(run=cmd_serve)


def cannot_open(exc: Exception) -> FlipgamesError:
    """A URL that names no database SQLAlchemy can open, or a server that refuses us, as one
    line. The password of a URL never reaches the screen (or a log that captures it)."""
    reason = _PASSWORD.sub(r"\1***@", str(exc).splitlines()[0])
    return FlipgamesError(f"--db: cannot open the database: {reason}")


_ORIGIN = re.compile(
    r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?"
)


def _origin(text: str) -> str:
    """An ``--allowed-origin`` as browsers send it (``https://host[:port]``, lower case).

    >>> _origin("https://Arcade.example.org/")
    'https://arcade.example.org'
    >>> _origin("arcade.example.org")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    flipgames.core.errors.FlipgamesError: --allowed-origin must be ..., not 'arcade.example.org'
    """
    origin = text.strip().rstrip("/")
    if not _ORIGIN.fullmatch(origin):
        raise FlipgamesError(
            "--allowed-origin must be a scheme and address, e.g. https://arcade.example.org, "
            f"not {quote(text)}"
        )
    return origin.lower()


def bind_port(host: str, port: int) -> socket.socket:
    """The socket the server will listen on, bound to ``host:port`` (port 0: a free port the
    system picks; ``getsockname()`` names it), before anything is printed or started: the
    address shown must be this server's, not another one's already there. Fails (one line)
    when the address cannot be had.

    >>> with bind_port("127.0.0.1", 0) as bound:
    ...     bound.getsockname()[1] > 0
    True
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise FlipgamesError(f"--host {quote(host)}: no such address ({exc.strerror})") from None
    bound = socket.socket(family, kind, proto)
    # As uvicorn binds: a port left in TIME_WAIT by a stopped server is free.
    bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        bound.bind(address)
    except OSError as exc:
        bound.close()
        if exc.errno == errno.EADDRINUSE:
            raise FlipgamesError(
                f"port {port} on {host} is in use (another server is listening there): "
                "stop it, or choose another port with --port"
            ) from None
        raise FlipgamesError(f"cannot listen on {host} port {port}: {exc.strerror}") from None
    bound.set_inheritable(True)  # as uvicorn's own bind leaves it, for its worker processes
    return bound


def serve_forever(app: Any, bound: socket.socket, workers: int, options: dict[str, Any]) -> int:
    """Run uvicorn on the socket :func:`bind_port` made until interrupted: ``app`` itself, or
    with ``workers`` above 1 an import string naming the app's factory, one per worker
    process; ``options`` are uvicorn's settings. 0, or uvicorn's startup failure code when the
    app did not start.

    This is ``uvicorn.run`` handed a bound socket (it would bind one itself, too late to know
    the port before printing it)."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config(app, workers=workers, factory=workers > 1, **options)
    server = uvicorn.Server(config)
    try:
        if workers > 1:
            Multiprocess(config, sockets=[bound]).run()
        else:
            server.run(sockets=[bound])
    except KeyboardInterrupt:  # as uvicorn.run: Ctrl-C is the way to stop a server
        pass
    finally:
        bound.close()
    # A worker that cannot start stops the parent too, which has logged why.
    return 0 if workers > 1 or server.started else STARTUP_FAILURE


def where_kept(url: str) -> str:
    """Where a database URL keeps the matches, for the operator: an SQLite file's path, else
    the URL with its password hidden.

    >>> where_kept("sqlite:////var/lib/arcade.sqlite")
    '/var/lib/arcade.sqlite'
    >>> where_kept("postgresql://ada:s3cret@db.example/arcade")
    'postgresql://ada:***@db.example/arcade'
    >>> where_kept("sqlite://")
    'memory (lost when the server stops)'
    """
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            return "memory (lost when the server stops)"
        return os.path.abspath(str(parsed.database))
    return parsed.render_as_string(hide_password=True)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the arcade until interrupted."""
    try:
        # All the server will run, before any check or bind, so a missing extra is named first.
        for module in ("uvicorn", "sqlalchemy", "flipgames.web.app"):
            importlib.import_module(module)
        from flipgames.web.settings import Settings, default_database_url
    except ImportError as exc:
        raise FlipgamesError(
            f"the web arcade needs the 'web' extra ({exc.name} is missing): "
            "run pip install -e '.[web]' in the flipgames repository folder"
        ) from None
    from flipgames.web.engines import parse_engine

    if args.forwarded_allow_ips is not None and not args.proxy_headers:
        raise FlipgamesError(
            "--forwarded-allow-ips names the proxy whose forwarded headers to trust: it needs "
            "--proxy-headers"
        )
    specs = tuple(parse_engine(text) for text in args.engine)
    if args.reports:
        os.environ["FLIPGAMES_REPORTS"] = os.path.abspath(args.reports)  # for every worker
    if args.allowed_origin:
        origins = [_origin(text) for text in args.allowed_origin]
        os.environ["FLIPGAMES_ALLOWED_ORIGINS"] = " ".join(origins)  # for every worker
    settings = Settings(database_url=args.db or default_database_url(), engines=specs)
    if not 1 <= args.workers <= MAX_WORKERS:
        raise FlipgamesError(f"--workers must be from 1 to {MAX_WORKERS}, not {args.workers}")
    if args.workers > 1 and not settings.database_url.startswith(("postgresql", "postgres")):
        raise FlipgamesError(
            "--workers above 1 needs a PostgreSQL database (--db postgresql://...): SQLite "
            "is for one server process"
        )
    bound = bind_port(args.host, args.port)
    try:
        return _start(args, settings, specs, bound)
    finally:
        bound.close()  # when the app could not start (serve_forever closes it too)


def _start(
    args: argparse.Namespace,
    settings: Settings,
    specs: tuple[tuple[str, str], ...],
    bound: socket.socket,
) -> int:
    """Make the app (or ready the database for the workers'), print the address ``bound``
    has, and serve on it until interrupted."""
    from sqlalchemy.exc import SQLAlchemyError

    from flipgames.web.app import create_app
    from flipgames.web.db import make_engine, migrate
    from flipgames.web.engines import register

    port = bound.getsockname()[1]  # the system's pick for --port 0
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    # WebSocket messages get the same limit as request bodies (with room for framing).
    # uvicorn would trust X-Forwarded-For from 127.0.0.1 by default, so every local client
    # could pose as any address (and get a rate limit per pose): off unless asked for.
    options: dict[str, Any] = {
        "host": args.host,
        "port": port,
        "log_level": "info",
        "ws_max_size": settings.max_body_bytes * 2,
        "proxy_headers": args.proxy_headers,
        "forwarded_allow_ips": args.forwarded_allow_ips or "127.0.0.1",
    }
    app: Any = "flipgames.web.app:app_from_environment"
    if args.workers > 1:
        # The workers get this socket (SO_REUSEADDR, never SO_REUSEPORT); each ends with this
        # process (web/lifeline.py), so a killed server leaves no orphan holding the port.
        os.environ["FLIPGAMES_SERVER_PID"] = str(os.getpid())
        # Each worker process builds its own app from the environment.
        os.environ["FLIPGAMES_DATABASE_URL"] = settings.database_url
        os.environ["FLIPGAMES_ENGINES"] = json.dumps(specs)
        register(specs, timeout=settings.engine_seconds)  # a broken engine stops us here
        try:
            engine = make_engine(settings.database_url)
            migrate(engine)  # once, before the workers would race to
        except SQLAlchemyError as exc:
            raise cannot_open(exc) from None
        engine.dispose()
    else:
        try:
            app = create_app(settings)
        except SQLAlchemyError as exc:
            raise cannot_open(exc) from None
    print(f"flipgames arcade: matches are kept in {where_kept(settings.database_url)}")
    print(f"flipgames arcade: open http://{shown}:{port}/", flush=True)
    # Kernels compiled and tables built while the arcade already answers (cli/warmup.py);
    # a move never waits for it.
    from flipgames.cli.warmup import start_in_background

    warmup = None if args.no_warmup else start_in_background()
    try:
        return serve_forever(app, bound, args.workers, options)
    finally:
        if warmup is not None:
            if warmup.poll() is None:
                warmup.kill()
            warmup.wait()


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
