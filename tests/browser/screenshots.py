"""Save screenshots of every game page (and the lobby, its Play people, a chat, a replay, a
game review, the analysis board, the rules, a lesson, a phone) to docs/screenshots/. Run it
after changing the pages:

    .venv/bin/python tests/browser/screenshots.py

Each game is created through the API with a fixed seed and a few scripted moves, so the
pictures show pieces in play. With Pillow installed the PNGs are reduced to a 96-colour
palette (a third of the size); without it Chromium's own PNGs are kept.
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

# harness.py beside this script, and the tests folder for the helpers it shares (support).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import api, chromium, running_arcade

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

# (file name, game, options, actions played through the API before the picture)
SCENES: list[tuple[str, str, dict[str, Any], list[str]]] = [
    ("flipflop", "flipflop", {}, ["b1-b3", "d5-d3", "e1-e4", "a5-a4"]),
    ("flipflop-3x3", "flipflop-3x3", {}, ["b1xb3", "a3xb3", "a1-a2"]),
    ("flipfour", "flipfour", {}, ["R@c3", "B@b2", "R@d4", "B@c2", "c3-e3"]),
    ("rubiks-flip", "rubiks-flip", {}, ["b2R", "b2/c3Y", "c3/b3B", "b3/c2W", "c2/a1R"]),
    ("flip-switch", "flip-switch", {}, ["b2", "a1", "c3", "a3"]),
    ("checkered-flag", "checkered-flag", {"start": "first"}, ["1", "1", "2", "2", "3"]),
]


def save(png: bytes, name: str) -> None:
    """Write ``png`` to docs/screenshots/``name``.png, palette-reduced when Pillow is here."""
    try:
        from PIL import Image
    except ImportError:
        (OUT / f"{name}.png").write_bytes(png)
    else:
        image = Image.open(io.BytesIO(png)).convert("RGB")
        image.quantize(colors=96, method=Image.Quantize.MEDIANCUT).save(
            OUT / f"{name}.png", optimize=True
        )
    print(f"saved {name}.png ({(OUT / f'{name}.png').stat().st_size // 1024} KiB)")


def play(base: str, game: str, options: dict[str, Any], actions: list[str]) -> Any:
    """Create a same-screen match (hints and analysis on) and play ``actions`` in it; return
    the creation answer."""
    spec = {"game": game, "options": options, "mode": "local", "assist": True}
    created = api(base, "POST", "/api/matches", spec)
    for action in actions:
        body = {"token": created["token"], "action": action}
        api(base, "POST", f"/api/matches/{created['id']}/actions", body)
    return created


def as_player(base: str, token: str, path: str, body: Any) -> Any:
    """POST ``body`` to ``path`` as the player whose session is ``token`` (a bearer token)."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    request = urllib.request.Request(base + path, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def people(base: str, browser: Any) -> None:
    """The lobby's "Play people": two open seeks, and a game between two others to watch."""
    token = {}
    for name in ("Hana", "Kenji", "Grace", "Ada"):
        signed = api(base, "POST", "/api/accounts", {"name": name, "password": "screenshot words"})
        token[name] = signed["token"]
    clock = {"initial": 180, "increment": 2}
    as_player(base, token["Hana"], "/api/seeks", {"game": "flipflop-3x3", "clock": clock})
    spec = {"game": "flip-switch", "options": {"lines": "edges"}, "rated": True}
    as_player(base, token["Kenji"], "/api/seeks", spec)
    watched = as_player(base, token["Grace"], "/api/seeks", {"game": "rubiks-flip"})
    as_player(base, token["Ada"], f"/api/seeks/{watched['id']}/accept", {})
    page = browser.new_context(viewport={"width": 960, "height": 820}).new_page()
    page.goto(base + "/")
    page.wait_for_selector("#seeks li.seek")
    page.wait_for_selector("#live-games li")
    # The section just under the header (which stays at the top of the window).
    page.evaluate(
        "() => window.scrollTo(0, document.getElementById('people').getBoundingClientRect().top"
        " + window.scrollY - document.querySelector('.site-header').offsetHeight - 12)"
    )
    save(page.screenshot(), "people")


def chat(base: str, browser: Any) -> None:
    """An online game's chat panel: two players, a few lines, one of them a link (text)."""
    token = {}
    for name in ("Yuki", "Ben"):
        signed = api(base, "POST", "/api/players", {"name": name})
        token[name] = signed["token"]
    created = as_player(
        base, token["Yuki"], "/api/matches", {"game": "flipflop-3x3", "mode": "online"}
    )
    pages = {}
    for name, link in (("Yuki", "play"), ("Ben", "invite")):
        context = browser.new_context(viewport={"width": 960, "height": 900})
        context.add_cookies([{"name": "flipgames_session", "value": token[name], "url": base}])
        pages[name] = context.new_page()
        pages[name].goto(base + created["links"][link])
        pages[name].wait_for_selector("#chat:not([hidden])")
    for name, text in (
        ("Yuki", "Good luck! First time playing 3x3?"),
        ("Ben", "Yes, I read https://example.org/rules first"),
        ("Yuki", "Nice. Captures on the goal win, watch b3"),
    ):
        pages[name].fill("#chat-input", text)
        pages[name].click("#chat-send")
        pages["Yuki"].wait_for_function(
            "text => [...document.querySelectorAll('#chat .chat-text')]"
            ".some(e => e.textContent === text)",
            arg=text,
        )
    save(pages["Yuki"].locator("#chat").screenshot(), "chat")


def dark(base: str, browser: Any) -> None:
    """A game page in the dark theme (the system's scheme)."""
    page = browser.new_context(
        viewport={"width": 960, "height": 640}, color_scheme="dark"
    ).new_page()
    _, game, options, actions = SCENES[2]  # FlipFour, pieces on the board and in hand
    created = play(base, game, options, actions)
    page.goto(base + created["links"]["play"])
    page.wait_for_selector(".board-svg")
    page.wait_for_timeout(900)
    save(page.screenshot(), "dark")


def review(base: str, browser: Any) -> None:
    """A finished FlipFlop 3x3 game's review on the replay page (White's first move, b1-b2,
    throws the win away: a blunder, picked), and the analysis board at a position."""
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    finished = play(base, "flipflop-3x3", {}, ["b1-b2", "a3-a2", "a1-b1", "c3-c2"])
    api(base, "POST", f"/api/matches/{finished['id']}/resign", {"token": finished["token"]})
    page.goto(f"{base}/replay/{finished['id']}")
    page.wait_for_selector("#review-chart .chart-point")
    page.locator("#review-chart .chart-point[data-ply='1']").click()
    page.wait_for_timeout(900)
    save(page.screenshot(), "review")
    page.goto(f"{base}/analysis/flipflop-3x3?moves=a1-a2%20c3-c2")
    page.wait_for_selector("#best-moves li")
    page.wait_for_timeout(600)
    save(page.screenshot(), "analysis")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_arcade(Path(tmp)) as base,
        chromium() as browser,
    ):
        page = browser.new_context(viewport={"width": 960, "height": 640}).new_page()
        page.goto(base + "/")
        page.wait_for_selector(".game-card")
        save(page.screenshot(), "lobby")
        people(base, browser)
        dark(base, browser)
        chat(base, browser)
        review(base, browser)
        for name, game, options, actions in SCENES:
            created = play(base, game, options, actions)
            page.goto(base + created["links"]["play"])
            page.wait_for_selector(".board-svg")
            if name == "flipflop-3x3":
                # The solved game: with the analysis switch on, every move shows its value.
                page.click("#analysis-switch")
                page.wait_for_selector("#analysis-list .move-chip")
                page.locator(".target.source").first.click()
            page.wait_for_timeout(1600)
            save(page.screenshot(), name)
        finished = play(base, "flipflop-3x3", {}, ["a1-a2", "b3xb1", "c1xb1", "a3-b3", "b1-c2"])
        page.goto(f"{base}/replay/{finished['id']}")
        page.wait_for_selector(".board-svg")
        page.click("#next")
        page.click("#next")
        page.wait_for_timeout(900)
        save(page.screenshot(), "replay")
        page.goto(f"{base}/rules/rubiks-flip")
        page.wait_for_selector(".rules-header")
        save(page.screenshot(), "rules")
        # A lesson's step with a piece picked (its targets shown) after a wrong move's answer.
        page.goto(f"{base}/learn/flipflop-3x3")
        page.wait_for_selector(".board-svg")
        page.locator("#steps li:nth-child(3) button").click()
        page.locator(".targets .target.source[data-target='a1']").click()
        page.locator(".targets .target:not(.source)[data-target='a2']").click()
        page.wait_for_selector("#feedback:not([hidden])")
        page.locator(".targets .target.source[data-target='b1']").click()
        page.wait_for_timeout(600)
        save(page.screenshot(), "learn")
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        created = api(
            base, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "ai", "seed": 1}
        )
        phone.goto(base + created["links"]["play"])
        phone.wait_for_selector(".board-svg")
        phone.wait_for_timeout(800)
        save(phone.screenshot(), "phone")


if __name__ == "__main__":
    main()
