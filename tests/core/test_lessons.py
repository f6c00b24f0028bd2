"""Every packaged game has a lesson, and the rules engine vouches for each of its steps: the
position is legal and in play, every solution is a legal move that reaches the step's goal
(leaving no chance outcome pending), every other legal move gets an answer in words, and
text that is not a legal move is refused with the engine's reason."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

from flipgames import game_names
from flipgames.core import registry
from flipgames.core.lessons import (
    MAX_STEPS,
    MIN_STEPS,
    Lesson,
    LessonError,
    Step,
    any_move,
    has_lesson,
    lesson_for,
)
from flipgames.core.manifest import Manifest
from support.toy_game import MANIFEST
from support.toy_game import NAME as TOY

PACKAGED = [name for name in game_names() if name != TOY]


@pytest.mark.parametrize("name", PACKAGED)
def test_every_packaged_game_has_a_lesson_of_five_to_ten_steps(name):
    assert has_lesson(name)
    lesson = lesson_for(name)
    assert MIN_STEPS <= len(lesson.steps) <= MAX_STEPS
    assert all(step.title and step.rule and step.goal.says and step.done for step in lesson.steps)


def _steps() -> list[tuple[str, int]]:
    # A game without a lesson fails the test above, not the collection.
    games = [name for name in PACKAGED if has_lesson(name)]
    return [(name, n) for name in games for n in range(1, len(lesson_for(name).steps) + 1)]


@pytest.mark.parametrize(("name", "number"), _steps())
def test_each_steps_position_is_legal_and_its_solutions_reach_the_goal(name, number):
    lesson = lesson_for(name)
    game = lesson.game(name)
    step = lesson.step(number)
    start = step.start(game)
    assert not start.is_terminal() and not start.is_chance_node()
    legal = {start.action_to_string(a) for a in start.legal_actions()}
    assert step.solutions and set(step.solutions) <= legal
    for text in step.solutions:
        # Outcomes set by the step are there because chance follows the move, never idle.
        assert start.apply(start.parse_action(text)).is_chance_node() == bool(step.then)
        attempt = step.attempt(game, text)
        assert attempt.legal and attempt.achieved, (text, attempt.message)
        assert attempt.message == step.done
        assert attempt.after is not None and not attempt.after.is_chance_node()
    # Every legal move is answered (reached or missed, in words), none raises.
    for text in legal:
        attempt = step.attempt(game, text)
        assert attempt.legal and attempt.action == text
        if not attempt.achieved:
            assert attempt.message.startswith(f"{text} is a legal move, but ")
            assert step.goal.miss and attempt.message.endswith(step.goal.miss)


@pytest.mark.parametrize("name", PACKAGED)
def test_a_lesson_teaches_more_than_how_to_move(name):
    """Most steps ask for something particular: some legal move misses the goal."""
    lesson = lesson_for(name)
    game = lesson.game(name)
    particular = 0
    for step in lesson.steps:
        start = step.start(game)
        texts = [start.action_to_string(a) for a in start.legal_actions()]
        particular += any(not step.attempt(game, t).achieved for t in texts)
    assert particular >= len(lesson.steps) // 2


def test_an_illegal_move_is_refused_with_the_engines_reason_and_no_list_of_moves():
    lesson = lesson_for("flipflop-3x3")
    game = lesson.game("flipflop-3x3")
    attempt = lesson.steps[0].attempt(game, "a3-a2")
    assert not attempt.legal and not attempt.achieved and attempt.after is None
    assert attempt.message == "'a3-a2' is not legal: White has no piece on a3"
    garbled = lesson.steps[0].attempt(game, "zz9")
    assert not garbled.legal and "zz9" in garbled.message
    assert not lesson.steps[0].attempt(game, "x" * 1000).legal
    assert not lesson.steps[0].attempt(game, 42).legal


def test_a_missed_goal_is_said_and_a_reached_one_too():
    lesson = lesson_for("flipflop-3x3")
    game = lesson.game("flipflop-3x3")
    capture = next(step for step in lesson.steps if step.title == "Capture on a goal")
    missed = capture.attempt(game, "a1-a2")
    assert missed.legal and not missed.achieved
    assert missed.message == f"a1-a2 is a legal move, but {capture.goal.miss}"
    assert capture.attempt(game, "b1xb3").achieved


def test_step_numbers_start_at_one_and_bad_ones_are_refused():
    lesson = lesson_for("flipflop-3x3")
    assert lesson.step(1) is lesson.steps[0]
    for bad in (0, len(lesson.steps) + 1, "1", True):
        with pytest.raises(LessonError):
            lesson.step(bad)


def test_a_lesson_outside_five_to_ten_steps_is_refused():
    step = Step("t", "r", any_move("move"), ("a1-a2",), "done")
    with pytest.raises(ValueError, match="5 to 10 steps"):
        Lesson("intro", (step,) * 4)
    with pytest.raises(ValueError, match="5 to 10 steps"):
        Lesson("intro", (step,) * 11)


@contextmanager
def _toy_registered(manifest: Manifest) -> Iterator[None]:
    """The toy game registered with ``manifest`` for the block (put back as it was after: the
    toy plugin keeps it registered for the whole run)."""
    was = TOY in game_names()
    if was:
        registry.unregister(TOY)
    registry.register({TOY: manifest})
    try:
        yield
    finally:
        registry.unregister(TOY)
        if was:
            registry.register({TOY: MANIFEST})


def test_a_game_without_a_lesson_says_so_and_one_defined_at_run_time_gives_its_own():
    with _toy_registered(MANIFEST):
        assert not has_lesson(TOY)
        with pytest.raises(LessonError, match=f"{TOY} has no lesson"):
            lesson_for(TOY)
    step = Step("t", "r", any_move("move"), ("a1",), "done")
    lesson = Lesson("intro", (step,) * 5)
    with _toy_registered(replace(MANIFEST, lesson=lesson)):
        assert has_lesson(TOY) and lesson_for(TOY) is lesson


def test_a_block_is_judged_by_the_opponents_replies():
    """FlipFour's block step: of all 52 legal moves only the two drops on d3 leave Black no
    four next turn (Black's row a3-c3 has one open end)."""
    lesson = lesson_for("flipfour")
    game = lesson.game("flipfour")
    block = next(step for step in lesson.steps if step.title == "Block")
    start = block.start(game)
    texts = [start.action_to_string(a) for a in start.legal_actions()]
    reached = sorted(t for t in texts if block.attempt(game, t).achieved)
    assert len(texts) == 52 and reached == ["B@d3", "R@d3"]
