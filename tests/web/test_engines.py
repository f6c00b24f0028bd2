"""Outside engines in the arcade: registered by the operator (never named by a web user),
listed per game, seated through the API with their moves made off the request path, and a
crashing or silent engine ending the match as a forfeit with a clear reason."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flipgames.web.app import create_app
from flipgames.web.settings import Settings

TOY = f"{sys.executable} -m flipgames engine --level easy --seed 3"
SECONDS = 8

#: Speaks the protocol for FlipFlop 3x3 until asked to move; then crashes, or never answers
#: (but still reads its input, so it quits when told).
BROKEN = """
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "hello":
        print("id name broken 1"); print("games flipflop-3x3"); print("hellook")
    elif word == "isready":
        print("readyok")
    elif word == "go" and "{how}" == "crash":
        sys.exit(3)
    elif word == "quit":
        break
    sys.stdout.flush()
"""


def script(tmp_path: Path, how: str) -> str:
    path = tmp_path / f"{how}.py"
    path.write_text(BROKEN.replace("{how}", how))
    return f"{sys.executable} {path}"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}",
        engines=(
            ("toy", TOY),
            ("crashy", script(tmp_path, "crash")),
            ("silent", script(tmp_path, "hang")),
        ),
        # Long enough for a program to start on a busy machine, short for the silent one.
        engine_seconds=SECONDS,
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def create(client: TestClient, level: str, **extra: Any) -> Any:
    body = {"game": "flipflop-3x3", "mode": "ai", "level": level, "seed": 5, **extra}
    return client.post("/api/matches", json=body)


def test_registered_engines_are_listed_for_the_games_they_play(client: TestClient) -> None:
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert games["flipflop-3x3"]["engines"] == ["toy", "crashy", "silent"]
    assert games["flipfour"]["engines"] == ["toy"]  # the broken ones say FlipFlop 3x3 only
    assert "engine:toy" not in games["flipfour"]["levels"]  # built-in levels stay apart


def test_an_engine_plays_a_whole_match_through_the_api(client: TestClient) -> None:
    created = create(client, "engine:toy")
    assert created.status_code == 201, created.text
    match_id, token = created.json()["id"], created.json()["token"]
    view = created.json()["match"]
    assert view["level"] == "engine:toy"
    while view["status"] != "finished":
        assert view["legal"], view
        response = client.post(
            f"/api/matches/{match_id}/actions",
            json={"token": token, "action": view["legal"][0]},
        )
        assert response.status_code == 200, response.text
        view = client.get(f"/api/matches/{match_id}", params={"token": token, "wait": True}).json()
        assert not view["thinking"]
    assert view["ending"] is None  # ended by the rules
    assert view["result"] in ("1-0", "0-1", "1/2-1/2")
    assert any(by == 1 for by in view["actors"])  # the engine moved


def test_a_web_user_cannot_name_a_command(client: TestClient) -> None:
    for level in ("engine:nosuch", f"engine:{TOY}", "engine:"):
        refused = create(client, level)
        assert refused.status_code == 422, level
        # A level is a name the server looks up (too long to be one: refused as malformed).
        assert refused.json()["error"]["code"] in ("bad_option", "bad_request")
    refused = create(client, "engine:crashy", game="flipfour")  # not a game it plays
    assert refused.status_code == 422
    extra = create(client, "easy", engine="rm -rf /")  # no field takes a command
    assert extra.status_code == 422 and extra.json()["error"]["code"] == "bad_request"


@pytest.mark.parametrize(
    ("level", "reason"),
    [("engine:crashy", "exited"), ("engine:silent", f"did not answer 'bestmove' within {SECONDS}")],
)
def test_a_failing_engine_forfeits_instead_of_hanging_the_match(
    client: TestClient, level: str, reason: str
) -> None:
    created = create(client, level).json()
    match_id, token = created["id"], created["token"]
    client.post(f"/api/matches/{match_id}/actions", json={"token": token, "action": "b1xb3"})
    view = client.get(f"/api/matches/{match_id}", params={"token": token, "wait": True}).json()
    assert (view["status"], view["ending"], view["result"]) == ("finished", "forfeit", "1-0")
    assert reason in view["ending_detail"]
    assert level.removeprefix("engine:") in view["ending_detail"]
    assert sys.executable not in view["ending_detail"]  # the command stays the operator's
    assert not view["thinking"]
    record = client.get(f"/api/matches/{match_id}/record").json()
    assert record["ending"] == {
        "reason": "forfeit",
        "result": "1-0",
        "detail": view["ending_detail"],
    }


def test_serve_refuses_an_engine_that_does_not_start_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port, should the server start after all
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    for spec, message in [
        ("nope=/no/such/program", "--engine nope: cannot start '/no/such/program'"),
        ("mute=true", "--engine mute: the program does not speak the engine protocol"),
        ("Bad Name=true", "--engine: the name 'Bad Name' must be"),
        ("novalue", "--engine takes NAME=COMMAND"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "flipgames", "serve", "--port", port, "--engine", spec],
            capture_output=True,
            text=True,
            timeout=60,
            env={"FLIPGAMES_DATA": str(tmp_path), "PATH": "/usr/bin:/bin"},
        )
        assert done.returncode == 1, done
        assert done.stderr.startswith(f"flipgames: error: {message}"), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert "Traceback" not in done.stderr
