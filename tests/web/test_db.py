"""The database: migrations, the schema they build, and matches that outlive the app.

Every test runs on SQLite in a temporary folder, and again on PostgreSQL when
``FLIPGAMES_TEST_POSTGRES_URL`` names a database to use (its tables are dropped first);
without it the PostgreSQL runs are reported as skipped, saying why.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, Engine, func, insert, inspect, select, text, update
from sqlalchemy.exc import IntegrityError

from flipgames.web.ai import Solutions
from flipgames.web.app import create_app
from flipgames.web.db import (
    MIGRATIONS,
    SchemaError,
    Transactions,
    actions,
    make_engine,
    matches,
    metadata,
    migrate,
)
from flipgames.web.matches import LiveMatches, MatchService, Played, StaleRevision
from flipgames.web.settings import Settings

# PostgreSQL runs are always collected: without a server they show as skipped, with the reason.
BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    url: str = request.getfixturevalue("postgres_url")
    engine = make_engine(url)
    metadata.drop_all(engine)  # a clean database for each test
    engine.dispose()
    return url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def new_match(engine: Engine, match_id: str = "m1") -> None:
    with engine.begin() as connection:
        connection.execute(
            insert(matches).values(
                id=match_id,
                game="flipflop-3x3",
                options="{}",
                seed=1,
                mode="local",
                created_at=datetime.now(UTC),
            )
        )


def count_actions(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(actions)).scalar_one())


def test_a_fresh_database_is_migrated_to_the_current_version(engine: Engine) -> None:
    assert migrate(engine) == len(MIGRATIONS)
    with engine.connect() as connection:
        version = connection.execute(text("SELECT version FROM schema_version")).scalar_one()
    assert version == len(MIGRATIONS)
    assert {"matches", "seats", "actions"} <= set(inspect(engine).get_table_names())


def test_migrating_again_changes_nothing(engine: Engine) -> None:
    migrate(engine)
    new_match(engine)
    assert migrate(engine) == len(MIGRATIONS)
    with engine.connect() as connection:
        assert connection.execute(select(matches.c.id)).scalars().all() == ["m1"]
        rows = connection.execute(text("SELECT version FROM schema_version")).all()
    assert len(rows) == 1


def test_the_migrated_schema_is_the_one_the_code_queries(engine: Engine) -> None:
    migrate(engine)
    inspector = inspect(engine)
    for table in metadata.sorted_tables:
        columns = {c["name"]: c["nullable"] for c in inspector.get_columns(table.name)}
        assert columns == {c.name: c.nullable for c in table.columns}, table.name
        keys = inspector.get_pk_constraint(table.name)["constrained_columns"]
        assert keys == [c.name for c in table.primary_key.columns], table.name


def test_a_new_step_upgrades_an_old_database_and_keeps_its_data(engine: Engine) -> None:
    migrate(engine)
    new_match(engine)
    steps = (*MIGRATIONS, ("ALTER TABLE matches ADD COLUMN note VARCHAR(10)",))
    assert migrate(engine, steps) == len(MIGRATIONS) + 1
    assert "note" in {c["name"] for c in inspect(engine).get_columns("matches")}
    with engine.connect() as connection:
        assert connection.execute(select(matches.c.id)).scalars().all() == ["m1"]


def test_a_failing_step_leaves_the_version_where_it_was(engine: Engine) -> None:
    migrate(engine)
    steps = (*MIGRATIONS, ("ALTER TABLE no_such_table ADD COLUMN x INTEGER",))
    with pytest.raises(Exception, match="no_such_table"):
        migrate(engine, steps)
    assert migrate(engine) == len(MIGRATIONS)


def test_a_database_from_a_newer_flipgames_is_refused(engine: Engine) -> None:
    migrate(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE schema_version SET version = version + 1"))
    with pytest.raises(SchemaError, match="upgrade flipgames"):
        migrate(engine)


def test_a_ply_is_written_once(engine: Engine) -> None:
    migrate(engine)
    new_match(engine)
    with engine.begin() as connection:
        connection.execute(insert(actions).values(match_id="m1", ply=0, action="b1xb3"))
    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(insert(actions).values(match_id="m1", ply=0, action="a1-a2"))
    assert count_actions(engine) == 1


# --- matches through the app ------------------------------------------------------------------


def app_client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url)))


def post_action(client: TestClient, match_id: str, token: str, action: str) -> Any:
    response = client.post(
        f"/api/matches/{match_id}/actions", json={"token": token, "action": action}
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_a_match_continues_in_a_new_app_on_the_same_database(database_url: str) -> None:
    with app_client(database_url) as first:
        created = first.post("/api/matches", json={"game": "flipflop-3x3", "mode": "online"}).json()
        white = created["token"]
        black = created["links"]["invite"].split("token=")[1]
        post_action(first, created["id"], white, "b1xb3")
        before = first.get(f"/api/matches/{created['id']}", params={"token": black}).json()
    with app_client(database_url) as second:
        after = second.get(f"/api/matches/{created['id']}", params={"token": black}).json()
        assert after == before
        view = post_action(second, created["id"], black, "a3xb3")
    assert view["history"] == ["b1xb3", "a3xb3"]


def wait_for_the_computer(client: TestClient, match_id: str, token: str) -> Any:
    response = client.get(f"/api/matches/{match_id}", params={"token": token, "wait": True})
    assert response.status_code == 200, response.text
    assert not response.json()["thinking"]
    return response.json()


def test_undo_deletes_the_taken_back_rows(database_url: str, engine: Engine) -> None:
    with app_client(database_url) as client:
        created = client.post(
            "/api/matches", json={"game": "flipflop-3x3", "mode": "ai", "seed": 3}
        ).json()
        post_action(client, created["id"], created["token"], "b1-b2")
        wait_for_the_computer(client, created["id"], created["token"])
        assert count_actions(engine) == 2
        response = client.post(
            f"/api/matches/{created['id']}/undo", json={"token": created["token"]}
        )
        assert response.status_code == 200
    assert count_actions(engine) == 0


def test_a_match_left_before_its_follow_ups_gets_them_on_load(
    database_url: str, engine: Engine
) -> None:
    # A server killed between committing the human's action and the AI's reply leaves the AI
    # to move; the next load starts the reply.
    with app_client(database_url) as client:
        created = client.post(
            "/api/matches", json={"game": "flipflop-3x3", "mode": "ai", "seed": 5}
        ).json()
    with engine.begin() as connection:
        connection.execute(insert(actions).values(match_id=created["id"], ply=0, action="b1-b2"))
        connection.execute(update(matches).values(revision=1))
    with app_client(database_url) as client:
        view = client.get(f"/api/matches/{created['id']}", params={"token": created["token"]})
        assert (view.json()["ply"], view.json()["thinking"]) == (1, True)
        after = wait_for_the_computer(client, created["id"], created["token"])
    assert after["ply"] == 2
    assert after["current_player"] == 0
    assert count_actions(engine) == 2


def test_a_match_that_no_longer_replays_is_an_internal_error_and_logged(
    database_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with app_client(database_url) as client:
        created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"})
        match_id = created.json()["id"]
        post_action(client, match_id, created.json()["token"], "b1xb3")
        with engine.begin() as connection:
            connection.execute(update(actions).values(action="c3-c1"))
            # As any writer does (see matches.revision): the server's live copy is now old.
            connection.execute(update(matches).values(revision=matches.c.revision + 1))
        with caplog.at_level(logging.ERROR, logger="flipgames.web.matches.live"):
            response = client.get(f"/api/matches/{match_id}")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "internal"
    assert match_id in caplog.text
    assert "c3-c1" in caplog.text


def test_matches_from_before_the_assist_setting_keep_help_against_the_ai_only(
    engine: Engine,
) -> None:
    migrate(engine, MIGRATIONS[:1])
    with engine.begin() as connection:
        for match_id, mode in (("a", "ai"), ("o", "online"), ("l", "local")):
            connection.execute(
                text(
                    "INSERT INTO matches (id, game, options, seed, mode, created_at) "
                    "VALUES (:id, 'flipflop-3x3', '{}', 1, :mode, :now)"
                ),
                {"id": match_id, "mode": mode, "now": datetime.now(UTC)},
            )
    assert migrate(engine) == len(MIGRATIONS)
    with engine.connect() as connection:
        rows = connection.execute(select(matches.c.id, matches.c.assist)).all()
    assert dict((r.id, r.assist) for r in rows) == {"a": True, "o": False, "l": False}


def test_a_match_under_other_rules_is_a_clear_409(database_url: str, engine: Engine) -> None:
    with app_client(database_url) as client:
        created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"})
        match_id = created.json()["id"]
    with engine.begin() as connection:
        connection.execute(update(matches).values(rules_version=99))
    with app_client(database_url) as client:
        response = client.get(f"/api/matches/{match_id}")
        page = client.get(f"/play/{match_id}")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "rules_changed"
    assert "version 99" in response.json()["error"]["message"]
    assert page.status_code == 409
    assert "version 99" in page.text


def test_matches_from_before_rules_versions_are_version_1_with_their_revision(
    engine: Engine,
) -> None:
    migrate(engine, MIGRATIONS[:2])
    new_match(engine)
    with engine.begin() as connection:
        connection.execute(insert(actions).values(match_id="m1", ply=0, action="b1xb3"))
    assert migrate(engine) == len(MIGRATIONS)
    with engine.connect() as connection:
        row = connection.execute(select(matches.c.rules_version, matches.c.revision)).one()
    assert (row.rules_version, row.revision) == (1, 1)


def test_a_live_match_follows_writes_by_another_server(database_url: str) -> None:
    # Two servers on one database, each holding the match live: each sees the other's moves.
    with app_client(database_url) as first, app_client(database_url) as second:
        created = first.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"})
        match_id, token = created.json()["id"], created.json()["token"]
        assert second.get(f"/api/matches/{match_id}").json()["ply"] == 0
        post_action(first, match_id, token, "b1xb3")
        assert post_action(second, match_id, token, "a3xb3")["history"] == ["b1xb3", "a3xb3"]
        assert first.get(f"/api/matches/{match_id}").json()["history"] == ["b1xb3", "a3xb3"]


def test_a_write_from_an_old_revision_is_refused(engine: Engine) -> None:
    # The race the live check cannot see (another server writes between this one's read and
    # its write) is caught by the revision in the write itself.
    migrate(engine)
    first, second = MatchService(engine, Solutions()), MatchService(engine, Solutions())
    created = first.create(
        "flipflop-3x3", {}, mode="local", level=None, seat=0, seed=1, assist=None
    )
    before = second.load(created.match_id)
    first.act(created.match_id, created.token, "b1xb3", ply=0)
    with pytest.raises(StaleRevision):
        second._commit(before, before.state.parse_action("b1-b2"))
    assert second.load(created.match_id).state.history_notation() == ["b1xb3"]


def test_a_match_is_replayed_once_per_load_not_per_request(database_url: str) -> None:
    with app_client(database_url) as first:
        created = first.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"})
        match_id, token = created.json()["id"], created.json()["token"]
        post_action(first, match_id, token, "b1xb3")
    with app_client(database_url) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        assert service.replays == 0
        with client.websocket_connect(f"/ws/matches/{match_id}") as watcher:
            watcher.receive_json()
            for action in ("a3xb3", "a1-b1"):
                post_action(client, match_id, token, action)
                assert watcher.receive_json()["match"]["history"][-1] == action
            client.get(f"/api/matches/{match_id}/record")
        assert service.replays == 1


def test_live_matches_are_bounded_and_dropped_when_idle() -> None:
    now = [0.0]
    live = LiveMatches(capacity=3, idle_seconds=10, clock=lambda: now[0])
    live.put("old", 1)
    now[0] = 5.0
    live.put("recent", 2)
    now[0] = 12.0
    live.put("new", 3)  # "old" has been unused for 12 s: dropped
    assert (live.get("old"), live.get("recent"), live.get("new")) == (None, 2, 3)
    assert len(live) == 2


def test_a_live_match_catches_up_on_another_servers_actions_without_a_replay(
    engine: Engine,
) -> None:
    # Another process played on: only its new actions are applied to the live state. When
    # the stored actions no longer begin with the live ones (an undo there), it is replayed.
    migrate(engine)
    first, second = MatchService(engine, Solutions()), MatchService(engine, Solutions())
    created = first.create("flipflop-3x3", {}, mode="ai", level="easy", seat=0, seed=1, assist=None)
    match_id, token = created.match_id, created.token
    assert second.load(match_id).state.history_notation() == []
    assert second.replays == 1
    first.act(match_id, token, "b1xb3", ply=0)
    job = first.ai_job(first.load(match_id))
    assert job is not None
    first.commit_ai(match_id, job, "a3xb3")
    caught_up = second.load(match_id)
    assert second.replays == 1
    assert caught_up.state.history_notation() == ["b1xb3", "a3xb3"]
    assert caught_up.record == Played.of(caught_up.state)
    assert caught_up.revision == first.load(match_id).revision
    first.undo(match_id, token)
    first.act(match_id, token, "b1-b2", ply=0)
    replayed = second.load(match_id)
    assert second.replays == 2
    assert replayed.state.history_notation() == ["b1-b2"]
    assert replayed.record.history == ("b1-b2",)


def test_threads_reading_an_in_memory_database_at_once_take_turns() -> None:
    """The in-memory database is one connection: readers in several threads at once (the
    server's start reads its notes and its waiting players together) must not begin a
    second transaction on it, which SQLite refuses."""
    engine = make_engine("sqlite://")
    migrate(engine)
    transactions = Transactions(engine)
    barrier = threading.Barrier(4)

    def read(_: int) -> int:
        barrier.wait()

        def count(connection: Connection) -> int:
            time.sleep(0.001)  # inside the transaction, so the other threads' reads overlap
            return int(connection.execute(select(func.count()).select_from(matches)).scalar() or 0)

        return sum(1 + transactions.run(count, read_only=True) for _ in range(50))

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(read, range(4))) == [50] * 4
