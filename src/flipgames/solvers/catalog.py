"""Which exact solver answers which game, with results cached on disk.

Deterministic games go to retrograde analysis, chance games to the stochastic solver. Whether
a game is *solved* (and so has a perfect player and per-move analysis) is data in each game's
manifest (:mod:`flipgames.core.manifest`): the option sets the solvers are known to finish
here in seconds to minutes (docs/solvers.md). Anything
else can still be attempted with ``flipgames solve``, which stops at a position budget and says
how far it got.

>>> from flipgames import make
>>> is_solved(make("flipflop-3x3")), is_solved(make("flipflop"))
(True, False)
"""

from __future__ import annotations

from typing import Protocol

from flipgames.core.game import Game, State
from flipgames.core.manifest import is_listed_solved
from flipgames.solvers import cache, retrograde, stochastic
from flipgames.solvers.retrograde import Progress

#: Bump when the retrograde solver's results or payload format change.
RETROGRADE_VERSION = 1

#: Where the default budget stops a retrograde attempt (about 2-3 GB of memory).
DEFAULT_MAX_POSITIONS = 3_000_000


class ExactSolution(Protocol):
    """What every exact solution offers the agents, the CLI and the web."""

    def best_actions(self, state: State) -> list[int]: ...


def is_solved(game: Game) -> bool:
    """True when an exact solver completes ``game`` with these options here (its manifest
    lists the option set as solved)."""
    return is_listed_solved(game)


def solution_ready(game: Game) -> bool:
    """True when ``game`` is solved and its solution can be had in seconds: a deterministic
    solved game (it solves quickly), or a chance game whose solution is in the disk cache."""
    if not is_solved(game):
        return False
    return game.deterministic or cache.cache_path("stochastic", stochastic.VERSION, game).exists()


def retrograde_solution(
    game: Game, progress: Progress | None = None, max_positions: int | None = None
) -> retrograde.Solution:
    """Solve a deterministic game by retrograde analysis, through the disk cache."""
    return cache.cached(
        "retrograde",
        RETROGRADE_VERSION,
        game,
        lambda: retrograde.solve(game, progress, max_positions=max_positions),
        retrograde.Solution.to_payload,
        lambda payload: retrograde.Solution.from_payload(game, payload),
    )


def solution(
    game: Game, progress: Progress | None = None
) -> retrograde.Solution | stochastic.StochasticSolution:
    """The exact solution of a solved game (see :func:`is_solved`), cached on disk."""
    if game.deterministic:
        return retrograde_solution(game, progress, max_positions=DEFAULT_MAX_POSITIONS)
    return stochastic.cached_solve(game, progress)
