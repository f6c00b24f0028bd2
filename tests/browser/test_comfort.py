"""The settings menu by mouse (issue 26 item 9): dark mode switched and remembered, the
system's dark scheme followed, the page in Japanese (and kept after a reload), move sounds
played through the Web Audio API once switched on (a spy on AudioContext), and "your turn"
notifications that ask for permission only when switched on (a stub Notification) and
arrive when the tab is hidden in an online game."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pages import MY_TURN_OR_OVER, create, make_a_move, open_match, pass_the_turn_by_mouse

#: Counts the oscillators the page starts (every sound is made of them).
AUDIO_SPY = """
window.__oscillators = 0;
window.AudioContext = class extends window.AudioContext {
  createOscillator() { window.__oscillators += 1; return super.createOscillator(); }
};
"""

#: A Notification that records what is asked of it; permission starts undecided, and the
#: tab's visibility is the test's to set (document.hidden). Only on the arcade's pages (a new
#: tab's about:blank has no storage).
NOTIFICATION_STUB = """
if (location.protocol === "http:") {
window.__notifications = [];
window.__hidden = false;
window.__permissionAsked = Number(sessionStorage.getItem("asked") || 0);
window.Notification = class {
  // The browser remembers a granted permission across reloads: so does the stub.
  static permission = sessionStorage.getItem("permission") || "default";
  static requestPermission() {
    window.__permissionAsked += 1;
    sessionStorage.setItem("asked", String(window.__permissionAsked));
    sessionStorage.setItem("permission", "granted");
    window.Notification.permission = "granted";
    return Promise.resolve("granted");
  }
  constructor(title, options) { window.__notifications.push({ title, body: options.body }); }
  addEventListener() {}
};
Object.defineProperty(Document.prototype, "hidden", { get: () => window.__hidden });
}
"""


@contextmanager
def browsing(browser: Any, *scripts: str, **options: Any) -> Iterator[Any]:
    """A context of its own (``options``: color_scheme, locale), the ``scripts`` run before
    every page's own; its pages fail the test on any script error."""
    context = browser.new_context(viewport={"width": 1100, "height": 800}, **options)
    for script in scripts:
        context.add_init_script(script)
    errors: list[str] = []
    context.on("page", lambda page: page.on("pageerror", lambda exc: errors.append(str(exc))))
    try:
        yield context
    finally:
        context.close()
    assert errors == []


def open_settings(page: Any) -> None:
    page.click("#settings summary")
    page.wait_for_selector(".settings-panel", state="visible")


def background(page: Any) -> str:
    return str(page.evaluate("() => getComputedStyle(document.body).backgroundColor"))


def test_dark_mode_by_mouse_is_remembered_after_a_reload(browser: Any, arcade: str) -> None:
    with browsing(browser, color_scheme="light") as context:
        page = context.new_page()
        page.goto(arcade + "/")
        page.wait_for_selector(".game-card")
        light, light_ink = background(page), page.evaluate("getComputedStyle(document.body).color")
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        assert page.is_checked("input[name=theme][value=system]")
        open_settings(page)
        page.click(".settings-choice:has(input[value=dark])")
        page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
        dark = background(page)
        assert dark != light
        # Dark text on a dark page would be unreadable: the ink changed too.
        assert page.evaluate("getComputedStyle(document.body).color") != light_ink
        page.reload()
        page.wait_for_selector(".game-card")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert background(page) == dark
        assert page.is_checked("input[name=theme][value=dark]")
        # Another tab follows a choice made in this one, without a reload.
        other = context.new_page()
        other.goto(arcade + "/rules/flipflop")
        assert other.evaluate("document.documentElement.dataset.theme") == "dark"
        open_settings(page)
        page.click(".settings-choice:has(input[value=light])")
        other.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
        assert other.is_checked("input[name=theme][value=light]")
        page.click(".settings-choice:has(input[value=dark])")
        other.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
        other.close()
        # Another page of the arcade is dark from its first paint: boot.js ran in the head.
        page.goto(arcade + "/rules/flipflop")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        open_settings(page)
        page.click(".settings-choice:has(input[value=light])")
        page.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
        assert background(page) == light


def test_the_systems_dark_scheme_is_followed(browser: Any, arcade: str) -> None:
    with browsing(browser, color_scheme="dark") as context:
        page = context.new_page()
        page.goto(arcade + "/")
        page.wait_for_selector(".game-card")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        dark = background(page)
        # "System" follows the system's choice as it changes, without a reload.
        page.emulate_media(color_scheme="light")
        page.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
        assert background(page) != dark
        # A choice made in the menu wins over the system's.
        open_settings(page)
        page.click(".settings-choice:has(input[value=dark])")
        page.emulate_media(color_scheme="light")
        page.reload()
        page.wait_for_selector(".game-card")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"


def test_japanese_by_mouse_and_kept_after_a_reload(browser: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="ai", level="easy", seed=1)
    with browsing(browser) as context:
        page = context.new_page()
        open_match(page, arcade, created)
        assert page.evaluate("document.documentElement.lang") == "en"
        assert page.inner_text("#resign") == "⚑ Resign"
        open_settings(page)
        with page.expect_navigation():
            page.click(".settings-choice:has(input[value=ja])")
        page.wait_for_selector(".board-svg")
        page.wait_for_function(MY_TURN_OR_OVER)
        assert page.evaluate("document.documentElement.lang") == "ja"
        # The English words hidden until translated are shown again, now in Japanese.
        assert page.evaluate("document.documentElement.classList.length") == 0
        assert page.locator("#flip-board").is_visible()
        assert page.inner_text("#resign") == "⚑ 投了"
        # Whose turn in Japanese only: the engine's "White to move" adds nothing to it.
        assert page.inner_text("#status-text") == "あなたの番です"
        assert "コンピューター · やさしい" in page.inner_text("#players")
        assert "ログイン" in page.inner_text("#identity")
        assert page.locator("header nav a").all_inner_texts() == ["ロビー", "ルール"]
        page.reload()
        page.wait_for_selector(".board-svg")
        assert page.inner_text("#undo") == "戻す"
        assert page.is_checked("input[name=language][value=ja]")
        # Back to English by mouse.
        open_settings(page)
        with page.expect_navigation():
            page.click(".settings-choice:has(input[value=en])")
        page.wait_for_selector(".board-svg")
        assert page.inner_text("#resign") == "⚑ Resign"


def test_a_japanese_browser_gets_japanese(browser: Any, arcade: str) -> None:
    with browsing(browser, locale="ja-JP") as context:
        page = context.new_page()
        page.goto(arcade + "/account")
        page.wait_for_selector("#identity button")
        assert page.evaluate("navigator.language") == "ja-JP"
        assert page.inner_text("#account-none h1") == "あなたのアカウント"
        assert "ゲストで遊ぶ" in page.inner_text("#identity")


def test_move_sounds_are_off_until_switched_on(browser: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="local", seed=3)
    rng = random.Random(3)
    with browsing(browser, AUDIO_SPY) as context:
        page = context.new_page()
        open_match(page, arcade, created)
        make_a_move(page, arcade, created["id"], rng)
        assert page.evaluate("window.__oscillators") == 0
        open_settings(page)
        assert not page.is_checked("#settings-sounds")
        page.click("#settings-sounds")
        assert page.evaluate("window.__oscillators") > 0  # a sample as it is switched on
        page.click("#settings summary")  # the menu closes
        before = page.evaluate("window.__oscillators")
        make_a_move(page, arcade, created["id"], rng)
        page.wait_for_function(f"() => window.__oscillators > {before}")
        page.reload()
        page.wait_for_selector(".board-svg")
        assert page.is_checked("#settings-sounds")
        # Switched off: the next move is silent.
        open_settings(page)
        page.click("#settings-sounds")
        page.click("#settings summary")
        page.wait_for_function(MY_TURN_OR_OVER)
        silent = page.evaluate("window.__oscillators")
        make_a_move(page, arcade, created["id"], rng)
        assert page.evaluate("window.__oscillators") == silent
        # The page's own "Sound on my turn" is another switch, with its own note.
        page.click("#sound-switch")
        page.wait_for_function(f"() => window.__oscillators > {silent}")


def test_your_turn_notification_asks_only_when_switched_on(browser: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="online")
    with (
        browsing(browser, NOTIFICATION_STUB) as white_context,
        browsing(browser) as black_context,
    ):
        white, black = white_context.new_page(), black_context.new_page()
        open_match(white, arcade, created)
        black.goto(arcade + created["links"]["invite"])
        black.wait_for_selector(".board-svg")
        assert white.evaluate("window.__permissionAsked") == 0  # never on load
        open_settings(white)
        white.click("#settings-notify")
        white.wait_for_function("() => document.getElementById('settings-notify').checked")
        assert white.evaluate("window.__permissionAsked") == 1
        white.click("#settings summary")
        pass_the_turn_by_mouse(white, arcade, created["id"])
        black.wait_for_function(MY_TURN_OR_OVER)
        # White's tab is hidden when Black moves: the turn comes as a notification.
        white.evaluate("window.__hidden = true")
        pass_the_turn_by_mouse(black, arcade, created["id"])
        white.wait_for_function("() => window.__notifications.length === 1")
        shown = white.evaluate("window.__notifications[0]")
        assert shown == {"title": "Your turn", "body": "FlipFlop 3x3"}
        # Visible again: the next turn needs no notification.
        white.evaluate("window.__hidden = false")
        white.wait_for_function(MY_TURN_OR_OVER)
        pass_the_turn_by_mouse(white, arcade, created["id"])
        black.wait_for_function(MY_TURN_OR_OVER)
        pass_the_turn_by_mouse(black, arcade, created["id"])
        white.wait_for_function(MY_TURN_OR_OVER)
        assert white.evaluate("window.__notifications.length") == 1
        white.reload()
        white.wait_for_selector(".board-svg")
        assert white.is_checked("#settings-notify")
        assert white.evaluate("window.__permissionAsked") == 1


def test_a_refused_permission_leaves_the_switch_off_and_says_why(browser: Any, arcade: str) -> None:
    refusing = NOTIFICATION_STUB.replace('Promise.resolve("granted")', 'Promise.resolve("denied")')
    refusing = refusing.replace('window.Notification.permission = "granted";', "")
    refusing = refusing.replace('sessionStorage.setItem("permission", "granted");', "")
    with browsing(browser, refusing) as context:
        page = context.new_page()
        page.goto(arcade + "/")
        page.wait_for_selector(".game-card")
        open_settings(page)
        page.click("#settings-notify")
        page.wait_for_selector("#settings-note:not([hidden])")
        assert not page.is_checked("#settings-notify")
        assert "allow them in its site settings" in page.inner_text("#settings-note")
        assert page.evaluate("window.__permissionAsked") == 1
        page.reload()
        page.wait_for_selector(".game-card")
        assert not page.is_checked("#settings-notify")
