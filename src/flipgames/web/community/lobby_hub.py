"""The lobby's sockets: every change of the lobby pushed to every lobby socket, the seeker
told when its seek is accepted, and a player's seeks removed once they have left.

Each lobby socket belongs to its session's player (or to nobody: a visitor who is not signed
in sees the lobby but has no seeks). When a player's last lobby socket closes, their open
seeks and their place in the quick-pairing pool are removed after :data:`GRACE_SECONDS` (a
reload reconnects well within it), unless they are connected again by then, here or on
another server process (on PostgreSQL, lobby presence is announced as the matches' presence
is: web/presence.py on its own channel). A seek made with no lobby socket open gets the same
grace.

Messages (JSON text frames, server to client; the client sends nothing):

- ``{"type": "seeks", "seeks": [SeekView, ...]}`` on connecting: the open seeks;
- ``{"type": "seek", "seek": SeekView}``: a new seek;
- ``{"type": "gone", "id": "..."}``: a seek withdrawn, taken or removed;
- ``{"type": "accepted", "seek": "...", "match": "..."}``: to the seeker (and to each player
  of a quick pairing) only: the seek became that match; read the seat's token with
  ``GET /api/seeks/{seek}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Iterable

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from flipgames.web.community.lobby import Lobby
from flipgames.web.community.lobby_schemas import Event, heard

log = logging.getLogger(__name__)

#: A player who left the lobby keeps their seeks this long (a reload reconnects within it).
GRACE_SECONDS = 10.0
#: How often the quick-pairing pool is looked at (the ranges widen with time).
PAIRING_SECONDS = 1.0
#: The PostgreSQL channel of the lobby's presence (apart from the matches' presence).
PRESENCE_CHANNEL = "flipgames_lobby_presence"
#: The key presence announcements use for a player in the lobby (not a match id: those
#: have no colon).
PRESENCE_PREFIX = "lobby:"
#: Messages a lobby socket may have waiting; a client further behind is disconnected (its
#: page reconnects and is sent the open seeks afresh).
BACKLOG = 500


class Outbox:
    """One lobby socket's messages, sent in order by a task of its own once the socket has
    its first listing (:meth:`open`). A change of the lobby is then one queue put per socket
    (no task a message, no waiting for 500 sends), and a slow client delays only itself."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket
        self._queue: asyncio.Queue[str] = asyncio.Queue(BACKLOG)
        self._opened = asyncio.Event()
        self._task = asyncio.create_task(self._drain())

    def open(self) -> None:
        """The listing is sent: what was queued meanwhile (and everything after) goes now."""
        self._opened.set()

    def put(self, text: str) -> None:
        if self._queue.full():
            if self._opened.is_set() and not self._task.done():
                log.info("a lobby socket fell %d messages behind: closing it", BACKLOG)
                self._task.cancel()
                self._task = asyncio.create_task(self.socket.close(code=1013))
            return
        self._queue.put_nowait(text)

    async def _drain(self) -> None:
        await self._opened.wait()
        while True:
            text = await self._queue.get()
            try:
                await self.socket.send_text(text)
            except Exception as exc:
                # A socket closed under us: its own handler removes it.
                log.info("a lobby socket could not be sent to: %s", exc)
                return

    def close(self) -> asyncio.Task[None]:
        """Stop sending (the socket has gone, or the server is stopping): its task, to await
        where there is time. Not awaited here: a leaving socket's handler may be cancelled
        at its next await, and what follows its leaving must run first."""
        self._task.cancel()
        return self._task


class LobbyHub:
    """The lobby sockets of this process, by player id ("" for visitors not signed in)."""

    def __init__(self, lobby: Lobby, grace: float = GRACE_SECONDS) -> None:
        self.lobby = lobby
        self.grace = grace
        self._sockets: dict[str, set[WebSocket]] = {}
        self._outboxes: dict[WebSocket, Outbox] = {}
        self._timers: dict[str, asyncio.Task[None]] = {}
        #: Whether a player has a lobby socket on another server process (web/presence.py).
        self.elsewhere: Callable[[str], bool] = lambda _player_id: False
        #: Tell the other server processes who is connected here (set on PostgreSQL).
        self.announce: Callable[[str], Awaitable[None]] | None = None

    # --- who is here --------------------------------------------------------------------

    def here(self, key: str) -> list[int]:
        """Presence's view of a player (``lobby:ID``): ``[0]`` when connected here."""
        player_id = key.removeprefix(PRESENCE_PREFIX)
        return [0] if key.startswith(PRESENCE_PREFIX) and self._sockets.get(player_id) else []

    def rooms(self) -> list[str]:
        """Presence's list of the players connected here (``lobby:ID``)."""
        return [PRESENCE_PREFIX + p for p, sockets in self._sockets.items() if p and sockets]

    def connected(self, player_id: str) -> bool:
        """The player has a lobby socket open, here or on another process."""
        return bool(self._sockets.get(player_id)) or self.elsewhere(PRESENCE_PREFIX + player_id)

    def sockets(self) -> int:
        """How many lobby sockets are open here."""
        return sum(len(s) for s in self._sockets.values())

    # --- sockets coming and going ---------------------------------------------------------

    async def join(self, player_id: str, socket: WebSocket) -> None:
        """Add a socket and send it the open seeks (changes meanwhile follow them)."""
        first = not self._sockets.get(player_id)
        self._sockets.setdefault(player_id, set()).add(socket)
        self._outboxes[socket] = outbox = Outbox(socket)
        timer = self._timers.pop(player_id, None)
        if timer is not None:
            timer.cancel()
        seeks = await run_in_threadpool(self.lobby.open_seeks)
        listing = {"type": "seeks", "seeks": [s.model_dump() for s in seeks]}
        await socket.send_text(json.dumps(listing))
        outbox.open()
        if first and player_id:
            await self._announce(player_id)

    async def leave(self, player_id: str, socket: WebSocket) -> None:
        """Remove a socket; the player's last one starts the grace period."""
        sockets = self._sockets.get(player_id, set())
        sockets.discard(socket)
        outbox = self._outboxes.pop(socket, None)
        if outbox is not None:
            outbox.close()
        if sockets:
            return
        self._sockets.pop(player_id, None)
        if player_id:
            # The grace timer first: it is a task of its own, while the announcement awaits a
            # database round trip that is cancelled with the socket's handler when the
            # connection is torn down (the seeks would then stay for good).
            self.expect(player_id)
            await self._announce(player_id)

    async def expect_waiting(self) -> None:
        """Give every player with an open seek the grace period (at the server's start:
        whoever does not come back to the lobby within it loses their seeks)."""
        for player_id in await run_in_threadpool(self.lobby.waiting_players):
            self.expect(player_id)

    def expect(self, player_id: str) -> None:
        """Remove the player's seeks after the grace period unless they are in the lobby
        by then (called when a seek is made, and when a player's last socket closes)."""
        if self.connected(player_id) or player_id in self._timers:
            return
        self._timers[player_id] = asyncio.create_task(self._expire(player_id))

    async def _expire(self, player_id: str) -> None:
        try:
            await asyncio.sleep(self.grace)
        finally:
            self._timers.pop(player_id, None)
        if self.connected(player_id):
            return
        try:
            events = await run_in_threadpool(self.lobby.remove_player, player_id)
        except Exception:
            # Their seeks stay until they come and go again (or the server restarts).
            log.exception("could not remove the seeks of a player who left the lobby")
            return
        await self.publish(events)

    async def _announce(self, player_id: str) -> None:
        if self.announce is not None:
            await self.announce(PRESENCE_PREFIX + player_id)

    # --- changes ----------------------------------------------------------------------------

    async def publish(self, events: Iterable[Event]) -> None:
        """Push ``events`` to the sockets here; a new seek is sent as its event carries it
        (a pool entry's carries none: it is read, and not listed)."""
        for event in events:
            if event.kind == "accepted":
                message = {"type": "accepted", "seek": event.seek, "match": event.match}
                self._send(json.dumps(message), self._sockets.get(event.player, set()))
            elif event.kind == "gone":
                self._send(json.dumps({"type": "gone", "id": event.seek}))
            elif event.view:
                self._send(f'{{"type":"seek","seek":{event.view}}}')
            else:
                view = await run_in_threadpool(self.lobby.seek, event.seek)
                if view is not None and view.id:
                    text = json.dumps({"type": "seek", "seek": view.model_dump()})
                    self._send(text)

    async def heard(self, payload: str) -> None:
        """An event announced by another server process (the lobby channel)."""
        event = heard(payload)
        if event is not None:
            await self.publish([event])

    def _send(self, text: str, sockets: Iterable[WebSocket] | None = None) -> None:
        """Queue ``text`` for ``sockets`` (default: every lobby socket here)."""
        outboxes = self._outboxes
        targets = outboxes.values() if sockets is None else [outboxes[s] for s in sockets]
        for outbox in targets:
            outbox.put(text)

    # --- the pairing loop -----------------------------------------------------------------

    async def pair_now(self) -> None:
        """Pair whoever fits in the pool now and tell them."""
        events = await run_in_threadpool(self.lobby.pair)
        if events:
            await self.publish(events)

    async def pair_forever(self, every: float = PAIRING_SECONDS) -> None:
        """Look at the pool every ``every`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.pair_now()
            except Exception:
                log.exception("quick pairing failed; trying again")

    async def close(self) -> None:
        """Stop the grace timers and the sockets' senders (the server is stopping: seeks stay
        in the database)."""
        senders = [outbox.close() for outbox in self._outboxes.values()]
        await asyncio.gather(*senders, return_exceptions=True)
        timers = list(self._timers.values())
        for timer in timers:
            timer.cancel()
        for timer in timers:
            with contextlib.suppress(asyncio.CancelledError):
                await timer
