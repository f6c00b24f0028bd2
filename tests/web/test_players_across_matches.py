"""Players across their matches, through the API on SQLite and (when configured) PostgreSQL:
a rematch between two signed-in players binds its seats to the same players, colours
swapped, and a rated match's rematch is rated (and rates them); a deleted account's name is
one text wherever its games appear (the match views, the records, the rating changes, its
opponents' profiles and the live games all show ``identity.DELETED_PLAYER``, through the
real deletion, ``DELETE /api/account``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from people import PASSWORD, account
from sqlalchemy import select

from flipgames.web.app import create_app
from flipgames.web.community.identity import DELETED_PLAYER
from flipgames.web.db import players
from flipgames.web.settings import Settings


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=database, lobby_grace_seconds=3600))
    with TestClient(app) as test_client:
        yield test_client


def lobby_match(
    client: TestClient, seeker: dict[str, str], taker: dict[str, str], *, rated: bool = True
) -> tuple[str, dict[str, str]]:
    """A FlipFlop 3x3 match made through the lobby: its id and each player's seat token by
    their name ("seeker", "taker")."""
    seek = client.post("/api/seeks", json={"game": "flipflop-3x3", "rated": rated}, headers=seeker)
    assert seek.status_code == 201, seek.text
    accepted = client.post(f"/api/seeks/{seek.json()['id']}/accept", headers=taker)
    assert accepted.status_code == 201, accepted.text
    mine = client.get(f"/api/seeks/{seek.json()['id']}", headers=seeker).json()
    match_id = accepted.json()["id"]
    return match_id, {"seeker": mine["token"], "taker": accepted.json()["token"]}


def rated_match(client: TestClient, seeker: dict[str, str], taker: dict[str, str]) -> Any:
    """A rated match made through the lobby: its id."""
    return lobby_match(client, seeker, taker)[0]


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
    finished, tokens = lobby_match(client, grace, bob)
    play_out(client, finished, tokens["seeker"], tokens["taker"])
    ongoing = rated_match(client, grace, bob)  # still being played: a live game
    grace_seat = client.get(f"/api/matches/{finished}?token={tokens['seeker']}").json()["seat"]

    gone = client.request("DELETE", "/api/account", json={"password": PASSWORD}, headers=grace)
    assert gone.status_code == 204

    with client.app.state.engine.connect() as connection:  # type: ignore[attr-defined]
        stored = connection.execute(select(players.c.name).where(players.c.deleted)).scalar_one()
    assert stored == DELETED_PLAYER  # the name every view shows is the one stored
    view = client.get(f"/api/matches/{finished}").json()
    assert view["names"][grace_seat] == DELETED_PLAYER and view["names"][1 - grace_seat] == "Bob"
    changes = {c["seat"]: c["name"] for c in view["rating_changes"]}
    assert changes == {grace_seat: DELETED_PLAYER, 1 - grace_seat: "Bob"}
    record = client.get(f"/api/matches/{finished}/record").json()
    assert record["names"][grace_seat] == DELETED_PLAYER
    profile = client.get("/api/players/Bob").json()
    assert {g["opponent"] for g in profile["games"]} == {DELETED_PLAYER}
    live = {g["id"]: g for g in client.get("/api/live").json()}
    assert DELETED_PLAYER in live[ongoing]["players"]
    assert "Grace" not in client.get(f"/api/matches/{finished}/record").text


@pytest.mark.parametrize("rated", [False, True], ids=["casual", "rated"])
def test_a_rematch_binds_the_same_players_colours_swapped(client: TestClient, rated: bool) -> None:
    grace, bob = account(client, "Grace"), account(client, "Bob")
    first, tokens = lobby_match(client, grace, bob, rated=rated)
    play_out(client, first, tokens["seeker"], tokens["taker"])
    before = client.get(f"/api/matches/{first}").json()["names"]
    assert sorted(before) == ["Bob", "Grace"]

    asked = client.post(f"/api/matches/{first}/rematch", json={"token": tokens["seeker"]})
    assert asked.status_code == 201, asked.text
    grace_again = asked.json()
    # Grace's seat in the rematch is bound to her at once; Bob's when he asks too.
    assert grace_again["match"]["names"][grace_again["seat"]] == "Grace"
    assert grace_again["seat"] == before.index("Bob")
    joined = client.post(f"/api/matches/{first}/rematch", json={"token": tokens["taker"]})
    assert joined.status_code == 201, joined.text
    bob_again = joined.json()
    assert bob_again["id"] == grace_again["id"] and bob_again["seat"] == before.index("Grace")
    rematch = client.get(f"/api/matches/{bob_again['id']}").json()
    assert rematch["names"] == before[::-1]  # the same two players, colours swapped
    assert rematch["rated"] is rated

    play_out(client, rematch["id"], grace_again["token"], bob_again["token"])
    ended = client.get(f"/api/matches/{rematch['id']}").json()
    assert sorted(c["name"] for c in ended["rating_changes"]) == (["Bob", "Grace"] if rated else [])
    games = client.get("/api/players/Grace").json()["ratings"].get("flipflop-3x3", {})
    assert games.get("games", 0) == (2 if rated else 0)  # the first match and its rematch
