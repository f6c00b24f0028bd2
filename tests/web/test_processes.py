"""More than one server process on one PostgreSQL database: two ``flipgames serve`` processes
with one player connected to each (moves reach the other process's socket through
LISTEN/NOTIFY), ``--workers 2`` playing against the computer, and ``--workers`` refused on
SQLite.

The PostgreSQL tests run when ``FLIPGAMES_TEST_POSTGRES_URL`` names a database (CI sets it);
each works in a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
from servers import call, needs_postgres, serve
from websockets.sync.client import ClientConnection, connect


def next_view(socket: ClientConnection) -> Any:
    while True:
        message = json.loads(socket.recv(timeout=30))
        if message["type"] == "view":
            return message["match"]


@needs_postgres
def test_two_server_processes_play_one_match_with_a_player_on_each(
    schema_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "servers.log"
    with serve(schema_url, log) as first, serve(schema_url, log) as second:
        created = call(first, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "online"})
        match_id = created["id"]
        white_token = created["token"]
        black_token = created["links"]["invite"].split("token=")[1]
        with (
            connect(f"ws://127.0.0.1:{first}/ws/matches/{match_id}?token={white_token}") as white,
            connect(f"ws://127.0.0.1:{second}/ws/matches/{match_id}?token={black_token}") as black,
        ):
            assert next_view(white)["ply"] == next_view(black)["ply"] == 0
            white.send(json.dumps({"type": "action", "action": "b1xb3", "ply": 0}))
            assert next_view(white)["history"] == ["b1xb3"]
            # Made on the first process, seen on the second one's socket.
            seen = next_view(black)
            assert (seen["history"], seen["legal"] != []) == (["b1xb3"], True)
            black.send(json.dumps({"type": "action", "action": "a3xb3", "ply": 1}))
            assert next_view(black)["history"] == ["b1xb3", "a3xb3"]
            assert next_view(white)["history"] == ["b1xb3", "a3xb3"]
        # Each process's live copy of the match follows the other's writes.
        both = [call(port, "GET", f"/api/matches/{match_id}") for port in (first, second)]
        assert both[0]["history"] == both[1]["history"] == ["b1xb3", "a3xb3"]


def next_presence(socket: ClientConnection, wanted: list[int]) -> None:
    """Read presence messages until one says ``wanted`` (views in between are skipped)."""
    seen = []
    while True:
        message = json.loads(socket.recv(timeout=30))
        if message["type"] == "presence":
            seen.append(message["seats"])
            if message["seats"] == wanted:
                return
        assert len(seen) < 10, seen


@needs_postgres
def test_a_player_on_another_process_is_shown_connected(schema_url: str, tmp_path: Path) -> None:
    log = tmp_path / "servers.log"
    with serve(schema_url, log) as first, serve(schema_url, log) as second:
        created = call(first, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "online"})
        match_id = created["id"]
        white_token = created["token"]
        black_token = created["links"]["invite"].split("token=")[1]
        base = f"/ws/matches/{match_id}?presence=true&token="
        with connect(f"ws://127.0.0.1:{first}{base}{white_token}") as white:
            next_presence(white, [0])
            with connect(f"ws://127.0.0.1:{second}{base}{black_token}") as black:
                # Black, on the second process, sees White on the first, and White sees Black.
                next_presence(black, [0, 1])
                next_presence(white, [0, 1])
            next_presence(white, [0])  # Black left the other process: away


@needs_postgres
def test_a_clock_runs_out_with_the_players_on_two_processes(
    schema_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "servers.log"
    with serve(schema_url, log) as first, serve(schema_url, log) as second:
        body = {"game": "flipflop-3x3", "mode": "online", "clock": {"initial": 1}}
        created = call(first, "POST", "/api/matches", body)
        match_id = created["id"]
        white_token = created["token"]
        black_token = created["links"]["invite"].split("token=")[1]
        with (
            connect(f"ws://127.0.0.1:{first}/ws/matches/{match_id}?token={white_token}") as white,
            connect(f"ws://127.0.0.1:{second}/ws/matches/{match_id}?token={black_token}") as black,
        ):
            white.send(json.dumps({"type": "action", "action": "b1xb3", "ply": 0}))
            while next_view(black)["ply"] != 1:
                pass
            black.send(json.dumps({"type": "action", "action": "a3xb3", "ply": 1}))
            # White's second runs out; both processes have a timer for it, one commits it.
            for socket in (white, black):
                view = next_view(socket)
                while view["status"] != "finished":
                    view = next_view(socket)
                assert (view["ending"], view["result"], view["ply"]) == ("timeout", "0-1", 2)
        base = schema_url.split("?")[0]
        schema = schema_url.split("%3D")[1]
        with psycopg.connect(base, autocommit=True) as connection:
            (revision,) = connection.execute(
                f"SELECT revision FROM {schema}.matches WHERE id = %s", (match_id,)
            ).fetchone() or (None,)
        assert revision == 3  # two moves and one flag, not two


@needs_postgres
def test_workers_2_plays_against_the_computer(schema_url: str, tmp_path: Path) -> None:
    with serve(schema_url, tmp_path / "server.log", "--workers", "2") as port:
        created = call(
            port, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "ai", "seed": 4}
        )
        token = created["token"]
        view = created["match"]
        for _ in range(3):
            if view["status"] == "finished":
                break
            answer = call(
                port,
                "POST",
                f"/api/matches/{created['id']}/actions",
                {"token": token, "action": view["legal"][0]},
            )
            assert answer["thinking"] or answer["status"] == "finished"
            view = call(port, "GET", f"/api/matches/{created['id']}?token={token}&wait=true")
            assert not view["thinking"]
        assert len(view["history"]) >= 2
        assert all(actor in (0, 1) for actor in view["actors"])
        assert view["actors"][:2] == [0, 1]


@needs_postgres
def test_workers_2_seat_an_outside_engine(schema_url: str, tmp_path: Path) -> None:
    toy = f"toy={sys.executable} -m flipgames engine --level easy --seed 1"
    with serve(schema_url, tmp_path / "server.log", "--workers", "2", "--engine", toy) as port:
        games = {g["name"]: g for g in call(port, "GET", "/api/games")}
        assert games["flipflop-3x3"]["engines"] == ["toy"]  # each worker process has it
        body = {"game": "flipflop-3x3", "mode": "ai", "level": "engine:toy", "seed": 2}
        created = call(port, "POST", "/api/matches", body)
        path = f"/api/matches/{created['id']}"
        call(port, "POST", f"{path}/actions", {"token": created["token"], "action": "b1xb3"})
        view = call(port, "GET", f"{path}?token={created['token']}&wait=true")
        assert (view["ply"], view["actors"], view["ending"]) == (2, [0, 1], None)


def test_workers_need_postgresql(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    done = subprocess.run(
        [sys.executable, "-m", "flipgames", "serve", "--db", database, "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "flipgames: error: --workers above 1 needs a PostgreSQL database "
        "(--db postgresql://...): SQLite is for one server process"
    ]
