"""What players expect around a game: resigning, draw offers, rematches and seeing whether
the opponent is there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flipgames.web.app import create_app
from flipgames.web.settings import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}")
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def online(client: TestClient) -> dict[str, Any]:
    body = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "online"}).json()
    return {
        "id": body["id"],
        "white": body["token"],
        "black": body["links"]["invite"].split("token=")[1],
    }


def post(client: TestClient, online: dict[str, Any], what: str, seat: str, **body: Any) -> Any:
    return client.post(f"/api/matches/{online['id']}/{what}", json={"token": online[seat], **body})


def view(client: TestClient, online: dict[str, Any], seat: str | None = None) -> Any:
    params = {"token": online[seat]} if seat else {}
    return client.get(f"/api/matches/{online['id']}", params=params).json()


def test_resigning_ends_the_match_for_the_other_player(
    client: TestClient, online: dict[str, Any]
) -> None:
    post(client, online, "actions", "white", action="b1xb3")
    answer = post(client, online, "resign", "black")
    assert answer.status_code == 200, answer.text
    after = view(client, online, "white")
    assert (after["status"], after["result"], after["ending"]) == ("finished", "1-0", "resignation")
    assert after["returns"] == [1, -1]
    assert after["legal"] == []
    refused = post(client, online, "actions", "white", action="a1-a2")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "game_over"
    assert "resignation" in refused.json()["error"]["message"]
    record = client.get(f"/api/matches/{online['id']}/record").json()
    assert record["ending"] == {"reason": "resignation", "result": "1-0"}
    assert record["seed"] is not None  # the match is over: its seed is no secret any more


def test_a_spectator_cannot_resign(client: TestClient, online: dict[str, Any]) -> None:
    response = client.post(f"/api/matches/{online['id']}/resign", json={})
    assert response.status_code == 403
    assert view(client, online)["status"] == "playing"


def test_a_draw_offer_accepted_ends_the_match_drawn(
    client: TestClient, online: dict[str, Any]
) -> None:
    offered = post(client, online, "draw", "white", answer="offer").json()
    assert offered["draw_offer"] == 0
    assert view(client, online, "black")["draw_offer"] == 0
    again = post(client, online, "draw", "white", answer="offer")
    assert again.status_code == 409 and again.json()["error"]["code"] == "unavailable"
    own = post(client, online, "draw", "white", answer="accept")  # not your own offer
    assert own.status_code == 409
    accepted = post(client, online, "draw", "black", answer="accept").json()
    assert (accepted["status"], accepted["result"], accepted["ending"]) == (
        "finished",
        "1/2-1/2",
        "agreement",
    )
    assert accepted["draw_offer"] is None


def test_a_draw_offer_is_declined_by_answer_or_by_a_move(
    client: TestClient, online: dict[str, Any]
) -> None:
    post(client, online, "draw", "white", answer="offer")
    declined = post(client, online, "draw", "black", answer="decline").json()
    assert (declined["draw_offer"], declined["status"]) == (None, "playing")
    post(client, online, "actions", "white", action="b1xb3")
    post(client, online, "draw", "white", answer="offer")  # offered after moving
    assert view(client, online)["draw_offer"] == 0
    post(client, online, "actions", "black", action="a3xb3")  # the reply declines it
    assert view(client, online)["draw_offer"] is None
    nothing = post(client, online, "draw", "black", answer="accept")
    assert nothing.status_code == 409
    assert nothing.json()["error"]["message"] == "there is no draw offer to accept"


def test_draws_are_offered_only_between_two_people_online(client: TestClient) -> None:
    created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "ai"}).json()
    response = client.post(
        f"/api/matches/{created['id']}/draw", json={"token": created["token"], "answer": "offer"}
    )
    assert response.status_code == 409
    assert "online" in response.json()["error"]["message"]


def test_a_rematch_swaps_the_seats_and_each_player_joins_with_their_own_token(
    client: TestClient, online: dict[str, Any]
) -> None:
    early = post(client, online, "rematch", "white")
    assert early.status_code == 409  # not before the end
    post(client, online, "resign", "white")
    first = post(client, online, "rematch", "white")
    assert first.status_code == 201, first.text
    mine = first.json()
    assert mine["seat"] == 1  # White in the first match is Black in the rematch
    assert mine["match"]["game"] == "flipflop-3x3" and mine["match"]["mode"] == "online"
    assert view(client, online, "black")["rematch"] == mine["id"]
    theirs = post(client, online, "rematch", "black").json()
    assert (theirs["id"], theirs["seat"]) == (mine["id"], 0)
    assert theirs["token"] != mine["token"]
    assert post(client, online, "rematch", "white").json()["token"] == mine["token"]  # again
    # Each token plays its own seat in the rematch.
    move = client.post(
        f"/api/matches/{mine['id']}/actions", json={"token": theirs["token"], "action": "b1xb3"}
    )
    assert move.status_code == 200, move.text
    wrong = client.post(
        f"/api/matches/{mine['id']}/actions", json={"token": theirs["token"], "action": "a3xb3"}
    )
    assert wrong.json()["error"]["code"] == "not_your_turn"


def test_a_rematch_against_the_computer_keeps_its_level(client: TestClient) -> None:
    created = client.post(
        "/api/matches", json={"game": "flipflop-3x3", "mode": "ai", "level": "medium"}
    ).json()
    client.post(f"/api/matches/{created['id']}/resign", json={"token": created["token"]})
    again = client.post(
        f"/api/matches/{created['id']}/rematch", json={"token": created["token"]}
    ).json()
    assert (again["seat"], again["match"]["level"], again["match"]["thinking"]) == (
        1,
        "medium",
        True,  # the computer has White now: it moves first
    )
    after = client.get(
        f"/api/matches/{again['id']}", params={"token": again["token"], "wait": True}
    ).json()
    assert (after["ply"], after["current_player"]) == (1, 1)


def test_presence_says_which_seats_are_connected(
    client: TestClient, online: dict[str, Any]
) -> None:
    base = f"/ws/matches/{online['id']}?presence=true&token="
    with client.websocket_connect(base + online["white"]) as white:
        assert white.receive_json()["type"] == "view"
        assert white.receive_json() == {"type": "presence", "seats": [0]}
        with client.websocket_connect(base + online["black"]) as black:
            assert black.receive_json()["type"] == "view"
            assert black.receive_json() == {"type": "presence", "seats": [0, 1]}
            assert white.receive_json() == {"type": "presence", "seats": [0, 1]}
        assert white.receive_json() == {"type": "presence", "seats": [0]}
