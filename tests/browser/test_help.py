"""Help and feedback on the page: analysis and hints stay with their position, undo says what
it can take back, assistance in online games, the computer thinking, and the small things
(value tags, toasts, trophy, lobby buttons, rules text)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from pages import (
    MY_TURN_OR_OVER,
    create,
    make_a_move,
    match,
    open_match,
)


def held_back(page: Any, held: list[Any], count: int) -> Any:
    """Let the page run until ``count`` requests are held by a route; return the last one.

    (Route handlers run while Playwright waits; this waits a bounded while, it times nothing.)
    """
    for _ in range(200):
        if len(held) >= count:
            return held[count - 1]
        page.wait_for_timeout(25)
    raise AssertionError(f"the page sent {len(held)} of the {count} requests expected")


def box(locator: Any) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None
    return dict(found)


def inside(inner: dict[str, float], outer: dict[str, float], slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_analysis_belongs_to_its_position_and_switches_off(page: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="ai", level="easy", seed=3)
    match_id = created["id"]
    open_match(page, arcade, created)
    page.click("#analysis-switch")  # the switch, with the mouse
    page.wait_for_selector("#analysis-list .move-chip")
    chips = page.locator("#analysis-list .move-chip")
    legal = match(arcade, match_id, created["token"])["legal"]
    assert sorted(chips.nth(i).get_attribute("data-action") for i in range(chips.count())) == (
        sorted(legal)
    )
    # Value tags sit inside their square and inside the board.
    page.locator(".target.source").first.click()
    tags = page.locator(".targets .target .value-tag")
    assert tags.count() >= 2
    board = box(page.locator(".board-svg"))
    for i in range(tags.count()):
        tag = tags.nth(i)
        square = box(tag.locator("xpath=..").locator(".hit"))
        assert inside(box(tag), square), (tag.text_content(), box(tag), square)
        assert inside(box(tag), board)
    # After a move the analysis is of the new position, never the old one.
    make_a_move(page, arcade, match_id, random.Random(1))
    page.wait_for_function(MY_TURN_OR_OVER)
    view = match(arcade, match_id, created["token"])
    page.wait_for_function(
        "n => document.querySelectorAll('#analysis-list .move-chip').length === n",
        arg=len(view["legal"]),
    )
    actions = {chips.nth(i).get_attribute("data-action") for i in range(chips.count())}
    assert actions == set(view["legal"])
    # Off means off: no card, no coloured targets, no tags, and still off after a move.
    page.click("#analysis-switch")
    assert page.locator("#analysis").is_hidden()
    assert page.locator(".value-tag").count() == 0
    assert page.locator(".target.win, .target.draw, .target.loss").count() == 0
    make_a_move(page, arcade, match_id, random.Random(2))
    if page.locator("#result").is_hidden():
        assert page.locator("#analysis").is_hidden()
        assert page.locator(".value-tag").count() == 0


def test_a_hint_belongs_to_the_position_it_was_asked_for(page: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="ai", level="easy", seed=5)
    match_id = created["id"]
    open_match(page, arcade, created)
    # A hint shown for this position goes away with it.
    page.click("#hint")
    page.wait_for_selector(".mark.hint")
    assert page.inner_text("#toast").startswith("Hint: ")
    make_a_move(page, arcade, match_id, random.Random(3))
    assert page.locator(".mark.hint").count() == 0
    assert page.locator("#toast").is_hidden()
    # A hint that arrives after the position changed is not shown at all.
    held: list[Any] = []
    page.route("**/hint?*", lambda route: held.append(route))
    page.click("#hint")
    page.wait_for_function("() => document.getElementById('hint').classList.contains('working')")
    late_hint = held_back(page, held, 1)
    make_a_move(page, arcade, match_id, random.Random(4))
    late_hint.continue_()
    page.wait_for_function("() => !document.getElementById('hint').classList.contains('working')")
    assert page.locator(".mark.hint").count() == 0
    assert page.locator("#toast").is_hidden() or "Hint" not in page.inner_text("#toast")


def test_undo_says_what_it_takes_back_and_never_undoes_chance(page: Any, arcade: str) -> None:
    created = create(arcade, "flip-switch", mode="ai", level="easy", seed=9, options={"rounds": 1})
    match_id = created["id"]
    open_match(page, arcade, created)
    note = page.locator("#undo-note")
    assert note.is_visible() and "chance" in note.inner_text()
    assert page.locator("#undo").is_disabled()
    page.locator(".targets .target.flip").first.click()  # a flip: chance shows its shape
    page.wait_for_function(MY_TURN_OR_OVER)
    view = match(arcade, match_id, created["token"])
    assert view["actors"][:2] == [0, -1]
    assert page.locator("#undo").is_disabled()
    # Without chance in between, undo works: FlipFlop 3x3 against the computer.
    other = create(arcade, "flipflop-3x3", mode="ai", level="easy", seed=2)
    open_match(page, arcade, other)
    assert "chance" not in page.inner_text("#undo-note")
    make_a_move(page, arcade, other["id"], random.Random(5))
    assert page.locator("#undo").is_enabled()
    page.click("#undo")
    page.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 0")
    assert match(arcade, other["id"])["history"] == []
    assert page.locator("#undo").is_disabled()


def test_online_assistance_is_off_unless_the_creator_turns_it_on(browser: Any, arcade: str) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    try:
        host = context.new_page()
        host.goto(arcade + "/")
        host.click(".game-card[data-game='flipflop-3x3'] button.play")
        host.check("input[name=mode][value=online]")
        assert not host.is_checked("#assist")
        host.click("#start")
        host.wait_for_selector(".board-svg")
        guest = context.new_page()
        guest.goto(host.input_value("#invite"))
        watcher = context.new_page()
        watcher.goto(host.input_value("#watch"))
        for p in (host, guest, watcher):
            p.wait_for_selector(".board-svg")
            assert p.inner_text("#assist-note") == "Hints and analysis: off for both players"
            assert p.locator("#hint").is_hidden()
            assert p.locator("#analysis-switch").is_hidden()
        # The creator may turn it on, for both players; everyone sees that.
        host.goto(arcade + "/")
        host.click(".game-card[data-game='flipflop-3x3'] button.play")
        host.check("input[name=mode][value=online]")
        host.check("#assist")
        host.click("#start")
        host.wait_for_selector(".board-svg")
        guest.goto(host.input_value("#invite"))
        watcher.goto(host.input_value("#watch"))
        for p in (host, guest, watcher):
            p.wait_for_selector(".board-svg")
            assert p.inner_text("#assist-note") == "Hints and analysis: on for both players"
        assert host.locator("#hint").is_visible() and guest.locator("#hint").is_visible()
        assert watcher.locator("#hint").is_hidden()
        assert watcher.locator("#controls").is_hidden()  # no empty card for spectators
    finally:
        context.close()


def hold_the_computers_moves(page: Any, held: list[str]) -> list[Any]:
    """Pass the match's WebSocket through, holding back every view the computer moved in;
    return the routed sockets (a test sends a held view on with ``sockets[-1].send``)."""
    sockets: list[Any] = []

    def route(socket: Any) -> None:
        server = socket.connect_to_server()

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "view" and data["match"]["actors"][-1:] == [1]:
                held.append(str(message))
            else:
                socket.send(message)

        server.on_message(from_server)
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/ws/matches/"), route)
    return sockets


def test_the_computer_is_seen_thinking(page: Any, arcade: str) -> None:
    # The player's move is shown at once; the computer's reply comes over the socket later,
    # and until it does the page says the computer is thinking.
    created = create(arcade, "flipflop", mode="ai", level="easy", seed=3)
    held: list[str] = []
    sockets = hold_the_computers_moves(page, held)
    open_match(page, arcade, created)
    page.locator(".target.source").first.click()
    page.locator(".target.move, .target.capture").first.click()
    page.wait_for_selector("#thinking:not([hidden])")
    # The indicator shows as soon as the move is sent; the move joins the list when the server
    # has committed it, while the computer's reply is still held back.
    page.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 1")
    assert page.inner_text("#status-text") == "The computer is thinking…"
    assert page.locator("#moves .turn").count() == 1  # the player's move, shown already
    for _ in range(200):  # the reply arrives on the (held) socket: a bounded wait
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the computer's move never came"
    sockets[-1].send(held[0])
    page.wait_for_function(MY_TURN_OR_OVER)
    assert page.locator("#thinking").is_hidden()
    assert len(match(arcade, created["id"])["history"]) == 2


def test_an_error_toast_leaves_the_board_visible(page: Any, arcade: str) -> None:
    created = create(arcade, "flipflop", mode="local", seed=1)
    open_match(page, arcade, created)
    error = {"error": {"code": "stale", "message": "another action was accepted first"}}
    page.route(
        "**/actions",
        lambda route: route.fulfill(
            status=409, content_type="application/json", body=json.dumps(error)
        ),
    )
    page.locator(".target.source").first.click()
    page.locator(".target.move, .target.capture").first.click()
    toast = page.locator("#toast")
    toast.wait_for()
    assert toast.inner_text() == "another action was accepted first"
    assert not overlap(box(toast), box(page.locator(".board-svg")))


def test_lobby_buttons_say_which_game_they_start(page: Any, arcade: str) -> None:
    page.goto(arcade + "/")
    page.wait_for_selector(".game-card")
    titles = page.locator(".game-card h2").all_inner_texts()
    assert len(titles) == 6
    for title in titles:
        assert page.get_by_role("button", name=f"Play {title}", exact=True).count() == 1
        assert page.get_by_role("link", name=f"Rules of {title}", exact=True).count() == 1
    page.get_by_role("button", name="Play Flip Switch", exact=True).click()
    assert page.inner_text("#new-game-title") == "Flip Switch"


def test_rules_page_keeps_sentences_whole(page: Any, arcade: str) -> None:
    page.goto(arcade + "/rules/flip-switch")
    page.wait_for_selector(".rules-header")
    paragraphs = page.locator("#rules > p").all_inner_texts()
    assert paragraphs, "the rules are laid out in paragraphs"
    # The engine's title line (with where the rules come from) is not repeated under the
    # page's own title, and no paragraph starts in the middle of a sentence.
    assert not any("rulings.md" in p for p in paragraphs)
    for text in paragraphs:
        if re.match(r"[a-z_]+=", text):
            continue  # an option: "lines=all (default all; ...)"
        assert text[0].isupper() or text[0].isdigit(), f"starts mid-sentence: {text[:40]!r}"
    assert any("must pass (notation: pass); if both players" in p for p in paragraphs)
