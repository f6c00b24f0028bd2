"""WebSocket updates across server processes, with PostgreSQL LISTEN/NOTIFY.

Several server processes (``flipgames serve --workers N``, or several hosts) may share one
PostgreSQL database; the players of one match may then be connected to different processes.
Every write to a match announces it in the same transaction (``pg_notify`` on
:data:`~flipgames.web.matches.CHANNEL`, payload ``origin:match_id``, sent on commit). Each
process listens on its own connection and, for a change made elsewhere, broadcasts the match
to its own sockets (their views are read from the database, whose revision tells the live
cache it is old). SQLite is one process: nothing to listen to.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from flipgames.web.db import normalise_url
from flipgames.web.matches import CHANNEL

log = logging.getLogger(__name__)


def listen_url(database_url: str) -> str | None:
    """The libpq address to LISTEN on, or None for a database without notifications.

    >>> listen_url("postgresql://ada:pw@db.example/arcade")
    'postgresql://ada:pw@db.example/arcade'
    >>> listen_url("sqlite:///arcade.sqlite") is None
    True
    """
    url = make_url(normalise_url(database_url))
    if url.get_backend_name() != "postgresql":
        return None
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def scoped_channel(channel: str, engine: Engine) -> str:
    """``channel`` for the arcade whose tables are in ``engine``'s schema: several arcades
    (the tests' schemas, or operators') may share one PostgreSQL database, and a NOTIFY
    reaches every listener of that database, so each arcade's lobby hears only its own.

    The name stays a plain identifier (LISTEN takes it unquoted): lower-case letters, digits
    and underscores, at most 63 characters.
    """
    with engine.connect() as connection:
        schema = str(connection.execute(text("SELECT current_schema()")).scalar_one() or "")
    safe = "".join(c for c in schema.lower() if c.isascii() and (c.isalnum() or c == "_"))
    return f"{channel}_{safe}"[:63]


async def listen(
    url: str,
    origin: str,
    changed: Callable[[str], Awaitable[None]],
    retry: float = 1.0,
    channel: str = CHANNEL,
) -> None:
    """Call ``changed(match_id)`` for every match changed by another process, until cancelled;
    a lost connection is opened again (after ``retry`` seconds, doubling up to 30).

    With ``channel``, another channel whose payloads are ``origin:text`` (the lobby's,
    web/community/lobby.py), ``changed(text)`` is called the same way."""
    # Only PostgreSQL deployments reach here: psycopg is the optional 'postgres' extra.
    import psycopg

    pause = retry
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
                await connection.execute(f"LISTEN {channel}")
                pause = retry
                async for note in connection.notifies():
                    sender, _, match_id = note.payload.partition(":")
                    if sender != origin and match_id:
                        await changed(match_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("lost the change announcements (%s); listening again in %.0f s", exc, pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 30.0)
