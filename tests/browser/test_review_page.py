"""The game review and the analysis board in chromium, by mouse: a game against the computer
played to the end, its review opened from the game-over card, a point of the chart clicked
(the board goes to that position and the solver's best moves show), "Analyse from here"; the
analysis board taking a pasted position, refusing a malformed one with the fault named, and
playing a move clicked on its board; the Review link, the review card and the analysis board in
Japanese once it is chosen in the settings menu."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from harness import api
from pages import create, open_match, play_to_the_end
from test_accessibility import AXE, serious_violations

from flipgames import make
from flipgames.solvers import catalog


def best_moves(game: str, moves: list[str] | None = None, position: str | None = None) -> list[str]:
    made = make(game)
    state = made.from_position(position) if position else made.new_initial_state()
    for text in moves or []:
        state = state.apply(state.parse_action(text))
    return [state.action_to_string(a) for a in catalog.solution(made).best_actions(state)]


def test_a_finished_game_is_reviewed_and_a_point_shows_its_position(page: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="ai", level="easy")
    open_match(page, arcade, created)
    play_to_the_end(page, arcade, created["id"], random.Random(4), limit=60)
    page.locator("#review-link").click()
    page.wait_for_url(f"**/replay/{created['id']}#review")
    page.wait_for_selector("#review-chart .chart-point")
    points = page.locator("#review-chart .chart-point")
    frames = int(page.locator("#slider").get_attribute("max") or 0) + 1
    assert points.count() == frames > 1
    assert page.locator("#review-status").inner_text().startswith("Marked:")
    # The second point: the position after the first move.
    page.locator("#review-chart .chart-point[data-ply='1']").click()
    page.wait_for_function(
        "() => document.getElementById('step-label').textContent.startsWith('1 /')"
    )
    review = page.request.get(f"{arcade}/api/matches/{created['id']}/review").json()["review"]
    point = review["points"][1]
    assert page.locator("#review-move").inner_text().startswith(f"Ply 1 · White: {point['action']}")
    expected = best_moves("flipflop-3x3", [point["action"]])
    assert page.locator("#review-best li").all_inner_texts() == expected
    assert "after " + point["action"] in page.locator("#status-text").inner_text()
    # Analyse from here: the analysis board at that position, with the same best moves.
    page.locator("#review-analyse").click()
    page.wait_for_url("**/analysis/flipflop-3x3?position=*")
    page.wait_for_selector(".board-svg")
    page.wait_for_function("() => document.querySelectorAll('#best-moves li').length > 0")
    assert page.locator("#best-moves li").all_inner_texts() == expected
    assert page.locator("#position-input").input_value() == point["position"]


def test_the_analysis_board_takes_a_pasted_position(page: Any, arcade: str) -> None:
    page.goto(f"{arcade}/analysis/flipflop-3x3")
    page.wait_for_selector(".board-svg")
    page.wait_for_function("() => document.getElementById('value-text').textContent.includes('%')")
    assert page.locator("#value-text").inner_text() == "White 100% · Black 0%"
    position = make("flipflop-3x3").state_from_actions(["a1-a2", "c3-c2"]).position()
    page.locator("#position-input").fill(position)
    page.locator("#analyse").click()
    page.wait_for_function(
        "text => document.getElementById('position-input').value === text && "
        "new URLSearchParams(location.search).get('position') === text",
        arg=position,
    )
    expected = best_moves("flipflop-3x3", position=position)
    page.wait_for_function(
        "n => document.querySelectorAll('#best-moves li').length === n", arg=len(expected)
    )
    assert page.locator("#best-moves li").all_inner_texts() == expected
    assert "exact" in page.locator("#value-source").inner_text()
    legal = make("flipflop-3x3").from_position(position).legal_actions()
    assert page.locator("#all-moves li").count() == len(legal)
    # A malformed position: the fault is named and the board stays where it was.
    page.locator("#position-input").fill("rrr/3/R1 w")
    page.locator("#analyse").click()
    page.wait_for_selector("#setup-error:not([hidden])")
    assert "rank 1 has 2 squares, expected 3" in page.locator("#setup-error").inner_text()
    assert page.locator("#best-moves li").all_inner_texts() == expected
    # A move clicked on the board is played here: the side to move changes.
    page.locator(".targets .target.source").first.click()
    page.locator(".targets .target:not(.source)").first.click()
    page.wait_for_function(
        "() => (new URLSearchParams(location.search).get('position') || '').endsWith(' b')"
    )
    assert page.locator("#setup-error").is_hidden()
    page.locator("#back").click()
    page.wait_for_function(
        "text => new URLSearchParams(location.search).get('position') === text", arg=position
    )


def test_the_review_and_the_analysis_board_speak_japanese(page: Any, arcade: str) -> None:
    created = create(arcade, "flipflop-3x3", mode="local", seed=2)
    for action in ("b1xb3", "a3xb3"):
        api(
            arcade,
            "POST",
            f"/api/matches/{created['id']}/actions",
            {"token": created["token"], "action": action},
        )
    api(arcade, "POST", f"/api/matches/{created['id']}/resign", {"token": created["token"]})
    open_match(page, arcade, created)
    assert page.locator("#review-link").inner_text() == "📈 Review"
    # Japanese by mouse through the settings menu (as tests/browser/test_comfort.py does).
    page.click("#settings summary")
    page.wait_for_selector(".settings-panel", state="visible")
    with page.expect_navigation():
        page.click(".settings-choice:has(input[value=ja])")
    page.wait_for_selector(".board-svg")
    assert page.evaluate("document.documentElement.lang") == "ja"
    assert page.locator("#review-link").inner_text() == "📈 振り返り"
    page.locator("#review-link").click()
    page.wait_for_url(f"**/replay/{created['id']}#review")
    page.wait_for_selector("#review-chart .chart-point")
    assert page.locator("#review h2").inner_text() == "対局の振り返り"
    review = page.request.get(f"{arcade}/api/matches/{created['id']}/review").json()["review"]
    names = {"inaccuracy": "疑問手", "mistake": "悪手", "blunder": "大悪手"}
    counts = "、".join(f"{names[mark]}{n}" for mark, n in review["marks"].items())
    assert page.locator("#review-status").inner_text() == f"印のついた手: {counts}。"
    page.locator("#review-chart .chart-point[data-ply='1']").click()
    page.wait_for_selector("#review-analyse:not([hidden])")
    point = review["points"][1]
    assert page.locator("#review-move").inner_text().startswith(f"1手目 · White: {point['action']}")
    # The source in full-width brackets, as Japanese writes them.
    value = page.locator("#review-value").inner_text()
    assert value.endswith("\uff08厳密: このゲームの解\uff09")
    assert page.locator("#review-best-title").inner_text() == "この局面の最善手"
    assert page.locator("#review-analyse").inner_text() == "ここから解析する"
    title = page.locator("#review-chart .chart-point[data-ply='1']").get_attribute("aria-label")
    assert title is not None and title.startswith(f"1: {point['action']}の後、White ")
    page.locator("#review-analyse").click()
    page.wait_for_url("**/analysis/flipflop-3x3?position=*")
    page.wait_for_function("() => document.querySelectorAll('#best-moves li').length > 0")
    assert page.locator("#analysis-title").inner_text() == "FlipFlop 3x3 · 解析盤"
    assert page.locator(".analysis-value h2").inner_text() == "評価値"
    assert page.locator("#analyse").inner_text() == "解析"
    assert page.locator("#back").inner_text() == "1手戻す"
    assert page.locator("#position-label span").inner_text() == "局面"
    assert page.locator("#value-source").inner_text() == "厳密: このゲームの解"
    assert page.locator("#position-note").inner_text().startswith("局面表記")


@pytest.fixture(params=["light", "dark"])
def audited(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page that lets the test inject axe (as in test_accessibility.py), in each theme."""
    assert AXE.exists(), f"{AXE} is missing: npm install --prefix tests/browser/axe"
    context = browser.new_context(
        viewport={"width": 1100, "height": 800}, bypass_csp=True, color_scheme=request.param
    )
    yield context.new_page()
    context.close()


def test_the_review_and_the_analysis_board_have_no_serious_violations(
    audited: Any, arcade: str
) -> None:
    created = create(arcade, "flipflop-3x3", mode="local", seed=1)
    for action in ("b1xb3", "a3xb3"):
        api(
            arcade,
            "POST",
            f"/api/matches/{created['id']}/actions",
            {"token": created["token"], "action": action},
        )
    api(arcade, "POST", f"/api/matches/{created['id']}/resign", {"token": created["token"]})
    audited.goto(f"{arcade}/replay/{created['id']}")
    audited.wait_for_selector("#review-chart .chart-point")
    audited.locator("#review-chart .chart-point[data-ply='1']").click()
    audited.wait_for_selector("#review-analyse:not([hidden])")
    assert serious_violations(audited) == []
    audited.goto(f"{arcade}/analysis/flipflop-3x3?position=rrr/3/RR%20w")
    audited.wait_for_selector("#setup-error:not([hidden])")
    assert serious_violations(audited) == []
    audited.goto(f"{arcade}/analysis/flipflop-3x3")
    audited.wait_for_selector("#best-moves li")
    assert serious_violations(audited) == []


def test_the_analysis_board_lets_chance_be_chosen(page: Any, arcade: str) -> None:
    """A chance game has no position notation: it is set up by moves, and at a chance node
    the outcomes are buttons (the board has nothing to click)."""
    page.goto(f"{arcade}/analysis/checkered-flag")
    page.wait_for_selector("#outcomes button.outcome")
    assert page.locator("#position-label").is_hidden()
    first = page.locator("#outcomes button.outcome").first
    action = first.get_attribute("data-action")
    first.click()
    page.wait_for_function(
        "text => new URLSearchParams(location.search).get('moves') === text", arg=action
    )
    assert "%" in page.locator("#value-text").inner_text()
