"""Issue 24's board fixes, by mouse in chromium: every board's styles are its own (no page rule
reaches into a board; Checkered Flag's dials stay where they are drawn), the words on the
boards say what is drawn, and a Flip Switch match shows its rounds."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pages import MY_TURN_OR_OVER, create, match, open_match, piece_squares, play_to_the_end

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
        # Whose turn is said once ("Player 1 to choose a gear...", not "Player 1 to move ·
        # Player 1 to choose a gear...").
        assert status(page).count("Player") == 1, status(page)
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


def text_boxes(page: Any, selector: str) -> list[dict[str, Any]]:
    return list(
        page.eval_on_selector_all(
            selector,
            "els => els.map(e => { const b = e.getBoundingClientRect();"
            " return {text: e.textContent, left: b.left, right: b.right, top: b.top}; })",
        )
    )


def test_a_flip_switch_match_shows_its_rounds(browser: Any, arcade: str) -> None:
    # On a tablet: the labels under the board ran together ("rounds 0player 2") and were cut
    # off; a match of three rounds showed neither where a round starts or ends nor how each
    # ended, and a line that scored was drawn across tiles a later switch had moved.
    context = browser.new_context(viewport={"width": 768, "height": 1024})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # must_flip and a switch limit keep each round short; seed 2 breaks up a line that scored.
    options = {"rounds": 3, "must_flip": "yes", "switch_limit": 4}
    created = create(arcade, "flip-switch", mode="local", seed=2, options=options)
    match_id = created["id"]
    open_match(page, arcade, created)
    labels = text_boxes(page, ".credits .tray-label, .credits .rounds-won")
    assert [box["text"] for box in labels] == [
        "Player 1",
        "0 rounds won",
        "Player 2",
        "0 rounds won",
    ]
    board = page.locator(".fs-board").bounding_box()
    for box in labels:
        assert board["x"] <= box["left"] and box["right"] <= board["x"] + board["width"]
        assert box["left"] >= 0 and box["right"] <= 768
    names, wins = labels[0::2], labels[1::2]
    for left, right in (names, wins):
        assert left["right"] < right["left"]  # apart, not run together
    # Every message the page shows, kept as it appears.
    page.evaluate(
        "() => { window.said = []; const toast = document.getElementById('toast');"
        " new MutationObserver(() => window.said.push(toast.textContent))"
        ".observe(toast, {childList: true, characterData: true, subtree: true}); }"
    )
    rng = random.Random(2)
    played = play_to_the_end(page, arcade, match_id, rng, limit=150)
    assert played >= 3
    final = match(arcade, match_id)
    rounds = final["observation"]["board"]["rounds_played"]
    names_of = ["Player 1", "Player 2"]
    assert [r["round"] for r in rounds] == [1, 2, 3]
    # The end of each round is said as it happens (the next round's grid follows at once).
    said = page.evaluate("() => window.said")
    for played_round in rounds:
        number, winner = played_round["round"], played_round["winner"]
        ending = f"Round {number}" if winner is None else f"Round {number}: {names_of[winner]}"
        coming = f" \u00b7 Round {number + 1} begins" if number < 3 else ""
        text = f"{ending} {played_round['how']}{coming}"
        assert text in said
    # The move list: a heading over each round's first turn, the turns counted per round.
    assert page.locator("#moves .round-heading").all_inner_texts() == [
        "Round 1",
        "Round 2",
        "Round 3",
    ]
    # The result card: how each round ended, its final board with the lines standing there,
    # and each line that scored in words.
    for played_round in rounds:
        summary = page.locator(f".fs-round[data-round='{played_round['round']}']")
        words = summary.inner_text()
        assert words.startswith(f"Round {played_round['round']}")
        assert played_round["how"] in words
        if played_round["winner"] is not None:
            assert names_of[played_round["winner"]] in words
        standing = [line for line in played_round["scoring"] if line["standing"]]
        drawn = summary.locator(".fs-mini .scoring-line")
        assert drawn.count() == len(standing)
        assert [drawn.nth(i).get_attribute("data-squares") for i in range(drawn.count())] == [
            " ".join(line["squares"]) for line in standing
        ]
    listed = page.locator("#result-lines").inner_text()
    every_line = [line for r in rounds for line in r["scoring"]]
    assert any(not line["standing"] for line in every_line), "seed 2 breaks up a scored line"
    for line in every_line:
        assert f"scored {line['shape']}: {' '.join(line['squares'])}" in listed
    assert listed.count("(broken up later)") == sum(not line["standing"] for line in every_line)
    # On the board: a solid scoring line lies on tiles that all show its shape.
    shown = piece_squares(page)
    for stroke in page.locator(".scoring-lines .scoring-line:not(.broken)").all():
        squares = (stroke.get_attribute("data-squares") or "").split()
        assert len({shown[square] for square in squares}) == 1
    assert "player 1" not in page.inner_text("body")
    context.close()
    assert not errors


def test_flipfour_hint_and_look_back_say_the_move_as_drawn(page: Any, arcade: str) -> None:
    created = create(arcade, "flipfour", mode="ai", level="easy", seed=2)
    open_match(page, arcade, created)
    page.click("#hint")
    page.wait_for_function("() => document.getElementById('toast').textContent.startsWith('Hint')")
    hint = page.inner_text("#toast")
    # Every first move is a drop: the hint names its face as drawn, not R@ or B@.
    assert hint.startswith(("Hint: + drop ", "Hint: \u00d7 drop ")) and "@" not in hint
    page.locator(".drop-choice[data-drop=B]").click()
    target = page.locator(".targets .target:not(.source)").first
    square = target.get_attribute("data-target")
    target.click()
    page.wait_for_function(MY_TURN_OR_OVER)
    page.locator("#moves .turn").first.click()
    page.wait_for_selector("#lookback:not([hidden])")
    banner = page.inner_text("#lookback-text")
    assert banner.startswith(f"Looking back: after \u00d7 drop {square} ")
