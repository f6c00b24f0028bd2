"""Clocks and outside engines in the browser, by mouse: a clocked match created in the lobby
and joined from the invite link, whose short clock runs out with both players watching; and
an outside engine registered by the operator, chosen in the lobby and played against; an
engine whose answer carries markup forfeits, and its words show as text, running no script."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import running_arcade
from pages import create, match, pass_the_turn_by_mouse, play_to_the_end
from test_accessibility import AXE, serious_violations

TOY = f"{sys.executable} -m flipgames engine --level easy --seed 2"

#: Speaks the protocol for FlipFlop 3x3, then answers a move with markup (the usual payloads).
MARKED = """
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "hello":
        print("id name marked 1"); print("games flipflop-3x3"); print("hellook")
    elif word == "isready":
        print("readyok")
    elif word == "go":
        print('bestmove <img src=x onerror="window.__xss=1"><script>window.__xss=2</script>')
    elif word == "quit":
        break
    sys.stdout.flush()
"""


def test_a_short_clock_runs_out_and_both_players_see_the_loss_on_time(
    browser: Any, arcade: str
) -> None:
    contexts = [browser.new_context(viewport={"width": 1100, "height": 800}) for _ in range(2)]
    white, black = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (white, black):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    # White creates the match in the lobby: friend online, a custom clock of 3 s per player.
    white.goto(arcade + "/")
    white.click(".game-card[data-game='flipflop-3x3'] button.play")
    white.check("input[name=mode][value=online]")
    assert white.locator("#clock-field").is_visible()
    white.select_option("#clock", "custom")
    white.fill("#clock-initial", "3")
    white.fill("#clock-increment", "0")
    white.click("#start")
    white.wait_for_selector(".board-svg")
    match_id = white.url.split("/play/")[1].split("?")[0]
    invite = white.input_value("#invite")
    black.goto(invite)
    black.wait_for_selector(".board-svg")
    for page in (white, black):
        page.wait_for_selector("#clocks:not([hidden])")
        assert page.inner_text("#clocks .clock.p0 time") == "0:03.0"
        assert page.inner_text("#clocks .clock.p1 time") == "0:03.0"
    # Each player's first move is free; then White's clock runs, and White does not move.
    pass_the_turn_by_mouse(white, arcade, match_id)
    black.wait_for_function("() => document.body.classList.contains('my-turn')")
    pass_the_turn_by_mouse(black, arcade, match_id)
    black.wait_for_selector("#clocks .clock.p0.running")
    for page in (white, black):
        page.wait_for_selector("#result:not([hidden])", timeout=30_000)
        assert page.inner_text("#result-title") == "Black wins"
        assert page.inner_text("#result-detail") == "White ran out of time."
        assert page.inner_text("#clocks .clock.p0 time") == "0:00.0"
        assert page.locator("#clocks .clock.running").count() == 0
    view = match(arcade, match_id)
    assert (view["ending"], view["result"], view["ply"]) == ("timeout", "0-1", 2)
    for context in contexts:
        context.close()
    assert not errors, errors


def test_the_lobby_offers_clocks_only_online(page: Any, arcade: str) -> None:
    page.goto(arcade + "/")
    page.click(".game-card[data-game='flipflop-3x3'] button.play")
    assert page.locator("#clock-field").is_hidden()  # against the computer: no clock
    page.check("input[name=mode][value=local]")
    assert page.locator("#clock-field").is_hidden()
    page.check("input[name=mode][value=online]")
    assert page.locator("#clock-field").is_visible()


def test_clocks_and_the_clock_choice_have_no_serious_accessibility_violations(
    browser: Any, arcade: str
) -> None:
    assert AXE.exists(), "install axe-core with `npm ci --prefix tests/browser/axe`"
    context = browser.new_context(viewport={"width": 1100, "height": 800}, bypass_csp=True)
    audited = context.new_page()
    audited.goto(arcade + "/")
    audited.click(".game-card[data-game='flipflop-3x3'] button.play")
    audited.check("input[name=mode][value=online]")
    audited.select_option("#clock", "custom")
    assert serious_violations(audited) == []
    created = create(arcade, "flipflop-3x3", mode="online", clock={"initial": 300, "increment": 3})
    audited.goto(arcade + created["links"]["play"])
    audited.wait_for_selector("#clocks:not([hidden])")
    assert audited.inner_text("#clocks .clock.p0 time") == "5:00"
    assert serious_violations(audited) == []
    context.close()


@pytest.fixture(scope="module")
def engine_arcade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An arcade whose operator registered ``flipgames engine`` as the engine "toy"."""
    folder: Path = tmp_path_factory.mktemp("engines")
    marked = folder / "marked.py"
    marked.write_text(MARKED)
    engines = ["--engine", f"toy={TOY}", "--engine", f"marked={sys.executable} {marked}"]
    with running_arcade(folder, extra=engines) as base_url:
        yield base_url


def test_an_outside_engine_is_chosen_in_the_lobby_and_played_to_the_end(
    page: Any, engine_arcade: str
) -> None:
    page.goto(engine_arcade + "/")
    page.click(".game-card[data-game='flipflop-3x3'] button.play")
    page.check("input[name=mode][value=ai]")
    assert page.locator("#level option[value='engine:toy']").inner_text() == "Engine: toy"
    page.select_option("#level", "engine:toy")
    page.click("#start")
    page.wait_for_selector(".board-svg")
    match_id = page.url.split("/play/")[1].split("?")[0]
    assert "engine · toy" in page.inner_text("#players")
    play_to_the_end(page, engine_arcade, match_id, random.Random(5), limit=40)
    view = match(engine_arcade, match_id)
    assert view["level"] == "engine:toy" and view["status"] == "finished"
    assert view["ending"] is None  # ended by the rules, the engine answering every time
    assert 1 in view["actors"]  # the engine moved


def test_an_engines_markup_is_shown_as_text_and_runs_no_script(
    page: Any, engine_arcade: str
) -> None:
    """The engine's answer reaches the page in the forfeit's words: as text, never as markup."""
    page.goto(engine_arcade + "/")
    page.click(".game-card[data-game='flipflop-3x3'] button.play")
    page.check("input[name=mode][value=ai]")
    page.select_option("#level", "engine:marked")
    page.select_option("#seat", "0")
    page.click("#start")
    page.wait_for_selector(".board-svg")
    match_id = page.url.split("/play/")[1].split("?")[0]
    pass_the_turn_by_mouse(page, engine_arcade, match_id)
    # The game-over card says why in words (the card may sit folded: its text is what counts).
    page.wait_for_function(
        "() => document.getElementById('result-detail').textContent.includes('forfeits')"
    )
    detail = page.text_content("#result-detail") or ""
    assert '<img src=x onerror="window.__xss=1">' in detail and "<script>" in detail
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#result-detail img, #result-detail script").count() == 0
    assert match(engine_arcade, match_id)["ending"] == "forfeit"
