"""WebSocket updates across server processes, with PostgreSQL LISTEN/NOTIFY.

Several server processes (``flipgames serve --workers N``, or several hosts) may share one
PostgreSQL database; the players of one match may then be connected to different processes.
Every write to a match announces it in the same transaction (:func:`notify` on
:data:`~flipgames.web.matches.CHANNEL`, payload ``origin:match_id``, sent on commit). Each
process listens on its own connection and, for a change made elsewhere, broadcasts the match
to its own sockets (their views are read from the database, whose revision tells the live
cache it is old). SQLite is one server process: what another program has to tell it (the
operator's ``flipgames admin`` commands) is written to the table ``operator_notes`` instead
(:func:`announce`), which the server reads every second (:func:`read_notes`).

Every channel (the matches', the presences', the lobby's, the chat's) is scoped to the
arcade's schema (:func:`scoped_channel`): several arcades may share one PostgreSQL database,
and a NOTIFY reaches every listener of that database.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, Engine, delete, func, insert, select, text
from sqlalchemy.engine import make_url

from flipgames.web.db import Transactions, normalise_url, operator_notes

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


#: ``:channel`` scoped to the schema of the connection's arcade, in SQL: a plain identifier
#: (LISTEN takes it unquoted) of lower-case letters, digits and underscores, at most 63
#: characters. One expression for the name a listener asks for (:func:`scoped_channel`) and
#: the one a write announces on inside its own transaction (:func:`notify`).
_SCOPED = (
    "left(:channel || '_' || "
    "regexp_replace(lower(coalesce(current_schema(), '')), '[^a-z0-9_]', '', 'g'), 63)"
)


def scoped_channel(channel: str, engine: Engine) -> str:
    """``channel`` for the arcade whose tables are in ``engine``'s schema: several arcades
    (the tests' schemas, or operators') may share one PostgreSQL database, and a NOTIFY
    reaches every listener of that database, so each arcade hears only its own."""
    with engine.connect() as connection:
        scoped = connection.execute(text(f"SELECT {_SCOPED}"), {"channel": channel})
        return str(scoped.scalar_one())


def notify(connection: Connection, channel: str, payload: str) -> None:
    """Announce ``payload`` on ``channel`` scoped to ``connection``'s arcade (as
    :func:`scoped_channel` names it) when ``connection``'s transaction commits."""
    connection.execute(
        text(f"SELECT pg_notify({_SCOPED}, :payload)"), {"channel": channel, "payload": payload}
    )


async def listen(
    url: str,
    origin: str,
    changed: Callable[[str], Awaitable[None]],
    retry: float = 1.0,
    *,
    channel: str,
) -> None:
    """Call ``changed(match_id)`` for every match changed by another process, until cancelled;
    a lost connection is opened again (after ``retry`` seconds, doubling up to 30).

    ``channel`` is the matches' (:data:`~flipgames.web.matches.CHANNEL`) or another whose
    payloads are ``origin:text`` (the lobby's, web/community/lobby.py), as scoped to the
    arcade (:func:`scoped_channel`); ``changed(text)`` is called the same way."""
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


#: How long an operator's note is kept (a server reads it within a second of its writing).
NOTES_KEPT = timedelta(hours=1)


def announce(connection: Connection, channel: str, payload: str) -> None:
    """Tell the arcade's running servers ``payload`` (``origin:text``) on ``channel`` when
    ``connection``'s transaction commits: NOTIFY on PostgreSQL, an operator's note on SQLite."""
    if connection.dialect.name == "postgresql":
        notify(connection, channel, payload)
        return
    now = datetime.now(UTC)
    connection.execute(delete(operator_notes).where(operator_notes.c.at < now - NOTES_KEPT))
    connection.execute(insert(operator_notes).values(channel=channel, payload=payload, at=now))


async def read_notes(
    transactions: Transactions,
    origin: str,
    heard: Mapping[str, Callable[[str], Awaitable[None]]],
    every: float = 1.0,
) -> None:
    """On SQLite, until cancelled: every ``every`` seconds, call ``heard[channel](text)`` for
    each operator's note written since the server started, as :func:`listen` does for a
    NOTIFY (a note of ``origin`` itself, or of a channel not in ``heard``, is passed over)."""

    def newest(connection: Connection) -> int:
        return int(connection.execute(select(func.max(operator_notes.c.id))).scalar() or 0)

    def since(last: int) -> list[tuple[int, str, str]]:
        query = select(operator_notes.c.id, operator_notes.c.channel, operator_notes.c.payload)
        rows = transactions.run(
            lambda c: c.execute(query.where(operator_notes.c.id > last).order_by("id")).all(),
            read_only=True,
        )
        return [(int(r.id), str(r.channel), str(r.payload)) for r in rows]

    last = await asyncio.to_thread(transactions.run, newest, read_only=True)
    while True:
        await asyncio.sleep(every)
        try:
            notes = await asyncio.to_thread(since, last)
        except Exception as exc:  # a busy or lost database: read again next time
            log.warning("could not read the operator's notes (%s)", exc)
            continue
        for number, channel, payload in notes:
            last = number
            sender, _, rest = payload.partition(":")
            if sender != origin and rest and channel in heard:
                await heard[channel](rest)
