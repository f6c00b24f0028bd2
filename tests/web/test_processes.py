"""More than one server process on one PostgreSQL database: two ``flipgames serve`` processes
with one player connected to each (moves reach the other process's socket through
LISTEN/NOTIFY), a spectator on one counted in the other's live games, ``--workers 2`` playing
against the computer, ``--workers`` refused on SQLite, and two arcades in different schemas of
one database hearing none of each other's match announcements.

The PostgreSQL tests run when ``FLIPGAMES_TEST_POSTGRES_URL`` names a database (CI sets it);
each works in a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
from servers import call, needs_postgres, request_json, serve
from websockets.sync.client import ClientConnection, connect

from flipgames.web.db import make_engine
from flipgames.web.fanout import scoped_channel
from flipgames.web.matches import CHANNEL as MATCHES_CHANNEL
from flipgames.web.presence import CHANNEL as PRESENCE_CHANNEL


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


def player_token(port: int, name: str) -> str:
    """A new guest's session token (its bearer)."""
    return str(call(port, "POST", "/api/players", {"name": name})["token"])


def lobby_match(port: int) -> str:
    """An online match between two guests, made through the lobby (so /api/live lists it)."""
    seeker, taker = player_token(port, "Ada"), player_token(port, "Bob")
    status, seek = request_json(
        port, "POST", "/api/seeks", {"game": "flipflop-3x3"}, {"authorization": f"Bearer {seeker}"}
    )
    assert status == 201, seek
    status, accepted = request_json(
        port, "POST", f"/api/seeks/{seek['id']}/accept", None, {"authorization": f"Bearer {taker}"}
    )
    assert status == 201, accepted
    return str(accepted["id"])


def spectators_until(port: int, match_id: str, wanted: int) -> int:
    """Read /api/live until the match has ``wanted`` spectators there (announcements cross
    processes as they are sent; bounded: 30 s), the last count read."""
    deadline = time.monotonic() + 30
    while True:
        live = {game["id"]: game for game in call(port, "GET", "/api/live")}
        count = int(live[match_id]["spectators"])
        if count == wanted or time.monotonic() > deadline:
            return count
        time.sleep(0.1)


@needs_postgres
def test_a_spectator_on_another_process_is_counted_in_the_live_games(
    schema_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "servers.log"
    with serve(schema_url, log) as first, serve(schema_url, log) as second:
        match_id = lobby_match(first)
        assert spectators_until(first, match_id, 0) == 0
        with connect(f"ws://127.0.0.1:{second}/ws/matches/{match_id}") as spectator:
            next_view(spectator)
            # Watching on the second process, counted on the first (and on the second).
            assert spectators_until(first, match_id, 1) == 1
            assert spectators_until(second, match_id, 1) == 1
            with connect(f"ws://127.0.0.1:{first}/ws/matches/{match_id}") as another:
                next_view(another)
                assert spectators_until(second, match_id, 2) == 2
                assert spectators_until(first, match_id, 2) == 2
        assert spectators_until(first, match_id, 0) == 0  # both left
        assert spectators_until(second, match_id, 0) == 0


def drain(connection: psycopg.Connection[Any], seconds: float = 3.0) -> list[tuple[str, str]]:
    """Every notification ``connection`` hears in the next ``seconds``: (channel, payload)."""
    return [(note.channel, note.payload) for note in connection.notifies(timeout=seconds)]


@needs_postgres
def test_two_arcades_in_one_database_hear_only_their_own_match_events(
    postgres: str, schema_url: str, tmp_path: Path
) -> None:
    other_schema = f"other_{secrets.token_hex(4)}"
    with psycopg.connect(postgres, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {other_schema}")
    other_url = f"{postgres}?options=-csearch_path%3D{other_schema}"
    log = tmp_path / "servers.log"
    bare = {MATCHES_CHANNEL, PRESENCE_CHANNEL}
    scoped: dict[str, set[str]] = {}
    try:
        with (
            serve(schema_url, log) as ours,
            serve(other_url, log),
            psycopg.connect(schema_url, autocommit=True) as listening_ours,
            psycopg.connect(other_url, autocommit=True) as listening_other,
        ):
            for connection, url in ((listening_ours, schema_url), (listening_other, other_url)):
                engine = make_engine(url)
                scoped[url] = {scoped_channel(channel, engine) for channel in bare}
                engine.dispose()
                # The channels unscoped too: nobody may announce on them.
                for channel in scoped[url] | bare:
                    connection.execute(f"LISTEN {channel}")
            drain(listening_ours, 1.0)  # the servers' own start-up announcements
            drain(listening_other, 1.0)
            created = call(ours, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "online"})
            match_id = created["id"]
            token = created["token"]
            with connect(f"ws://127.0.0.1:{ours}/ws/matches/{match_id}?token={token}") as white:
                next_view(white)
                white.send(json.dumps({"type": "action", "action": "b1xb3", "ply": 0}))
                next_view(white)
            heard_ours = drain(listening_ours)
            heard_other = drain(listening_other)
        assert scoped[schema_url].isdisjoint(scoped[other_url])
        # Our arcade's match changes and presence went out on its scoped channels only...
        assert {channel for channel, _ in heard_ours} == scoped[schema_url]
        assert any(p.endswith(f":{match_id}") for _, p in heard_ours)  # the move
        assert any(f"|{match_id}|0" in p for _, p in heard_ours)  # White connected
        # ...and the other arcade, in the same database, heard nothing of them.
        assert not [p for _, p in heard_other if match_id in p]
        assert not {channel for channel, _ in heard_other} & bare
    finally:
        with psycopg.connect(postgres, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {other_schema} CASCADE")
