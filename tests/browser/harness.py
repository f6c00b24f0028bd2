"""Run the real arcade and Debian's chromium for the browser tests and the screenshot script.

The server is the real command (``python -m flipgames.cli.serve``) on the free port it binds
itself (``--port 0``) with an SQLite database in a temporary folder; the browser is the
system chromium driven by Playwright (never a downloaded one)::

    with running_arcade(tmp_path) as base_url, chromium() as browser:
        page = browser.new_page()
        page.goto(base_url)
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from support.servers import launch, stop

CHROMIUM = Path(os.environ.get("FLIPGAMES_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # The pages speak the browser's language (static/i18n.js): the tests read English words.
    "--lang=en-US",
]


@contextmanager
def running_arcade(
    folder: Path, port: int | None = None, wait_seconds: float = 60.0, extra: Sequence[str] = ()
) -> Iterator[str]:
    """Start ``flipgames serve`` with its database in ``folder`` (and the ``extra``
    arguments) on ``port``, by default the free one it binds and prints; yield its base URL.

    Starting it again with the same folder and port (the first one's, from its URL) is a
    server restart.
    """
    log_path = folder / f"server-{time.monotonic_ns()}.log"
    command = [
        sys.executable,
        "-m",
        "flipgames.cli.serve",
        "--port",
        str(port or 0),
        "--db",
        f"sqlite:///{folder / 'arcade.sqlite'}",
        *extra,
    ]
    # The tests click through whole games far faster than people do, all from 127.0.0.1: the
    # rate limits are off here (tests/web/test_protections.py tests them).
    env = {
        **os.environ,
        "FLIPGAMES_ACTIONS_PER_MINUTE": "0",
        "FLIPGAMES_MATCHES_PER_MINUTE": "0",
        "FLIPGAMES_READS_PER_MINUTE": "0",
        "FLIPGAMES_PUZZLES_PER_MINUTE": "0",
        "FLIPGAMES_SIGN_INS_PER_MINUTE": "0",
    }
    server, bound = launch(command, log_path, env, wait_seconds)
    try:
        yield f"http://127.0.0.1:{bound}"
    finally:
        stop(server, 10)


@contextmanager
def chromium() -> Iterator[Any]:
    """Launch Debian's chromium through Playwright; fail loudly when it is not installed."""
    if not CHROMIUM.exists():
        raise RuntimeError(
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium "
            "(apt-get install -y chromium); no browser is ever downloaded"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def api(base_url: str, method: str, path: str, body: Any = None) -> Any:
    """Call the arcade's JSON API (set-up shortcuts for tests; the pages use their own)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base_url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"{method} {path} -> {exc.code}: {exc.read().decode()}") from None
