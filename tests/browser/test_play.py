"""Whole games played with the mouse, one per game, choosing each move from the page's own
targets; and a Flip Switch game finished by mouse with switches in it."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from pages import (
    FINAL_TARGETS,
    MY_TURN_OR_OVER,
    create,
    match,
    open_match,
    play_to_the_end,
)

RESULT_TITLES = {"1-0": "{0} wins", "0-1": "{1} wins", "1/2-1/2": "Draw"}


def check_the_end(page: Any, arcade: str, match_id: str) -> Any:
    """The page's result matches the server's, with the winner's SVG trophy."""
    final = match(arcade, match_id)
    assert final["status"] == "finished"
    players = [name[0].upper() + name[1:] for name in final["players"]]
    assert page.inner_text("#result-title") == RESULT_TITLES[final["result"]].format(*players)
    winner = {"1-0": 0, "0-1": 1}.get(final["result"])
    if winner is not None:
        trophy = page.locator(f".player.p{winner}.winner svg.trophy")
        assert trophy.count() == 1 and trophy.is_visible()
    assert page.locator(FINAL_TARGETS).count() == 0
    assert page.locator(".gear-button").count() == 0
    return final


@pytest.mark.parametrize(
    ("game", "options", "seed"),
    [
        ("flipflop", {}, 4),
        ("flipflop-3x3", {}, 1),
        ("flipfour", {}, 3),
        ("rubiks-flip", {}, 2),
        ("flip-switch", {"rounds": 1}, 5),
        ("checkered-flag", {}, 6),
    ],
)
def test_a_whole_game_by_mouse_against_the_computer(
    page: Any, arcade: str, game: str, options: dict[str, Any], seed: int
) -> None:
    created = create(arcade, game, mode="ai", level="easy", seed=seed, options=options)
    open_match(page, arcade, created)
    moves = play_to_the_end(page, arcade, created["id"], random.Random(seed), limit=120)
    final = check_the_end(page, arcade, created["id"])
    # Every action of the game is in the move list (chance outcomes included), in the
    # board's words: a FlipFour drop as its face is drawn ("R@c5" is "+ drop c5").
    listed = " ".join(page.locator("#moves").inner_text().split())
    drawn = {"R@": "+ drop ", "B@": "\u00d7 drop "} if game == "flipfour" else {}
    for action in final["history"]:
        shown = drawn[action[:2]] + action[2:] if action[:2] in drawn else action
        assert f" {shown} " in f" {listed} "
    assert moves >= 2


def test_flip_switch_finished_by_mouse_with_switches(page: Any, arcade: str) -> None:
    # Same screen: both players click. Whenever a switch is possible it is made, by clicking a
    # face-up tile and then the highlighted neighbour (the neighbour's own "switch from"
    # target used to sit on top and swallow that click).
    created = create(arcade, "flip-switch", mode="local", seed=12, options={"rounds": 1})
    match_id = created["id"]
    open_match(page, arcade, created)
    rng = random.Random(12)
    switches = 0
    for _ in range(200):
        if page.locator("#result").is_visible():
            break
        before = match(arcade, match_id)["ply"]
        sources = page.locator(".targets .target.source:not(.flip)")
        if sources.count():
            sources.nth(rng.randrange(sources.count())).click()
            partner = page.locator(".targets .target.move")
            assert partner.count() >= 1, "a face-up tile that can switch highlights a neighbour"
            title = partner.first.get_attribute("aria-label") or ""
            partner.first.click()
            page.wait_for_function(MY_TURN_OR_OVER)
            after = match(arcade, match_id)
            assert after["ply"] == before + 1
            assert title == f"switch {after['history'][-1]}"
            assert re.fullmatch(r"[a-c][1-3]-[a-c][1-3]", after["history"][-1])
            # Drawn from the view's structured moves: the switch's two squares are the last
            # move, and (the other player may not switch them back) the banned switch.
            assert page.locator(".mark.last").count() == 2
            banned = after["observation"]["board"]["banned_switch"]
            assert page.locator(".mark.banned").count() == (2 if banned else 0)
            switches += 1
        else:
            flips = page.locator(".targets .target.flip")
            flips.nth(rng.randrange(flips.count())).click()
            page.wait_for_function(MY_TURN_OR_OVER)
            assert match(arcade, match_id)["ply"] == before + 2  # the flip and its shape
            assert page.locator(".mark.last").count() == 1  # the flipped square
    final = check_the_end(page, arcade, match_id)
    assert switches >= 3
    # The move list marks who made each turn, and the end shows the lines that scored.
    marks = page.locator("#moves .turn .who-mark")
    assert marks.count() == page.locator("#moves .turn").count()
    titles = [marks.nth(i).get_attribute("title") for i in range(marks.count())]
    names = [name[0].upper() + name[1:] for name in final["players"]]
    # Turns alternate within a round; each chance outcome sits in its flip's turn.
    assert titles[:4] == [names[0], names[1], names[0], names[1]]
    assert set(titles) == set(names)
    scoring = final["observation"]["board"]["scoring"]
    assert page.locator(".scoring-line").count() == len(scoring)
    lines = page.locator("#result-lines li").all_inner_texts()
    assert len(lines) == len(scoring)
    for line, text in zip(scoring, lines, strict=True):
        assert line["shape"] in text and " ".join(line["squares"]) in text


def test_checkered_flag_announces_crashes_and_explains_its_move_list(
    page: Any, arcade: str
) -> None:
    created = create(arcade, "checkered-flag", mode="local", seed=2)
    match_id = created["id"]
    open_match(page, arcade, created)
    legend = page.locator("#moves-legend")
    assert legend.is_visible() and "Spinner A" in legend.inner_text()
    crashes = 0
    for _ in range(300):
        if page.locator("#result").is_visible():
            break
        gears = [c["gear"] for c in match(arcade, match_id)["observation"]["board"]["cars"]]
        buttons = page.locator(".gear-button")
        buttons.nth(buttons.count() - 1).click()  # the highest gear on offer
        page.wait_for_function(MY_TURN_OR_OVER)
        now = match(arcade, match_id)["observation"]["board"]["cars"]
        for player, car in enumerate(now):
            if gears[player] in ("1", "2", "3") and car["gear"] in ("C2", "C3"):
                crashes += 1
                toast = page.locator("#toast")
                assert toast.is_visible()
                assert f"crashed on space {car['space']}" in toast.inner_text()
                assert page.locator(f".car.player-{player}.crashed").count() == 1
    check_the_end(page, arcade, match_id)
    assert crashes >= 1
