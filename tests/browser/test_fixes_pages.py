"""Issue 24, the pages' part: what a new player ran into, each checked by mouse (and by the
keyboard where the keyboard is the point).

The status bar after an ending outside the engine's rules, spectators and a rematch, a declined
draw offer, the focus after picking a piece, the words of the puzzle and rules pages, the
puzzle page before its position arrives, the record's file name, "My games" and the new-game
dialog on a laptop and a phone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pages import (
    FINAL_TARGETS,
    MY_TURN_OR_OVER,
    create,
    match,
    open_match,
    resign,
    start_from_lobby,
)

from flipgames import make
from flipgames.lab.puzzles import make_puzzles

#: The element with the focus, described for an assertion message.
FOCUSED = (
    "() => { const e = document.activeElement;"
    " return e ? `${e.tagName} ${e.getAttribute('class') || ''}` : 'none'; }"
)

#: From now on, keep every message the page's toast shows in ``window.toastsShown``.
TOASTS_SHOWN = """() => {
  const box = document.getElementById('toast');
  window.toastsShown = [];
  new MutationObserver(() => window.toastsShown.push(box.textContent))
    .observe(box, { childList: true, characterData: true, subtree: true });
}"""


def test_after_a_resignation_the_status_says_the_result_and_why(page: Any, arcade: str) -> None:
    """Item 2: "Black wins · White to move" contradicted itself."""
    created = create(arcade, "flipflop-3x3", mode="local")
    open_match(page, arcade, created)
    resign(page)
    assert page.inner_text("#status-text") == "Black wins · White resigned"
    assert page.inner_text("#result-detail") == "White resigned."
    # The replay of the match says why it ended too, not whose turn it would have been.
    page.click("#replay-link")
    page.wait_for_selector(".board-svg")
    page.wait_for_function("() => document.getElementById('result-title').textContent !== ''")
    assert page.inner_text("#result-title") == "Black wins"
    assert page.inner_text("#result-detail") == "White resigned."
    assert page.inner_text("#status-text") == "start position · Black wins · White resigned"


def test_a_declined_draw_offer_is_told_and_an_agreed_draw_says_so(
    two: tuple[Any, Any, dict[str, Any]],
) -> None:
    """Items 2 and 4: the offerer hears of a decline; an agreed draw's status names no mover."""
    white, black, _ = two
    white.click("#offer-draw")
    black.wait_for_selector("#draw-offer:not([hidden])")
    black.click("#draw-decline")
    white.wait_for_selector("#toast:not([hidden]):text('Your draw offer was declined')")
    assert white.inner_text("#offer-draw") == "½ Offer draw"
    assert black.locator("#toast:text('declined')").count() == 0  # the decliner knows
    white.click("#offer-draw")
    black.wait_for_selector("#draw-offer:not([hidden])")
    white.evaluate(TOASTS_SHOWN)
    black.click("#draw-accept")
    for page in (white, black):
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#status-text") == "Draw · agreed by both players"
    # An accepted offer is not a declined one.
    assert not [text for text in white.evaluate("window.toastsShown") if "declined" in text]


def test_a_spectator_is_told_of_the_rematch_and_can_follow_it(
    two: tuple[Any, Any, dict[str, Any]], browser: Any, arcade: str
) -> None:
    """Item 4: a spectator read "Your opponent asked for a rematch" and had no way to it."""
    white, black, created = two
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    try:
        spectator = context.new_page()
        spectator.goto(arcade + created["links"]["watch"])
        spectator.wait_for_selector(".board-svg")
        white.click("#resign")
        white.click("#resign")
        spectator.wait_for_selector("#result:not([hidden])")
        assert spectator.inner_text("#status-text") == "Black wins · White resigned"
        white.click("#rematch")
        white.wait_for_url(lambda url: created["id"] not in url)
        rematch_id = white.url.split("/play/")[1].split("?")[0]
        spectator.wait_for_selector("#rematch-watch:not([hidden])")
        note = spectator.inner_text("#rematch-note")
        assert "opponent" not in note and "rematch" in note
        # The player still waiting is asked to join, in a player's words.
        black.wait_for_selector("#rematch-note:not([hidden])")
        assert "Your opponent asked for a rematch" in black.inner_text("#rematch-note")
        assert black.locator("#rematch-watch").is_hidden()
        spectator.click("#rematch-watch")
        spectator.wait_for_url(f"**/watch/{rematch_id}")
        spectator.wait_for_selector(".board-svg")
        assert match(arcade, rematch_id)["status"] == "playing"
    finally:
        context.close()


@pytest.mark.parametrize(
    ("game", "first_step"),
    [("flipflop-3x3", ".targets .target.source"), ("flipfour", ".drop-choice")],
)
def test_after_picking_a_piece_the_focus_moves_to_its_first_target(
    page: Any, arcade: str, game: str, first_step: str
) -> None:
    """Item 5: the focus fell to the page's body once a piece was picked."""
    created = create(arcade, game, mode="local")
    open_match(page, arcade, created)
    # By mouse: pick a piece (or a face to drop), and the keyboard is ready on its targets.
    page.locator(first_step).first.click()
    page.wait_for_selector(FINAL_TARGETS)
    on_first = f"() => document.activeElement === document.querySelector({FINAL_TARGETS!r})"
    assert page.evaluate(on_first), page.evaluate(FOCUSED)
    # By keyboard, on a fresh page: pick with Enter, then play the focused target with Enter.
    page.reload()
    page.wait_for_function(MY_TURN_OR_OVER)
    page.locator(first_step).first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(FINAL_TARGETS)
    assert page.evaluate(on_first), page.evaluate(FOCUSED)
    page.keyboard.press("Enter")
    page.wait_for_function(MY_TURN_OR_OVER)
    assert match(arcade, created["id"])["ply"] == 1


def test_the_record_downloads_under_the_games_name_and_the_day(page: Any, arcade: str) -> None:
    """Item 8: every download was called record.json."""
    created = create(arcade, "flipfour", mode="local")
    open_match(page, arcade, created)
    resign(page)
    today = page.evaluate("() => new Date().toLocaleDateString('sv')")  # 2026-12-02
    with page.expect_download() as download:
        page.click("#record-link")
    assert download.value.suggested_filename == f"flipfour-{today}.json"
    record = json.loads(Path(download.value.path()).read_text())
    assert record["game"] == "flipfour"
    # The replay page's download is named the same way.
    page.click("#replay-link")
    page.wait_for_selector(".board-svg")
    with page.expect_download() as again:
        page.click("#record-link")
    assert again.value.suggested_filename == f"flipfour-{today}.json"


def test_my_games_says_who_won_from_the_players_side(page: Any, arcade: str) -> None:
    """Item 8: "My games" said "finished 0-1"."""
    start_from_lobby(page, arcade, "flipflop-3x3", "ai", level="easy", seat="0")
    resign(page)
    created = create(arcade, "flipflop-3x3", mode="local")
    page.goto(arcade + created["links"]["play"])
    page.wait_for_selector(".board-svg")
    resign(page)  # White, to move, resigns: Black won on this shared screen
    page.click("a.button:text('New game')")
    page.wait_for_selector("#my-games li")
    games = page.locator("#my-games li").all_inner_texts()
    assert games[0] == "FlipFlop 3x3 same screen · Black won · replay", games
    assert games[1] == "FlipFlop 3x3 vs computer · You lost · replay", games


def start_in_sight(page: Any) -> bool:
    """The dialog's Start button is on screen and not covered or scrolled away."""
    return bool(
        page.evaluate(
            """() => {
              const start = document.getElementById('start');
              const box = start.getBoundingClientRect();
              const x = box.left + box.width / 2, y = box.top + box.height / 2;
              const shown = box.bottom <= innerHeight && box.top >= 0;
              return shown && start.contains(document.elementFromPoint(x, y));
            }"""
        )
    )


@pytest.mark.parametrize("viewport", [(1100, 800), (390, 740)], ids=["laptop", "phone"])
def test_flip_switch_dialog_keeps_start_in_sight_with_rules_folded(
    browser: Any, arcade: str, viewport: tuple[int, int]
) -> None:
    """Item 8: Flip Switch's nine rule options pushed Start below the fold."""
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(arcade + "/")
        page.get_by_role("button", name="Play Flip Switch", exact=True).click()
        page.wait_for_selector("#new-game[open]")
        assert start_in_sight(page)
        assert page.locator("[name='option:lines']").is_hidden()
        # The options are one click away, and they still count.
        page.click("#advanced-rules summary")
        # In players' words: the option's name and its choices (the value sent stays "edges").
        assert page.inner_text("label:has([name='option:lines'])").startswith("Lines that score")
        page.select_option("[name='option:lines']", label="edges only")
        page.click("#start")
        page.wait_for_url(re.compile(r"/play/[^/?]+\?token="))
        match_id = page.url.split("/play/")[1].split("?")[0]
        assert match(arcade, match_id)["options"]["lines"] == "edges"
    finally:
        context.close()


def test_a_cold_puzzle_tab_shows_where_the_board_goes_and_what_is_happening(
    page: Any, arcade: str
) -> None:
    """Item 8: a puzzle not made yet showed only "Loading the puzzle…" for over a second."""
    page.goto(arcade + "/puzzles/flipflop-3x3?n=4")
    page.wait_for_selector(".board-svg")
    held: list[Any] = []  # the new puzzle's request, answered when the test says so
    page.route("**/api/puzzles/rubiks-flip/*", lambda route: held.append(route))
    page.click(".puzzle-tabs a[href='/puzzles/rubiks-flip']")
    page.wait_for_selector(".board-waiting svg")
    assert held, "the page asked for the puzzle"
    assert page.inner_text("#question").startswith("Setting up puzzle 1: the exact solver")
    waiting = page.locator(".board-waiting").bounding_box()
    assert waiting and waiting["width"] > 300 and waiting["height"] > 300  # board-sized
    held[0].continue_()
    page.wait_for_selector(".board-svg")
    assert page.locator(".board-waiting").count() == 0
    assert "win in" in page.inner_text("#question")


def test_puzzle_words_are_for_players(page: Any, arcade: str) -> None:
    """Item 6: "<- the answer", plies next to moves, a command line in the note."""
    (puzzle,) = make_puzzles(make("flipflop-3x3"), 1, 5)
    wrong = next(v for v in puzzle.values if not v.best)
    origin, destination = re.split("[-x]", wrong.action)
    page.goto(arcade + "/puzzles/flipflop-3x3?n=5")
    page.wait_for_selector(".board-svg")
    page.locator(f".targets .target.source[data-target='{origin}']").click()
    page.locator(f".targets .target:not(.source)[data-target='{destination}']").click()
    page.wait_for_selector("#verdict:not([hidden])")
    player, other = (name.capitalize() for name in puzzle_players(puzzle))
    if wrong.outcome == "loss":
        assert wrong.plies is not None
        value = f"loses ({other} wins in {moves(wrong.plies // 2)})"
    else:
        value = "draws"
    assert page.inner_text("#verdict-line") == (
        f"Not quite: you played {wrong.action}, which {value}; the answer is {puzzle.answer}."
    )
    assert page.inner_text("#verdict-detail") == (
        f"{puzzle.answer} is the only move that wins: {player} wins in {moves(puzzle.moves)}"
        " whatever the other side does."
    )
    card = page.inner_text(".puzzle-card")
    for jargon in ("<-", "ply", "plies", "flipgames puzzle", "--seed"):
        assert jargon not in card, jargon
    # Rubik's Flip asks for a move too, not a "turn".
    page.goto(arcade + "/puzzles/rubiks-flip?n=2")
    page.wait_for_selector(".board-svg")
    question = page.inner_text("#question")
    assert "winning move" in question and "turn" not in question


def moves(count: int | None) -> str:
    return f"{count} move" if count == 1 else f"{count} moves"


def puzzle_players(puzzle: Any) -> tuple[str, str]:
    """The player to move and the other one."""
    names = make(puzzle.game).player_names
    return names[puzzle.to_move], names[1 - puzzle.to_move]


#: One option line of each game's rules page, as players read it.
OPTION_LINES = {
    "flip-switch": [
        "Lines that score: all lines (default) or edges only.",
        "Number of rounds: 1 to 99, default 3.",
    ],
    "rubiks-flip": ["When both have a locked row: the player who placed wins (default) or"],
    "checkered-flag": ["Who starts: the higher spin of Spinner B (default) or player 1."],
}


@pytest.mark.parametrize("game", sorted(OPTION_LINES))
def test_the_rules_pages_options_are_written_for_players(page: Any, arcade: str, game: str) -> None:
    """Item 6: option lines read like a man page ("lines=all (default all; allowed: ...)")."""
    page.goto(arcade + "/")
    title = make(game).title
    page.get_by_role("link", name=f"Rules of {title}", exact=True).click()
    page.wait_for_selector(".rules-header")
    items = page.locator("#rules li").all_inner_texts()
    for line in OPTION_LINES[game]:
        assert any(item.startswith(line) for item in items), (line, items)
    text = page.inner_text("#rules")
    for syntax in (
        "allowed:",
        "allowed an",
        "<=",
        " | ",
        "=all",
        "=draw",
        "flip=",
        "laps=",
        "(default ",
    ):
        assert syntax not in text, syntax


def test_a_pick_and_its_focus_survive_a_redraw_of_the_same_position(
    browser: Any, arcade: str
) -> None:
    """Item 5: the page redraws for more than new moves (here the opponent leaving): that
    must not drop the piece the player picked, nor the focus on its targets."""
    created = create(arcade, "flipfour", mode="online")
    contexts = [browser.new_context(viewport={"width": 1100, "height": 800}) for _ in range(2)]
    try:
        white, black = (c.new_page() for c in contexts)
        white.goto(arcade + created["links"]["play"])
        black.goto(arcade + created["links"]["invite"])
        white.wait_for_selector(".player.p1 .presence.here")
        white.locator(".drop-choice").first.click()
        white.wait_for_selector(FINAL_TARGETS)
        drops = white.locator(FINAL_TARGETS).count()
        black.close()
        white.wait_for_selector(".player.p1 .presence.away")
        assert white.locator(FINAL_TARGETS).count() == drops
        on_first = f"() => document.activeElement === document.querySelector({FINAL_TARGETS!r})"
        assert white.evaluate(on_first), white.evaluate(FOCUSED)
    finally:
        for context in contexts:
            context.close()
