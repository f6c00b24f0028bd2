"""The computer players of the command line: levels checked up front, and a first exact solve
(the perfect level) announced with its cost and drawn as progress."""

from __future__ import annotations

import random
import sys

from flipgames.agents.base import Agent
from flipgames.agents.levels import LevelUnavailableError, describe_level, make_level_agent
from flipgames.cli.estimates import solve_cost
from flipgames.cli.progress import TerminalProgress
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game
from flipgames.core.registry import make
from flipgames.solvers import catalog


def check_level(game: Game, level: str) -> None:
    """Raise :class:`FlipgamesError` naming the levels if ``level`` does not exist for
    ``game``; solves nothing. Where only one round of a match is solved, say how to get it."""
    try:
        describe_level(game, level)
    except LevelUnavailableError as exc:
        raise FlipgamesError(f"{exc}{_one_round_hint(game)}") from None


def _one_round_hint(game: Game) -> str:
    if "rounds" not in game.options or game.options["rounds"] == 1:
        return ""
    single = make(game.name, {**game.options, "rounds": 1})
    return " (the solved game is one round: add -o rounds=1)" if catalog.is_solved(single) else ""


def level_agent(game: Game, level: str, rng: random.Random, *, quiet: bool = False) -> Agent:
    """An agent of ``level``; for ``perfect``, a first long solve is announced on stderr
    (unless ``quiet``) and loading or solving shows progress on a terminal."""
    check_level(game, level)
    if level != "perfect":
        return make_level_agent(game, level, rng)
    cost = solve_cost(game)
    if cost is not None and not catalog.solution_ready(game):
        print(
            f"the perfect level needs a first exact solve of {game.name}: {cost}",
            file=sys.stderr,
            flush=True,
        )
    # A cached solution can take a while to load too (Flip Switch: about half a minute).
    with (
        TerminalProgress.for_command(quiet=quiet) as progress,
        progress.thinking("loading the solution"),
    ):
        return make_level_agent(game, level, rng, progress)
