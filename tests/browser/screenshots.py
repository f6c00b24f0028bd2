"""Save a screenshot of every game page (and the lobby, a replay, a phone view) to
docs/screenshots/. Run it after changing the pages:

    .venv/bin/python tests/browser/screenshots.py

Each game is created through the API with a fixed seed and a few scripted moves, so the
pictures show pieces in play; the pictures are 8-colour-quantised PNGs only if Pillow is
around, otherwise Chromium's own PNGs (still small: the pages are flat colours).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import api, chromium, running_arcade  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

# (file name, game, options, mode, actions played through the API before the picture)
SCENES: list[tuple[str, str, dict[str, Any], str, list[str]]] = [
    ("flipflop", "flipflop", {}, "local", ["b1-b3", "d5-d3", "e1-e4", "a5-a4"]),
    ("flipflop-3x3", "flipflop-3x3", {}, "local", ["b1xb3", "a3xb3", "a1-a2"]),
    ("flipfour", "flipfour", {}, "local", ["R@c3", "B@b2", "R@d4", "B@c2", "c3-e3"]),
    ("rubiks-flip", "rubiks-flip", {}, "local", ["b2R", "b2/c3Y", "c3/b3B", "b3/c2W", "c2/a1R"]),
    ("flip-switch", "flip-switch", {}, "local", ["b2", "a1", "c3", "a3"]),
    ("checkered-flag", "checkered-flag", {"start": "first"}, "local", ["1", "1", "2", "2", "3"]),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, running_arcade(Path(tmp)) as base, chromium() as browser:
        desktop = browser.new_context(viewport={"width": 1100, "height": 760})
        page = desktop.new_page()
        page.goto(base + "/")
        page.wait_for_selector(".game-card")
        page.screenshot(path=str(OUT / "lobby.png"))
        for name, game, options, mode, actions in SCENES:
            created = api(base, "POST", "/api/matches", {"game": game, "options": options, "mode": mode, "seed": 7})
            token = created["token"]
            for action in actions:
                api(base, "POST", f"/api/matches/{created['id']}/actions", {"token": token, "action": action})
            page.goto(base + created["links"]["play"])
            page.wait_for_selector(".board-svg")
            page.wait_for_timeout(1600)
            page.screenshot(path=str(OUT / f"{name}.png"))
            print("saved", name)
        phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
        mobile = phone.new_page()
        created = api(base, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "ai", "level": "easy", "seed": 1})
        mobile.goto(base + created["links"]["play"])
        mobile.wait_for_selector(".board-svg")
        mobile.wait_for_timeout(800)
        mobile.screenshot(path=str(OUT / "phone.png"))
        mobile.goto(base + "/")
        mobile.wait_for_selector(".game-card")
        mobile.screenshot(path=str(OUT / "phone-lobby.png"))


if __name__ == "__main__":
    main()
