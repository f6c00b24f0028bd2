"""The "Learn to play" page in chromium: the whole FlipFlop 3x3 lesson played with the mouse
on the board from the lobby's Learn link, a move the rules forbid and a legal move that misses
the goal each answered in words by the engine, the lesson finished; every game's whole lesson
by mouse; a Flip Switch flip showing the lesson's shape; every step of every lesson drawn; the
rules page's diagrams drawn by the board module, one per lesson step (axe and the keyboard:
test_accessibility.py)."""

from __future__ import annotations

from typing import Any

import pytest
from test_fixes_boards import STYLE_LEAKS

from flipgames.core.lessons import has_lesson, lesson_for
from flipgames.core.registry import game_names

SOURCE = ".targets .target.source[data-target='{}']"
TARGET = ".targets .target:not(.source)[data-target='{}']"


def play(page: Any, move: str) -> None:
    """A FlipFlop move by mouse: the piece, then its target."""
    origin, destination = move.replace("x", "-").split("-")
    page.locator(SOURCE.format(origin)).click()
    page.locator(TARGET.format(destination)).click()


def feedback(page: Any, starts: str) -> str:
    page.wait_for_function(
        "text => document.getElementById('feedback').textContent.startsWith(text)", arg=starts
    )
    text: str = page.locator("#feedback").inner_text()
    return text


def test_the_flipflop_3x3_lesson_played_to_the_end_by_mouse(page: Any, arcade: str) -> None:
    lesson = lesson_for("flipflop-3x3")
    page.goto(f"{arcade}/")
    page.locator(".game-card[data-game='flipflop-3x3'] a.learn-link").click()
    page.wait_for_url("**/learn/flipflop-3x3")
    page.wait_for_selector(".board-svg")
    assert page.locator("#learn-tabs a").count() == 6
    assert page.locator("#steps li").count() == len(lesson.steps)
    for number, step in enumerate(lesson.steps, 1):
        page.wait_for_function(
            "text => document.getElementById('step-count').textContent === text",
            arg=f"Step {number} of {len(lesson.steps)}",
        )
        assert page.locator("#rule").inner_text() == step.rule
        assert page.locator("#goal").inner_text() == step.goal.says
        if step.title == "The flip":
            # A square the + piece on a1 cannot reach (no target there): the engine says why.
            page.locator(SOURCE.format("a1")).click()
            page.locator(".squares rect[data-square='b2']").click()
            said = feedback(page, "'a1-b2' is not legal")
            assert said == "'a1-b2' is not legal: the piece on a1 shows + and moves like a rook"
            assert page.locator("#next-step").is_hidden()
        if step.title == "Capture on a goal":
            play(page, "a1-a2")  # legal, but no capture
            said = feedback(page, "a1-a2 is a legal move, but")
            assert said.endswith(step.goal.miss)
            assert page.locator("#next-step").is_hidden()
            # The step's position is back: the piece stands on a1 again.
            page.wait_for_selector(SOURCE.format("a1"))
        play(page, step.solutions[0])
        assert feedback(page, step.done) == step.done
        assert page.locator(f"#steps li:nth-child({number}).done").count() == 1
        if number < len(lesson.steps):
            page.locator("#next-step").click()
    page.wait_for_selector("#done:not([hidden])")
    assert page.locator("#done-text").inner_text() == "You have played every rule of FlipFlop 3x3."
    assert page.locator("#steps li.done").count() == len(lesson.steps)


def test_flipfour_moves_the_rules_forbid_are_answered_by_the_engine(page: Any, arcade: str) -> None:
    """FlipFour's board hands the page a square the picked piece or face cannot go to."""
    page.goto(f"{arcade}/learn/flipfour")
    page.wait_for_selector(".board-svg")
    page.locator("#steps li:nth-child(2) button").click()
    page.locator(SOURCE.format("b2")).click()
    page.locator(".squares rect[data-square='c3']").click()
    said = feedback(page, "'b2-c3' is not legal")
    assert said.endswith("shows its rook face and moves along its rank or file")
    page.locator("#steps li:nth-child(3) button").click()
    page.locator(".drop-choice[data-drop='R']").click()
    page.locator(".pieces [data-square='c2']").click()  # a Black piece: no target there
    assert feedback(page, "'R@c2'") == "'R@c2' is not legal here: c2 is occupied"
    assert page.locator("#next-step").is_hidden()


def test_a_flip_switch_flip_shows_the_lessons_shape(page: Any, arcade: str) -> None:
    """A chance game's step: the flip is judged by the engine and the tile shows the shape the
    lesson sets, nothing drawn."""
    step = lesson_for("flip-switch").steps[0]
    page.goto(f"{arcade}/learn/flip-switch")
    page.wait_for_selector(".board-svg")
    page.locator(".targets .target[data-target='b2']").click()
    assert feedback(page, step.done) == step.done
    page.wait_for_selector(".pieces [data-square='b2'][data-shape='heart']")


def play_by_mouse(page: Any, game: str, move: str) -> None:
    """``move`` played with the clicks a player makes on ``game``'s board (its notation read
    here, in the test, to know which targets to click)."""
    if game == "checkered-flag":
        page.locator(f".gear-button[data-gear='{move}']").click()
    elif game == "rubiks-flip":
        flip, _, placed = move.rpartition("/")
        if flip:
            page.locator(SOURCE.format(flip)).click()
        page.locator(f".colour-choice[data-colour='{placed[-1]}']").click()
        page.locator(TARGET.format(placed[:-1])).click()
    elif game == "flip-switch" and "-" not in move:
        page.locator(f".targets .target.flip[data-target='{move}']").click()
    elif "@" in move:  # a FlipFour drop: the face, then the square
        face, square = move.split("@")
        page.locator(f".drop-choice[data-drop='{face}']").click()
        page.locator(TARGET.format(square)).click()
    else:
        play(page, move)


@pytest.mark.parametrize("game", [name for name in game_names() if has_lesson(name)])
def test_every_lesson_played_to_the_end_by_mouse(page: Any, arcade: str, game: str) -> None:
    """Every step's first solution clicked on the real board and accepted by the engine (the
    chance games' outcomes the lesson's), to the end card."""
    lesson = lesson_for(game)
    page.goto(f"{arcade}/learn/{game}")
    page.wait_for_selector(".board-svg")
    for number, step in enumerate(lesson.steps, 1):
        page.wait_for_function(
            "text => document.getElementById('step-count').textContent === text",
            arg=f"Step {number} of {len(lesson.steps)}",
        )
        play_by_mouse(page, game, step.solutions[0])
        assert feedback(page, step.done) == step.done
        if number < len(lesson.steps):
            page.locator("#next-step").click()
    page.wait_for_selector("#done:not([hidden])")


def test_every_step_of_every_lesson_is_drawn(page: Any, arcade: str) -> None:
    """Each step picked from the list draws its position (the page fixture fails on any script
    error), with its goal above the board; no page style reaches into a board."""
    for game in [name for name in game_names() if has_lesson(name)]:
        lesson = lesson_for(game)
        page.goto(f"{arcade}/learn/{game}")
        page.wait_for_selector(".board-svg")
        for number, step in enumerate(lesson.steps, 1):
            page.locator(f"#steps li:nth-child({number}) button").click()
            page.wait_for_function(
                "text => document.getElementById('goal').textContent === text", arg=step.goal.says
            )
            assert page.locator("#board .board-svg").count() == 1
        # The learn page's own styles (learn.css, app.css...) never reach into the board.
        page.locator(".targets .target, .drop-choice, .gear-button").first.click()
        found = page.evaluate(STYLE_LEAKS)
        assert found["leaks"] == [] and found["shared"] == []


def test_the_rules_page_draws_a_diagram_for_every_lesson_step(page: Any, arcade: str) -> None:
    for game in ("flipflop-3x3", "checkered-flag"):
        lesson = lesson_for(game)
        page.goto(f"{arcade}/rules/{game}")
        page.wait_for_selector(".rule-diagram .board-svg")
        page.wait_for_function(
            "count => document.querySelectorAll('.rule-diagram .board-svg').length === count",
            arg=len(lesson.steps),
        )
        captions = page.locator(".rule-diagram figcaption b").all_inner_texts()
        assert captions == [step.title for step in lesson.steps]
        assert page.locator(f"a[href='/learn/{game}']").count() >= 1
