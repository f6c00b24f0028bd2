"""The WebSocket hub: who watches which match, and sending each of them their view.

A connection joins its match's room with the seats its token controls. After every committed
change the routes call :meth:`Hub.broadcast`, which loads the match once and sends every
connection its own view; a reconnecting client just joins again and gets the current view.
A route that has just committed a change passes the match as it committed it (a
:class:`Snapshot`) instead of a loader: no second read. Each :class:`Snapshot` renders a
viewer's view once, however many connections share that viewer, and every connection
remembers the revision it was last sent, so a snapshot older than that is never sent to it
(two changes of one match may finish their broadcasts in either order).

Presence: after a join or a leave the routes call :meth:`Hub.announce_presence`, which
sends ``{"type": "presence", "seats": [...]}`` (the seats with an open connection) to the
connections of the room that asked for it.

In a route, after the service has committed a change::

    await hub.broadcast(match_id, load)  # load() -> a Snapshot of the match
    await hub.broadcast(match_id, snapshot)  # the match as this route just committed it

and in the WebSocket handler, once the connection is accepted::

    await hub.join(match_id, Connection(websocket, viewer), load)
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from flipgames.web.matches import Viewer
from flipgames.web.schemas import View

log = logging.getLogger(__name__)


class Snapshot:
    """A match at one revision, as the message each viewer is sent (rendered once per
    viewer: the players of a match and its spectators each share theirs)."""

    def __init__(self, revision: int, render: Callable[[Viewer], View]) -> None:
        self.revision = revision
        self._render = render
        self._messages: dict[Viewer, str] = {}

    def message(self, viewer: Viewer) -> str:
        """``{"type": "view", "match": <viewer's view>}`` as JSON text."""
        message = self._messages.get(viewer)
        if message is None:
            view = self._render(viewer).model_dump_json()
            message = self._messages[viewer] = f'{{"type":"view","match":{view}}}'
        return message


@dataclass(eq=False)
class Connection:
    socket: WebSocket
    viewer: Viewer
    #: The client asked for presence messages (``?presence=true``).
    presence: bool = False
    #: The client asked for its chat room's lines (``?chat=true``).
    chat: bool = False
    #: The revision of the last view sent on this connection (-1: none yet).
    revision: int = -1

    async def send(self, snapshot: Snapshot) -> None:
        """Send this connection its view in ``snapshot``, unless it has a newer one."""
        if snapshot.revision < self.revision:
            return
        self.revision = snapshot.revision
        await self.socket.send_text(snapshot.message(self.viewer))


@dataclass
class _Room:
    connections: set[Connection] = field(default_factory=set)
    # Broadcasts of one match go out one at a time, so views never arrive out of order.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    """Per-match sets of open WebSocket connections."""

    def __init__(self) -> None:
        self._rooms: defaultdict[str, _Room] = defaultdict(_Room)
        #: The seats connected to a match on other server processes (web/presence.py).
        self.elsewhere: Callable[[str], set[int]] = lambda _match_id: set()
        #: How many spectators watch a match on other server processes (web/presence.py).
        self.watching_elsewhere: Callable[[str], int] = lambda _match_id: 0

    async def join(
        self, match_id: str, connection: Connection, load: Callable[[], Snapshot]
    ) -> None:
        """Add ``connection`` to its match's room and send it the current view.

        Under the room's lock, so no broadcast can overtake this first view with an older one.
        """
        room = self._rooms[match_id]
        async with room.lock:
            snapshot = await run_in_threadpool(load)
            room.connections.add(connection)
            await connection.send(snapshot)

    def leave(self, match_id: str, connection: Connection) -> bool:
        """Remove ``connection``; True when nobody is left watching its match."""
        room = self._rooms.get(match_id)
        if room is None:
            return True
        room.connections.discard(connection)
        if room.connections:
            return False
        if not room.lock.locked():
            del self._rooms[match_id]
        return True

    def present(self, match_id: str) -> list[int]:
        """The seats with at least one open connection to ``match_id`` (here or on another
        server process)."""
        return sorted(set(self.here(match_id)) | self.elsewhere(match_id))

    def here(self, match_id: str) -> list[int]:
        """The seats with an open connection to ``match_id`` on this process."""
        room = self._rooms.get(match_id)
        connections = room.connections if room else set()
        return sorted({seat for c in connections for seat in c.viewer})

    def spectators(self, match_id: str) -> int:
        """How many spectators (connections with no seat) watch ``match_id``, here or on
        another server process."""
        return self.watching_here(match_id) + self.watching_elsewhere(match_id)

    def watching_here(self, match_id: str) -> int:
        """How many connections to ``match_id`` on this process are spectators'."""
        room = self._rooms.get(match_id)
        return sum(1 for c in room.connections if not c.viewer) if room else 0

    def rooms(self) -> list[str]:
        """The matches with someone connected here."""
        return [match_id for match_id, room in self._rooms.items() if room.connections]

    async def announce_presence(self, match_id: str) -> None:
        """Tell everyone in the room which seats are connected (after a join or a leave)."""
        room = self._rooms.get(match_id)
        if room is None or not room.connections:
            return
        message = {"type": "presence", "seats": self.present(match_id)}
        async with room.lock:
            for connection in [c for c in room.connections if c.presence]:
                try:
                    await connection.socket.send_json(message)
                except (WebSocketDisconnect, RuntimeError, OSError):
                    room.connections.discard(connection)

    async def send_where(self, match_id: str, text: str, to: Callable[[Connection], bool]) -> None:
        """Send ``text`` to the connections of ``match_id`` that ``to`` accepts (a chat line
        to its room's: web/community/chat.py), in turn with the room's views."""
        room = self._rooms.get(match_id)
        if room is None or not room.connections:
            return
        async with room.lock:
            for connection in [c for c in room.connections if to(c)]:
                try:
                    await connection.socket.send_text(text)
                except (WebSocketDisconnect, RuntimeError, OSError):
                    room.connections.discard(connection)

    async def broadcast(self, match_id: str, source: Snapshot | Callable[[], Snapshot]) -> None:
        """Send every connection of ``match_id`` its view of the match: in ``source``, or as
        ``source()`` finds it (called under the room's lock, so a later broadcast never sends
        an older state)."""
        room = self._rooms.get(match_id)
        if room is None or not room.connections:
            return
        async with room.lock:
            snapshot = source if isinstance(source, Snapshot) else await run_in_threadpool(source)
            for connection in list(room.connections):
                try:
                    await connection.send(snapshot)
                except (WebSocketDisconnect, RuntimeError, OSError) as exc:
                    # A socket closed under us: its own handler removes it; the rest go on.
                    log.info("dropping a closed connection to match %s: %s", match_id, exc)
                    room.connections.discard(connection)
