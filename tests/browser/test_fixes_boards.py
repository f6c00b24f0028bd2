"""Issue 24's board fixes, by mouse in chromium: every board's styles are its own (no page rule
reaches into a board; Checkered Flag's dials stay where they are drawn), the words on the
boards say what is drawn, and a Flip Switch match shows its rounds."""

from __future__ import annotations

from typing import Any

import pytest
from pages import MY_TURN_OR_OVER, create, open_match

GAMES = ["flipflop", "flipflop-3x3", "flipfour", "rubiks-flip", "flip-switch", "checkered-flag"]

#: Every rule of the page's own stylesheets (not boards/*.css) that selects by class, id or
#: attribute and matches an element of the board (its SVG and the controls next to it), as
#: "selector -> element's classes"; and the animation names both kinds of sheet define.
STYLE_LEAKS = """() => {
  const board = document.getElementById('board');
  const inBoard = [...board.querySelectorAll('*')];
  const isBoardSheet = (sheet) => (sheet.href || '').includes('/static/boards/');
  const rules = (list) =>
    [...list].flatMap((rule) => [rule, ...(rule.cssRules ? rules(rule.cssRules) : [])]);
  // "a, b:not(c, d)" -> ["a", "b:not(c, d)"]: the list's selectors, each on its own.
  const selectors = (text) => {
    const parts = [''];
    let depth = 0;
    for (const ch of text) {
      depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
      if (ch === ',' && depth === 0) parts.push('');
      else parts[parts.length - 1] += ch;
    }
    return parts.map((part) => part.trim());
  };
  const leaks = [];
  const frames = { page: new Set(), board: new Set() };
  for (const sheet of document.styleSheets) {
    const kind = isBoardSheet(sheet) ? 'board' : 'page';
    for (const rule of rules(sheet.cssRules)) {
      if (rule instanceof CSSKeyframesRule) frames[kind].add(rule.name);
      if (kind === 'board' || !(rule instanceof CSSStyleRule)) continue;
      for (const selector of selectors(rule.selectorText)) {
        if (!/[.#[]/.test(selector)) continue; // bare element rules (button, *) are meant
        const node = inBoard.find((candidate) => candidate.matches(selector));
        if (node) leaks.push(`${selector} -> ${node.getAttribute('class')}`);
      }
    }
  }
  const shared = [...frames.page].filter((name) => frames.board.has(name));
  const boardSheets = [...document.styleSheets].filter(isBoardSheet)
    .map((sheet) => sheet.href.split('/').pop());
  return { leaks, shared, boardSheets };
}"""


@pytest.mark.parametrize("game", GAMES)
def test_no_page_style_reaches_into_a_board(page: Any, arcade: str, game: str) -> None:
    # The page's loading indicator `.spinner` (an endless rotation) was also the class of
    # Checkered Flag's dials: a page class must never style a board element.
    created = create(arcade, game, mode="local", seed=1)
    open_match(page, arcade, created)
    # A step of a turn by mouse, so the board's chosen and highlighted states are drawn too.
    page.locator(".targets .target, .drop-choice, .gear-button").first.click()
    found = page.evaluate(STYLE_LEAKS)
    assert found["leaks"] == []
    assert found["shared"] == []
    assert "board.css" in found["boardSheets"] and len(found["boardSheets"]) == 2


def dial_boxes(page: Any) -> list[tuple[float, float, float, float]]:
    boxes = page.eval_on_selector_all(
        ".cf-dial .dial-face",
        "els => els.map(e => { const b = e.getBoundingClientRect();"
        " return [b.x, b.y, b.width, b.height]; })",
    )
    return [tuple(round(v, 1) for v in box) for box in boxes]


def test_checkered_flag_dials_stay_where_they_are_drawn(page: Any, arcade: str) -> None:
    created = create(arcade, "checkered-flag", mode="local", seed=3)
    open_match(page, arcade, created)
    track = page.locator(".cf-board").bounding_box()
    first = dial_boxes(page)
    assert len(first) == 2
    # Inside the board, in the infield: the sliding dials covered track spaces and ended
    # half off the board.
    for x, y, width, height in first:
        assert track["x"] < x and x + width < track["x"] + track["width"]
        assert track["y"] < y and y + height < track["y"] + track["height"]
    # The arcade's loading indicator runs a 0.8 s turn: sample for longer than that, while
    # nothing spins, then while a spin's arrow turns after a gear clicked by mouse.
    for _ in range(6):
        page.wait_for_timeout(200)
        assert dial_boxes(page) == first
    page.locator(".gear-button").first.click()
    page.wait_for_function(MY_TURN_OR_OVER)
    for _ in range(6):
        page.wait_for_timeout(200)
        assert dial_boxes(page) == first


def status(page: Any) -> str:
    return str(page.inner_text("#status-text"))


def test_flipfour_moves_are_shown_as_drawn(page: Any, arcade: str) -> None:
    # The pieces show + and x, the tray "+ drop" and "x drop": the move list said R@c5.
    created = create(arcade, "flipfour", mode="local", seed=1)
    open_match(page, arcade, created)
    for face, symbol in (("R", "+"), ("B", "\u00d7")):
        page.locator(f".drop-choice[data-drop={face}]").click()
        target = page.locator(".targets .target:not(.source)").first
        square = target.get_attribute("data-target")
        assert target.get_attribute("aria-label") == f"{symbol} drop {square}"
        target.click()
        page.wait_for_function(MY_TURN_OR_OVER)
        assert page.locator("#moves .turn").last.inner_text().split()[-3:] == [
            symbol,
            "drop",
            square,
        ]
    assert "@" not in page.inner_text("#moves")


def test_rubiks_flip_status_names_the_colours_drawn(page: Any, arcade: str) -> None:
    created = create(arcade, "rubiks-flip", mode="local", seed=1)
    open_match(page, arcade, created)
    # The tiles are drawn red and blue: the status said "place a tile (R/B)".
    assert status(page).endswith("place a tile, red or blue side up")
    page.locator(".colour-choice[data-colour=B]").click()
    page.locator(".targets .target").first.click()
    page.wait_for_function(MY_TURN_OR_OVER)
    assert "yellow or white side up" in status(page)
    assert "(Y/W)" not in status(page)


def test_checkered_flag_words_match_the_cars_and_the_list_shows(page: Any, arcade: str) -> None:
    created = create(
        arcade, "checkered-flag", mode="local", seed=4, options={"track": "short", "start": "first"}
    )
    open_match(page, arcade, created)
    # Each gear box is marked with the player's car as on the track, and no text speaks of
    # the terminal's glyphs.
    assert page.locator(".gearbox .box-car").count() == 2
    assert page.locator(".gearbox.player-0 .box-car.car.player-0").count() == 1
    for _ in range(60):
        assert not any(glyph in status(page) for glyph in "\u25b2\u25cf")
        if page.locator("#result").is_visible():
            break
        page.locator(".gear-button").last.click()
        page.wait_for_function(MY_TURN_OR_OVER)
    assert page.locator("#result").is_visible()
    # The result once: "Player 2 wins: crossed the finish line", not "Player 2 wins ·
    # Player 2 ● wins".
    assert status(page).count("wins") == 1
    assert page.inner_text("#result-title").count("wins") == 1
    # The move list comes before its legend, and its last turn is visible (not pushed below
    # the fold by the legend) once the list is scrolled to.
    moves = page.locator("#moves")
    legend = page.locator("#moves-legend")
    assert legend.is_visible()
    assert moves.bounding_box()["y"] < legend.bounding_box()["y"]
    page.locator("#moves .turn").last.scroll_into_view_if_needed()
    last = page.locator("#moves .turn").last.bounding_box()
    covering = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('#moves') !== null",
        [last["x"] + 20, last["y"] + last["height"] / 2],
    )
    assert covering
