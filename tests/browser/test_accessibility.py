"""Accessibility: axe-core (from the npm registry, installed by ``npm install --prefix
tests/browser/axe``) on the lobby, on a game page of every game, on a lesson and on a rules page
with its pictures, in the light and the dark
theme, with zero serious or critical violations; and keyboard play: a whole move made with the
keyboard alone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import api
from pages import MY_TURN_OR_OVER, create

AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
GAMES = ["flipflop", "flipflop-3x3", "flipfour", "rubiks-flip", "flip-switch", "checkered-flag"]


@pytest.fixture(params=["light", "dark"])
def audited(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page whose Content-Security-Policy lets the test inject axe (the server's CSP allows
    no script it did not serve; the pages themselves are tested under it elsewhere), in a
    browser whose system scheme is light, then dark (the pages follow it: static/boot.js)."""
    if not AXE.exists():
        raise RuntimeError(
            f"{AXE} is missing: install axe-core with `npm install --prefix tests/browser/axe`"
        )
    context = browser.new_context(
        viewport={"width": 1100, "height": 800}, bypass_csp=True, color_scheme=request.param
    )
    yield context.new_page()
    context.close()


def serious_violations(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    found = []
    for violation in result["violations"]:
        if violation["impact"] in ("serious", "critical"):
            targets = [json.dumps(node["target"]) for node in violation["nodes"][:5]]
            found.append(f"{violation['id']} ({violation['impact']}): {', '.join(targets)}")
    return found


def test_the_lobby_has_no_serious_accessibility_violations(audited: Any, arcade: str) -> None:
    audited.goto(arcade + "/")
    audited.wait_for_selector(".game-card")
    assert serious_violations(audited) == []
    audited.click("#settings summary")  # the settings menu, open
    audited.wait_for_selector(".settings-panel", state="visible")
    assert serious_violations(audited) == []
    audited.click("#settings summary")
    audited.click(".game-card[data-game='flipflop'] button.play")  # the new-game dialog
    audited.wait_for_selector("#start")
    assert serious_violations(audited) == []


@pytest.mark.parametrize("game", GAMES)
def test_every_game_page_has_no_serious_accessibility_violations(
    audited: Any, arcade: str, game: str
) -> None:
    created = create(arcade, game, mode="ai", level="easy", seed=1)
    audited.goto(arcade + created["links"]["play"])
    audited.wait_for_selector(".board-svg")
    audited.wait_for_function(MY_TURN_OR_OVER)
    # A first click (a piece picked, a drop chosen, a gear played) shows more of the page.
    audited.locator(".targets .target, .drop-choice, .pass-choice, .gear-button").first.click()
    audited.wait_for_function(MY_TURN_OR_OVER)
    assert serious_violations(audited) == []


def test_the_finished_page_and_replay_have_no_serious_violations(audited: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="local", seed=1)
    api(arcade, "POST", f"/api/matches/{created['id']}/resign", {"token": created["token"]})
    audited.goto(arcade + created["links"]["play"])
    audited.wait_for_selector("#result:not([hidden])")
    assert serious_violations(audited) == []
    audited.goto(f"{arcade}/replay/{created['id']}")
    audited.wait_for_selector(".board-svg")
    assert serious_violations(audited) == []


def test_a_lesson_and_the_rules_pictures_have_no_serious_violations(
    audited: Any, arcade: str
) -> None:
    """The learn page as a step starts, after a wrong move's answer and after the goal is
    reached; a rules page with its diagrams."""
    audited.goto(f"{arcade}/learn/flipflop-3x3")
    audited.wait_for_selector(".board-svg")
    assert serious_violations(audited) == []
    audited.locator("#steps li:nth-child(3) button").click()
    audited.locator(".targets .target.source[data-target='a1']").click()
    audited.locator(".targets .target:not(.source)[data-target='a2']").click()
    audited.wait_for_selector("#feedback.wrong:not([hidden])")
    assert serious_violations(audited) == []
    audited.locator(".targets .target.source[data-target='b1']").click()
    audited.locator(".targets .target:not(.source)[data-target='b3']").click()
    audited.wait_for_selector("#next-step:not([hidden])")
    assert serious_violations(audited) == []
    audited.goto(f"{arcade}/rules/flip-switch")
    audited.wait_for_selector(".rule-diagram .board-svg")
    assert serious_violations(audited) == []


#: What a keyboard user can act on: targets on the board, and the choices beside it.
FINAL = ".targets .target:not(.source), .targets .target.flip, .gear-button"
FIRST = ".targets .target.source:not(.flip), .drop-choice, .pass-choice"


def tab_to(page: Any, selector: str) -> None:
    """Press Tab until the focused element is one of ``selector`` (at most 120 presses)."""
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => Boolean(document.activeElement.closest({selector!r}))"):
            return
    raise AssertionError(f"Tab never reached {selector}")


@pytest.mark.parametrize("game", GAMES)
def test_a_move_by_keyboard_alone(page: Any, arcade: str, game: str) -> None:
    created = create(arcade, game, mode="local", seed=2)
    page.goto(arcade + created["links"]["play"])
    page.wait_for_selector(".board-svg")
    page.wait_for_function(MY_TURN_OR_OVER)
    before = api(arcade, "GET", f"/api/matches/{created['id']}")["ply"]
    for _ in range(6):  # a turn takes at most four steps
        tab_to(page, FINAL if page.locator(FINAL).count() else FIRST)
        page.keyboard.press("Enter")
        page.wait_for_function(MY_TURN_OR_OVER)
        if api(arcade, "GET", f"/api/matches/{created['id']}")["ply"] != before:
            return
    raise AssertionError("six key presses on targets did not make a move")


def test_a_lesson_step_by_keyboard_alone(page: Any, arcade: str) -> None:
    """A lesson's first step played with Tab and Enter, then on to the next step."""
    page.goto(f"{arcade}/learn/flipflop-3x3")
    page.wait_for_selector(".board-svg")
    tab_to(page, FIRST)
    page.keyboard.press("Enter")
    tab_to(page, FINAL)
    page.keyboard.press("Enter")
    page.wait_for_selector("#feedback.right:not([hidden])")
    assert page.evaluate("() => document.activeElement.id") == "next-step"
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.getElementById('step-count').textContent.startsWith('Step 2 of')"
    )
