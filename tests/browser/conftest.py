"""Fixtures for the browser tests: one real arcade and one chromium for the whole session, a
fresh page, and an online match open in two browsers (``two``).

Nothing here skips: without Debian's chromium (or Playwright) the tests fail and say why.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import chromium, running_arcade
from pages import create


@pytest.fixture(scope="session")
def arcade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a running ``flipgames serve`` with a fresh SQLite database."""
    with running_arcade(tmp_path_factory.mktemp("arcade")) as base_url:
        yield base_url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh desktop-sized page that fails the test on any uncaught script error or anything
    the Content-Security-Policy blocks."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    new_page = context.new_page()
    errors: list[str] = []
    new_page.on("pageerror", lambda exc: errors.append(str(exc)))
    # The pages run under the server's Content-Security-Policy: anything it blocks is a bug.
    new_page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text
            else None
        ),
    )
    yield new_page
    context.close()
    assert not errors, f"script errors on the page: {errors}"


@pytest.fixture
def two(browser: Any, arcade: str) -> Iterator[tuple[Any, Any, dict[str, Any]]]:
    """An online FlipFlop 3x3 match open in two separate browsers: White's and Black's."""
    created = create(arcade, "flipflop-3x3", mode="online")
    contexts = [browser.new_context(viewport={"width": 1100, "height": 800}) for _ in range(2)]
    white, black = (c.new_page() for c in contexts)
    white.goto(arcade + created["links"]["play"])
    black.goto(arcade + created["links"]["invite"])
    for page in (white, black):
        page.wait_for_selector(".board-svg")
    yield white, black, created
    for context in contexts:
        context.close()
