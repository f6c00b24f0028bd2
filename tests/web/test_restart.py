"""The real server in a subprocess: play, kill it (SIGKILL), start it again on the same
database, and finish the match where it was."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from servers import call, request_json
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from support.servers import launch


@contextmanager
def server(database: str, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``flipgames serve`` on the free port it picks; the process and the port, killed
    (SIGKILL) on leaving, whatever happened."""
    command = [sys.executable, "-m", "flipgames", "serve", "--port", "0", "--db", database]
    process, port = launch(command, log)
    try:
        yield process, port
    finally:
        process.kill()
        process.wait(timeout=30)


# Slow: two real server starts around a kill -9 (CI runs it; the fast loop does not).
@pytest.mark.slow
def test_a_killed_server_restarts_and_the_match_goes_on(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    log = tmp_path / "server.log"
    with server(database, log) as (process, port):
        created = call(port, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "online"})
        match_id = created["id"]
        tokens = [created["token"], created["links"]["invite"].split("token=")[1]]
        for seat, action in ((0, "b1-b2"), (1, "a3-a2"), (0, "b2-a3")):
            body = {"token": tokens[seat], "action": action}
            view = call(port, "POST", f"/api/matches/{match_id}/actions", body)
        with connect(f"ws://127.0.0.1:{port}/ws/matches/{match_id}") as watcher:
            assert json.loads(watcher.recv(timeout=30))["match"]["ply"] == 3
            process.kill()
            process.wait(timeout=30)
    assert "flipgames arcade: open http://127.0.0.1:" in log.read_text()

    with server(database, log) as (_, port):
        resumed = call(port, "GET", f"/api/matches/{match_id}?token={tokens[1]}")
        assert resumed["history"] == view["history"] == ["b1-b2", "a3-a2", "b2-a3"]
        assert resumed["current_player"] == 1
        # A spectator reconnecting after the crash catches up at once.
        with connect(f"ws://127.0.0.1:{port}/ws/matches/{match_id}") as watcher:
            assert json.loads(watcher.recv(timeout=30))["match"]["history"] == view["history"]
        rng = random.Random(3)
        while resumed["status"] == "playing":
            token = tokens[resumed["current_player"]]
            legal = call(port, "GET", f"/api/matches/{match_id}?token={token}")["legal"]
            body = {"token": token, "action": rng.choice(legal)}
            resumed = call(port, "POST", f"/api/matches/{match_id}/actions", body)
        record = call(port, "GET", f"/api/matches/{match_id}/record")
        refused, _ = request_json(port, "POST", f"/api/matches/{match_id}/actions", body)
        assert refused == 409
    assert record["actions"][:3] == ["b1-b2", "a3-a2", "b2-a3"]
    assert record["result"] == resumed["result"] != "*"
    # Seat tokens went over the wire in query strings, but never into the log.
    assert tokens[1] not in log.read_text()


def test_the_real_server_logs_no_token_and_limits_socket_messages(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    log = tmp_path / "server.log"
    with server(database, log) as (_, port):
        created = call(port, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "online"})
        match_id = created["id"]
        tokens = [created["token"], created["links"]["invite"].split("token=")[1]]
        # Every way a token travels in an address: the play page, views, hints, sockets.
        for token in tokens:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}/play/{match_id}?token={token}", timeout=30
            ):
                pass
            call(port, "GET", f"/api/matches/{match_id}?token={token}")
        hint, _ = request_json(port, "GET", f"/api/matches/{match_id}/hint?token={tokens[0]}")
        assert hint >= 400
        address = f"ws://127.0.0.1:{port}/ws/matches/{match_id}?token="
        with connect(address + tokens[0]) as white:
            assert json.loads(white.recv(timeout=30))["match"]["seat"] == 0
            # Over the 16 KiB limit: refused with too_large, and the socket stays open.
            white.send(json.dumps({"type": "action", "action": "b1-b2", "x": "y" * 20_000}))
            error = json.loads(white.recv(timeout=30))
            assert error["error"]["code"] == "too_large"
            white.send(json.dumps({"type": "action", "action": "b1-b2"}))
            assert json.loads(white.recv(timeout=30))["match"]["history"] == ["b1-b2"]
        with connect(address + tokens[1]) as black:
            assert json.loads(black.recv(timeout=30))["match"]["seat"] == 1
        with pytest.raises(ConnectionClosed) as closed, connect(address + tokens[1]) as black:
            black.recv(timeout=30)
            # Too big to even read (over twice the limit): the socket is closed with 1009.
            black.send(json.dumps({"type": "action", "action": "a3-a2", "x": "y" * 40_000}))
            black.recv(timeout=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    text = log.read_text()
    assert "WebSocket /ws/matches/" in text and "token=***" in text
    for token in tokens:
        assert token not in text
