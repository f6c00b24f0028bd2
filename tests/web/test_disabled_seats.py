"""A player the operator disabled can no longer use the seat links of their unfinished
matches: moves, offers, resignations and chat by their token are refused (403 ``disabled``,
"this account is disabled") over HTTP and the WebSocket, whatever session comes with them,
and change nothing; their opponent may abort the match at any ply; ``enable`` gives the
seats back. On SQLite and PostgreSQL, the server running while the operator acts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from people import HERE, account

from flipgames.web.app import create_app
from flipgames.web.community import admin
from flipgames.web.db import make_engine
from flipgames.web.settings import Settings


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database))) as test_client:
        yield test_client


def operator(database: str, action: str, name: str) -> str:
    """What ``flipgames admin ACTION NAME`` does, in this process."""
    engine = make_engine(database)
    try:
        act = {"disable": admin.disable, "enable": admin.enable}[action]
        return act(engine, name)
    finally:
        engine.dispose()


def a_started_match(client: TestClient) -> tuple[str, str, str, dict[str, str]]:
    """An online FlipFlop 3x3 match between the accounts Mallory (first seat, who has
    moved) and Ada (second): its id, Mallory's and Ada's tokens, Ada's headers."""
    mallory, ada = account(client, "Mallory"), account(client, "Ada")
    created = client.post(
        "/api/matches", json={"game": "flipflop-3x3", "mode": "online"}, headers=mallory
    ).json()
    match_id, token = created["id"], created["token"]
    invite = created["links"]["invite"].split("token=")[1]
    assert client.get(f"/api/matches/{match_id}", params={"token": invite}, headers=ada).is_success
    moved = client.post(
        f"/api/matches/{match_id}/actions",
        json={"token": token, "action": "b1xb3"},
        headers=HERE,
    )
    assert moved.is_success, moved.text
    answer = client.post(
        f"/api/matches/{match_id}/actions",
        json={"token": invite, "action": _first(client, match_id, invite)},
        headers=HERE,
    )
    assert answer.is_success, answer.text
    return match_id, token, invite, ada


def _first(client: TestClient, match_id: str, token: str) -> str:
    legal = client.get(f"/api/matches/{match_id}", params={"token": token}).json()["legal"]
    return str(legal[0])


def refused(answer: Any) -> None:
    assert answer.status_code == 403, answer.text
    error = answer.json()["error"]
    assert error["code"] == "disabled"
    assert "this account is disabled" in error["message"]


def test_a_disabled_players_seat_token_acts_no_more_and_enable_gives_it_back(
    database: str, client: TestClient
) -> None:
    match_id, token, invite, _ = a_started_match(client)
    before = client.get(f"/api/matches/{match_id}", params={"token": token}).json()
    assert before["ply"] == 2 and before["abort"] is False  # both have moved
    assert operator(database, "disable", "Mallory").startswith("disabled Mallory")
    move = _first(client, match_id, token)
    url = f"/api/matches/{match_id}"
    for path, body in (
        ("actions", {"action": move}),
        ("draw", {"answer": "offer"}),
        ("takeback", {"answer": "offer"}),
        ("resign", {}),
        ("abort", {}),
    ):
        refused(client.post(f"{url}/{path}", json={"token": token, **body}, headers=HERE))
    refused(client.get(f"{url}/hint", params={"token": token}))
    after = client.get(url, params={"token": token}).json()
    assert (after["ply"], after["status"], after["draw_offer"]) == (2, "playing", None)
    assert after["takeback_offer"] is None
    # Its opponent's view offers the abort now; the disabled seat's does not act.
    assert client.get(url, params={"token": invite}).json()["abort"] is True
    operator(database, "enable", "Mallory")
    moved = client.post(f"{url}/actions", json={"token": token, "action": move}, headers=HERE)
    assert moved.is_success, moved.text
    assert moved.json()["abort"] is False


def test_the_opponent_of_a_disabled_player_may_abort_at_any_ply(
    database: str, client: TestClient
) -> None:
    match_id, token, invite, ada = a_started_match(client)
    operator(database, "disable", "Mallory")
    url = f"/api/matches/{match_id}"
    aborted = client.post(f"{url}/abort", json={"token": invite}, headers=ada)
    assert aborted.is_success, aborted.text
    assert (aborted.json()["ending"], aborted.json()["result"]) == ("aborted", "*")
    operator(database, "enable", "Mallory")  # a finished match stays as it ended
    assert client.get(url, params={"token": token}).json()["ending"] == "aborted"


def test_an_open_socket_of_a_disabled_player_can_neither_move_nor_chat(
    database: str, client: TestClient
) -> None:
    match_id, token, invite, _ = a_started_match(client)
    move = _first(client, match_id, token)
    with client.websocket_connect(f"/ws/matches/{match_id}?chat=true&token={token}") as socket:
        assert socket.receive_json()["type"] == "view"
        operator(database, "disable", "Mallory")
        for message in (
            {"type": "action", "action": move, "ply": 2},
            {"type": "chat", "text": "still here?"},
        ):
            socket.send_text(json.dumps(message))
            while (answer := socket.receive_json())["type"] != "error":
                pass
            assert answer["error"]["code"] == "disabled"
    view = client.get(f"/api/matches/{match_id}", params={"token": invite}).json()
    assert view["ply"] == 2


def test_the_opponents_open_page_is_sent_the_match_again_when_the_operator_acts(
    database: str, client: TestClient
) -> None:
    """The running server is told (NOTIFY on PostgreSQL, the note a SQLite server reads
    every second): the opponent's page offers the abort at once, and no more after enable."""
    match_id, _, invite, ada = a_started_match(client)
    url = f"/ws/matches/{match_id}?token={invite}"
    with client.websocket_connect(url, headers=ada) as socket:
        assert socket.receive_json()["match"]["abort"] is False  # both have moved
        for action, offered in (("disable", True), ("enable", False)):
            operator(database, action, "Mallory")
            while (message := socket.receive_json())["type"] != "view":
                pass
            assert message["match"]["abort"] is offered
