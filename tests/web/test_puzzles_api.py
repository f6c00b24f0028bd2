"""The puzzle API: a puzzle's view reveals neither the answer nor any value; the answer
endpoint checks a move against the solver's values; bad input is refused and reveals nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flipgames import make
from flipgames.lab.puzzles import make_puzzles
from flipgames.web.app import create_app
from flipgames.web.settings import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.sqlite'}"))) as c:
        yield c


@pytest.mark.parametrize("game", ["flipflop-3x3", "rubiks-flip", "checkered-flag"])
def test_a_puzzle_hides_its_answer_until_answered(client: TestClient, game: str) -> None:
    shown = client.get(f"/api/puzzles/{game}/3")
    assert shown.status_code == 200
    data = shown.json()
    (expected,) = make_puzzles(make(game), 1, 3)
    assert data["question"] == expected.question and data["actions"] == list(expected.actions)
    # The position in notation where the game has one (Checkered Flag has none).
    assert data["position"] == expected.position
    assert (data["position"] is None) == (game == "checkered-flag")
    # No key anywhere carries the answer or a move's value; the structured record of the
    # moves already played (a spin's "values" are its spinner's faces) is public.
    public = {**data, "view": {k: v for k, v in data["view"].items() if k != "moves"}}
    text = json.dumps(public)
    for secret in ("answer", "values", "explanation", "best", "win_float"):
        assert f'"{secret}"' not in text
    assert [m["text"] for m in data["view"]["moves"]] == data["actions"]
    view = data["view"]
    assert len(view["legal"]) > 1
    assert [a["text"] for a in view["legal_actions"]] == view["legal"]
    assert view["history"] == data["actions"] and view["current_player"] == data["to_move"]

    wrong = next(a for a in view["legal"] if a != expected.answer)
    verdict = client.post(f"/api/puzzles/{game}/3/answer", json={"action": wrong}).json()
    assert verdict["correct"] is False and verdict["answer"] == expected.answer
    assert verdict["values"] == [v.to_json() for v in expected.values]
    right = client.post(f"/api/puzzles/{game}/3/answer", json={"action": expected.answer}).json()
    assert right["correct"] is True and right["next"] == 4
    assert expected.answer in right["explanation"]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/puzzles/flipfour/1", None, 404),
        ("/api/puzzles/flipflop-3x3/0", None, 422),
        ("/api/puzzles/flipflop-3x3/x", None, 422),
        ("/api/puzzles/flipflop-3x3/1/answer", {"action": "z9-z8"}, 422),
        ("/api/puzzles/flipflop-3x3/1/answer", {"action": 5}, 422),
        ("/api/puzzles/flipflop-3x3/1/answer", {"move": "a1-a2"}, 422),
    ],
)
def test_bad_requests_are_refused_with_one_message(
    client: TestClient, path: str, body: object, status: int
) -> None:
    answer = client.get(path) if body is None else client.post(path, json=body)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert error["message"] and "answer" not in error["message"]


def test_the_pages_are_served_and_the_lobby_links_them(client: TestClient) -> None:
    assert "puzzle.js" in client.get("/puzzles").text
    assert "puzzle.js" in client.get("/puzzles/checkered-flag").text
    assert client.get("/puzzles/flipfour").status_code == 404
    assert 'href="/puzzles"' in client.get("/").text
    names = [g["name"] for g in client.get("/api/puzzles").json()]
    assert names == ["flipflop-3x3", "rubiks-flip", "checkered-flag"]
