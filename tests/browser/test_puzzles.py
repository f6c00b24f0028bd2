"""The puzzle page in chromium: a FlipFlop 3x3 puzzle solved with the real mouse on the board,
a wrong gear answered on Checkered Flag, the next puzzle offered, and axe-core's check with no
serious or critical violations before and after answering."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_accessibility import AXE, serious_violations

from flipgames import make
from flipgames.lab.puzzles import make_puzzles

SOURCE = ".targets .target.source[data-target='{}']"
TARGET = ".targets .target:not(.source)[data-target='{}']"


@pytest.fixture
def audited(browser: Any) -> Iterator[Any]:
    """A page that lets the test inject axe (as in test_accessibility.py)."""
    assert AXE.exists(), f"{AXE} is missing: npm install --prefix tests/browser/axe"
    context = browser.new_context(viewport={"width": 1100, "height": 800}, bypass_csp=True)
    yield context.new_page()
    context.close()


def test_a_flipflop_puzzle_solved_by_mouse(page: Any, arcade: str) -> None:
    (puzzle,) = make_puzzles(make("flipflop-3x3"), 1, 2)
    origin, destination = puzzle.answer.replace("x", "-").split("-")
    page.goto(f"{arcade}/puzzles/flipflop-3x3?n=2")
    page.wait_for_selector(".board-svg")
    assert page.locator("#question").inner_text() == puzzle.question
    assert page.locator("#verdict").is_hidden()
    page.locator(SOURCE.format(origin)).click()
    page.locator(TARGET.format(destination)).click()
    page.wait_for_selector("#verdict:not([hidden])")
    assert page.locator("#verdict-line").inner_text().startswith("Right")
    best = page.locator("#values li.best").inner_text()
    assert best.startswith(puzzle.answer) and "wins" in best
    assert page.locator("#values li").count() == len(puzzle.values)
    page.locator("#next-puzzle").click()
    page.wait_for_url("**/puzzles/flipflop-3x3?n=3")
    page.wait_for_selector(".board-svg")
    (following,) = make_puzzles(make("flipflop-3x3"), 1, 3)
    page.wait_for_function(
        "text => document.getElementById('question').textContent === text", arg=following.question
    )


def test_a_rubiks_flip_ending_solved_by_mouse(page: Any, arcade: str) -> None:
    """A whole turn in three clicks: the tile to flip, the colour, the square to place on."""
    (puzzle,) = make_puzzles(make("rubiks-flip"), 1, 6)
    flip, placed = puzzle.answer.split("/")
    square, colour = placed[:-1], placed[-1]
    page.goto(f"{arcade}/puzzles/rubiks-flip?n=6")
    page.wait_for_selector(".board-svg")
    page.locator(SOURCE.format(flip)).click()
    page.locator(f".colour-choice[data-colour='{colour}']").click()
    page.locator(TARGET.format(square)).click()
    page.wait_for_selector("#verdict:not([hidden])")
    assert page.locator("#verdict-line").inner_text() == f"Right: {puzzle.answer} is the answer."


def test_a_wrong_gear_is_told_with_the_exact_odds(page: Any, arcade: str) -> None:
    (puzzle,) = make_puzzles(make("checkered-flag"), 1, 4)
    wrong = next(v.action for v in puzzle.values if not v.best)
    page.goto(f"{arcade}/puzzles/checkered-flag?n=4")
    page.wait_for_selector(".gear-button")
    page.locator(f".gear-button[data-gear='{wrong}']").click()
    page.wait_for_selector("#verdict:not([hidden])")
    line = page.locator("#verdict-line").inner_text()
    assert line.startswith("Not quite") and f"the answer is {puzzle.answer}" in line
    best = next(v for v in puzzle.values if v.best)
    shown = page.locator("#values li.best")
    assert f"{float(best.win) * 100:.1f}% chance to win" in shown.inner_text()
    assert shown.get_attribute("title") == f"exactly {best.win}"


def test_the_puzzle_page_has_no_serious_accessibility_violations(audited: Any, arcade: str) -> None:
    for game in ("flipflop-3x3", "rubiks-flip", "checkered-flag"):
        audited.goto(f"{arcade}/puzzles/{game}?n=5")
        audited.wait_for_selector(".board-svg")
        assert serious_violations(audited) == [], game
    audited.locator(".gear-button").first.click()
    audited.wait_for_selector("#verdict:not([hidden])")
    assert serious_violations(audited) == []
