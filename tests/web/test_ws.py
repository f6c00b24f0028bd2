"""The WebSocket in-process: views on connect, moves arriving at the other seat and at
spectators, reconnecting, refusals that change nothing, and bad connections."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from flipgames.web.app import create_app
from flipgames.web.matches import Viewer
from flipgames.web.schemas import View
from flipgames.web.settings import Settings
from flipgames.web.ws import Connection, Snapshot


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}")
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def online(client: TestClient) -> dict[str, Any]:
    """An online FlipFlop 3x3 match: its id and both seats' tokens."""
    body = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "online"}).json()
    return {
        "id": body["id"],
        "white": body["token"],
        "black": body["links"]["invite"].split("token=")[1],
    }


def url(online: dict[str, Any], seat: str | None) -> str:
    path = f"/ws/matches/{online['id']}"
    return f"{path}?token={online[seat]}" if seat else path


def stored(client: TestClient, online: dict[str, Any]) -> tuple[int, list[str]]:
    view = client.get(f"/api/matches/{online['id']}").json()
    return view["ply"], view["history"]


def test_each_seat_gets_its_own_view_on_connect(client: TestClient, online: dict[str, Any]) -> None:
    with (
        client.websocket_connect(url(online, "white")) as white,
        client.websocket_connect(url(online, "black")) as black,
        client.websocket_connect(url(online, None)) as spectator,
    ):
        views = [s.receive_json() for s in (white, black, spectator)]
    assert [v["type"] for v in views] == ["view"] * 3
    assert [v["match"]["seat"] for v in views] == [0, 1, None]
    assert views[0]["match"]["legal"] and not views[1]["match"]["legal"]
    assert views[2]["match"]["legal"] == []


def test_a_move_by_one_seat_arrives_at_the_other_and_at_spectators(
    client: TestClient, online: dict[str, Any]
) -> None:
    with (
        client.websocket_connect(url(online, "white")) as white,
        client.websocket_connect(url(online, "black")) as black,
        client.websocket_connect(url(online, None)) as spectator,
    ):
        for socket in (white, black, spectator):
            socket.receive_json()
        white.send_json({"type": "action", "action": "b1xb3", "ply": 0})
        for socket in (white, black, spectator):
            message = socket.receive_json()
            assert message["type"] == "view"
            assert message["match"]["history"] == ["b1xb3"]
        # Black answers over HTTP: the sockets hear of it too.
        response = client.post(
            f"/api/matches/{online['id']}/actions",
            json={"token": online["black"], "action": "a3xb3"},
        )
        assert response.status_code == 200
        message = white.receive_json()
        assert message["match"]["history"] == ["b1xb3", "a3xb3"]
        assert message["match"]["legal"]
        assert black.receive_json()["match"]["legal"] == []
        assert spectator.receive_json()["match"]["last"] == {"action": "a3xb3", "by": 1}


def test_reconnecting_gets_the_current_view(client: TestClient, online: dict[str, Any]) -> None:
    with client.websocket_connect(url(online, "black")) as black:
        assert black.receive_json()["match"]["ply"] == 0
    # Black is away while White moves, then comes back.
    client.post(
        f"/api/matches/{online['id']}/actions",
        json={"token": online["white"], "action": "b1xb3"},
    ).raise_for_status()
    with client.websocket_connect(url(online, "black")) as black:
        view = black.receive_json()["match"]
    assert (view["ply"], view["history"], view["current_player"]) == (1, ["b1xb3"], 1)
    assert view["legal"]


@pytest.mark.parametrize(
    ("seat", "message", "code"),
    [
        ("black", {"type": "action", "action": "a3-a2"}, "not_your_turn"),
        ("white", {"type": "action", "action": "a1-a3"}, "illegal_action"),
        ("white", {"type": "action", "action": "zz9"}, "malformed_action"),
        ("white", {"type": "action", "action": "a1-a2", "ply": 5}, "stale"),
        ("white", {"type": "move", "action": "a1-a2"}, "bad_request"),
        ("white", {"type": "action"}, "bad_request"),
        ("white", {"type": "action", "action": "a1-a2", "x": "y" * 20_000}, "too_large"),
        (None, {"type": "action", "action": "a1-a2"}, "bad_token"),
    ],
)
def test_a_refused_action_gets_an_error_and_changes_nothing(
    client: TestClient,
    online: dict[str, Any],
    seat: str | None,
    message: dict[str, Any],
    code: str,
) -> None:
    before = stored(client, online)
    with (
        client.websocket_connect(url(online, seat)) as socket,
        client.websocket_connect(url(online, None)) as watcher,
    ):
        socket.receive_json()
        watcher.receive_json()
        socket.send_json(message)
        reply = socket.receive_json()
        assert reply["type"] == "error"
        assert reply["error"]["code"] == code
        assert reply["error"]["message"]
        assert stored(client, online) == before
        # Nothing was broadcast for the refusal: the next thing both sockets hear, still
        # open, is White's valid move.
        client.post(
            f"/api/matches/{online['id']}/actions",
            json={"token": online["white"], "action": "b1xb3"},
        ).raise_for_status()
        assert watcher.receive_json()["match"]["history"] == ["b1xb3"]
        assert socket.receive_json()["match"]["history"] == ["b1xb3"]


def test_bad_json_text_is_refused(client: TestClient, online: dict[str, Any]) -> None:
    with client.websocket_connect(url(online, "white")) as socket:
        socket.receive_json()
        socket.send_text("{not json")
        reply = socket.receive_json()
    assert reply["error"]["code"] == "bad_request"
    assert stored(client, online) == (0, [])


def test_binary_frames_are_refused(client: TestClient, online: dict[str, Any]) -> None:
    with client.websocket_connect(url(online, "white")) as socket:
        socket.receive_json()
        socket.send_bytes(b'{"type": "action", "action": "b1xb3"}')
        reply = socket.receive_json()
    assert reply["error"]["code"] == "bad_request"
    assert stored(client, online) == (0, [])


@pytest.mark.parametrize(
    ("path", "code", "close_code"),
    [
        ("/ws/matches/no-such-match", "not_found", 4404),
        ("/ws/matches/{id}?token=wrong", "bad_token", 4403),
    ],
)
def test_a_bad_connection_gets_an_error_and_is_closed(
    client: TestClient, online: dict[str, Any], path: str, code: str, close_code: int
) -> None:
    with client.websocket_connect(path.format(id=online["id"])) as socket:
        assert socket.receive_json()["error"]["code"] == code
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == close_code


class _Socket:
    """Records the text frames a connection sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


def test_a_connection_never_gets_an_older_view_and_each_viewer_is_rendered_once(
    client: TestClient, online: dict[str, Any]
) -> None:
    # Two changes of one match may finish their broadcasts in either order: the older one is
    # not sent after the newer. The two players and a spectator each get their own view,
    # rendered once per snapshot however many connections share it.
    fields = client.get(f"/api/matches/{online['id']}").json()
    renders: list[Viewer] = []

    def snapshot(revision: int) -> Snapshot:
        def render(viewer: Viewer) -> View:
            renders.append(viewer)
            # A real view's fields, its ply naming the revision it was made at.
            return View.model_validate({**fields, "ply": revision, "seats": sorted(viewer)})

        return Snapshot(revision, render)

    white, black = frozenset({0}), frozenset({1})
    viewers = [white, white, black, frozenset(), frozenset()]
    sockets = [_Socket() for _ in viewers]
    connections = [
        Connection(socket, viewer)  # type: ignore[arg-type]
        for socket, viewer in zip(sockets, viewers, strict=True)
    ]

    async def send(snap: Snapshot) -> None:
        for connection in connections:
            await connection.send(snap)

    def run(snap: Snapshot) -> None:
        # In a thread of its own: the browser tests' sync API may hold this thread's loop.
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, send(snap)).result()

    newer, older = snapshot(2), snapshot(1)
    run(newer)
    run(older)
    run(newer)  # the same revision again (a change without one) goes out
    for socket, viewer in zip(sockets, viewers, strict=True):
        assert [m["type"] for m in socket.sent] == ["view", "view"]
        assert [m["match"]["ply"] for m in socket.sent] == [2, 2]
        assert socket.sent[0]["match"]["seats"] == sorted(viewer)
    assert sorted(renders, key=sorted) == sorted([white, black, frozenset()], key=sorted)
