"""A deleted account's name is one text wherever its games appear: the match views, the
records, the rating changes, its opponents' profiles and the live games all show
``identity.DELETED_PLAYER``, through the real deletion (``DELETE /api/account``), on SQLite
and (when configured) PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from flipgames.web.app import create_app
from flipgames.web.community.identity import DELETED_PLAYER
from flipgames.web.db import players
from flipgames.web.settings import Settings

HERE = {"origin": "http://testserver"}
PASSWORD = "correct horse battery"


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=database, lobby_grace_seconds=3600))
    with TestClient(app) as test_client:
        yield test_client


def account(client: TestClient, name: str) -> dict[str, str]:
    """A new account's headers (its bearer token; the cookie the answer set is dropped)."""
    answer = client.post("/api/accounts", json={"name": name, "password": PASSWORD}, headers=HERE)
    assert answer.status_code == 201, answer.text
    client.cookies.clear()
    return {"authorization": f"Bearer {answer.json()['token']}", **HERE}


def rated_match(client: TestClient, seeker: dict[str, str], taker: dict[str, str]) -> Any:
    """A rated FlipFlop 3x3 match made through the lobby: the acceptor's answer."""
    body = {"game": "flipflop-3x3", "rated": True}
    seek = client.post("/api/seeks", json=body, headers=seeker)
    assert seek.status_code == 201, seek.text
    accepted = client.post(f"/api/seeks/{seek.json()['id']}/accept", headers=taker)
    assert accepted.status_code == 201, accepted.text
    return accepted.json()


def play_out(client: TestClient, match_id: str, token: str, seeker_token: str) -> None:
    """Both seats play their first legal action until the game ends."""
    tokens = [token, seeker_token]
    while True:
        views = [client.get(f"/api/matches/{match_id}", params={"token": t}).json() for t in tokens]
        if views[0]["status"] == "finished":
            return
        mover = next(i for i, v in enumerate(views) if v["legal"])
        action = {"token": tokens[mover], "action": views[mover]["legal"][0]}
        answer = client.post(f"/api/matches/{match_id}/actions", json=action)
        assert answer.status_code == 200, answer.text


def test_a_deleted_accounts_name_is_the_same_in_every_view(client: TestClient) -> None:
    grace, bob = account(client, "Grace"), account(client, "Bob")
    seek = client.post("/api/seeks", json={"game": "flipflop-3x3", "rated": True}, headers=grace)
    finished = client.post(f"/api/seeks/{seek.json()['id']}/accept", headers=bob).json()
    mine = client.get(f"/api/seeks/{seek.json()['id']}", headers=grace).json()
    play_out(client, finished["id"], finished["token"], mine["token"])
    ongoing = rated_match(client, grace, bob)  # still being played: a live game
    grace_seat = 1 - finished["seat"]

    gone = client.request("DELETE", "/api/account", json={"password": PASSWORD}, headers=grace)
    assert gone.status_code == 204

    with client.app.state.engine.connect() as connection:  # type: ignore[attr-defined]
        stored = connection.execute(select(players.c.name).where(players.c.deleted)).scalar_one()
    assert stored == DELETED_PLAYER  # the name every view shows is the one stored
    view = client.get(f"/api/matches/{finished['id']}").json()
    assert view["names"][grace_seat] == DELETED_PLAYER and view["names"][1 - grace_seat] == "Bob"
    changes = {c["seat"]: c["name"] for c in view["rating_changes"]}
    assert changes == {grace_seat: DELETED_PLAYER, 1 - grace_seat: "Bob"}
    record = client.get(f"/api/matches/{finished['id']}/record").json()
    assert record["names"][grace_seat] == DELETED_PLAYER
    profile = client.get("/api/players/Bob").json()
    assert {g["opponent"] for g in profile["games"]} == {DELETED_PLAYER}
    live = {g["id"]: g for g in client.get("/api/live").json()}
    assert DELETED_PLAYER in live[ongoing["id"]]["players"]
    assert "Grace" not in client.get(f"/api/matches/{finished['id']}/record").text
