"""What an operator does to a player (``flipgames admin``, cli/admin.py): disable them,
enable them again, remove their chat lines. Each is one transaction on the arcade's
database, and works whether or not a server is running on it.

A player is named as others see them: an account's or a present guest's name, in any case.
A guest whose sessions have all ended has given its name up (another player may have it
now), so it is found only when no present player has the name: every former guest of that
name is then acted on (their lines stay theirs).

- disable: the player can no longer sign in, play as a signed-in player or chat; their
  sessions end and their open seeks and quick-pairing places go (the running servers are
  told, so the seeks leave every lobby page at once); the seat tokens of their
  unfinished matches move, offer and chat no more (403 ``disabled``), and their opponents
  may abort those matches at any ply (``views.can_abort``);
- enable: they may sign in and use their seats again;
- remove-lines: every chat line of theirs is marked removed: kept for the record, never sent
  again (the running servers send the open pages their rooms' lines again, without them).

The running servers are told as they tell each other (web/fanout.py's :func:`announce`):
by NOTIFY on PostgreSQL at once, by a note a SQLite server reads within a second.

>>> from flipgames.web.db import make_engine, migrate
>>> from flipgames.web.community.identity import Identity
>>> from flipgames.web.db import Transactions
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> _ = Identity(Transactions(engine)).guest("Mallory")
>>> disable(engine, "mallory")
'disabled Mallory: 1 session ended, 0 seeks removed'
>>> enable(engine, "Nobody")
Traceback (most recent call last):
...
flipgames.core.errors.FlipgamesError: no player is called 'Nobody'
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, delete, func, select, update

from flipgames.core.errors import FlipgamesError
from flipgames.web.community.chat import CHANNEL as CHAT_CHANNEL
from flipgames.web.community.chat import HISTORY
from flipgames.web.community.chat import remove_lines as remove_chat_lines
from flipgames.web.community.lobby import CHANNEL as LOBBY_CHANNEL
from flipgames.web.community.lobby_schemas import Event, announcement
from flipgames.web.community.names import name_key
from flipgames.web.db import matches, players, seats, seeks, sessions
from flipgames.web.fanout import announce
from flipgames.web.matches.live import CHANNEL as MATCHES_CHANNEL

#: The origin of the operator's announcements (a server process's is random hex).
ORIGIN = "admin"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def find(connection: Connection, name: str) -> list[Any]:
    """The players called ``name`` (see the module's docstring), or the refusal."""
    present = connection.execute(
        select(players).where(players.c.name_key == name_key(name), players.c.deleted.is_(False))
    ).all()
    found = list(present) or list(
        connection.execute(
            select(players).where(
                func.lower(players.c.name) == name.lower(),
                players.c.name_key.is_(None),
                players.c.deleted.is_(False),
            )
        ).all()
    )
    if not found:
        raise FlipgamesError(f"no player is called {name!r}")
    return found


def disable(engine: Engine, name: str) -> str:
    """Disable the player called ``name``; what was done, in words."""

    def work(connection: Connection) -> str:
        found = find(connection, name)
        ids = [row.id for row in found]
        connection.execute(update(players).where(players.c.id.in_(ids)).values(disabled=True))
        ended = connection.execute(delete(sessions).where(sessions.c.player_id.in_(ids)))
        open_seeks = connection.execute(
            select(seeks.c.id, seeks.c.player_id).where(
                seeks.c.player_id.in_(ids), seeks.c.match_id.is_(None)
            )
        ).all()
        connection.execute(
            delete(seeks).where(
                seeks.c.id.in_([row.id for row in open_seeks]), seeks.c.match_id.is_(None)
            )
        )
        for row in open_seeks:
            note = announcement(ORIGIN, Event("gone", row.id, row.player_id))
            announce(connection, LOBBY_CHANNEL, note)
        refresh_matches(connection, ids)
        return (
            f"disabled {found[0].name}: {_plural(ended.rowcount, 'session')} ended, "
            f"{_plural(len(open_seeks), 'seek')} removed"
        )

    with engine.begin() as connection:
        return work(connection)


def enable(engine: Engine, name: str) -> str:
    """Let the player called ``name`` sign in again; what was done, in words."""
    with engine.begin() as connection:
        found = find(connection, name)
        ids = [row.id for row in found]
        connection.execute(update(players).where(players.c.id.in_(ids)).values(disabled=False))
        refresh_matches(connection, ids)
    return f"enabled {found[0].name}: they may sign in again"


def remove_lines(engine: Engine, name: str) -> str:
    """Remove every chat line of the player called ``name``; what was done, in words. The
    running servers send the matches' chat histories again, without them."""
    with engine.begin() as connection:
        found = find(connection, name)
        matches = [m for row in found for m in remove_chat_lines(connection, row.id)]
        for match_id in sorted(set(matches)):
            announce(connection, CHAT_CHANNEL, f"{ORIGIN}:{match_id}/{HISTORY}")
    return f"removed {_plural(len(matches), 'chat line')} of {found[0].name}"


def refresh_matches(connection: Connection, ids: list[str]) -> list[str]:
    """Move on the revisions of the unfinished matches whose seats ``ids`` hold: whether
    their player is disabled decides what their seat tokens may do (``views.viewer``), so
    every server process loads them again instead of serving its live copy; the change is
    announced as a move's is, and their open pages are sent the match again. The matches
    changed."""
    seated = select(seats.c.match_id).where(seats.c.player_id.in_(ids))
    live = connection.execute(
        select(matches.c.id).where(
            matches.c.id.in_(seated),
            matches.c.ending.is_(None),
            matches.c.ending_result.is_(None),
        )
    )
    found = sorted(row.id for row in live)
    connection.execute(
        update(matches)
        .where(matches.c.id.in_(found))
        .values(revision=matches.c.revision + 1, ai_claim_revision=None)
    )
    for match_id in found:
        announce(connection, MATCHES_CHANNEL, f"{ORIGIN}:{match_id}")
    return found
