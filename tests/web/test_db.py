"""The database: migrations, the schema they build, and matches that outlive the app.

Every test runs on SQLite in a temporary folder, and again on PostgreSQL when
``FLIPGAMES_TEST_POSTGRES_URL`` names a database to use (its tables are dropped first);
without it the PostgreSQL runs are reported as skipped, saying why.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, insert, inspect, select, text, update
from sqlalchemy.exc import IntegrityError

from flipgames.web.app import create_app
from flipgames.web.db import (
    MIGRATIONS,
    SchemaError,
    actions,
    make_engine,
    matches,
    metadata,
    migrate,
)
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


def test_undo_deletes_the_taken_back_rows(database_url: str, engine: Engine) -> None:
    with app_client(database_url) as client:
        created = client.post(
            "/api/matches", json={"game": "flipflop-3x3", "mode": "ai", "seed": 3}
        ).json()
        post_action(client, created["id"], created["token"], "b1-b2")
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
    # to move; the next load makes the reply.
    with app_client(database_url) as client:
        created = client.post(
            "/api/matches", json={"game": "flipflop-3x3", "mode": "ai", "seed": 5}
        ).json()
    with engine.begin() as connection:
        connection.execute(insert(actions).values(match_id=created["id"], ply=0, action="b1-b2"))
    with app_client(database_url) as client:
        view = client.get(f"/api/matches/{created['id']}", params={"token": created["token"]})
    assert view.json()["ply"] == 2
    assert view.json()["current_player"] == 0
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
        with caplog.at_level(logging.ERROR, logger="flipgames.web.service"):
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
