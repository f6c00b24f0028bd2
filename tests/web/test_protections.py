"""Protections: security headers, no CDN scripts, rate limits, JSON for every error (parse
failures, unexpected failures, a locked database)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flipgames.web.app import SECURITY_HEADERS, create_app
from flipgames.web.db import DatabaseBusy, Transactions, make_engine, migrate
from flipgames.web.settings import Settings


def make_client(tmp_path: Path, **settings: Any) -> TestClient:
    url = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    return TestClient(create_app(Settings(database_url=url, **settings)))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as test_client:
        yield test_client


def create(client: TestClient, **fields: Any) -> Any:
    return client.post("/api/matches", json={"game": "flipflop-3x3", **fields})


def refused(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    message: str = error["message"]
    return message


# --- headers and pages ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/api/games", "/static/app.css", "/nope", "/healthz"])
def test_every_response_carries_the_security_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    assert "script-src 'self'" in policy
    assert response.headers["referrer-policy"] == "no-referrer"


def test_api_docs_load_nothing_from_a_cdn(client: TestClient) -> None:
    # FastAPI's /docs and /redoc pull their scripts from a public CDN: they are not served.
    for path in ("/docs", "/redoc"):
        refused(client.get(path), 404, "not_found")
    assert client.get("/openapi.json").json()["info"]["title"] == "flipgames arcade"
    settings = Settings(database_url="sqlite://")
    for page in [*settings.templates_dir.glob("*.html"), *settings.static_dir.rglob("*.js")]:
        text = page.read_text()
        assert "http://" not in text.replace("http://www.w3.org", "")
        assert "https://" not in text, page


# --- rate limits ------------------------------------------------------------------------------


def test_match_creation_is_rate_limited_per_client(tmp_path: Path) -> None:
    with make_client(tmp_path, matches_per_minute=6, matches_burst=2) as client:
        limit = client.app.state.match_limit  # type: ignore[attr-defined]
        limit.clock = lambda: 0.0
        assert create(client, mode="local").status_code == 201
        assert create(client, mode="local").status_code == 201
        response = create(client, mode="local")
        message = refused(response, 429, "rate_limited")
        assert "new matches" in message
        assert int(response.headers["retry-after"]) >= 1
        # The bucket refills with time: ten seconds later, one more match (6 a minute).
        limit.clock = lambda: 10.0
        assert create(client, mode="local").status_code == 201


def test_actions_undo_hints_and_socket_actions_share_a_rate_limit(tmp_path: Path) -> None:
    with make_client(tmp_path, actions_per_minute=60, actions_burst=3) as client:
        # A stopped clock: no token comes back while the test runs (a hint may take seconds).
        client.app.state.action_limit.clock = lambda: 0.0  # type: ignore[attr-defined]
        created = create(client, mode="local", assist=True).json()
        match_id, token = created["id"], created["token"]
        ok = client.post(
            f"/api/matches/{match_id}/actions", json={"token": token, "action": "b1-b2"}
        )
        assert ok.status_code == 200
        assert (
            client.get(f"/api/matches/{match_id}/hint", params={"token": token}).status_code == 200
        )
        with client.websocket_connect(f"/ws/matches/{match_id}?token={token}") as socket:
            assert socket.receive_json()["type"] == "view"
            socket.send_json({"type": "action", "action": "a3-a2"})
            assert socket.receive_json()["match"]["ply"] == 2
            socket.send_json({"type": "action", "action": "a1-b1"})
            error = socket.receive_json()
            assert error["type"] == "error"
            assert error["error"]["code"] == "rate_limited"
        body = {"token": token, "action": "a1-b1"}
        refused(client.post(f"/api/matches/{match_id}/actions", json=body), 429, "rate_limited")
        refused(
            client.get(f"/api/matches/{match_id}/hint", params={"token": token}),
            429,
            "rate_limited",
        )
        # Refused requests change nothing; reading a match is not acting (its own limit).
        assert client.get(f"/api/matches/{match_id}").json()["history"] == ["b1-b2", "a3-a2"]


def test_a_limit_of_zero_turns_it_off(tmp_path: Path) -> None:
    with make_client(tmp_path, matches_per_minute=0, matches_burst=1) as client:
        for _ in range(5):
            assert create(client, mode="local").status_code == 201


# --- errors are JSON --------------------------------------------------------------------------


def test_json_nested_too_deep_for_the_parser_is_a_bad_request(client: TestClient) -> None:
    match_id = create(client, mode="local").json()["id"]
    body = "[" * 5000 + "]" * 5000
    response = client.post(
        f"/api/matches/{match_id}/actions",
        content=body,
        headers={"content-type": "application/json"},
    )
    refused(response, 422, "bad_request")


def test_a_number_too_long_to_read_is_a_bad_request(client: TestClient) -> None:
    match_id = create(client, mode="local").json()["id"]
    body = '{"token": "t", "action": "a1-a2", "ply": ' + "9" * 6000 + "}"
    response = client.post(
        f"/api/matches/{match_id}/actions",
        content=body,
        headers={"content-type": "application/json"},
    )
    refused(response, 422, "bad_request")


def test_an_unexpected_failure_is_a_json_500(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with make_client(tmp_path) as normal:
        match_id = create(normal, mode="ai", seed=1).json()["id"]
        app = normal.app
    service = app.state.service  # type: ignore[attr-defined]

    def broken(*_args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(service, "hint", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get(f"/api/matches/{match_id}/hint", params={"token": "x"})
        message = refused(response, 500, "internal")
        assert "a bug" not in message  # the details go to the log, not to the client


def hold_write_lock(path: Path) -> sqlite3.Connection:
    """Another process's view: a connection holding SQLite's write lock until closed."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("UPDATE schema_version SET version = version")
    return holder


def test_a_database_locked_for_too_long_is_a_json_503(tmp_path: Path) -> None:
    with make_client(tmp_path, lock_wait_seconds=0.0) as client:
        assert create(client, mode="local").status_code == 201
        holder = hold_write_lock(tmp_path / "arcade.sqlite")
        try:
            response = create(client, mode="local")
        finally:
            holder.close()
        refused(response, 503, "busy")
        assert response.headers["retry-after"] == "5"
        # Nothing was half-written: the next creation works and there are two matches.
        assert create(client, mode="local").status_code == 201


def test_a_locked_database_is_waited_for_and_the_work_retried(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'arcade.sqlite'}", busy_timeout=0.0)
    migrate(engine)
    holder = hold_write_lock(tmp_path / "arcade.sqlite")
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        # The other writer finishes while we wait.
        pauses.append(seconds)
        holder.commit()
        holder.close()

    transactions = Transactions(engine, wait_seconds=10.0, sleep=sleep)
    written = transactions.run(
        lambda c: c.exec_driver_sql("UPDATE schema_version SET version = version").rowcount
    )
    assert written == 1
    assert len(pauses) == 1
    engine.dispose()


@pytest.mark.parametrize(
    ("failure", "code"), [(RuntimeError("a bug"), "internal"), (DatabaseBusy("locked"), "busy")]
)
def test_a_failure_behind_a_socket_action_is_a_json_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: Exception, code: str
) -> None:
    with make_client(tmp_path) as client:
        created = create(client, mode="local").json()
        service = client.app.state.service  # type: ignore[attr-defined]

        def broken(*_args: Any) -> Any:
            raise failure

        monkeypatch.setattr(service, "play", broken)
        with client.websocket_connect(f"/ws/matches/{created['id']}") as socket:
            assert socket.receive_json()["type"] == "view"
            socket.send_json({"type": "action", "action": "b1-b2"})
            message = socket.receive_json()
            assert message["type"] == "error"
            assert message["error"]["code"] == code
            assert "a bug" not in message["error"]["message"]
            # The socket stays open: the next message is answered too.
            socket.send_json({"type": "action", "action": "b1-b2"})
            assert socket.receive_json()["error"]["code"] == code
