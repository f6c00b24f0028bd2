"""Players for the in-process server tests (a ``TestClient``): a guest or an account made
through the API, as the headers that speak for it.

Each helper drops the cookie the answer set, so one client can speak for several players,
each by its bearer token; every request carries the arcade's own ``Origin`` (TestClient's
requests come from http://testserver), which state-changing requests need.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

#: The Origin of the arcade's own pages under TestClient.
HERE = {"origin": "http://testserver"}
#: The password of every account these tests make.
PASSWORD = "correct horse battery"


def _headers(client: TestClient, path: str, body: dict[str, str]) -> dict[str, str]:
    answer = client.post(path, json=body, headers=HERE)
    assert answer.status_code == 201, answer.text
    client.cookies.clear()
    return {"authorization": f"Bearer {answer.json()['token']}", **HERE}


def guest(client: TestClient, name: str) -> dict[str, str]:
    """A new guest's headers."""
    return _headers(client, "/api/players", {"name": name})


def account(client: TestClient, name: str) -> dict[str, str]:
    """A new account's headers (its password :data:`PASSWORD`)."""
    return _headers(client, "/api/accounts", {"name": name, "password": PASSWORD})
