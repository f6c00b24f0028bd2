"""Shared test settings: Hypothesis runs without deadlines (CI machines are slow and shared),
derandomized in CI; solver caches in a temporary folder; the PostgreSQL database, when there is
one."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, settings

# The helpers shared by every test folder (tests/support/) are imported as ``support``.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# A failure prints the blob that reproduces it (@reproduce_failure), whatever the profile.
settings.register_profile(
    "flipgames",
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
# CI (.ci/run sets FLIPGAMES_HYPOTHESIS=ci): the same examples on every run, so a red CI run is
# the code's doing and not the draw's (`pytest -vv`'s header names the profile and its settings).
settings.register_profile("ci", parent=settings.get_profile("flipgames"), derandomize=True)
HYPOTHESIS_PROFILE = os.environ.get("FLIPGAMES_HYPOTHESIS", "flipgames")
settings.load_profile(HYPOTHESIS_PROFILE)


#: Fixtures that give a test a PostgreSQL database (tests/web/conftest.py's and this file's).
POSTGRES_FIXTURES = {"postgres_url", "postgres", "schema_url"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every PostgreSQL run is marked slow: the fast loop (-m "not slow") tests the server on
    SQLite, and CI runs both (a PostgreSQL test starts a schema, migrations and often
    several server processes: a second or more of waiting each)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and "postgresql" in callspec.id.split("-")
        if on_postgres or POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def postgres_url() -> str:
    """The PostgreSQL database for tests; skips (with the reason shown) when none is given."""
    url = os.environ.get("FLIPGAMES_TEST_POSTGRES_URL")
    if not url:
        pytest.skip(
            "PostgreSQL not configured: set FLIPGAMES_TEST_POSTGRES_URL=postgresql://... "
            "(.ci/run does) to run the database tests on PostgreSQL too"
        )
    # The suite runs in parallel (pytest-xdist) and the database tests drop tables, so each
    # worker gets a schema of its own in the one database, put first on its search path.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return url
    from sqlalchemy import text

    from flipgames.web.db import make_engine

    schema = f"flipgames_{worker}"
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    engine.dispose()
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


# The servers the tests start run no background warmup (flipgames serve's --no-warmup): each
# would compile every level and build tables beside the tests. tests/cli/test_warmup.py turns
# it back on for the test of that warmup.
os.environ["FLIPGAMES_WARMUP"] = "0"


@pytest.fixture(autouse=True, scope="session")
def _private_solver_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Solver caches go to a temporary folder, never the user's: one folder per run, shared
    by its xdist workers, so a solve or an endgame table one worker built is not built again
    by the other (the cache writes each file atomically, so two builds at once are safe)."""
    previous = os.environ.get("FLIPGAMES_CACHE")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Each worker's base folder (.../pytest-N/popen-gwK) sits in the run's folder.
        folder = tmp_path_factory.getbasetemp().parent / "solver-cache"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("cache")
    os.environ["FLIPGAMES_CACHE"] = str(folder)
    yield
    if previous is None:
        os.environ.pop("FLIPGAMES_CACHE", None)
    else:
        os.environ["FLIPGAMES_CACHE"] = previous
