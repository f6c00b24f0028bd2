"""``flipgames admin`` run as an operator runs it (``python -m flipgames admin ...`` in a child
process) on an arcade's database, SQLite and PostgreSQL: disable (no sign-in, sessions ended,
seeks gone, no chat), enable, remove-lines; an unknown name, a missing database and bad
arguments are one line on stderr with exit code 1 or 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from people import HERE, PASSWORD, account
from sqlalchemy import select

from flipgames.web.app import create_app
from flipgames.web.db import chat_lines, make_engine
from flipgames.web.settings import Settings


def admin(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flipgames", "admin", *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_line_error(done: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("flipgames: error: ")
    for word in words:
        assert word in lines[0]


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database))) as test_client:
        yield test_client


def chat_in_a_match(client: TestClient, who: dict[str, str], *texts: str) -> str:
    """An online match whose first seat ``who`` holds and says ``texts`` in: its id."""
    created = client.post(
        "/api/matches", json={"game": "flipflop-3x3", "mode": "online"}, headers=who
    ).json()
    url = f"/ws/matches/{created['id']}?chat=true&token={created['token']}"
    with client.websocket_connect(url, headers=who) as socket:
        for text in texts:
            socket.send_text(json.dumps({"type": "chat", "text": text}))
        chats = 0  # the history first, then each line as it was kept
        while chats < 1 + len(texts):
            chats += socket.receive_json()["type"] == "chat"
    return str(created["id"])


def lines(database: str) -> list[tuple[str, bool]]:
    """Every stored chat line (of every match) and whether it is removed."""
    engine = make_engine(database)
    try:
        with engine.connect() as connection:
            query = select(chat_lines.c.text, chat_lines.c.removed)
            return [(row.text, bool(row.removed)) for row in connection.execute(query)]
    finally:
        engine.dispose()


def log_in(client: TestClient, name: str) -> Any:
    return client.post("/api/session", json={"name": name, "password": PASSWORD}, headers=HERE)


def test_disable_ends_sessions_and_seeks_and_enable_undoes_it(
    database: str, client: TestClient
) -> None:
    mallory, ada = account(client, "Mallory"), account(client, "Ada")
    seek = client.post("/api/seeks", json={"game": "flipflop-3x3"}, headers=mallory)
    assert seek.is_success, seek.text
    done = admin("disable", "mallory", "--db", database)  # any case
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "disabled Mallory: 1 session ended, 1 seek removed"
    assert client.get("/api/session", headers=mallory).status_code == 401
    assert client.get("/api/seeks").json() == []
    taken = client.post(f"/api/seeks/{seek.json()['id']}/accept", headers=ada)
    assert (taken.status_code, taken.json()["error"]["code"]) == (404, "not_found")
    assert log_in(client, "Mallory").json()["error"]["code"] == "disabled"
    done = admin("enable", "Mallory", "--database", database)
    assert done.returncode == 0, done.stderr
    assert log_in(client, "Mallory").status_code == 200


def test_a_disabled_players_open_socket_can_no_longer_chat(
    database: str, client: TestClient
) -> None:
    mallory = account(client, "Mallory")
    created = client.post(
        "/api/matches", json={"game": "flipflop-3x3", "mode": "online"}, headers=mallory
    ).json()
    url = f"/ws/matches/{created['id']}?chat=true&token={created['token']}"
    with client.websocket_connect(url, headers=mallory) as socket:
        assert admin("disable", "Mallory", "--db", database).returncode == 0
        socket.send_text(json.dumps({"type": "chat", "text": "still here?"}))
        while (message := socket.receive_json())["type"] != "error":
            pass
        assert message["error"]["code"] == "disabled"


def test_remove_lines_removes_only_that_players_lines(database: str, client: TestClient) -> None:
    mallory, ada = account(client, "Mallory"), account(client, "Ada")
    chat_in_a_match(client, mallory, "buy cheap", "spam")
    chat_in_a_match(client, ada, "good game")
    done = admin("remove-lines", "Mallory", "--db", database)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "removed 2 chat lines of Mallory"
    assert sorted(lines(database)) == [("buy cheap", True), ("good game", False), ("spam", True)]


def test_an_unknown_name_is_an_error_and_changes_nothing(database: str, client: TestClient) -> None:
    account(client, "Ada")
    for action in ("disable", "enable", "remove-lines"):
        one_line_error(admin(action, "Nobody", "--db", database), 1, "no player", "'Nobody'")
    assert log_in(client, "Ada").status_code == 200


def test_a_missing_database_file_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "typo.sqlite"
    one_line_error(admin("disable", "Ada", "--db", f"sqlite:///{missing}"), 1, "no arcade database")
    assert not missing.exists()  # nothing was made


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([], ["ACTION"]),
        (["frobnicate", "Ada"], ["invalid choice: 'frobnicate'"]),
        (["disable"], ["NAME"]),
        (["disable", "Ada", "--db"], ["--db", "expected one argument"]),
        (["disable", "Ada", "Bob"], ["unrecognized arguments: Bob"]),
    ],
)
def test_bad_arguments_are_usage_errors(argv: list[str], words: list[str]) -> None:
    one_line_error(admin(*argv), 2, *words)


def test_a_url_that_names_no_database_is_an_error() -> None:
    one_line_error(admin("disable", "Ada", "--db", "nonsense"), 1, "--db", "cannot open")


def test_running_servers_send_the_chat_again_without_removed_lines(database: str) -> None:
    """An open page is sent its room's lines again, without the removed ones (NOTIFY on
    PostgreSQL; on SQLite the note the server reads every second)."""
    with TestClient(create_app(Settings(database_url=database))) as client:
        mallory, ada = account(client, "Mallory"), account(client, "Ada")
        created = client.post(
            "/api/matches", json={"game": "flipflop-3x3", "mode": "online"}, headers=mallory
        ).json()
        match_id, invite = created["id"], created["links"]["invite"].split("token=")[1]
        spam = f"/ws/matches/{match_id}?chat=true&token={created['token']}"
        reader = f"/ws/matches/{match_id}?chat=true&token={invite}"
        with (
            client.websocket_connect(spam, headers=mallory) as writer,
            client.websocket_connect(reader, headers=ada) as socket,
        ):
            # Each page has its room's history before anyone writes: a line written while
            # the reader joins could come in its history instead of on its own.
            for page in (writer, socket):
                while (message := page.receive_json())["type"] != "chat":
                    pass
                assert message["history"] is True and message["lines"] == []
            for text, who in (("buy cheap", writer), ("good game", socket)):
                who.send_text(json.dumps({"type": "chat", "text": text}))
                while (message := socket.receive_json())["type"] != "chat":
                    pass
                assert not message["history"] and message["lines"][0]["text"] == text
            assert admin("remove-lines", "Mallory", "--db", database).returncode == 0
            while (message := socket.receive_json())["type"] != "chat":
                pass
            assert message["history"] is True
            assert [line["text"] for line in message["lines"]] == ["good game"]


def test_running_servers_lobbies_drop_a_disabled_players_seeks(database: str) -> None:
    """The running server is told (PostgreSQL and SQLite): the seek leaves every lobby
    socket."""
    with TestClient(create_app(Settings(database_url=database))) as client:
        mallory = account(client, "Mallory")
        with client.websocket_connect("/ws/lobby", headers=HERE) as lobby:
            assert lobby.receive_json() == {"type": "seeks", "seeks": []}
            body = {"game": "flipflop-3x3"}
            seek = client.post("/api/seeks", json=body, headers=mallory).json()["id"]
            assert lobby.receive_json()["type"] == "seek"
            assert admin("disable", "Mallory", "--db", database).returncode == 0
            assert lobby.receive_json() == {"type": "gone", "id": seek}
