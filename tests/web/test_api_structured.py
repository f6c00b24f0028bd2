"""The view's structured actions and the games' manifest data: legal actions and the history
as State.action_info, the board module and the lobby pitch from each game's manifest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flipgames.core.manifest import manifest_for
from flipgames.web.app import create_app
from flipgames.web.settings import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}",
        templates_dir=tmp_path / "templates",
        static_dir=tmp_path / "static",
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_games_list_their_board_module_and_pitch(client: TestClient) -> None:
    for info in client.get("/api/games").json():
        manifest = manifest_for(info["name"])
        assert (info["board"], info["pitch"]) == (manifest.board, manifest.pitch)


def test_the_view_sends_structured_legal_actions_and_history(client: TestClient) -> None:
    response = client.post("/api/matches", json={"game": "flip-switch", "mode": "local", "seed": 3})
    created = response.json()
    view = created["match"]
    assert view["board"] == "flip-switch"
    assert [a["text"] for a in view["legal_actions"]] == view["legal"]
    assert {a["kind"] for a in view["legal_actions"]} == {"flip"}
    response = client.post(
        f"/api/matches/{created['id']}/actions",
        json={"token": created["token"], "action": "b2"},
    )
    view = response.json()
    flip, reveal = view["moves"]
    assert (flip["kind"], flip["square"], flip["by"], flip["chance"]) == ("flip", "b2", 0, False)
    assert (reveal["kind"], reveal["by"], reveal["chance"]) == ("reveal", -1, True)
    assert reveal["text"] == view["history"][1] == reveal["shape"]


def test_a_spectator_gets_no_legal_actions_but_the_history(client: TestClient) -> None:
    created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "online"}).json()
    client.post(
        f"/api/matches/{created['id']}/actions",
        json={"token": created["token"], "action": "b1xb3"},
    )
    view = client.get(f"/api/matches/{created['id']}").json()
    assert view["legal_actions"] == []
    assert view["moves"] == [
        {
            "id": 16,
            "text": "b1xb3",
            "chance": False,
            "kind": "capture",
            "from": "b1",
            "to": "b3",
            "face": "rook",
            "by": 0,
        }
    ]
