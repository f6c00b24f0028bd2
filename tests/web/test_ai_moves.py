"""The computer's moves off the request path: the human's move is answered and broadcast at
once, the computer's follows as its own broadcast, and a move nobody waits for is cancelled
(its worker process killed)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient

from flipgames.web.aipool import AiJob, AiPool
from flipgames.web.app import create_app
from flipgames.web.settings import Settings

T = TypeVar("T")


class HeldPool(AiPool):
    """Answers only when the test lets it: the computer 'thinks' as long as a test needs."""

    def __init__(self) -> None:
        super().__init__(1)
        self.jobs: list[AiJob] = []
        self.cancelled: list[AiJob] = []
        self.release: asyncio.Event | None = None

    async def choose(self, job: AiJob) -> str:
        self.jobs.append(job)
        self.release = asyncio.Event()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.append(job)
            raise
        return await super().choose(job)


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[TestClient, HeldPool]]:
    pool = HeldPool()
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}")
    with TestClient(create_app(settings, ai_pool=pool)) as client:
        yield client, pool


def create_ai_match(client: TestClient, **fields: Any) -> dict[str, Any]:
    body = {"game": "flipflop-3x3", "mode": "ai", "level": "easy", "seed": 3, **fields}
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def run(scenario: Coroutine[Any, Any, T]) -> T:
    """Run ``scenario`` on an event loop of its own thread (the browser tests' Playwright
    keeps a loop running in the main thread for the whole session)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, scenario).result()


def until(condition: Any) -> None:
    """Wait for something the server does in the background (a bounded wait, not a timing)."""
    for _ in range(500):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("the server did not get there")


def test_the_human_move_is_answered_and_broadcast_before_the_computer_moves(
    held: tuple[TestClient, HeldPool],
) -> None:
    client, pool = held
    created = create_ai_match(client)
    match_id, token = created["id"], created["token"]
    with client.websocket_connect(f"/ws/matches/{match_id}?token={token}") as socket:
        assert socket.receive_json()["match"]["ply"] == 0
        answer = client.post(
            f"/api/matches/{match_id}/actions", json={"token": token, "action": "b1-b2"}
        ).json()
        # Answered while the computer is still held: the human's move only, and 'thinking'.
        assert (answer["ply"], answer["thinking"], answer["legal"]) == (1, True, [])
        broadcast = socket.receive_json()["match"]
        assert (broadcast["ply"], broadcast["thinking"]) == (1, True)
        until(lambda: pool.release is not None)
        assert pool.jobs[0].actions == ("b1-b2",)
        # A move while the computer thinks is refused, and says why.
        refused = client.post(
            f"/api/matches/{match_id}/actions", json={"token": token, "action": "a1-a2"}
        )
        assert refused.status_code == 409
        assert refused.json()["error"]["message"] == "the computer is thinking"
        assert pool.release is not None
        client.portal.call(pool.release.set)  # type: ignore[union-attr]
        reply = socket.receive_json()["match"]
    assert (reply["ply"], reply["thinking"], reply["current_player"]) == (2, False, 0)
    assert reply["legal"]


def test_the_computers_move_is_cancelled_when_nobody_watches_and_resumed_on_return(
    held: tuple[TestClient, HeldPool],
) -> None:
    client, pool = held
    created = create_ai_match(client, seat=1)  # the computer moves first
    match_id, token = created["id"], created["token"]
    assert created["match"]["thinking"] is True
    with client.websocket_connect(f"/ws/matches/{match_id}?token={token}") as socket:
        assert socket.receive_json()["match"]["thinking"] is True
        until(lambda: len(pool.jobs) == 1)
    until(lambda: len(pool.cancelled) == 1)
    assert client.app.state.ai_moves.running == 0  # type: ignore[attr-defined]
    assert client.get(f"/api/matches/{match_id}").json()["ply"] == 0
    # Coming back starts the move again, and this time it is made.
    with client.websocket_connect(f"/ws/matches/{match_id}?token={token}") as socket:
        assert socket.receive_json()["match"]["ply"] == 0
        until(lambda: len(pool.jobs) == 2 and pool.release is not None)
        client.portal.call(pool.release.set)  # type: ignore[union-attr]
        reply = socket.receive_json()["match"]
    assert (reply["ply"], reply["thinking"], reply["current_player"]) == (1, False, 1)


def test_an_undo_while_the_computer_thinks_drops_its_move(
    held: tuple[TestClient, HeldPool],
) -> None:
    client, pool = held
    created = create_ai_match(client)
    match_id, token = created["id"], created["token"]
    client.post(f"/api/matches/{match_id}/actions", json={"token": token, "action": "b1-b2"})
    until(lambda: len(pool.jobs) == 1)
    back = client.post(f"/api/matches/{match_id}/undo", json={"token": token})
    assert back.status_code == 200, back.text
    assert (back.json()["ply"], back.json()["thinking"]) == (0, False)
    until(lambda: len(pool.cancelled) == 1)
    assert client.get(f"/api/matches/{match_id}").json()["history"] == []


def test_a_cancelled_job_kills_its_worker_process() -> None:
    async def scenario() -> tuple[int, bool]:
        pool = AiPool(1)
        try:
            # Easy answers in milliseconds; it starts the worker, which is then reused.
            await pool.choose(AiJob("flipflop-3x3", {}, (), "easy", 1))
            (pid,) = pool.pids
            slow = asyncio.create_task(pool.choose(AiJob("flipflop", {}, (), "hard", 1)))
            for _ in range(500):
                if pool.busy:
                    break
                await asyncio.sleep(0.01)
            slow.cancel()
            with pytest.raises(asyncio.CancelledError):
                await slow
            return pid, bool(pool.pids)
        finally:
            pool.close()

    pid, left = run(scenario())
    assert not left
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_failing_job_is_an_error_and_the_pool_goes_on() -> None:
    async def scenario() -> str:
        pool = AiPool(1)
        try:
            with pytest.raises(Exception, match="no-such-level"):
                await pool.choose(AiJob("flipflop-3x3", {}, (), "no-such-level", 1))
            return await pool.choose(AiJob("flipflop-3x3", {}, ("b1xb3",), "easy", 1))
        finally:
            pool.close()

    assert run(scenario())
