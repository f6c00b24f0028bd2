"""Game reviews kept in the database and stopped with the server: a review made by one app is
served by another on the same database without being made again, a failed review is made
again after a while (and at once by another process), an older revision's review is replaced,
and ``flipgames serve`` stops at once on SIGTERM with a review being made.

The database tests run on SQLite and on PostgreSQL (conftest.py's ``database``)."""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from servers import needs_postgres, request_json
from sqlalchemy import select

from flipgames.lab.review import review_game
from flipgames.web.ai import Solutions
from flipgames.web.app import create_app
from flipgames.web.db import Transactions, make_engine, matches, reviews
from flipgames.web.review_store import ReviewStore
from flipgames.web.settings import Settings
from support.servers import launch

SOLUTIONS = Solutions()


def app_client(database: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database), solutions=SOLUTIONS))


def finished_match(client: TestClient, game: str, seed: int, **options: Any) -> str:
    """A same-screen match of ``game`` played to its end by random moves (chance outcomes
    are the server's); its id."""
    body = {"game": game, "mode": "local", "seed": seed, "options": options}
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    view, rng = created["match"], random.Random(seed)
    while view["status"] == "playing":
        answer = client.post(
            f"/api/matches/{created['id']}/actions",
            json={"token": created["token"], "action": rng.choice(view["legal"])},
        )
        assert answer.status_code == 200, answer.text
        view = answer.json()
    match_id: str = created["id"]
    return match_id


def review_answer(client: TestClient, match_id: str) -> dict[str, Any]:
    """The review's answer once it is no longer ``running``."""
    for _ in range(2000):
        response = client.get(f"/api/matches/{match_id}/review")
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        if answer["status"] != "running":
            return answer
        time.sleep(0.02)
    raise AssertionError("the review was still being made")


def stored(database: str, match_id: str) -> list[int]:
    """The revisions of ``match_id`` whose review the database holds."""
    engine = make_engine(database)
    try:
        with engine.connect() as connection:
            query = select(reviews.c.revision).where(reviews.c.match_id == match_id)
            return sorted(connection.execute(query).scalars())
    finally:
        engine.dispose()


def revision_of(database: str, match_id: str) -> int:
    engine = make_engine(database)
    try:
        with engine.connect() as connection:
            query = select(matches.c.revision).where(matches.c.id == match_id)
            return int(connection.execute(query).scalar_one())
    finally:
        engine.dispose()


def test_a_review_made_by_one_app_is_served_by_another_without_being_made_again(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with app_client(database) as first:
        match_id = finished_match(first, "flipflop-3x3", seed=4)
        made = review_answer(first, match_id)
        assert made["status"] == "done"
    assert stored(database, match_id) == [revision_of(database, match_id)]

    def never(*_: object) -> None:
        raise AssertionError("the review was made again")

    monkeypatch.setattr("flipgames.web.review.review_game", never)
    with app_client(database) as second:
        # Done at the first request: read from the database, not made again.
        answer = second.get(f"/api/matches/{match_id}/review").json()
    assert answer == made
    assert len(answer["review"]["points"]) == answer["total"] > 1


def test_a_failed_review_is_made_again_after_a_while_and_by_another_process(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def broken(*_: object) -> None:
        calls.append("broken")
        raise RuntimeError("a passing fault")

    monkeypatch.setattr("flipgames.web.review.review_game", broken)
    with app_client(database) as client:
        match_id = finished_match(client, "flipflop-3x3", seed=6)
        assert review_answer(client, match_id)["status"] == "failed"
        # Within the while, the failure is the answer: nothing is tried again yet.
        assert client.get(f"/api/matches/{match_id}/review").json()["status"] == "failed"
        assert calls == ["broken"]
        assert stored(database, match_id) == []
        monkeypatch.setattr("flipgames.web.review.review_game", review_game)
        with app_client(database) as other:  # another process: the failure is not stored
            assert review_answer(other, match_id)["status"] == "done"
        # Here, once the while has passed (made 0 s for the test), the next request tries again.
        client.app.state.reviews.retry_seconds = 0.0  # type: ignore[attr-defined]
        again = review_answer(client, match_id)
    assert again["status"] == "done"
    assert calls == ["broken"]
    assert len(again["review"]["points"]) == again["total"] > 1


def test_a_new_revisions_review_replaces_the_older_one(database: str) -> None:
    with app_client(database) as client:
        match_id = finished_match(client, "flipflop-3x3", seed=8)
    engine = make_engine(database)
    try:
        store = ReviewStore(Transactions(engine))
        store.save((match_id, 3), {"points": [1, 2]})
        store.save((match_id, 3), {"points": [1, 2]})  # two processes storing it: one kept
        assert store.load((match_id, 3)) == {"points": [1, 2]}
        store.save((match_id, 5), {"points": [3]})
        assert store.load((match_id, 3)) is None
        assert store.load((match_id, 5)) == {"points": [3]}
    finally:
        engine.dispose()
    assert stored(database, match_id) == [5]


# --- a real server: SIGTERM with a review being made ------------------------------------------


def long_review_on(database: str, tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A finished 5-round Flip Switch match on ``database``, whose review is seconds of
    engine search (an empty solver cache: no round is solved): the match and the server's
    environment."""
    with app_client(database) as client:
        match_id = finished_match(client, "flip-switch", seed=3, rounds=5)
        plies = client.get(f"/api/matches/{match_id}").json()["ply"]
    assert plies >= 100  # at tens of milliseconds a position: seconds of review
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    return match_id, {**os.environ, "FLIPGAMES_CACHE": str(cache), "FLIPGAMES_AI_WORKERS": "1"}


def review_running(port: int, match_id: str) -> None:
    """Ask for the review until it has valued a few positions (its thread is busy), with
    many left."""
    path = f"/api/matches/{match_id}/review"
    deadline = time.monotonic() + 60
    while True:
        status, answer = request_json(port, "GET", path)
        assert status == 200 and answer["status"] == "running", answer
        if answer["done"] >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert answer["done"] < answer["total"] - 20  # seconds of it left


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_stops_at_once_with_a_review_being_made(tmp_path: Path, stop: signal.Signals) -> None:
    database = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    match_id, env = long_review_on(database, tmp_path)
    command = [sys.executable, "-m", "flipgames", "serve", "--port", "0", "--no-warmup"]
    server, port = launch([*command, "--db", database], tmp_path / "server.log", env)
    try:
        review_running(port, match_id)
        server.send_signal(stop)
        # Bounded: the review stops at its next position, not at its end seconds later.
        # (uvicorn re-raises SIGTERM once it has shut down; Ctrl-C ends serve with 0.)
        assert server.wait(timeout=5) in (0, -signal.SIGTERM)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert stored(database, match_id) == []  # dropped, not finished on the way out
    log = (tmp_path / "server.log").read_text()
    assert "Application shutdown complete" in log and "Traceback" not in log


@needs_postgres
def test_serve_with_workers_stops_at_once_with_a_review_being_made(
    schema_url: str, tmp_path: Path
) -> None:
    match_id, env = long_review_on(schema_url, tmp_path)
    command = [sys.executable, "-m", "flipgames", "serve", "--port", "0", "--no-warmup"]
    log = tmp_path / "server.log"
    server, port = launch([*command, "--db", schema_url, "--workers", "2"], log, env)
    try:
        review_running(port, match_id)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) in (0, -signal.SIGTERM)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert stored(schema_url, match_id) == []
    text = log.read_text()
    assert text.count("Application shutdown complete") == 2 and "Traceback" not in text


def test_a_review_asked_for_while_the_server_stops_is_refused_in_words(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    client = app_client(database)
    with client:
        match_id = finished_match(client, "flipflop-3x3", seed=2)
    # The lifespan has closed the reviews: a request now (a server still draining) is a 503.
    response = client.get(f"/api/matches/{match_id}/review")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "busy"
    assert "stopping" in response.json()["error"]["message"]


def test_no_review_thread_outlives_its_app(database: str) -> None:
    with app_client(database) as client:
        match_id = finished_match(client, "flipflop-3x3", seed=1)
        assert review_answer(client, match_id)["status"] == "done"
        thread = client.app.state.reviews._thread  # type: ignore[attr-defined]
        assert thread is not None and thread.is_alive()
    assert not thread.is_alive()
