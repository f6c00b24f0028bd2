"""Presence across server processes (PostgreSQL): which seats have a match open on any process,
and how many spectators watch it.

Each process knows its own sockets (the :class:`~flipgames.web.ws.Hub`). With several
processes on one PostgreSQL database, the two players of a match may be connected to
different ones, and its spectators to any; each process then announces the seats connected
to it and its spectators with ``pg_notify`` on :data:`CHANNEL`, scoped to the arcade's schema
(payload ``origin|match_id|0,1|spectators``; no seats and 0 when nobody is left), listens on
that channel, and counts the other processes' seats as present and their spectators as
watching too. The hub's presence messages (``{"type": "presence", "seats": [...]}``) carry
the union of the seats; the live games (``GET /api/live``) the sum of the spectators.

A process that dies cannot say its players left, so announcements are renewed: every
:data:`RENEW_SECONDS` each process announces its matches again, and another process's seats
not renewed within :data:`EXPIRE_SECONDS` count as away. A process that starts (or listens
again after losing its connection) asks the others to announce at once (``origin|*|hello``).
SQLite is one process: there is nothing to announce to.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from sqlalchemy import Engine, text

log = logging.getLogger(__name__)

#: The PostgreSQL channel for presence (apart from the match changes' channel).
CHANNEL = "flipgames_presence"
RENEW_SECONDS = 20.0
EXPIRE_SECONDS = 60.0


@dataclass(frozen=True)
class Here:
    """Who one process has connected to one match: the seats, and how many spectators."""

    seats: frozenset[int]
    spectators: int = 0


def payload(origin: str, match_id: str, seats: Iterable[int], spectators: int = 0) -> str:
    """An announcement.

    >>> payload("a1", "m9", [1, 0], 2)
    'a1|m9|0,1|2'
    >>> parse("a1|m9|0,1|2")
    ('a1', 'm9', Here(seats=frozenset({0, 1}), spectators=2))
    >>> parse("a1|m9||0")
    ('a1', 'm9', Here(seats=frozenset(), spectators=0))
    >>> parse("a1|m9|1"), parse("a1|*|hello")  # a process without spectator counts; a hello
    (('a1', 'm9', Here(seats=frozenset({1}), spectators=0)), ('a1', '*', None))
    """
    return f"{origin}|{match_id}|{','.join(str(s) for s in sorted(seats))}|{spectators}"


def parse(text: str) -> tuple[str, str, Here | None]:
    """``(origin, match_id, who is there)``; None for a request to announce again."""
    origin, _, rest = text.partition("|")
    match_id, _, rest = rest.partition("|")
    if match_id == "*":
        return origin, match_id, None
    seats, _, watching = rest.partition("|")
    return (
        origin,
        match_id,
        Here(
            frozenset(int(s) for s in seats.split(",") if s.isdigit()),
            int(watching) if watching.isdigit() else 0,
        ),
    )


class Presence:
    """This process's view of the seats and spectators connected to other processes, kept
    from their announcements, and its own announcements.

    ``local(match_id)`` gives the seats connected here; ``watching(match_id)`` how many
    spectators are connected here (none by default: the lobby's presence has no spectators);
    ``rooms()`` the matches with someone connected here; ``changed(match_id)`` is awaited when
    another process's seats for a match change (the hub tells its sockets).
    """

    def __init__(
        self,
        origin: str,
        engine: Engine,
        local: Callable[[str], list[int]],
        rooms: Callable[[], list[str]],
        changed: Callable[[str], Awaitable[None]],
        clock: Callable[[], float] = time.monotonic,
        channel: str = CHANNEL,
        watching: Callable[[str], int] = lambda _match_id: 0,
    ) -> None:
        self.origin = origin
        #: The channel announcements go on (the lobby's presence has one of its own), as
        #: scoped to the arcade's schema (web/fanout.py's ``scoped_channel``).
        self.channel = channel
        self._engine = engine
        self._local = local
        self._watching = watching
        self._rooms = rooms
        self._changed = changed
        self._clock = clock
        #: match id -> origin -> (who is there, when announced)
        self._elsewhere: dict[str, dict[str, tuple[Here, float]]] = {}

    def _fresh(self, match_id: str) -> list[Here]:
        now = self._clock()
        entries = self._elsewhere.get(match_id, {})
        return [here for here, when in entries.values() if now - when <= EXPIRE_SECONDS]

    def elsewhere(self, match_id: str) -> set[int]:
        """The seats connected to ``match_id`` on other processes (recently announced)."""
        return {seat for here in self._fresh(match_id) for seat in here.seats}

    def spectators(self, match_id: str) -> int:
        """How many spectators watch ``match_id`` on other processes (recently announced)."""
        return sum(here.spectators for here in self._fresh(match_id))

    def _payload(self, match_id: str) -> str:
        return payload(self.origin, match_id, self._local(match_id), self._watching(match_id))

    async def announce(self, match_id: str) -> None:
        """Tell the other processes who is connected to ``match_id`` here now."""
        await self._notify([self._payload(match_id)])

    async def _notify(self, payloads: list[str]) -> None:
        def send() -> None:
            with self._engine.begin() as connection:
                for note in payloads:
                    connection.execute(
                        text("SELECT pg_notify(:channel, :payload)"),
                        {"channel": self.channel, "payload": note},
                    )

        try:
            await asyncio.to_thread(send)
        except Exception as exc:
            # Presence is a courtesy: the other players see "away" until the next renewal.
            log.warning("could not announce presence: %s", exc)

    async def receive(self, note: str) -> None:
        """Take in one announcement from the channel."""
        origin, match_id, there = parse(note)
        if origin == self.origin:
            return
        if there is None:
            await self.renew()
            return
        entries = self._elsewhere.setdefault(match_id, {})
        before = self.elsewhere(match_id)
        if there.seats or there.spectators:
            entries[origin] = (there, self._clock())
        else:
            entries.pop(origin, None)
            if not entries:
                del self._elsewhere[match_id]
        if self.elsewhere(match_id) != before:
            await self._changed(match_id)

    async def renew(self) -> None:
        """Announce every match with someone connected here again."""
        rooms = self._rooms()
        if rooms:
            await self._notify([self._payload(m) for m in rooms])

    async def expire(self) -> None:
        """Forget announcements not renewed in time (their process died); tell the sockets."""
        now = self._clock()
        for match_id in list(self._elsewhere):
            entries = self._elsewhere[match_id]
            stale = [o for o, (_, when) in entries.items() if now - when > EXPIRE_SECONDS]
            for origin in stale:
                del entries[origin]
            if not entries:
                del self._elsewhere[match_id]
            if stale:
                await self._changed(match_id)

    async def run(self, url: str, retry: float = 1.0) -> None:
        """Listen for announcements and renew this process's own, until cancelled; a lost
        connection is opened again (after ``retry`` seconds, doubling up to 30)."""
        # Only PostgreSQL deployments reach here: psycopg is the optional 'postgres' extra.
        import psycopg

        pause = retry
        renewer = asyncio.create_task(self._renew_forever())
        try:
            while True:
                try:
                    async with await psycopg.AsyncConnection.connect(
                        url, autocommit=True
                    ) as connection:
                        await connection.execute(f"LISTEN {self.channel}")
                        pause = retry
                        await self._notify([f"{self.origin}|*|hello"])
                        async for note in connection.notifies():
                            await self.receive(note.payload)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    log.warning("lost presence announcements (%s); again in %.0f s", exc, pause)
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, 30.0)
        finally:
            renewer.cancel()
            await asyncio.gather(renewer, return_exceptions=True)

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            await self.renew()
            await self.expire()
