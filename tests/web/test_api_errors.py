"""Every refusal in the contract's error table: its status, its code, and that nothing changed.

The match under attack is an online FlipFlop 3x3 game one move in (Black to move); after each
refused request its ply and history, as stored, are what they were before.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select

from flipgames.web.app import create_app
from flipgames.web.db import matches
from flipgames.web.settings import Settings


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arcade.sqlite'}"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=db_url))) as test_client:
        yield test_client


class Match:
    """An online match (assistance on) with both seats' tokens; White has played b1-b2."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        # Hints and analysis on, so their own refusals (turn, token) can be tested.
        body = {"game": "flipflop-3x3", "mode": "online", "assist": True}
        created = client.post("/api/matches", json=body)
        assert created.status_code == 201
        body = created.json()
        self.id: str = body["id"]
        self.white: str = body["token"]
        self.black: str = body["links"]["invite"].split("token=")[1]
        self.post("actions", {"token": self.white, "action": "b1-b2"}).raise_for_status()
        self.before = self.stored()

    def post(self, what: str, body: Any) -> Any:
        return self.client.post(f"/api/matches/{self.id}/{what}", json=body)

    def stored(self) -> tuple[int, list[str]]:
        view = self.client.get(f"/api/matches/{self.id}").json()
        return view["ply"], view["history"]

    def refused(self, response: Any, status: int, code: str) -> str:
        """Assert the refusal and that the match is unchanged; return the message."""
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert error["code"] == code
        assert error["message"]
        assert self.stored() == self.before
        message: str = error["message"]
        return message


@pytest.fixture
def match(client: TestClient) -> Match:
    return Match(client)


def count_matches(db_url: str) -> int:
    engine = create_engine(db_url)
    with engine.connect() as connection:
        count = connection.execute(select(func.count()).select_from(matches)).scalar_one()
    engine.dispose()
    return int(count)


# --- actions ----------------------------------------------------------------------------------


def test_missing_token(match: Match) -> None:
    message = match.refused(match.post("actions", {"action": "a3-a2"}), 403, "bad_token")
    assert "token" in message


def test_empty_token(match: Match) -> None:
    match.refused(match.post("actions", {"token": "", "action": "a3-a2"}), 403, "bad_token")


def test_wrong_token(match: Match) -> None:
    response = match.post("actions", {"token": "not-a-seat", "action": "a3-a2"})
    match.refused(response, 403, "bad_token")


def test_token_of_another_match(client: TestClient, match: Match) -> None:
    other = Match(client)
    response = match.post("actions", {"token": other.black, "action": "a3-a2"})
    match.refused(response, 403, "bad_token")
    assert other.stored() == other.before


def test_out_of_turn(match: Match) -> None:
    response = match.post("actions", {"token": match.white, "action": "a1-a2"})
    match.refused(response, 409, "not_your_turn")


def test_illegal_action(match: Match) -> None:
    response = match.post("actions", {"token": match.black, "action": "a3-a1"})
    message = match.refused(response, 422, "illegal_action")
    assert "a3-a1" in message


def test_malformed_action(match: Match) -> None:
    response = match.post("actions", {"token": match.black, "action": "zz9"})
    message = match.refused(response, 422, "malformed_action")
    assert "zz9" in message


def test_stale_ply(match: Match) -> None:
    response = match.post("actions", {"token": match.black, "action": "a3-a2", "ply": 0})
    message = match.refused(response, 409, "stale")
    assert "ply 1" in message


def test_current_ply_is_accepted(match: Match) -> None:
    response = match.post("actions", {"token": match.black, "action": "a3-a2", "ply": 1})
    assert response.status_code == 200
    assert match.stored() == (2, ["b1-b2", "a3-a2"])


def test_finished_match(client: TestClient) -> None:
    created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"}).json()
    view = created["match"]
    rng = random.Random(6)
    while view["status"] == "playing":
        body = {"token": created["token"], "action": rng.choice(view["legal"])}
        view = client.post(f"/api/matches/{created['id']}/actions", json=body).json()
    before = client.get(f"/api/matches/{created['id']}").json()
    response = client.post(
        f"/api/matches/{created['id']}/actions", json={"token": created["token"], "action": "a1-a2"}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "game_over"
    assert client.get(f"/api/matches/{created['id']}").json() == before


def test_unknown_match(client: TestClient) -> None:
    response = client.post("/api/matches/no-such-match/actions", json={"token": "x", "action": "a"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert client.get("/api/matches/no-such-match").json()["error"]["code"] == "not_found"


def test_bad_json(match: Match) -> None:
    response = match.client.post(
        f"/api/matches/{match.id}/actions",
        content=b'{"token": "x", "action": ',
        headers={"content-type": "application/json"},
    )
    match.refused(response, 422, "bad_request")


def test_wrong_field_types(match: Match) -> None:
    body = {"token": match.black, "action": "a3-a2", "ply": "1"}
    message = match.refused(match.post("actions", body), 422, "bad_request")
    assert "ply" in message


def test_unknown_field(match: Match) -> None:
    body = {"token": match.black, "action": "a3-a2", "seat": 1}
    message = match.refused(match.post("actions", body), 422, "bad_request")
    assert "seat" in message


def test_missing_action(match: Match) -> None:
    message = match.refused(match.post("actions", {"token": match.black}), 422, "bad_request")
    assert "action" in message


def test_oversized_body(match: Match) -> None:
    body = {"token": match.black, "action": "a3-a2", "padding": "x" * 17_000}
    match.refused(match.post("actions", body), 413, "too_large")


def test_oversized_body_without_a_length(match: Match) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"token": "' + match.black.encode() + b'", "action": "a3-a2", "x": "'
        for _ in range(20):
            yield b"y" * 1024
        yield b'"}'

    response = match.client.post(
        f"/api/matches/{match.id}/actions",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    match.refused(response, 413, "too_large")


# --- other match endpoints ------------------------------------------------------------------


def test_view_with_a_wrong_token(match: Match) -> None:
    response = match.client.get(f"/api/matches/{match.id}", params={"token": "nope"})
    match.refused(response, 403, "bad_token")


def test_undo_with_a_wrong_token(client: TestClient) -> None:
    created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "ai"}).json()
    client.post(
        f"/api/matches/{created['id']}/actions", json={"token": created["token"], "action": "b1-b2"}
    ).raise_for_status()
    before = client.get(f"/api/matches/{created['id']}").json()
    response = client.post(f"/api/matches/{created['id']}/undo", json={"token": "nope"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "bad_token"
    assert client.get(f"/api/matches/{created['id']}").json() == before


def test_hint_without_a_token(match: Match) -> None:
    match.refused(match.client.get(f"/api/matches/{match.id}/hint"), 403, "bad_token")


def test_hint_out_of_turn(match: Match) -> None:
    response = match.client.get(f"/api/matches/{match.id}/hint", params={"token": match.white})
    match.refused(response, 409, "not_your_turn")


def test_analysis_with_a_wrong_token(match: Match) -> None:
    response = match.client.get(f"/api/matches/{match.id}/analysis", params={"token": "x"})
    match.refused(response, 403, "bad_token")


def test_unknown_route(client: TestClient) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


# --- creating matches -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code", "quoted"),
    [
        ({"game": "chess"}, 404, "unknown_game", "chess"),
        ({"game": "flip-switch", "options": {"colour": "red"}}, 422, "bad_option", "colour"),
        ({"game": "flip-switch", "options": {"rounds": 0}}, 422, "bad_option", "rounds"),
        ({"game": "flip-switch", "options": {"rounds": True}}, 422, "bad_request", "rounds"),
        # A track may be a file path on the command line; never from a browser.
        (
            {"game": "checkered-flag", "options": {"track": "/etc/flipgames/track.json"}},
            422,
            "bad_option",
            "track",
        ),
        (
            {"game": "checkered-flag", "options": {"track": "track.json"}},
            422,
            "bad_option",
            "track",
        ),
        ({"game": "flipflop", "mode": "ai", "level": "grandmaster"}, 422, "bad_option", "level"),
        ({"game": "flipflop", "mode": "ai", "level": "perfect"}, 409, "unavailable", "perfect"),
        ({"game": "flip-switch", "mode": "ai", "level": "perfect"}, 409, "unavailable", "perfect"),
        ({"game": "flipflop", "mode": "online", "seed": 7}, 422, "bad_request", "seed"),
        ({"game": "flipflop", "clock": {"initial": 60}}, 422, "bad_request", "clocks"),
        (
            {"game": "flipflop", "mode": "local", "clock": {"initial": 60}},
            422,
            "bad_request",
            "clocks",
        ),
        ({"game": "flipflop", "seat": 2}, 422, "bad_request", "seat"),
        ({"game": "flipflop", "mode": "solo"}, 422, "bad_request", "mode"),
        ({"game": "flipflop", "seed": -1}, 422, "bad_request", "seed"),
        ({"options": {}}, 422, "bad_request", "game"),
    ],
)
def test_refused_creation_creates_nothing(
    client: TestClient, db_url: str, body: dict[str, Any], status: int, code: str, quoted: str
) -> None:
    response = client.post("/api/matches", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert quoted in error["message"]
    assert count_matches(db_url) == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"mode": "local", "level": "easy"},
            "a level is for matches against the computer (mode ai), not local ones",
        ),
        (
            {"mode": "online", "seed": 7},
            "an online match cannot be given a seed: its creator could foresee every chance "
            "outcome (tiles, spinners)",
        ),
        (
            {"mode": "ai", "clock": {"initial": 60}},
            "clocks are for online matches between two people (the computer takes no time, and "
            "one screen has one player to move)",
        ),
    ],
)
def test_what_a_mode_has_no_use_for_is_refused_in_words(
    client: TestClient, body: dict[str, Any], message: str
) -> None:
    """The request model refuses these (schemas.CreateMatch): the message is the whole
    error's, with no validator's prefix."""
    response = client.post("/api/matches", json={"game": "flipflop", **body})
    assert response.status_code == 422
    assert response.json()["error"] == {"code": "bad_request", "message": message}


def test_oversized_creation_creates_nothing(client: TestClient, db_url: str) -> None:
    response = client.post("/api/matches", json={"game": "flipflop", "options": {"x" * 20_000: 1}})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    assert count_matches(db_url) == 0
