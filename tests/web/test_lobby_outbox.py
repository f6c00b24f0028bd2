"""The lobby's per-socket senders (web/community/lobby_hub.py ``Outbox``), without a server:
messages queued before a socket has its first listing follow it in order, a client that
stops reading delays nobody else, and one that falls ``BACKLOG`` messages behind is closed
(1013, "try again later": its page reconnects and is sent the open seeks afresh)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from starlette.websockets import WebSocket

from flipgames.web.community.lobby_hub import BACKLOG, Outbox


class Reader:
    """A socket whose client reads everything (``stuck``: reads nothing after the first)."""

    def __init__(self, stuck: bool = False) -> None:
        self.stuck = stuck
        self.sent: list[str] = []
        self.closed: int | None = None

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        if self.stuck:
            await asyncio.Event().wait()  # the client's buffer is full: never writable again

    async def close(self, code: int = 1000) -> None:
        self.closed = code


def outbox(socket: Reader) -> Outbox:
    return Outbox(cast(WebSocket, socket))


def run(scenario: Any) -> None:
    # A loop of its own in a thread of its own, whatever loop this thread may have running.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, scenario()).result()


def test_messages_wait_for_the_listing_and_a_stuck_client_delays_nobody() -> None:
    fast, stuck = Reader(), Reader(stuck=True)

    async def scenario() -> None:
        quick, slow = outbox(fast), outbox(stuck)
        for box in (quick, slow):
            box.put("early")  # published while the socket's listing was being read
        await asyncio.sleep(0.01)
        assert fast.sent == stuck.sent == []  # nothing before the listing
        quick.open()
        slow.open()
        for n in range(3):
            quick.put(f"m{n}")
            slow.put(f"m{n}")
        for _ in range(10):
            await asyncio.sleep(0)
        assert fast.sent == ["early", "m0", "m1", "m2"]  # in order, all of them
        assert stuck.sent == ["early"]  # still stuck on its first
        assert stuck.closed is None
        for n in range(BACKLOG):
            slow.put(f"more{n}")
        for _ in range(10):
            await asyncio.sleep(0)
        assert stuck.closed == 1013
        quick.put("after")
        for _ in range(10):
            await asyncio.sleep(0)
        assert fast.sent[-1] == "after"
        await asyncio.gather(quick.close(), slow.close(), return_exceptions=True)

    run(scenario)
