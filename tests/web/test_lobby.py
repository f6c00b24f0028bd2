"""The public lobby (docs/web-api.md, "The lobby"), on SQLite and, where
FLIPGAMES_TEST_POSTGRES_URL names a database, on PostgreSQL: seeks and every refusal, the
accept race (threads; on PostgreSQL two server processes), the seeker's token, the lobby
socket's messages, seeks vanishing when their seeker leaves, quick pairing within a range
that widens with waiting, and the live games."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from people import HERE, account, guest
from servers import needs_postgres, request_json, serve
from sqlalchemy import insert, select
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import connect

from flipgames.web.app import create_app
from flipgames.web.community.lobby import UNISSUED, Lobby
from flipgames.web.community.pairing import pairing_range
from flipgames.web.db import make_engine, ratings, seats
from flipgames.web.settings import Settings


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    # Seeks made with no lobby socket open stay for the test (seeks vanishing is tested with
    # no grace at all).
    app = create_app(Settings(database_url=database, lobby_grace_seconds=3600))
    with TestClient(app) as test_client:
        yield test_client


def seek(client: TestClient, who: dict[str, str], **body: Any) -> Any:
    return client.post("/api/seeks", json={"game": "flipflop-3x3", **body}, headers=who)


def refused(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    message: str = error["message"]
    return message


# --- seeks -------------------------------------------------------------------------------------


def test_a_seek_is_listed_in_players_words_with_the_seekers_name_and_rating(
    client: TestClient,
) -> None:
    ada, grace = guest(client, "Ada"), account(client, "Grace")
    created = seek(
        client,
        ada,
        game="rubiks-flip",
        options={"flip": "flap"},
        clock={"initial": 300, "increment": 3},
    )
    assert created.status_code == 201, created.text
    assert seek(client, grace, rated=True).status_code == 201
    listed = client.get("/api/seeks").json()
    assert [s["seeker"] for s in listed] == ["Ada", "Grace"]
    first, second = listed
    assert first["id"] == created.json()["id"]
    assert first["clock"] == "5+3" and first["rated"] is False
    assert first["rating"] is None  # a guest has no rating
    assert first["words"] and all(":" in w and "_" not in w for w in first["words"])
    assert second["rating"] == 1500 and second["provisional"] is True and second["rated"]


def test_a_second_seek_for_the_same_game_and_clock_replaces_the_first(client: TestClient) -> None:
    ada = guest(client, "Ada")
    first = seek(client, ada).json()["id"]
    second = seek(client, ada, options={}).json()["id"]
    other_clock = seek(client, ada, clock={"initial": 60}).json()["id"]
    assert {s["id"] for s in client.get("/api/seeks").json()} == {second, other_clock}
    assert first not in {second, other_clock}


def test_seek_refusals(client: TestClient) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    refused(
        client.post("/api/seeks", json={"game": "flipflop-3x3"}, headers=HERE), 401, "not_signed_in"
    )
    refused(seek(client, ada, rated=True), 409, "not_an_account")
    refused(seek(client, ada, game="chess"), 404, "unknown_game")
    refused(seek(client, ada, options={"no_move": "pass"}), 422, "bad_option")
    refused(seek(client, ada, game="rubiks-flip", options={"flip": "fly"}), 422, "bad_option")
    refused(seek(client, ada, game="rubiks-flip", options={"flip": "../x"}), 422, "bad_option")
    refused(seek(client, ada, clock={"initial": 0}), 422, "bad_request")
    refused(seek(client, ada, rated="yes"), 422, "bad_request")
    foreign = {**ada, "origin": "https://evil.example"}
    refused(seek(client, foreign), 403, "foreign_origin")
    assert client.get("/api/seeks").json() == []  # none of them made a seek
    mine = seek(client, ada).json()["id"]
    refused(client.delete(f"/api/seeks/{mine}", headers=bob), 403, "not_yours")
    refused(client.delete("/api/seeks/nothing", headers=bob), 404, "not_found")
    refused(client.get(f"/api/seeks/{mine}", headers=bob), 403, "not_yours")
    refused(client.get("/api/seeks/nothing", headers=ada), 404, "not_found")
    refused(client.post(f"/api/seeks/{mine}/accept", headers=ada), 409, "own_seek")
    refused(client.post("/api/seeks/nothing/accept", headers=bob), 404, "not_found")
    assert [s["id"] for s in client.get("/api/seeks").json()] == [mine]
    assert client.delete(f"/api/seeks/{mine}", headers=ada).status_code == 204
    assert client.get("/api/seeks").json() == []


def test_a_guest_cannot_take_a_rated_seek(client: TestClient) -> None:
    grace, ada = account(client, "Grace"), guest(client, "Ada")
    rated = seek(client, grace, rated=True).json()["id"]
    refused(client.post(f"/api/seeks/{rated}/accept", headers=ada), 409, "not_an_account")
    assert [s["id"] for s in client.get("/api/seeks").json()] == [rated]


# --- accepting ---------------------------------------------------------------------------------


def test_accepting_makes_a_match_with_a_seat_for_each_and_the_seeker_reads_its_token(
    client: TestClient, database: str
) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    seek_id = seek(client, ada).json()["id"]
    assert client.get(f"/api/seeks/{seek_id}", headers=ada).json() == {
        "match": None,
        "seat": None,
        "token": None,
    }
    accepted = client.post(f"/api/seeks/{seek_id}/accept", headers=bob)
    assert accepted.status_code == 201, accepted.text
    body = accepted.json()
    match_id, bob_seat = body["id"], body["seat"]
    assert body["match"]["seat"] == bob_seat and body["play"].endswith(body["token"])
    assert client.get("/api/seeks").json() == []
    engine = make_engine(database)
    with engine.connect() as connection:
        stored = {
            r.seat: r.token_hash
            for r in connection.execute(select(seats).where(seats.c.match_id == match_id))
        }
    assert stored[1 - bob_seat] == UNISSUED  # no usable token before the seeker reads it
    mine = client.get(f"/api/seeks/{seek_id}", headers=ada).json()
    assert mine["match"] == match_id and mine["seat"] == 1 - bob_seat
    assert client.get(f"/api/seeks/{seek_id}", headers=ada).json() == mine  # the same again
    view = client.get(f"/api/matches/{match_id}", params={"token": mine["token"]}).json()
    assert view["seat"] == 1 - bob_seat and view["mode"] == "online"
    with engine.connect() as connection:
        hashes = [r.token_hash for r in connection.execute(select(seats.c.token_hash))]
    assert mine["token"] not in hashes and body["token"] not in hashes  # only hashes stored
    engine.dispose()
    # A second acceptor finds it taken.
    carol = guest(client, "Carol")
    message = refused(client.post(f"/api/seeks/{seek_id}/accept", headers=carol), 409, "seek_taken")
    assert message == "someone else took this seek"


def test_of_threads_racing_to_accept_one_seek_exactly_one_wins(client: TestClient) -> None:
    lobby: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    ada = guest(client, "Ada")
    takers = [guest(client, f"Taker{n}") for n in range(6)]
    seek_id = seek(client, ada).json()["id"]
    answers: list[int] = []
    start = threading.Barrier(len(takers))

    def take(headers: dict[str, str]) -> None:
        start.wait()
        answers.append(client.post(f"/api/seeks/{seek_id}/accept", headers=headers).status_code)

    threads = [threading.Thread(target=take, args=(t,)) for t in takers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [201] + [409] * (len(takers) - 1)
    assert lobby.open_seeks() == []


def test_the_lobby_hears_a_seek_is_gone_before_the_acceptors_match_is_built(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Loading and viewing the new match is the slow part of an acceptance: every lobby page
    # is told first, so a taken seek leaves the list as soon as the claim is committed.
    app = client.app
    lobby, hub = app.state.lobby, app.state.lobby_hub  # type: ignore[attr-defined]
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    seek_id = seek(client, ada).json()["id"]
    order: list[str] = []
    publish, created = hub.publish, lobby.created

    async def publishing(events: Any) -> None:
        events = list(events)
        order.extend(f"published {e.kind}" for e in events)
        await publish(events)

    def building(accepted: Any) -> Any:
        order.append("built")
        return created(accepted)

    monkeypatch.setattr(hub, "publish", publishing)
    monkeypatch.setattr(lobby, "created", building)
    response = client.post(f"/api/seeks/{seek_id}/accept", headers=bob)
    assert response.status_code == 201, response.text
    assert order == ["published gone", "published accepted", "built"]
    assert response.json()["match"]["mode"] == "online"


# --- the lobby socket --------------------------------------------------------------------------


def messages(socket: Any, count: int) -> list[Any]:
    return [socket.receive_json() for _ in range(count)]


def test_the_socket_lists_seeks_pushes_changes_and_tells_only_the_seeker(
    client: TestClient,
) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    with (
        client.websocket_connect("/ws/lobby", headers=ada) as ada_socket,
        client.websocket_connect("/ws/lobby", headers=bob) as bob_socket,
    ):
        assert ada_socket.receive_json() == {"type": "seeks", "seeks": []}
        assert bob_socket.receive_json() == {"type": "seeks", "seeks": []}
        seek_id = seek(client, ada).json()["id"]
        for socket in (ada_socket, bob_socket):
            message = socket.receive_json()
            assert message["type"] == "seek" and message["seek"]["id"] == seek_id
        match_id = client.post(f"/api/seeks/{seek_id}/accept", headers=bob).json()["id"]
        assert messages(ada_socket, 2) == [
            {"type": "gone", "id": seek_id},
            {"type": "accepted", "seek": seek_id, "match": match_id},
        ]
        assert bob_socket.receive_json() == {"type": "gone", "id": seek_id}
        # Bob was not told of an acceptance: his next message is the next change.
        other = seek(client, ada).json()["id"]
        assert bob_socket.receive_json()["seek"]["id"] == other


def test_seeks_vanish_when_their_seekers_last_socket_closes(client: TestClient) -> None:
    client.app.state.lobby_hub.grace = 0  # type: ignore[attr-defined]
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    with client.websocket_connect("/ws/lobby", headers=bob) as watcher:
        watcher.receive_json()
        with client.websocket_connect("/ws/lobby", headers=ada) as first:
            first.receive_json()
            with client.websocket_connect("/ws/lobby", headers=ada) as second:
                second.receive_json()
                seek_id = seek(client, ada).json()["id"]
                assert watcher.receive_json()["type"] == "seek"
            # One of Ada's sockets is still open: the seek stays.
            assert [s["id"] for s in client.get("/api/seeks").json()] == [seek_id]
        assert watcher.receive_json() == {"type": "gone", "id": seek_id}
    assert client.get("/api/seeks").json() == []


def test_a_socket_from_another_site_is_refused(client: TestClient) -> None:
    # Closed before the handshake is accepted, with "policy violation".
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client.websocket_connect("/ws/lobby", headers={"origin": "https://evil.example"}),
    ):
        pass
    assert closed.value.code == 1008


# --- quick pairing -----------------------------------------------------------------------------


def test_pairing_range_widens_with_waiting() -> None:
    assert [pairing_range(s) for s in (0, 5, 10, 60)] == [100, 150, 200, 700]


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def test_two_players_pair_within_range_and_a_wider_gap_waits_for_the_range_to_widen(
    client: TestClient, database: str
) -> None:
    lobby: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    clock = Clock()
    lobby.now = clock
    names = {"Grace": 1500.0, "Linus": 1580.0, "Alan": 1800.0}
    heads = {name: account(client, name) for name in names}
    identity = client.app.state.identity  # type: ignore[attr-defined]
    ids = {n: identity.session(h["authorization"].split()[1]).player.id for n, h in heads.items()}
    engine = make_engine(database)
    with engine.begin() as connection:
        connection.execute(
            insert(ratings),
            [
                {
                    "player_id": ids[n],
                    "game": "flipflop-3x3",
                    "rating": r,
                    "rd": 80.0,
                    "volatility": 0.06,
                    "games": 30,
                    "updated_at": clock.now,
                }
                for n, r in names.items()
            ],
        )
    engine.dispose()
    for name in ("Grace", "Alan"):  # 300 apart: not yet
        answer = client.post(
            "/api/pairing", json={"game": "flipflop-3x3", "rated": True}, headers=heads[name]
        )
        assert answer.status_code == 201, answer.text
    assert lobby.pair() == []
    clock.now += timedelta(seconds=14.9)  # ranges 200: still too far
    assert lobby.pair() == []
    clock.now += timedelta(seconds=0.1)  # 15 s: ranges 250; Linus comes, 80 from Grace
    client.post(
        "/api/pairing", json={"game": "flipflop-3x3", "rated": True}, headers=heads["Linus"]
    )
    # Linus's range is 100 and Grace's 250: they are paired at once (on joining).
    places = {n: client.get("/api/seeks", headers=heads[n]) for n in names}
    assert all(p.status_code == 200 for p in places.values())
    assert lobby.pair() == []  # Alan is left, alone
    clock.now += timedelta(seconds=30)
    assert lobby.pair() == []


def test_quick_pairing_over_the_api_tells_both_players_on_their_sockets(
    client: TestClient,
) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    body = {"game": "flipflop-3x3", "clock": {"initial": 60, "increment": 1}}
    with (
        client.websocket_connect("/ws/lobby", headers=ada) as ada_socket,
        client.websocket_connect("/ws/lobby", headers=bob) as bob_socket,
    ):
        ada_socket.receive_json()
        bob_socket.receive_json()
        ada_place = client.post("/api/pairing", json=body, headers=ada).json()["id"]
        assert client.get("/api/seeks").json() == []  # the pool is not listed as seeks
        bob_place = client.post("/api/pairing", json=body, headers=bob).json()["id"]

        def told(socket: Any) -> Any:
            kinds = []
            while True:
                message = socket.receive_json()
                kinds.append(message["type"])
                if message["type"] == "accepted":
                    # A place in the pool is never pushed as a seek (pages would list it).
                    assert "seek" not in kinds, kinds
                    return message

        ada_told, bob_told = told(ada_socket), told(bob_socket)
    assert ada_told["match"] == bob_told["match"]
    assert (ada_told["seek"], bob_told["seek"]) == (ada_place, bob_place)
    ada_seat = client.get(f"/api/seeks/{ada_place}", headers=ada).json()
    bob_seat = client.get(f"/api/seeks/{bob_place}", headers=bob).json()
    assert {ada_seat["seat"], bob_seat["seat"]} == {0, 1}
    view = client.get(
        f"/api/matches/{ada_told['match']}", params={"token": bob_seat["token"]}
    ).json()
    assert view["seat"] == bob_seat["seat"] and view["clock"]["label"] == "1+1"


def test_leaving_the_pool(client: TestClient) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    client.post("/api/pairing", json={"game": "flipflop-3x3"}, headers=ada)
    assert client.delete("/api/pairing", headers=ada).status_code == 204
    client.post("/api/pairing", json={"game": "flipflop-3x3"}, headers=bob)
    lobby: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    assert lobby.pair() == []
    refused(
        client.post("/api/pairing", json={"game": "flipflop-3x3", "rated": True}, headers=ada),
        409,
        "not_an_account",
    )


# --- live games --------------------------------------------------------------------------------


def test_live_games_list_people_playing_with_moves_and_spectators(client: TestClient) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    seek_id = seek(client, ada).json()["id"]
    accepted = client.post(f"/api/seeks/{seek_id}/accept", headers=bob).json()
    match_id = accepted["id"]
    assert (
        client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "ai"}).status_code == 201
    )
    with client.websocket_connect(f"/ws/matches/{match_id}") as spectator:
        spectator.receive_json()
        games = client.get("/api/live").json()
        assert [g["id"] for g in games] == [match_id]  # the match against the computer is not
        game = games[0]
        names = ["", ""]
        names[accepted["seat"]] = "Bob"
        names[1 - accepted["seat"]] = "Ada"
        assert game["players"] == names and game["moves"] == 0 and game["spectators"] == 1
        assert game["watch"] == f"/watch/{match_id}"


# --- several server processes ------------------------------------------------------------------


def call(
    port: int, method: str, path: str, token: str | None = None, body: Any = None
) -> tuple[int, Any]:
    """``(status, answer)`` of a request as the player whose bearer token is ``token``."""
    bearer = {"authorization": f"Bearer {token}"} if token else None
    return request_json(port, method, path, body, bearer)


@needs_postgres
def test_two_server_processes_race_to_accept_and_the_seeker_hears_of_it_on_the_other(
    schema_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "servers.log"
    with serve(schema_url, log) as first, serve(schema_url, log) as second:
        ada = call(first, "POST", "/api/players", body={"name": "Ada"})[1]["token"]
        takers = [
            call(port, "POST", "/api/players", body={"name": f"Taker{n}"})[1]["token"]
            for n, port in enumerate((first, second) * 3)
        ]
        url = f"ws://127.0.0.1:{second}/ws/lobby"
        with connect(url, additional_headers={"authorization": f"Bearer {ada}"}) as socket:
            assert json.loads(socket.recv(timeout=30))["type"] == "seeks"
            _, made = call(first, "POST", "/api/seeks", ada, {"game": "flipflop-3x3"})
            seek_id = made["id"]
            assert json.loads(socket.recv(timeout=30))["seek"]["id"] == seek_id
            answers: list[int] = []
            start = threading.Barrier(len(takers))

            def take(port: int, token: str) -> None:
                start.wait()
                answers.append(call(port, "POST", f"/api/seeks/{seek_id}/accept", token)[0])

            threads = [
                threading.Thread(target=take, args=(port, token))
                for port, token in zip((first, second) * 3, takers, strict=True)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(answers) == [201] + [409] * (len(takers) - 1)
            while True:
                message = json.loads(socket.recv(timeout=30))
                if message["type"] == "accepted":
                    break
            assert message["seek"] == seek_id
        status, mine = call(second, "GET", f"/api/seeks/{seek_id}", ada)
        assert status == 200 and mine["match"] == message["match"]
