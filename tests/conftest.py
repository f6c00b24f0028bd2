"""Shared test settings: Hypothesis runs without deadlines (CI machines are slow and shared);
solver caches in a temporary folder; the PostgreSQL database, when there is one."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "flipgames", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("flipgames")


@pytest.fixture
def postgres_url() -> str:
    """The PostgreSQL database for tests; skips (with the reason shown) when none is given."""
    url = os.environ.get("FLIPGAMES_TEST_POSTGRES_URL")
    if not url:
        pytest.skip(
            "PostgreSQL not configured: set FLIPGAMES_TEST_POSTGRES_URL=postgresql://... "
            "(.ci/run does) to run the database tests on PostgreSQL too"
        )
    return url


@pytest.fixture(autouse=True, scope="session")
def _private_solver_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Solver caches go to a temporary folder, never the user's."""
    previous = os.environ.get("FLIPGAMES_CACHE")
    os.environ["FLIPGAMES_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if previous is None:
        os.environ.pop("FLIPGAMES_CACHE", None)
    else:
        os.environ["FLIPGAMES_CACHE"] = previous
