"""Players by mouse, in two browsers: one plays as the guest "Ada", the other signs up as
"Grace", signs out and signs in again; the header names each; Grace's online game names both
players once Ada opens the invite; the account page changes the password; and script in a
name or a password field never runs (the name rule refuses it, messages are text)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pages import start_from_lobby

PASSWORD = "correct horse battery"
#: Names that would run script if a page put them into HTML.
PAYLOADS = (
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
)


class Browser:
    """A browser context of its own (its own cookies), and what went wrong in it: uncaught
    script errors, console errors and any alert/confirm/prompt dialog (a payload running)."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1100, "height": 800})
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("pageerror", lambda exc: self.problems.append(f"error: {exc}"))
        self.page.on("dialog", self._dialog)
        self.page.on(
            "console",
            lambda message: (
                self.problems.append(f"console: {message.text}")
                if message.type == "error" and not _expected_refusal(message.text)
                else None
            ),
        )

    def _dialog(self, dialog: Any) -> None:
        self.problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()


def _expected_refusal(text: str) -> bool:
    # Chromium logs every 4xx answer of a fetch ("Failed to load resource: ... 401/422"):
    # the refusals these tests ask for on purpose.
    return "Failed to load resource" in text and any(f" {s} " in text for s in (401, 409, 422))


@pytest.fixture
def ada_and_grace(browser: Any) -> Iterator[tuple[Browser, Browser]]:
    ada, grace = Browser(browser), Browser(browser)
    yield ada, grace
    problems = ada.problems + grace.problems
    ada.context.close()
    grace.context.close()
    assert not problems, problems


def header(page: Any) -> str:
    return str(page.inner_text("#identity")).strip()


def fill_dialog(page: Any, button: str, name: str, password: str | None = None) -> None:
    """Open the header's ``button`` dialog, type ``name`` (and ``password``), submit."""
    page.click(f"#identity button:text-is('{button}')")
    page.wait_for_selector("#identity-dialog[open]")
    page.fill("#identity-name", name)
    if password is not None:
        page.fill("#identity-password", password)
    page.click("#identity-submit")


def refused_with(page: Any, words: str) -> None:
    page.wait_for_selector("#identity-dialog .identity-error:not([hidden])")
    assert words in page.inner_text("#identity-dialog .identity-error")
    assert (
        page.locator("#identity-dialog img, #identity-dialog script, #identity-dialog svg").count()
        == 0
    )


def test_a_guest_and_an_account_by_mouse(
    ada_and_grace: tuple[Browser, Browser], arcade: str
) -> None:
    ada, grace = ada_and_grace
    # Ada: one click, a name, and she is playing as a guest. Names that carry script are
    # refused by the name rule, and the refusal is shown as text.
    ada.page.goto(arcade + "/")
    ada.page.wait_for_selector("#identity button:text-is('Play as guest')")
    for payload in PAYLOADS:
        fill_dialog(ada.page, "Play as guest", payload)
        refused_with(ada.page, "a name may hold only letters A-Z, digits, '_' and '-'")
        ada.page.click("#identity-cancel")
    fill_dialog(ada.page, "Play as guest", "Ada")
    ada.page.wait_for_selector("#identity .identity-me:text-is('Ada')")
    assert header(ada.page).split() == ["Ada", "guest", "Sign", "up", "Sign", "out"]

    # Grace: an account, with a password.
    grace.page.goto(arcade + "/")
    fill_dialog(grace.page, "Sign up", "Grace", "short")
    refused_with(grace.page, "a password has 8 to 200 characters")
    grace.page.fill("#identity-password", PASSWORD)
    grace.page.click("#identity-submit")
    grace.page.wait_for_selector("#identity .identity-me:text-is('Grace')")
    assert header(grace.page).split() == ["Grace", "Sign", "out"]
    # Her name is taken, whatever the case: Ada cannot have it.
    ada.page.click("#identity button:text-is('Sign out')")
    fill_dialog(ada.page, "Play as guest", "GRACE")
    refused_with(ada.page, "that name is taken")
    ada.page.fill("#identity-name", "Ada")
    ada.page.click("#identity-submit")
    ada.page.wait_for_selector("#identity .identity-me:text-is('Ada')")

    # Grace signs out and in again, on another page; a payload in the password field is a
    # wrong password, shown as text.
    grace.page.click("#identity button:text-is('Sign out')")
    grace.page.wait_for_selector("#identity button:text-is('Sign in')")
    grace.page.goto(arcade + "/puzzles")
    for payload in PAYLOADS:
        fill_dialog(grace.page, "Sign in", "Grace", payload)
        refused_with(grace.page, "wrong name or password")
        grace.page.click("#identity-cancel")
    fill_dialog(grace.page, "Sign in", "grace", PASSWORD)
    grace.page.wait_for_selector("#identity .identity-me:text-is('Grace')")

    # Grace starts an online game from the lobby; Ada opens the invite: both are named.
    start_from_lobby(grace.page, arcade, "flipflop-3x3", "online")
    grace.page.wait_for_selector("#invite-row:not([hidden])")
    invite = grace.page.input_value("#invite")
    ada.page.goto(invite)
    ada.page.wait_for_selector(".player.p1 .who:text-is('Ada · you')")
    assert ada.page.inner_text(".player.p0 .who") == "Grace"
    grace.page.wait_for_selector(".player.p1 .who:text-is('Ada')")
    assert grace.page.inner_text(".player.p0 .who") == "Grace · you"


def test_the_account_page_changes_the_password(
    ada_and_grace: tuple[Browser, Browser], arcade: str
) -> None:
    _, grace = ada_and_grace
    page = grace.page
    page.goto(arcade + "/account")
    page.wait_for_selector("#account-none:not([hidden])")
    fill_dialog(page, "Sign up", "Grace_H", PASSWORD)
    page.wait_for_selector("#account-who:not([hidden])")
    assert page.inner_text("#account-name") == "Grace_H"
    page.fill("#password-now", "not the password")
    page.fill("#password-new", "a new long password")
    page.click("#password-form button[type=submit]")
    page.wait_for_selector("#password-form .account-message.error")
    assert page.inner_text("#password-form .account-message") == "wrong password"
    page.fill("#password-now", PASSWORD)
    page.fill("#password-new", "a new long password")
    page.click("#password-form button[type=submit]")
    page.wait_for_selector("#password-form .account-message.done")
    page.click("#account-sign-out")
    page.wait_for_selector("#account-none:not([hidden])")
    fill_dialog(page, "Sign in", "Grace_H", "a new long password")
    page.wait_for_selector("#identity .identity-me:text-is('Grace_H')")
