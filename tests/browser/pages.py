"""What the browser tests share: starting games, reading the page, making moves by mouse.

Moves are chosen from the page's own clickable targets (never from the API), and made with
Playwright's real mouse clicks on the SVG.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

from harness import api

#: The page is idle and it is the viewer's turn, or the match is over.
MY_TURN_OR_OVER = (
    "() => !document.body.classList.contains('busy') &&"
    " (document.body.classList.contains('my-turn') || !document.getElementById('result').hidden)"
)

#: Targets that finish a turn when clicked (or take it to its next step).
FINAL_TARGETS = ".targets .target:not(.source), .targets .target.flip"
#: Targets that start a turn: a piece to move, a tile to switch, a drop, a pass.
FIRST_STEPS = ".targets .target.source:not(.flip), .drop-choice, .pass-choice"


def start_from_lobby(page: Any, base: str, game: str, mode: str, **fields: str) -> str:
    """Open the lobby, pick ``game`` and the opponent ``mode``, start; return the match id."""
    page.goto(base + "/")
    page.click(f".game-card[data-game='{game}'] button.play")
    page.check(f"input[name=mode][value={mode}]")
    for name, value in fields.items():
        page.select_option(f"[name='{name}']", value)
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/[^/?]+\?token="))
    page.wait_for_selector(".board-svg")
    return str(page.url.split("/play/")[1].split("?")[0])


def create(base: str, game: str, **fields: Any) -> Any:
    """A match made through the API (set-up only); the test then plays it on the page."""
    return api(base, "POST", "/api/matches", {"game": game, **fields})


def open_match(page: Any, base: str, created: Any) -> None:
    page.goto(base + created["links"]["play"])
    page.wait_for_selector(".board-svg")
    page.wait_for_function(MY_TURN_OR_OVER)


def resign(page: Any) -> None:
    """Resign by mouse: the flag, then the flag again to confirm (it asks "Really resign?");
    wait for the result card."""
    page.click("#resign")
    page.click("#resign")
    page.wait_for_selector("#result:not([hidden])")


def match(base: str, match_id: str, token: str | None = None) -> Any:
    return api(base, "GET", f"/api/matches/{match_id}" + (f"?token={token}" if token else ""))


def shown_moves(page: Any) -> list[str]:
    return [" ".join(text.split()) for text in page.locator("#moves .turn").all_inner_texts()]


def piece_squares(page: Any) -> dict[str, str]:
    """Board square -> the drawn piece's face, colour or shape, for pieces not leaving."""
    return dict(
        page.eval_on_selector_all(
            ".pieces .piece:not(.leaving)",
            "els => els.map(e => [e.dataset.square,"
            " e.dataset.face || e.dataset.colour || e.dataset.shape || ''])",
        )
    )


def click_any(locator: Any, rng: random.Random) -> None:
    locator.nth(rng.randrange(locator.count())).click()


def make_a_move(page: Any, base: str, match_id: str, rng: random.Random) -> None:
    """Make one move by mouse: click the page's targets (a first step, then a final target)
    until the server has the action."""
    before = match(base, match_id)["ply"]
    for _ in range(8):  # a turn has at most four steps (Rubik's Flip with flip=flap)
        gears = page.locator(".gear-button")
        finals = page.locator(FINAL_TARGETS)
        if gears.count():
            click_any(gears, rng)
        elif finals.count():
            click_any(finals, rng)
        else:
            click_any(page.locator(FIRST_STEPS), rng)
        page.wait_for_function(MY_TURN_OR_OVER)
        if match(base, match_id)["ply"] != before:
            return
    raise AssertionError("eight clicks did not make a move")


def play_to_the_end(page: Any, base: str, match_id: str, rng: random.Random, limit: int) -> int:
    """Make moves by mouse until the result shows; return how many moves it took."""
    moves = 0
    while page.locator("#result").is_hidden():
        assert moves < limit, f"the game should have ended within {limit} moves"
        make_a_move(page, base, match_id, rng)
        moves += 1
    return moves


def pass_the_turn_by_mouse(page: Any, base: str, match_id: str) -> None:
    """A FlipFlop move in an online match by mouse: a piece, then where it goes; returns once
    the server has recorded it (the turn passes, so :func:`make_a_move`, which waits for the
    turn to come back, does not fit)."""
    before = match(base, match_id)["ply"]
    page.locator(".targets .target.source").first.click()
    page.locator(FINAL_TARGETS).first.click()
    page.wait_for_function("() => !document.body.classList.contains('my-turn')")
    # The page hands the turn over as it sends the move; the server may record it a moment
    # later (a read straight away once found the old ply), so wait for it, not for a time.
    deadline = time.monotonic() + 10
    while match(base, match_id)["ply"] == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert match(base, match_id)["ply"] == before + 1
