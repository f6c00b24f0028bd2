"""Shared set-up for the server tests.

The rate limits (see docs/web-operations.md) are off here unless a test sets them: the tests play
whole games in a few seconds from one address, far faster than people do.
`test_protections.py` and `test_identity.py` test the limits with settings of their own.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The helpers shared by this folder's tests (servers.py) are imported by their module name.
sys.path.insert(0, str(Path(__file__).resolve().parent))

import servers


@pytest.fixture(autouse=True)
def _no_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLIPGAMES_ACTIONS_PER_MINUTE", "0")
    monkeypatch.setenv("FLIPGAMES_MATCHES_PER_MINUTE", "0")
    monkeypatch.setenv("FLIPGAMES_READS_PER_MINUTE", "0")
    monkeypatch.setenv("FLIPGAMES_PUZZLES_PER_MINUTE", "0")
    monkeypatch.setenv("FLIPGAMES_SIGN_INS_PER_MINUTE", "0")


@pytest.fixture
def postgres() -> str:
    """The configured PostgreSQL database itself (not a worker's schema): ``schema_url`` makes
    a schema in it. Tests marked ``servers.needs_postgres`` get it by parametrization."""
    assert servers.POSTGRES is not None
    return servers.POSTGRES


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of the test's own: a SQLite file, or a fresh schema on the configured
    PostgreSQL server (always collected: without a server it shows as skipped, with the
    reason)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    request.getfixturevalue("postgres_url")  # skips, with the reason, when none is configured
    url: str = request.getfixturevalue("schema_url")
    return url


@pytest.fixture
def schema_url(postgres: str) -> Iterator[str]:
    """``postgres`` (``servers.needs_postgres``) with a fresh schema of its own as the search
    path, dropped afterwards."""
    import psycopg

    name = f"server_{secrets.token_hex(4)}"
    with psycopg.connect(postgres, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {name}")
    try:
        yield f"{postgres}?options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(postgres, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {name} CASCADE")
