"""Guests, accounts and sessions over the API (docs/web-api.md, "Players and sessions"), on
SQLite and, where FLIPGAMES_TEST_POSTGRES_URL names a database, on PostgreSQL: every refusal,
the cookie's flags, the CSRF rule, the rate limit, what is stored and what is never logged."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from servers import serve
from sqlalchemy import select

from flipgames.web.app import create_app
from flipgames.web.db import make_engine, players, sessions
from flipgames.web.settings import Settings

#: TestClient's requests come from http://testserver: the arcade's own pages' Origin.
HERE = {"origin": "http://testserver"}
PASSWORD = "correct horse battery"


def make_client(database: str, **settings: Any) -> TestClient:
    return TestClient(create_app(Settings(database_url=database, **settings)))


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with make_client(database) as test_client:
        yield test_client


def refused(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    message: str = error["message"]
    return message


def sign_up(client: TestClient, name: str = "Grace", password: str = PASSWORD) -> Any:
    return client.post("/api/accounts", json={"name": name, "password": password}, headers=HERE)


def log_in(client: TestClient, name: str = "Grace", password: str = PASSWORD) -> Any:
    return client.post("/api/session", json={"name": name, "password": password}, headers=HERE)


def me(client: TestClient, token: str | None = None) -> Any:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return client.get("/api/session", headers=headers)


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("ab", "3 to 20 characters; this one has 2"),
        ("a" * 21, "3 to 20 characters; this one has 21"),
        ("Ada Lovelace", "not ' '"),
        ("<img src=x onerror=alert(1)>", "not '<'"),
        ("Adé", "not 'é'"),
    ],
)
def test_a_bad_name_is_refused_saying_what_is_wrong(
    client: TestClient, name: str, words: str
) -> None:
    for path in ("/api/players", "/api/accounts"):
        body = {"name": name} if path == "/api/players" else {"name": name, "password": PASSWORD}
        assert words in refused(client.post(path, json=body, headers=HERE), 422, "bad_name")
    assert client.cookies.get("flipgames_session") is None


@pytest.mark.parametrize(
    ("name", "looks_like"),
    [
        ("Computer", "computer"),
        ("ADMIN", "admin"),
        ("adm1n", "admin"),
        ("the-admin", "admin"),
        ("Guest_42", "guest"),
        ("deleted", "deleted"),
        ("Anonymous", "anonymous"),
        ("moderator", "moderator"),
        ("System", "system"),
        ("flipgames", "flipgames"),
        ("FL1PGAMES", "flipgames"),
        ("perfect", "perfect"),
        ("Hard", "hard"),
        ("easy_1", "easy"),
        ("medium", "medium"),
    ],
)
def test_reserved_names_and_their_lookalikes_are_refused(
    client: TestClient, name: str, looks_like: str
) -> None:
    message = refused(
        client.post("/api/players", json={"name": name}, headers=HERE), 422, "bad_name"
    )
    assert f"it looks like {looks_like!r}" in message


def test_an_outside_engines_name_is_reserved(tmp_path: Path) -> None:
    with make_client(f"sqlite:///{tmp_path / 'a.sqlite'}") as client:
        client.app.state.identity.engines = ("stockfish",)  # as serve --engine registers one
        response = client.post("/api/players", json={"name": "Stockfish"}, headers=HERE)
        assert "'stockfish'" in refused(response, 422, "bad_name")


def test_names_are_unique_ignoring_case_among_guests_and_accounts(database: str) -> None:
    with make_client(database) as first, make_client(database) as second:
        assert first.post("/api/players", json={"name": "Ada"}, headers=HERE).status_code == 201
        for response in (
            second.post("/api/players", json={"name": "ADA"}, headers=HERE),
            sign_up(second, "ada"),
        ):
            assert refused(response, 409, "name_taken") == "that name is taken: choose another"
        assert sign_up(second, "Grace").status_code == 201
        assert refused(
            first.post("/api/players", json={"name": "grace"}, headers=HERE), 409, "name_taken"
        )


# --- passwords ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("password", "length"), [("short", 5), ("x" * 201, 201), ("", 0)])
def test_a_password_of_the_wrong_length_is_refused(
    client: TestClient, password: str, length: int
) -> None:
    message = refused(sign_up(client, "Grace", password), 422, "bad_password")
    assert message == f"a password has 8 to 200 characters; this one has {length}"
    assert refused(me(client), 401, "not_signed_in")


def test_only_an_argon2id_hash_of_the_password_is_stored(database: str, client: TestClient) -> None:
    token = sign_up(client).json()["token"]
    engine = make_engine(database)
    try:
        with engine.connect() as connection:
            row = connection.execute(select(players)).one()
            stored = connection.execute(select(sessions.c.id_hash)).scalar_one()
    finally:
        engine.dispose()
    assert row.password_hash.startswith("$argon2id$")
    assert PASSWORD not in " ".join(str(value) for value in row)
    assert stored != token and len(stored) == 64  # the session id's sha256, not the id


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(client: TestClient) -> None:
    sign_up(client)
    client.delete("/api/session", headers=HERE)
    client.post("/api/players", json={"name": "Ada"}, headers=HERE)  # a guest: no password
    client.delete("/api/session", headers=HERE)
    answers = [
        log_in(client, "Grace", "not the password"),
        log_in(client, "Nobody", PASSWORD),
        log_in(client, "Ada", PASSWORD),
        log_in(client, "x", PASSWORD),
    ]
    assert {(a.status_code, a.text) for a in answers} == {
        (401, '{"error":{"code":"wrong_password","message":"wrong name or password"}}')
    }
    assert log_in(client, "GRACE").json()["name"] == "Grace"  # any case signs in


# --- sessions ----------------------------------------------------------------------------------


def test_a_guest_gets_a_session_cookie_and_a_bearer_token(client: TestClient) -> None:
    response = client.post("/api/players", json={"name": "Ada"}, headers=HERE)
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Ada"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"flipgames_session={body['token']};")
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert {"httponly", "samesite=lax", "path=/"} <= flags
    assert "secure" not in flags  # plain HTTP: a Secure cookie would never be sent back
    assert me(client).json() == {"name": "Ada", "account": False}
    with make_client_like(client) as other:
        assert me(other, body["token"]).json() == {"name": "Ada", "account": False}


def make_client_like(client: TestClient) -> TestClient:
    """Another client of the same app, with no cookies."""
    return TestClient(client.app)


def test_the_cookie_is_secure_when_the_settings_say_so(database: str) -> None:
    with make_client(database, secure_cookies=True) as client:
        cookie = client.post("/api/players", json={"name": "Ada"}, headers=HERE).headers
        assert "secure" in {p.strip().lower() for p in cookie["set-cookie"].split(";")}


def test_signing_up_as_a_guest_keeps_the_player(database: str, client: TestClient) -> None:
    client.post("/api/players", json={"name": "Ada"}, headers=HERE)
    guest_token = client.cookies["flipgames_session"]
    engine = make_engine(database)
    try:
        with engine.connect() as connection:
            before = connection.execute(select(players.c.id)).scalar_one()
        body = sign_up(client, "Ada_L").json()
        with engine.connect() as connection:
            after = connection.execute(select(players.c.id, players.c.name)).all()
    finally:
        engine.dispose()
    assert [tuple(row) for row in after] == [(before, "Ada_L")]
    assert me(client).json() == {"name": "Ada_L", "account": True}
    assert body["token"] != guest_token
    assert refused(me(client, guest_token), 401, "not_signed_in")  # the guest's session ended


def test_signing_out_ends_the_session(client: TestClient) -> None:
    token = sign_up(client).json()["token"]
    response = client.delete("/api/session", headers=HERE)
    assert response.status_code == 204
    assert "max-age=0" in response.headers["set-cookie"].lower()
    assert refused(me(client, token), 401, "not_signed_in")
    # A guest's name is free once its session has ended: nobody can be that guest again.
    client.post("/api/players", json={"name": "Ada"}, headers=HERE)
    client.delete("/api/session", headers=HERE)
    assert client.post("/api/players", json={"name": "ada"}, headers=HERE).status_code == 201


def test_changing_the_password_ends_the_other_sessions(client: TestClient) -> None:
    sign_up(client)
    with make_client_like(client) as phone:
        phone_token = log_in(phone).json()["token"]
    change = {"password": "not the password", "new_password": "a new long password"}
    assert refused(
        client.post("/api/account/password", json=change, headers=HERE), 401, "wrong_password"
    )
    change["password"] = PASSWORD
    change["new_password"] = "short"
    assert refused(
        client.post("/api/account/password", json=change, headers=HERE), 422, "bad_password"
    )
    assert me(client, phone_token).status_code == 200  # nothing changed yet
    change["new_password"] = "a new long password"
    assert client.post("/api/account/password", json=change, headers=HERE).status_code == 204
    assert me(client).json() == {"name": "Grace", "account": True}  # this one goes on
    assert refused(me(client, phone_token), 401, "not_signed_in")
    assert refused(log_in(client), 401, "wrong_password")
    assert log_in(client, password="a new long password").status_code == 200


def test_a_guest_has_no_password_to_change_or_account_to_delete(client: TestClient) -> None:
    client.post("/api/players", json={"name": "Ada"}, headers=HERE)
    change = {"password": PASSWORD, "new_password": "a new long password"}
    response = client.post("/api/account/password", json=change, headers=HERE)
    assert "a guest has no account" in refused(response, 409, "not_an_account")
    response = client.request("DELETE", "/api/account", json={"password": PASSWORD}, headers=HERE)
    refused(response, 409, "not_an_account")


def test_deleting_the_account_needs_its_password_and_frees_its_name(client: TestClient) -> None:
    token = sign_up(client).json()["token"]
    wrong = client.request("DELETE", "/api/account", json={"password": "nope"}, headers=HERE)
    assert refused(wrong, 401, "wrong_password") == "wrong password"
    assert me(client).status_code == 200
    deleted = client.request("DELETE", "/api/account", json={"password": PASSWORD}, headers=HERE)
    assert deleted.status_code == 204
    assert refused(me(client, token), 401, "not_signed_in")
    assert refused(log_in(client), 401, "wrong_password")
    assert sign_up(client, "grace").status_code == 201  # the name is free again


def test_what_needs_a_session_says_so(client: TestClient) -> None:
    assert "sign in first" in refused(me(client), 401, "not_signed_in")
    assert refused(me(client, "not-a-session"), 401, "not_signed_in")
    change = {"password": PASSWORD, "new_password": "a new long password"}
    refused(client.post("/api/account/password", json=change, headers=HERE), 401, "not_signed_in")
    assert client.delete("/api/session", headers=HERE).status_code == 204  # nothing to end


def test_a_disabled_player_is_signed_out_and_cannot_sign_in(
    database: str, client: TestClient
) -> None:
    token = sign_up(client).json()["token"]
    engine = make_engine(database)
    try:
        with engine.begin() as connection:  # as an operator's flipgames admin does
            connection.execute(players.update().values(disabled=True))
    finally:
        engine.dispose()
    assert "disabled" in refused(me(client, token), 403, "disabled")
    client.delete("/api/session", headers=HERE)
    assert "disabled" in refused(log_in(client), 403, "disabled")
    assert refused(log_in(client, password="wrong password"), 401, "wrong_password")


@pytest.mark.parametrize(
    "body",
    [
        {"name": 12, "password": PASSWORD},
        {"name": "Grace"},
        {"name": "Grace", "password": PASSWORD, "x": 1},
    ],
)
def test_malformed_bodies_are_bad_requests(client: TestClient, body: dict[str, Any]) -> None:
    refused(client.post("/api/accounts", json=body, headers=HERE), 422, "bad_request")


# --- cross-site requests -----------------------------------------------------------------------


def test_a_request_from_another_sites_page_is_refused(client: TestClient) -> None:
    for origin in ("https://evil.example", "null", "http://testserver.evil.example"):
        evil = {"origin": origin}
        response = client.post("/api/players", json={"name": "Ada"}, headers=evil)
        assert "another site" in refused(response, 403, "foreign_origin")
        response = client.post("/api/matches", json={"game": "flipflop-3x3"}, headers=evil)
        refused(response, 403, "foreign_origin")
    assert client.cookies.get("flipgames_session") is None
    assert client.post("/api/players", json={"name": "Ada"}, headers=HERE).status_code == 201
    # A signed-in browser too: nothing is changed from another site.
    response = client.delete("/api/session", headers={"origin": "https://evil.example"})
    refused(response, 403, "foreign_origin")
    assert me(client).json()["name"] == "Ada"


def test_an_allowed_origin_may_change_things(database: str) -> None:
    with make_client(database, allowed_origins=("https://arcade.example.org",)) as client:
        origin = {"origin": "https://arcade.example.org"}
        assert client.post("/api/players", json={"name": "Ada"}, headers=origin).status_code == 201


def test_the_session_cookie_without_an_origin_is_refused(client: TestClient) -> None:
    token = client.post("/api/players", json={"name": "Ada"}, headers=HERE).json()["token"]
    response = client.delete("/api/session")  # the cookie, no Origin
    assert "Authorization: Bearer" in refused(response, 403, "foreign_origin")
    refused(client.post("/api/matches", json={"game": "flipflop-3x3"}), 403, "foreign_origin")
    assert me(client).status_code == 200  # still signed in
    # A browser that says the request comes from this site is believed.
    same = {"sec-fetch-site": "same-origin"}
    assert (
        client.post("/api/matches", json={"game": "flipflop-3x3"}, headers=same).status_code == 201
    )
    # A bearer token needs no Origin: other sites cannot make a browser send one.
    bearer = {"authorization": f"Bearer {token}"}
    assert client.delete("/api/session", headers=bearer).status_code == 204
    assert refused(me(client, token), 401, "not_signed_in")


def test_clients_with_neither_cookie_nor_origin_are_served(client: TestClient) -> None:
    assert client.post("/api/players", json={"name": "Ada"}).status_code == 201
    client.cookies.clear()
    assert client.post("/api/matches", json={"game": "flipflop-3x3"}).status_code == 201


# --- rate limits -------------------------------------------------------------------------------


def test_sign_ins_sign_ups_and_guests_are_rate_limited(database: str) -> None:
    with make_client(database, sign_ins_per_minute=3, sign_ins_burst=3) as client:
        assert client.post("/api/players", json={"name": "Ada"}, headers=HERE).status_code == 201
        assert sign_up(client).status_code == 201
        assert refused(log_in(client, password="wrong password"), 401, "wrong_password")
        for response in (
            log_in(client),
            sign_up(client, "Grace2"),
            client.post("/api/players", json={"name": "Alan"}, headers=HERE),
        ):
            message = refused(response, 429, "rate_limited")
            assert "too many sign-ins and password checks from your address" in message
            assert int(response.headers["retry-after"]) >= 1


# --- secrets never logged ----------------------------------------------------------------------


def test_no_password_session_id_or_token_reaches_the_servers_log(
    database: str, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    secrets = [PASSWORD, "a new long password"]
    with serve(database, log) as port, httpx2.Client(base_url=f"http://127.0.0.1:{port}") as web:
        here = {"origin": f"http://127.0.0.1:{port}"}
        account = {"name": "Grace", "password": PASSWORD}
        secrets.append(web.post("/api/accounts", json=account, headers=here).json()["token"])
        wrong = {"name": "Grace", "password": "wrong password"}
        assert web.post("/api/session", json=wrong, headers=here).status_code == 401
        secrets.append(web.post("/api/session", json=account, headers=here).json()["token"])
        created = web.post("/api/matches", json={"game": "flipflop-3x3"}, headers=here).json()
        secrets.append(created["token"])
        assert web.get(f"/api/matches/{created['id']}?token={created['token']}").status_code == 200
        change = {"password": PASSWORD, "new_password": "a new long password"}
        assert web.post("/api/account/password", json=change, headers=here).status_code == 204
        bearer = {"authorization": f"Bearer {secrets[-2]}"}
        assert web.get("/api/session", headers=bearer).status_code == 200
        gone = {"password": "a new long password"}
        assert web.request("DELETE", "/api/account", json=gone, headers=here).status_code == 204
        time.sleep(0.5)  # the last request's log line is written after its answer
    text = log.read_text()
    assert "POST /api/accounts HTTP/1.1" in text and "DELETE /api/account HTTP/1.1" in text
    for secret in secrets:
        assert secret not in text


# --- seats and names ---------------------------------------------------------------------------


def online_match(client: TestClient, **headers: str) -> Any:
    body = {"game": "flipflop-3x3", "mode": "online"}
    response = client.post("/api/matches", json=body, headers={**HERE, **headers})
    assert response.status_code == 201, response.text
    return response.json()


def seen(client: TestClient, match_id: str, token: str | None = None, **headers: str) -> Any:
    params = {"token": token} if token else {}
    response = client.get(f"/api/matches/{match_id}", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_signed_in_players_take_their_seats_and_views_name_them(client: TestClient) -> None:
    sign_up(client)
    created = online_match(client)
    assert created["match"]["names"] == ["Grace", None]
    invite = created["links"]["invite"].split("token=")[1]
    with make_client_like(client) as ada:
        # A seat link works with no session at all: the seat stays without a player.
        assert seen(ada, created["id"], invite)["seat"] == 1
        assert seen(ada, created["id"])["names"] == ["Grace", None]
        ada.post("/api/players", json={"name": "Ada"}, headers=HERE)
        assert seen(ada, created["id"], invite)["names"] == ["Grace", "Ada"]
        # Nobody else takes a seat a player holds, whoever uses its token.
        ada.delete("/api/session", headers=HERE)
        ada.post("/api/players", json={"name": "Alan"}, headers=HERE)
        assert seen(ada, created["id"], invite)["names"] == ["Grace", "Ada"]
    assert seen(client, created["id"])["names"] == ["Grace", "Ada"]  # spectators see them too


def test_a_bearer_token_binds_the_seat_and_a_move_takes_a_free_one(client: TestClient) -> None:
    token = client.post("/api/players", json={"name": "Ada"}).json()["token"]
    client.cookies.clear()
    created = online_match(client, authorization=f"Bearer {token}")
    assert created["match"]["names"] == ["Ada", None]
    anonymous = online_match(client)
    assert anonymous["match"]["names"] == [None, None]
    move = {"token": anonymous["token"], "action": "b1xb3"}
    bearer = {"authorization": f"Bearer {token}"}
    response = client.post(f"/api/matches/{anonymous['id']}/actions", json=move, headers=bearer)
    assert response.json()["names"] == ["Ada", None]


def test_a_deleted_accounts_games_stay_anonymised(client: TestClient) -> None:
    sign_up(client)
    created = online_match(client)
    match_id = created["id"]
    move = {"token": created["token"], "action": "b1xb3"}
    assert (
        client.post(f"/api/matches/{match_id}/actions", json=move, headers=HERE).status_code == 200
    )
    gone = client.request("DELETE", "/api/account", json={"password": PASSWORD}, headers=HERE)
    assert gone.status_code == 204
    view = seen(client, match_id, created["token"])
    assert view["names"] == ["deleted player", None]
    assert view["history"] == ["b1xb3"]
    assert "Grace" not in client.get(f"/api/matches/{match_id}").text
