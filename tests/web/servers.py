"""The real server for the tests that need one: ``flipgames serve`` in a subprocess, on the
free port it binds itself (``--port 0``) and prints, logging to a file (imported by the tests
of this folder as ``servers``; see conftest.py; reading the port and the health check are
tests/support/servers.py's).

``needs_postgres`` runs a test when ``FLIPGAMES_TEST_POSTGRES_URL`` names a database (CI sets
it), with conftest.py's ``schema_url`` fixture giving it a schema of its own.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from support.servers import launch, stop

POSTGRES = os.environ.get("FLIPGAMES_TEST_POSTGRES_URL")
needs_postgres = pytest.mark.parametrize(
    "postgres", [POSTGRES] if POSTGRES else [], ids=["postgresql"]
)


def request_json(
    port: int, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
) -> tuple[int, Any]:
    """``(status, JSON answer)`` of a request to the server on ``port``, refusals included
    (an empty answer is None)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"content-type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as refusal:
        return refusal.code, json.loads(refusal.read() or b"null")


def call(port: int, method: str, path: str, body: Any = None) -> Any:
    """The JSON answer of a request the server must grant."""
    status, answer = request_json(port, method, path, body)
    assert status < 400, (method, path, status, answer)
    return answer


@contextmanager
def serve(
    database: str, log: Path, *extra: str, env: Mapping[str, str] | None = None
) -> Iterator[int]:
    """``flipgames serve`` on ``database`` and the free port it picks, appending to ``log``,
    with ``env`` on top of this process's environment (the rate limits are off there: see
    conftest.py); its port. Stopped on leaving."""
    command = [sys.executable, "-m", "flipgames", "serve", "--port", "0", "--db", database]
    process, port = launch([*command, *extra], log, {**os.environ, **(env or {})})
    try:
        yield port
    finally:
        stop(process)
