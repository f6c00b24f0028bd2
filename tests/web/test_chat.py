"""The in-game chat over the matches' WebSocket (docs/web-api.md, "Chat"), on SQLite and
PostgreSQL: the two rooms, the history a reconnecting socket is sent, each refusal (too long,
too fast, not a player, a spectator with no name, a disabled player, a match with no chat, a
foreign match's token), the cleaning of a line, and lines reaching the sockets of another
server process (two apps in one process, and two ``flipgames serve`` processes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from people import HERE, guest
from servers import call, needs_postgres, serve
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from flipgames.web.app import create_app
from flipgames.web.community.chat import MAX_CHARS, RATE_LINES
from flipgames.web.db import chat_lines, make_engine, players
from flipgames.web.settings import Settings


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database))) as test_client:
        yield test_client


def online_match(client: TestClient, mode: str = "online") -> tuple[str, str, str]:
    """A new match: its id, the creator's seat token and the invitation's."""
    body: dict[str, Any] = {"game": "flipflop-3x3", "mode": mode}
    if mode == "ai":
        body["level"] = "easy"
    response = client.post("/api/matches", json=body, headers=HERE)
    assert response.status_code == 201, response.text
    created = response.json()
    invite = created["links"]["invite"].split("token=")[1] if mode == "online" else ""
    return created["id"], created["token"], invite


def connect(client: TestClient, match_id: str, token: str = "", **headers: str) -> Any:
    query = f"?chat=true&token={token}" if token else "?chat=true"
    return client.websocket_connect(f"/ws/matches/{match_id}{query}", headers=headers)


def next_chat(socket: Any) -> Any:
    """The next chat message or refusal, past the views the socket is sent meanwhile."""
    while True:
        message = socket.receive_json()
        if message["type"] in ("chat", "error"):
            return message


def say(socket: Any, text: str, **extra: Any) -> None:
    socket.send_text(json.dumps({"type": "chat", "text": text, **extra}))


def said(socket: Any, history: bool | None = None) -> list[tuple[str, str | None, int | None, str]]:
    """The next chat message's lines as (room, name, seat, text); with ``history``, the
    message must (or must not) be a history."""
    message = next_chat(socket)
    assert message["type"] == "chat", message
    assert history is None or message["history"] == history, message
    return [(x["room"], x["name"], x["seat"], x["text"]) for x in message["lines"]]


def refusal(socket: Any) -> str:
    message = next_chat(socket)
    assert message["type"] == "error", message
    code: str = message["error"]["code"]
    return code


def test_players_talk_privately_and_a_reconnect_shows_the_history(client: TestClient) -> None:
    ada = guest(client, "Ada")
    match_id, white, black = online_match(client)
    with connect(client, match_id, white, **ada) as first, connect(client, match_id, black) as two:
        assert said(first, history=True) == [] and said(two, history=True) == []
        say(first, "good luck")
        line = ("players", "Ada", 0, "good luck")
        assert said(first, history=False) == [line] and said(two, history=False) == [line]
        say(two, "<b>you too</b>")  # a seat link with no session: the seat, no name
        reply = ("players", None, 1, "<b>you too</b>")
        assert said(first) == [reply] and said(two) == [reply]
    with connect(client, match_id, black) as again, connect(client, match_id) as spectator:
        assert said(again, history=True) == [line, reply]
        assert said(spectator) == []  # the players' room is not the spectators'


def test_spectators_have_a_room_the_players_never_see(client: TestClient) -> None:
    bob = guest(client, "Bob")
    match_id, white, black = online_match(client)
    with connect(client, match_id, white) as player, connect(client, match_id, **bob) as watcher:
        assert said(player) == [] and said(watcher) == []
        say(watcher, "nice opening")
        assert said(watcher) == [("spectators", "Bob", None, "nice opening")]
        say(player, "thanks?")
        # The player's next chat message is its own line: the spectator's never came.
        assert said(player) == [("players", None, 0, "thanks?")]
        say(watcher, "again")
        assert said(watcher) == [("spectators", "Bob", None, "again")]  # not the player's
    with connect(client, match_id) as later:
        assert [text for *_, text in said(later)] == ["nice opening", "again"]
    with connect(client, match_id, black) as other_player:
        assert [text for *_, text in said(other_player)] == ["thanks?"]


def test_a_line_is_cleaned_and_at_most_max_chars(client: TestClient) -> None:
    match_id, white, _ = online_match(client)
    with connect(client, match_id, white) as socket:
        said(socket)
        say(socket, "  one\nline\t\u202eflipped\u200b \x07 ")
        assert said(socket) == [("players", None, 0, "one line flipped")]
        say(socket, "x" * MAX_CHARS)
        assert said(socket)[0][3] == "x" * MAX_CHARS
        say(socket, "x" * (MAX_CHARS + 1))
        assert refusal(socket) == "too_long"
        say(socket, "x" * 10_000)
        assert refusal(socket) == "too_long"
        say(socket, " \n\t ")
        assert refusal(socket) == "empty_line"
        socket.send_text(json.dumps({"type": "chat"}))
        assert refusal(socket) == "bad_request"
    with connect(client, match_id, white) as socket:
        assert len(said(socket)) == 2  # the refused lines were not kept


def test_more_than_the_rate_is_refused_per_writer(client: TestClient) -> None:
    match_id, white, black = online_match(client)
    with connect(client, match_id, white) as fast, connect(client, match_id, black) as other:
        said(fast), said(other)
        for number in range(RATE_LINES):
            say(fast, f"line {number}")
            assert said(fast)[0][3] == said(other)[0][3] == f"line {number}"
        say(fast, "one too many")
        assert refusal(fast) == "too_fast"
        say(other, "my turn to talk")  # the other player has a rate of their own
        assert said(other)[0][3] == said(fast)[0][3] == "my turn to talk"


def test_who_may_write_where(client: TestClient) -> None:
    match_id, white, _ = online_match(client)
    cyd = guest(client, "Cyd")
    with connect(client, match_id) as nameless, connect(client, match_id, **cyd) as named:
        said(nameless), said(named)
        say(nameless, "hello")
        assert refusal(nameless) == "not_signed_in"
        say(named, "let me in", room="players")
        assert refusal(named) == "not_a_player"
    with connect(client, match_id, white) as player:
        said(player)
        say(player, "hi spectators", room="spectators")
        assert refusal(player) == "not_a_spectator"


def test_a_disabled_player_can_no_longer_chat(database: str, client: TestClient) -> None:
    ada, bob = guest(client, "Ada"), guest(client, "Bob")
    match_id, white, _ = online_match(client)
    with (
        connect(client, match_id, white, **ada) as player,
        connect(client, match_id, **bob) as watcher,
    ):
        said(player), said(watcher)
        say(player, "before")
        assert said(player)[0][3] == "before"
        engine = make_engine(database)
        try:
            with engine.begin() as connection:  # as flipgames admin disable does
                connection.execute(players.update().values(disabled=True))
        finally:
            engine.dispose()
        say(player, "after")  # the socket was opened before: its seat's player is checked
        assert refusal(player) == "disabled"
        say(watcher, "after")
        assert refusal(watcher) == "disabled"


def test_no_chat_against_the_computer_nor_with_a_foreign_token(client: TestClient) -> None:
    ai_match, ai_token, _ = online_match(client, mode="ai")
    with connect(client, ai_match, ai_token) as socket:
        say(socket, "hello computer")
        assert refusal(socket) == "no_chat"
    match_id, _, _ = online_match(client)
    _, foreign, _ = online_match(client)
    with pytest.raises(WebSocketDisconnect) as closed, connect(client, match_id, foreign) as bad:
        assert refusal(bad) == "bad_token"
        bad.receive_json()
    assert closed.value.code == 4403


def test_lines_carry_no_token_and_removed_lines_are_never_sent(
    database: str, client: TestClient
) -> None:
    ada = guest(client, "Ada")
    match_id, white, black = online_match(client)
    with connect(client, match_id, white, **ada) as socket:
        said(socket)
        say(socket, "spam")
        message = next_chat(socket)
    text = json.dumps(message)
    for secret in (white, black, ada["authorization"].split()[1]):
        assert secret not in text
    engine = make_engine(database)
    try:
        with engine.begin() as connection:
            connection.execute(chat_lines.update().values(removed=True))
    finally:
        engine.dispose()
    with connect(client, match_id, black) as socket:
        assert said(socket) == []


def test_a_deleted_accounts_lines_name_it_deleted_player(client: TestClient) -> None:
    body = {"name": "Grace", "password": "correct horse battery"}
    token = client.post("/api/accounts", json=body, headers=HERE).json()["token"]
    client.cookies.clear()
    grace = {"authorization": f"Bearer {token}", **HERE}
    match_id, white, black = online_match(client)
    with connect(client, match_id, white, **grace) as socket:
        said(socket)
        say(socket, "bye")
        assert said(socket) == [("players", "Grace", 0, "bye")]
    gone = client.request(
        "DELETE", "/api/account", json={"password": body["password"]}, headers=grace
    )
    assert gone.status_code == 204, gone.text
    with connect(client, match_id, black) as socket:
        assert said(socket) == [("players", "deleted player", 0, "bye")]


def test_a_line_reaches_the_sockets_of_another_server_process(
    postgres_url: str, schema_url: str
) -> None:
    """Two apps on one PostgreSQL database, as ``serve --workers 2`` runs them: a line
    written on one is sent to the other's sockets of its room."""
    with (
        TestClient(create_app(Settings(database_url=schema_url))) as one,
        TestClient(create_app(Settings(database_url=schema_url))) as two,
    ):
        match_id, white, black = online_match(one)
        with connect(one, match_id, white) as here, connect(two, match_id, black) as there:
            said(here), said(there)
            say(here, "across processes")
            first = [("players", None, 0, "across processes")]
            assert said(here) == first and said(there) == first
            say(there, "and back")
            back = [("players", None, 1, "and back")]
            assert said(there) == back and said(here) == back


@needs_postgres
def test_two_server_processes_carry_both_rooms(schema_url: str, tmp_path: Path) -> None:
    """Two ``flipgames serve`` processes on one PostgreSQL schema (as ``--workers 2`` runs):
    White on one, Black and a signed-in spectator on the other; each room's lines cross."""
    log = tmp_path / "servers.log"
    with serve(schema_url, log) as first, serve(schema_url, log) as second:
        created = call(first, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "online"})
        match_id, white = created["id"], created["token"]
        black = created["links"]["invite"].split("token=")[1]
        sam = call(second, "POST", "/api/players", {"name": "Sam"})["token"]
        base = f"/ws/matches/{match_id}?chat=true"
        with (
            ws_connect(f"ws://127.0.0.1:{first}{base}&token={white}") as one,
            ws_connect(f"ws://127.0.0.1:{second}{base}&token={black}") as two,
            ws_connect(
                f"ws://127.0.0.1:{second}{base}",
                additional_headers={"Authorization": f"Bearer {sam}"},
            ) as spectator,
        ):
            for socket in (one, two, spectator):
                assert chat_message(socket)["lines"] == []  # the histories
            one.send(json.dumps({"type": "chat", "text": "from the first process"}))
            assert texts(chat_message(two)) == ["from the first process"]
            spectator.send(json.dumps({"type": "chat", "text": "watching"}))
            assert texts(chat_message(spectator)) == ["watching"]
            two.send(json.dumps({"type": "chat", "text": "back across"}))
            # White's next lines are the players' own, never the spectator's.
            assert texts(chat_message(one)) == ["from the first process"]
            assert texts(chat_message(one)) == ["back across"]


def chat_message(socket: ClientConnection) -> Any:
    while True:
        message = json.loads(socket.recv(timeout=30))
        if message["type"] in ("chat", "error"):
            return message


def texts(message: Any) -> list[str]:
    assert message["type"] == "chat", message
    return [line["text"] for line in message["lines"]]
