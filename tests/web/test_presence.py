"""Presence announcements between server processes, without a database: another process's
seats count as present until they leave or their announcements stop being renewed."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from flipgames.web.db import make_engine
from flipgames.web.presence import EXPIRE_SECONDS, Presence


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_seats_on_other_processes_come_and_go_and_expire() -> None:
    clock = Clock()
    told: list[str] = []

    async def changed(match_id: str) -> None:
        told.append(match_id)

    presence = Presence(
        "here",
        make_engine("sqlite://"),  # announcing is never needed below
        local=lambda _match_id: [],
        rooms=lambda: [],
        changed=changed,
        clock=clock,
    )

    async def scenario() -> None:
        await presence.receive("here|m1|0")  # our own announcement: ignored
        assert presence.elsewhere("m1") == set()
        await presence.receive("there|m1|1")
        assert presence.elsewhere("m1") == {1}
        await presence.receive("there|m1|1")  # renewed, nothing new to tell
        await presence.receive("other|m1|0")
        assert presence.elsewhere("m1") == {0, 1}
        await presence.receive("there|m1|")  # Black left that process
        assert presence.elsewhere("m1") == {0}
        clock.now += EXPIRE_SECONDS + 1  # the other process died without a word
        assert presence.elsewhere("m1") == set()
        await presence.expire()

    # A loop of its own in a thread of its own, whatever loop this thread may have running
    # (the browser tests' Playwright leaves one).
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, scenario()).result()
    assert told == ["m1", "m1", "m1", "m1"]


def test_spectators_on_other_processes_are_counted_until_they_leave_or_expire() -> None:
    clock = Clock()
    watching = {"m1": 2}
    presence = Presence(
        "here",
        make_engine("sqlite://"),
        local=lambda _match_id: [],
        rooms=lambda: [],
        changed=lambda _match_id: asyncio.sleep(0),
        clock=clock,
        watching=lambda match_id: watching.get(match_id, 0),
    )

    async def scenario() -> None:
        await presence.receive("there|m1||2")  # two spectators, no player, on one process
        await presence.receive("other|m1|0|1")  # White and one spectator on another
        assert (presence.spectators("m1"), presence.elsewhere("m1")) == (3, {0})
        await presence.receive("there|m1||0")  # both of that process's spectators left
        assert presence.spectators("m1") == 1
        await presence.receive("other|m1|0")  # an announcement with no count: none
        assert presence.spectators("m1") == 0 and presence.elsewhere("m1") == {0}
        await presence.receive("there|m1||4")
        clock.now += EXPIRE_SECONDS + 1  # that process died without a word
        assert presence.spectators("m1") == 0

    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, scenario()).result()
    # What this process announces counts its own spectators.
    assert presence._payload("m1") == "here|m1||2"
