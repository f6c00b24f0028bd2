"""The game page's chat by mouse, in two browsers playing an online game (and a third
watching): lines typed and sent with the mouse reach the other player, and survive a reload;
the usual script payloads sent as lines show as text and run nothing; links stay text; mute
hides the opponent's lines (and stays after a reload); a spectator sees the spectators' room,
never the players'."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pages import create, pass_the_turn_by_mouse
from test_accessibility import serious_violations

PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    '"><svg onload=alert(1)>',
)


class Window:
    """A browser context of its own, and what went wrong in it: uncaught script errors and
    any alert/confirm/prompt (a payload running)."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1100, "height": 900})
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("pageerror", lambda exc: self.problems.append(f"error: {exc}"))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()


@pytest.fixture
def windows(browser: Any) -> Iterator[tuple[Window, Window, Window]]:
    opened = (Window(browser), Window(browser), Window(browser))
    yield opened
    problems = [problem for window in opened for problem in window.problems]
    for window in opened:
        window.context.close()
    assert not problems, problems


def say(page: Any, text: str) -> None:
    """Click into the chat's input, type ``text``, click Send; wait until it is shown."""
    page.click("#chat-input")
    page.keyboard.type(text)
    page.click("#chat-send")
    page.wait_for_function(
        "text => [...document.querySelectorAll('#chat-lines .chat-text')]"
        ".some(e => e.textContent === text)",
        arg=text,
    )


def shown(page: Any) -> list[str]:
    return [str(t) for t in page.locator("#chat-lines .chat-text").all_inner_texts()]


def wait_for_line(page: Any, text: str) -> None:
    page.wait_for_function(
        "text => [...document.querySelectorAll('#chat-lines .chat-text')]"
        ".some(e => e.textContent === text)",
        arg=text,
    )


def test_two_players_chat_by_mouse_and_script_never_runs(
    windows: tuple[Window, Window, Window], arcade: str
) -> None:
    white, black, watcher = (w.page for w in windows)
    created = create(arcade, "flipflop-3x3", mode="online")
    match_id = created["id"]
    white.goto(arcade + created["links"]["play"])
    black.goto(arcade + created["links"]["invite"])
    for page in (white, black):
        page.wait_for_selector("#chat:not([hidden])")
        assert page.inner_text("#chat-title") == "Chat with your opponent"
        assert page.is_visible("#chat-empty")

    say(white, "good luck")
    wait_for_line(black, "good luck")
    pass_the_turn_by_mouse(white, arcade, match_id)  # the chat goes on during the game
    for payload in PAYLOADS:
        say(black, payload)
        wait_for_line(white, payload)
    for page in (white, black):
        assert shown(page) == ["good luck", *PAYLOADS]
        # Text, never markup: nothing a payload names was made, and no link either.
        assert page.locator("#chat-lines script, #chat-lines img, #chat-lines svg").count() == 0
        assert page.locator("#chat-lines a").count() == 0
    assert white.locator("#chat-lines .chat-who").first.inner_text() == "White (you)"

    # A reload shows the history.
    black.reload()
    black.wait_for_selector("#chat-lines .chat-line")
    wait_for_line(black, PAYLOADS[-1])
    assert shown(black) == ["good luck", *PAYLOADS]

    # Mute hides the opponent's lines, own lines stay; it is kept after a reload.
    white.click("#chat-mute")
    white.wait_for_selector("#chat-mute[aria-pressed=true]")
    assert shown(white) == ["good luck"]
    assert white.is_visible("#chat-muted")
    say(black, "can you hear me?")
    say(white, "still here")
    assert shown(white) == ["good luck", "still here"]
    white.reload()
    white.wait_for_selector("#chat-mute[aria-pressed=true]")
    wait_for_line(white, "still here")
    assert shown(white) == ["good luck", "still here"]
    white.click("#chat-mute")
    wait_for_line(white, "can you hear me?")
    assert shown(white) == ["good luck", *PAYLOADS, "can you hear me?", "still here"]

    # A spectator has a room of their own: the players' lines are not in it.
    watcher.goto(arcade + created["links"]["watch"])
    watcher.wait_for_selector("#chat:not([hidden])")
    assert watcher.inner_text("#chat-title") == "Spectators' chat"
    assert watcher.is_visible("#chat-empty")
    assert shown(watcher) == []


def test_a_spectator_signs_in_and_writes_in_their_room_and_the_panel_passes_axe(
    windows: tuple[Window, Window, Window], browser: Any, arcade: str
) -> None:
    player, watcher, _ = (w.page for w in windows)
    created = create(arcade, "flipflop-3x3", mode="online")
    player.goto(arcade + created["links"]["play"])
    player.wait_for_selector("#chat:not([hidden])")
    watcher.goto(arcade + created["links"]["watch"])
    watcher.wait_for_selector("#chat:not([hidden])")
    assert watcher.inner_text("#chat-mute") == "Mute spectators"
    # Not signed in: the line is refused and the page says why.
    watcher.click("#chat-input")
    watcher.keyboard.type("hello?")
    watcher.click("#chat-send")
    watcher.wait_for_selector("#toast:not([hidden])")
    assert "sign in" in watcher.inner_text("#toast")
    # Signed in as a guest on this page, the spectator writes at once.
    watcher.click("#identity button:text-is('Play as guest')")
    watcher.wait_for_selector("#identity-dialog[open]")
    watcher.fill("#identity-name", "Sam")
    watcher.click("#identity-submit")
    watcher.wait_for_selector("#identity .identity-me:text-is('Sam')")
    watcher.fill("#chat-input", "")
    say(watcher, "<img src=x onerror=alert(1)> nice")
    assert watcher.locator("#chat-lines .chat-who").first.inner_text() == "Sam"
    say(player, "thanks")  # the player's next line is theirs: the spectator's never came
    assert shown(player) == ["thanks"]
    assert shown(watcher) == ["<img src=x onerror=alert(1)> nice"]
    # The panel, with lines in it, has no serious accessibility violation (axe needs a
    # context whose Content-Security-Policy lets the test inject it).
    context = browser.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    try:
        audited = context.new_page()
        audited.goto(arcade + created["links"]["play"])
        audited.wait_for_selector("#chat-lines .chat-line")
        assert serious_violations(audited) == []
    finally:
        context.close()
