"""The lessons API: every game's lesson with a drawable view per step; each attempt judged
by the engine (illegal, legal but off the goal, reached) in words; bad input refused and
nothing stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flipgames.core.lessons import has_lesson, lesson_for
from flipgames.core.registry import game_names
from flipgames.web.app import create_app
from flipgames.web.settings import Settings

GAMES = [name for name in game_names() if has_lesson(name)]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.sqlite'}"))) as c:
        yield c


def test_the_list_names_every_game_with_a_lesson(client: TestClient) -> None:
    games = client.get("/api/games").json()
    assert [game["name"] for game in games if game["lesson"]] == GAMES
    listed = client.get("/api/lessons").json()
    assert [entry["name"] for entry in listed] == GAMES
    assert all(entry["steps"] == len(lesson_for(entry["name"]).steps) for entry in listed)
    assert all(entry["art"].startswith("<svg") for entry in listed)


@pytest.mark.parametrize("game", GAMES)
def test_a_lesson_gives_each_steps_rule_goal_and_position(client: TestClient, game: str) -> None:
    data = client.get(f"/api/lessons/{game}").json()
    found = lesson_for(game)
    assert data["intro"] == found.intro and len(data["steps"]) == len(found.steps)
    for number, (shown, step) in enumerate(zip(data["steps"], found.steps, strict=True), 1):
        assert shown["number"] == number
        assert (shown["title"], shown["rule"], shown["goal"]) == (
            step.title,
            step.rule,
            step.goal.says,
        )
        view = shown["view"]
        start = step.start(found.game(game))
        assert view["observation"] == start.observation(start.current_player)
        assert view["seat"] == start.current_player and view["status"] == "playing"
        assert [a["text"] for a in view["legal_actions"]] == view["legal"]
        assert shown["solution"]["text"] in view["legal"]
        # Every solution, played through the API, reaches the goal and leads on.
        for text in step.solutions:
            verdict = client.post(
                f"/api/lessons/{game}/{number}/attempt", json={"action": text}
            ).json()
            assert verdict["legal"] and verdict["achieved"], verdict
            assert verdict["message"] == step.done and verdict["action"] == text
            assert verdict["next"] == (number + 1 if number < len(found.steps) else None)
            assert verdict["view"]["ply"] == view["ply"] + 1 + len(step.then)


def test_a_wrong_move_is_answered_in_words_and_changes_nothing(client: TestClient) -> None:
    url = "/api/lessons/flipflop-3x3/3/attempt"
    illegal = client.post(url, json={"action": "a3-a2"}).json()
    assert illegal == {
        "action": None,
        "legal": False,
        "achieved": False,
        "message": "'a3-a2' is not legal: White has no piece on a3",
        "view": None,
        "next": None,
    }
    missed = client.post(url, json={"action": "a1-a2"}).json()
    assert missed["legal"] and not missed["achieved"] and missed["next"] is None
    assert missed["message"].startswith("a1-a2 is a legal move, but it captures nothing")
    assert missed["view"]["history"] == ["a1-a2"]
    # Nothing is stored: the step starts from its position again.
    assert client.post(url, json={"action": "b1xb3"}).json()["achieved"]
    garbled = client.post(url, json={"action": "hello"}).json()
    assert not garbled["legal"] and "hello" in garbled["message"]


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/api/lessons/chess", None, 404, "not_found"),
        ("/api/lessons/chess/1/attempt", {"action": "e4"}, 404, "not_found"),
        ("/api/lessons/flipflop-3x3/8/attempt", {"action": "a1-a2"}, 404, "not_found"),
        ("/api/lessons/flipflop-3x3/0/attempt", {"action": "a1-a2"}, 422, None),
        ("/api/lessons/flipflop-3x3/11/attempt", {"action": "a1-a2"}, 422, None),
        ("/api/lessons/flipflop-3x3/1/attempt", {"action": "a1-a2", "x": 1}, 422, None),
        ("/api/lessons/flipflop-3x3/1/attempt", {"action": "a" * 65}, 422, None),
        ("/api/lessons/flipflop-3x3/1/attempt", {"action": 5}, 422, None),
        ("/api/lessons/flipflop-3x3/1/attempt", {}, 422, None),
    ],
)
def test_bad_requests_are_refused(
    client: TestClient, path: str, body: object, status: int, code: str | None
) -> None:
    answer = client.post(path, json=body) if body is not None else client.get(path)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["message"]
    if code:
        assert error["code"] == code


def test_the_pages_are_served_and_an_unknown_game_has_none(client: TestClient) -> None:
    first = client.get("/learn", follow_redirects=False)
    assert first.status_code == 307 and first.headers["location"] == f"/learn/{GAMES[0]}"
    for game in GAMES:
        shown = client.get(f"/learn/{game}")
        assert shown.status_code == 200 and 'src="/static/learn.js"' in shown.text
    missing = client.get("/learn/<script>alert(1)</script>")
    assert missing.status_code == 404 and "<script>alert" not in missing.text
