"""Real browser tests of the arcade's pages: Debian's chromium, the real server, real clicks.

Each test plays through the pages the way a person would (lobby, board clicks, buttons) and
checks what the page shows against what the server says.
"""

from __future__ import annotations

import re
from typing import Any

from harness import api, running_arcade
from pages import MY_TURN_OR_OVER, match, piece_squares, shown_moves, start_from_lobby


def test_flipflop_3x3_against_the_ai_to_the_end(page: Any, arcade: str) -> None:
    match_id = start_from_lobby(page, arcade, "flipflop-3x3", "ai", level="easy", seat="0")
    page.wait_for_function(MY_TURN_OR_OVER)
    clicks = 0
    while page.locator("#result").is_hidden():
        assert clicks < 150, "the game should have ended"
        # Click one of our pieces, then the first highlighted target square.
        page.locator(".target.source").first.click()
        target = page.locator(".target.capture, .target.move").first
        target.wait_for()
        square = target.get_attribute("data-target")
        target.click()
        page.wait_for_function(MY_TURN_OR_OVER)
        clicks += 1
        state = match(arcade, match_id)
        if state["status"] == "playing":
            # The board shows exactly the server's pieces, faces included.
            expected = {sq: p["face"] for sq, p in state["observation"]["board"]["pieces"].items()}
            assert piece_squares(page) == expected
            assert square in state["history"][-2] or square in state["history"][-1]
    final = match(arcade, match_id)
    assert final["status"] == "finished"
    title = page.inner_text("#result-title")
    assert title == {"1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "Draw"}[final["result"]]
    moves = " ".join(shown_moves(page))
    assert all(action in moves for action in final["history"])
    assert page.locator("#hint").is_disabled()


def test_rubiks_flip_online_between_two_browsers(browser: Any, arcade: str) -> None:
    host = browser.new_context(viewport={"width": 1100, "height": 800})
    guest = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        a = host.new_page()
        match_id = start_from_lobby(a, arcade, "rubiks-flip", "online", seat="0")
        invite = a.input_value("#invite")
        assert f"/play/{match_id}?token=" in invite
        assert a.input_value("#watch").endswith(f"/watch/{match_id}")
        b = guest.new_page()
        b.goto(invite)
        b.wait_for_selector(".board-svg")
        assert "Waiting" in b.inner_text("#status-text")

        # Red/Blue places a red tile on b2 ...
        a.click(".colour-choice[data-colour=R]")
        a.click(".target[data-target=b2]")
        b.wait_for_selector(".piece[data-square=b2][data-colour=R]")
        # ... Yellow/White flips it (to blue) and places a white tile on c3.
        b.click(".target[data-target=b2]")
        b.click(".colour-choice[data-colour=W]")
        b.click(".target[data-target=c3]")
        a.wait_for_selector(".piece[data-square=c3][data-colour=W]")
        a.wait_for_selector(".piece[data-square=b2][data-colour=B]")
        for p in (a, b):
            p.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 2")
            assert " ".join(shown_moves(p)).split() == ["b2R", "b2/c3W"]
        assert match(arcade, match_id)["history"] == ["b2R", "b2/c3W"]

        # A spectator sees the same game and gets no controls.
        watcher = host.new_page()
        watcher.goto(a.input_value("#watch"))
        watcher.wait_for_selector(".piece[data-square=c3][data-colour=W]")
        assert watcher.locator("#hint").is_hidden()
        assert watcher.locator(".target").count() == 0
    finally:
        host.close()
        guest.close()


def test_flip_switch_flip_reveals_a_tile(page: Any, arcade: str) -> None:
    match_id = start_from_lobby(page, arcade, "flip-switch", "local")
    page.wait_for_selector(".piece[data-square=b2]")
    # Before any flip every tile is a back: the page holds no shape at all.
    assert set(piece_squares(page).values()) == {""}
    assert page.locator(".pieces .shape > *").count() == 0
    page.click(".target[data-target=b2]")
    page.wait_for_selector(".piece[data-square=b2]:not([data-shape=''])")
    shape = piece_squares(page)["b2"]
    state = match(arcade, match_id)
    assert state["history"] == ["b2", shape]
    assert shape in ("heart", "square", "star")
    assert page.locator(f".piece[data-square=b2] .shape-{shape} > *").count() == 1
    others = {sq: s for sq, s in piece_squares(page).items() if sq != "b2"}
    assert len(others) == 8 and set(others.values()) == {""}
    assert shown_moves(page) == [f"b2 {shape}"]


def test_finished_game_replays_step_by_step(page: Any, arcade: str) -> None:
    created = api(arcade, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "local"})
    actions = ["a1-a2", "b3xb1", "c1xb1", "a3-b3", "b1-c2"]
    for action in actions:
        api(
            arcade,
            "POST",
            f"/api/matches/{created['id']}/actions",
            {"token": created["token"], "action": action},
        )
    page.goto(f"{arcade}/replay/{created['id']}")
    page.wait_for_selector(".board-svg")
    assert page.inner_text("#step-label") == "0 / 5"
    assert page.inner_text("#result-title") == "White wins"
    start = piece_squares(page)
    assert start == {sq: "rook" for sq in ("a1", "b1", "c1", "a3", "b3", "c3")}
    page.click("#next")
    assert page.inner_text("#step-label") == "1 / 5"
    assert "a1" not in piece_squares(page) and piece_squares(page)["a2"] == "bishop"
    assert page.inner_text("#moves .current") == "a1-a2"
    page.click("#next")
    page.click("#next")
    assert page.inner_text("#moves .current") == "c1xb1"
    assert piece_squares(page)["b1"] == "bishop"
    page.click("#prev")
    assert page.inner_text("#step-label") == "2 / 5"
    page.keyboard.press("End")
    assert page.inner_text("#step-label") == "5 / 5"
    assert page.locator("#next").is_disabled()
    page.locator("#slider").fill("0")
    assert piece_squares(page) == start


def test_hint_analysis_and_undo_against_the_ai(page: Any, arcade: str) -> None:
    match_id = start_from_lobby(page, arcade, "flipflop-3x3", "ai", level="easy", seat="0")
    page.wait_for_function(MY_TURN_OR_OVER)
    page.click("#hint")
    page.wait_for_selector(".mark.hint")
    assert page.inner_text("#toast").startswith("Hint: ")
    page.check("#analysis-toggle", force=True)
    page.wait_for_selector("#analysis-list .move-chip")
    chips = page.locator("#analysis-list .move-chip")
    before = match(arcade, match_id)
    assert chips.count() >= 1
    for i in range(chips.count()):
        assert re.search(r"\b(win|draw|loss)\b", chips.nth(i).get_attribute("class") or "")
    # The analysis colours the board too: every piece that can move gets a value.
    assert page.locator(".target.source.win, .target.source.draw, .target.source.loss").count() >= 1
    chips.first.click()
    page.wait_for_function(MY_TURN_OR_OVER)
    played = match(arcade, match_id)
    assert len(played["history"]) > len(before["history"])
    page.click("#undo")
    page.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 0")
    assert match(arcade, match_id)["history"] == []


def test_phone_sized_screen(browser: Any, arcade: str) -> None:
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        p = phone.new_page()
        for game in ("flipflop", "rubiks-flip", "checkered-flag"):
            start_from_lobby(p, arcade, game, "ai", level="easy")
            box = p.locator(".board-svg").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
            width = p.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{game}: the page scrolls sideways ({width}px)"
    finally:
        phone.close()


def test_live_page_reconnects_and_catches_up_after_a_restart(browser: Any, tmp_path: Any) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    try:
        page = context.new_page()
        with running_arcade(tmp_path) as base:
            port = int(base.rsplit(":", 1)[1])  # the restarted server comes back on it
            created = api(base, "POST", "/api/matches", {"game": "flipflop-3x3", "mode": "online"})
            friend = created["links"]["invite"].split("token=")[1]
            page.goto(base + created["links"]["play"])
            page.wait_for_selector("#live.live")
            page.click(".target[data-target=a1]")
            page.click(".target[data-target=a2]")
            page.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 1")
        # The server is gone: the page says so and keeps retrying with growing delays.
        page.wait_for_selector("#live.reconnecting")
        with running_arcade(tmp_path, port=port) as base:
            # The friend answers while the page is still waiting to reconnect.
            body = {"token": friend, "action": "b3xb1"}
            api(base, "POST", f"/api/matches/{created['id']}/actions", body)
            page.wait_for_selector("#live.live", timeout=20000)
            page.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 2")
            assert " ".join(shown_moves(page)).split() == ["a1-a2", "b3xb1"]
            assert page.inner_text("#status-text").startswith("Your move")
            assert piece_squares(page)["b1"] == "bishop"
    finally:
        context.close()
