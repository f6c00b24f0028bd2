"""One review made once across server processes (web/review_store.py): the first process asked
claims it and makes it, the others asked answer with its progress and then with the stored
review; a claim whose maker went silent is taken over, and one given up (the maker failed or
stopped) is made at once by the next process asked. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, update

from flipgames.core.game import State
from flipgames.core.registry import make
from flipgames.web.app import create_app
from flipgames.web.db import Transactions, make_engine, review_claims
from flipgames.web.review import Reviews
from flipgames.web.review_store import STALE_SECONDS, ReviewStore
from flipgames.web.settings import Settings

Key = tuple[str, int]


@pytest.fixture
def key(database: str) -> Key:
    """The review's key: a match of the database (a stored review belongs to one), and the
    revision reviewed."""
    with TestClient(create_app(Settings(database_url=database))) as client:
        created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"})
        assert created.status_code == 201, created.text
    return (created.json()["id"], 4)


@pytest.fixture
def engine(database: str, key: Key) -> Iterator[Engine]:
    made = make_engine(database)
    yield made
    made.dispose()


@pytest.fixture
def store(engine: Engine) -> ReviewStore:
    return ReviewStore(Transactions(engine))


def final_state() -> State:
    state = make("flipflop-3x3").new_initial_state()
    for _ in range(3):
        state = state.apply(state.legal_actions()[0])
    return state


def silence(engine: Engine, seconds: float) -> None:
    """Make the claim's maker look silent for ``seconds``."""
    with engine.begin() as connection:
        connection.execute(
            update(review_claims).values(heard_at=datetime.now(UTC) - timedelta(seconds=seconds))
        )


def test_the_first_process_asked_makes_it_and_the_others_read_its_progress(
    store: ReviewStore,
    key: Key,
) -> None:
    assert store.claim(key, "first", total=9) == store.claim(key, "first", total=9)
    assert store.claim(key, "first", total=9).mine
    theirs = store.claim(key, "second", total=9)
    assert (theirs.mine, theirs.review, theirs.done, theirs.total) == (False, None, 0, 9)
    store.progress(key, "first", 5, 9)
    store.progress(key, "second", 7, 9)  # not its claim: changes nothing
    assert store.claim(key, "second", total=9).done == 5
    store.save(key, {"points": [0.5] * 9})
    done = store.claim(key, "second", total=9)
    assert (done.mine, done.review, done.done) == (False, {"points": [0.5] * 9}, 9)


def test_a_silent_makers_claim_is_taken_over_and_a_given_up_one_at_once(
    store: ReviewStore, key: Key, engine: Engine
) -> None:
    assert store.claim(key, "first", total=9).mine
    silence(engine, STALE_SECONDS - 5)
    assert not store.claim(key, "second", total=9).mine  # still heard of recently enough
    silence(engine, STALE_SECONDS + 1)
    assert store.claim(key, "second", total=9).mine
    assert not store.claim(key, "first", total=9).mine  # the first comes back: it is taken
    store.release(key, "first")  # not its claim any more: changes nothing
    assert not store.claim(key, "third", total=9).mine
    store.release(key, "second")
    assert store.claim(key, "third", total=9).mine


def answer(reviews: Reviews, key: Key, state: State) -> dict[str, Any]:
    return reviews.job(key, state, seed=1).answer()


def test_two_processes_asked_for_one_review_make_it_once(
    store: ReviewStore, key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, started, finish = final_state(), threading.Event(), threading.Event()
    calls: list[int] = []

    class Made:
        def to_json(self) -> dict[str, Any]:
            return {"points": [0.5] * (len(state.history) + 1)}

    def slow(final: State, progress: Any, seed: int) -> Made:
        calls.append(seed)
        progress(1, len(final.history) + 1)
        started.set()
        assert finish.wait(30)
        return Made()

    monkeypatch.setattr("flipgames.web.review.review_game", slow)
    monkeypatch.setattr("flipgames.web.review.PROGRESS_SECONDS", 0.0)
    first, second = Reviews(store, "first"), Reviews(store, "second")
    try:
        assert answer(first, key, state)["status"] == "running"
        assert started.wait(30)
        waiting = answer(second, key, state)
        assert waiting == {"status": "running", "done": 1, "total": len(state.history) + 1}
        finish.set()
        for _ in range(3000):
            if answer(second, key, state)["status"] == "done":
                break
            threading.Event().wait(0.01)
        assert answer(second, key, state) == answer(first, key, state)
        assert answer(second, key, state)["status"] == "done"
        assert calls == [1]  # made by the first process only
    finally:
        finish.set()
        first.close()
        second.close()


def test_a_process_that_fails_gives_its_claim_up_and_the_next_asked_makes_it(
    store: ReviewStore, key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = final_state()

    def broken(*_: object) -> None:
        raise RuntimeError("a passing fault")

    monkeypatch.setattr("flipgames.web.review.review_game", broken)
    first = Reviews(store, "first")
    try:
        for _ in range(3000):
            if answer(first, key, state)["status"] == "failed":
                break
            threading.Event().wait(0.01)
        assert answer(first, key, state)["status"] == "failed"
        assert store.claim(key, "second", total=4).mine  # given up: no waiting for it
    finally:
        first.close()


def test_stopping_gives_up_the_claims_of_the_reviews_not_made(
    store: ReviewStore, key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, started = final_state(), threading.Event()

    def endless(final: State, progress: Any, seed: int) -> None:
        started.set()
        while True:  # until the server stops: progress raises then
            progress(1, len(final.history) + 1)
            threading.Event().wait(0.01)

    monkeypatch.setattr("flipgames.web.review.review_game", endless)
    first = Reviews(store, "first")
    assert answer(first, key, state)["status"] == "running"
    assert started.wait(30)
    assert not store.claim(key, "second", total=4).mine
    first.close()
    assert store.claim(key, "second", total=4).mine
