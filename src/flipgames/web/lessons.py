"""The arcade's "Learn to play" pages and their API: each game's lesson
(:mod:`flipgames.core.lessons`), one guided position at a time, every move the learner makes
judged by the rules engine on the server (the page knows no rule).

* ``GET /api/lessons``: the games with a lesson (name, title, picture, number of steps).
* ``GET /api/lessons/{game}``: the lesson: its ``intro`` and ``steps``, each with its
  ``number``, ``title``, ``rule`` (plain words), ``goal``, the ``view`` of its position that
  the game's board module draws, and a ``solution`` (a structured move, for the "show me"
  button and the rules page's diagrams).
* ``POST /api/lessons/{game}/{number}/attempt`` with ``{"action": "b1xb3"}``: the engine's
  verdict: ``legal``, ``achieved``, the ``message`` in words ("'a3-a2' is not legal: White has
  no piece on a3", "a1-a2 is a legal move, but it captures nothing..."), the ``action`` in
  canonical notation, the ``view`` after a legal move (null otherwise) and the ``next`` step's
  number (null after the last). Nothing is stored: a lesson has no state on the server.
  Attempts share the actions' rate limit.
* Pages: ``/learn`` (the first game's lesson) and ``/learn/{game}``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from flipgames.core.lessons import MAX_ACTION_CHARS, MAX_STEPS, Lesson, has_lesson, lesson_for
from flipgames.core.manifest import manifest_for
from flipgames.core.registry import game_names, make
from flipgames.web.boardview import board_view
from flipgames.web.errors import ApiError
from flipgames.web.routes.common import ActionLimit
from flipgames.web.routes.pages import missing, page

router = APIRouter()

Number = Annotated[int, Path(ge=1, le=MAX_STEPS, description="the step's number (1: the first)")]


class AttemptRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str = Field(max_length=MAX_ACTION_CHARS, description="the move in the game's notation")


def lesson_games() -> list[str]:
    """The registered games that offer a lesson, in the registry's order."""
    return [name for name in game_names() if has_lesson(name)]


def lesson(game: str) -> Lesson:
    """The lesson of ``game``, or a 404 ApiError naming the games that have one."""
    if game not in lesson_games():
        raise ApiError(
            404,
            "not_found",
            f"no lesson for {game!r}: lessons exist for {', '.join(lesson_games())}",
        )
    return lesson_for(game)


def step_json(game: str, found: Lesson, number: int) -> dict[str, Any]:
    """Step ``number`` as the page shows it: the rule, the goal and the position's view."""
    step = found.step(number)
    start = step.start(found.game(game))
    solution = start.parse_action(step.solutions[0])
    return {
        "number": number,
        "title": step.title,
        "rule": step.rule,
        "goal": step.goal.says,
        "view": board_view(start, "lesson"),
        "solution": start.action_info(solution),
    }


@router.get("/api/lessons")
def list_lessons() -> list[dict[str, Any]]:
    """The games with a lesson, in order, with the lobby's picture of each."""
    return [
        {
            "name": name,
            "title": make(name).title,
            "art": manifest_for(name).art,
            "steps": len(lesson_for(name).steps),
        }
        for name in lesson_games()
    ]


@router.get("/api/lessons/{game}")
def get_lesson(game: str) -> dict[str, Any]:
    """A game's whole lesson: every step's rule, goal and position."""
    found = lesson(game)
    return {
        "game": game,
        "title": make(game).title,
        "intro": found.intro,
        "steps": [step_json(game, found, n) for n in range(1, len(found.steps) + 1)],
    }


@router.post("/api/lessons/{game}/{number}/attempt", dependencies=[ActionLimit])
def attempt_step(game: str, number: Number, body: AttemptRequest) -> dict[str, Any]:
    """The engine's verdict on a move at a step: legal or not, goal reached or not, in words."""
    found = lesson(game)
    if number > len(found.steps):
        raise ApiError(
            404, "not_found", f"there is no step {number}: the lesson has {len(found.steps)}"
        )
    step = found.step(number)
    game_now = found.game(game)
    learner = step.start(game_now).current_player
    verdict = step.attempt(game_now, body.action)
    after = verdict.after
    return {
        "action": verdict.action,
        "legal": verdict.legal,
        "achieved": verdict.achieved,
        "message": verdict.message,
        # A move that missed may stop before the lesson's set chance outcome (not legal
        # after it): there is nothing to show until chance has spoken.
        "view": board_view(after, "lesson", learner)
        if after and not after.is_chance_node()
        else None,
        "next": number + 1 if verdict.achieved and number < len(found.steps) else None,
    }


@router.get("/learn", include_in_schema=False)
def learn_index() -> RedirectResponse:
    """The site's "Learn" link: the first game's lesson, whose page lists every game's."""
    return RedirectResponse(f"/learn/{lesson_games()[0]}", status_code=307)


@router.get("/learn/{game}", include_in_schema=False)
def learn_page(request: Request, game: str) -> HTMLResponse:
    if game not in lesson_games():
        return missing(f"there is no lesson for {game!r}")
    return page(request, "learn.html")
