"""What players expect around a game, by mouse: presence, a draw offered and accepted,
resigning, a rematch with sides swapped, the turn in the tab title, flipping the board,
looking back through the move list during play, and the game-over sheet on a phone."""

from __future__ import annotations

import random
from typing import Any

from pages import (
    MY_TURN_OR_OVER,
    create,
    make_a_move,
    match,
    open_match,
    pass_the_turn_by_mouse,
    resign,
)

TITLE = "FlipFlop 3x3 · flipgames arcade"


def test_presence_draw_offer_and_the_turn_in_the_title(
    two: tuple[Any, Any, dict[str, Any]], arcade: str
) -> None:
    white, black, created = two
    # Both are here; each sees the other connected.
    white.wait_for_selector(".player.p1 .presence.here")
    black.wait_for_selector(".player.p0 .presence.here")
    assert white.title() == f"● Your move · {TITLE}"
    assert black.title() == TITLE
    # White moves: the turn (and the title) passes to Black.
    pass_the_turn_by_mouse(white, arcade, created["id"])
    black.wait_for_function(f"() => document.title === '● Your move · {TITLE}'")
    # Black offers a draw; White sees it and accepts.
    black.click("#offer-draw")
    black.wait_for_selector("#offer-draw:text('Draw offered')")
    white.wait_for_selector("#draw-offer:not([hidden])")
    assert white.inner_text("#draw-offer-text") == "Black offers a draw."
    white.click("#draw-accept")
    for page in (white, black):
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result-title") == "Draw"
        assert page.inner_text("#result-detail") == "Drawn by agreement."
        assert page.title() == f"Game over · {TITLE}"
    # Black closes the tab: White sees them away.
    black.close()
    white.wait_for_selector(".player.p1 .presence.away")


def test_resign_then_rematch_with_sides_swapped(
    two: tuple[Any, Any, dict[str, Any]], arcade: str
) -> None:
    white, black, created = two
    white.click("#resign")
    assert white.inner_text("#resign") == "⚑ Really resign?"
    assert match(arcade, created["id"])["status"] == "playing"  # one click does nothing yet
    white.click("#resign")
    for page in (white, black):
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result-title") == "Black wins"
        assert page.inner_text("#result-detail") == "White resigned."
    # White asks for a rematch and lands on it playing Black; Black is offered to join.
    white.click("#rematch")
    white.wait_for_url(lambda url: created["id"] not in url)
    white.wait_for_selector(".board-svg")
    black.wait_for_selector("#rematch-note:not([hidden])")
    assert black.inner_text("#rematch") == "↻ Join the rematch"
    black.click("#rematch")
    black.wait_for_url(lambda url: created["id"] not in url)
    black.wait_for_function(MY_TURN_OR_OVER)
    assert white.url.split("?")[0] == black.url.split("?")[0]  # the same new match
    rematch_id = black.url.split("/play/")[1].split("?")[0]
    # Sides swapped: the old Black now has White and moves first.
    pass_the_turn_by_mouse(black, arcade, rematch_id)
    white.wait_for_function(MY_TURN_OR_OVER)
    assert match(arcade, rematch_id)["ply"] == 1


def test_flip_board_and_looking_back_during_play(page: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="local", seed=1)
    open_match(page, arcade, created)
    rng = random.Random(4)
    for _ in range(3):
        make_a_move(page, arcade, created["id"], rng)
    # White's home row (rank 1) is at the bottom, then at the top once flipped.
    a1_before = page.locator(".square[data-square='a1']").bounding_box()
    page.click("#flip-board")
    assert page.get_attribute("#flip-board", "aria-pressed") == "true"
    a1_after = page.locator(".square[data-square='a1']").bounding_box()
    assert a1_before and a1_after and a1_after["y"] < a1_before["y"]
    # Click the first move in the list: the board shows the position after it.
    history = match(arcade, created["id"])["history"]
    page.locator("#moves .turn").first.click()
    page.wait_for_selector("#lookback:not([hidden])")
    assert page.inner_text("#lookback-text") == f"Looking back: after {history[0]} (move 1 of 3)"
    assert page.locator(".targets .target").count() == 0  # no playing in the past
    page.click("#lookback-exit")
    page.wait_for_function(MY_TURN_OR_OVER)
    assert page.locator("#lookback").is_hidden()
    assert page.locator(".targets .target").count() > 0


def test_the_game_over_sheet_stays_in_sight_on_a_phone(browser: Any, arcade: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 740}, has_touch=True)
    try:
        page = context.new_page()
        created = create(arcade, "flipflop-3x3", mode="online")
        open_match(page, arcade, created)
        page.mouse.wheel(0, 2000)  # scrolled down to the move list
        resign(page)
        page.evaluate("window.scrollTo(0, 0)")
        sheet = page.locator("#result").bounding_box()
        assert sheet is not None
        assert sheet["y"] >= 0 and sheet["y"] + sheet["height"] <= 740  # on screen
        page.click("#result-close")
        assert page.locator("#result").is_hidden()
    finally:
        context.close()
