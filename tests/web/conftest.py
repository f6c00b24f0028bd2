"""Shared set-up for the server tests.

The rate limits (see docs/web.md) are off here unless a test sets them: the tests play
whole games in a few seconds from one address, far faster than people do.
`test_protections.py` tests the limits with settings of its own.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLIPGAMES_ACTIONS_PER_MINUTE", "0")
    monkeypatch.setenv("FLIPGAMES_MATCHES_PER_MINUTE", "0")
    monkeypatch.setenv("FLIPGAMES_READS_PER_MINUTE", "0")
    monkeypatch.setenv("FLIPGAMES_PUZZLES_PER_MINUTE", "0")
