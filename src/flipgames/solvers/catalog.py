"""Which exact solver answers which game, with results cached on disk and in memory.

Deterministic games go to retrograde analysis, chance games to the stochastic solver; both
answer through one :class:`~flipgames.solvers.solution.Solution` protocol. Whether a game is
*solved* (and so has a perfect player and per-move analysis) is data in each game's manifest
(:mod:`flipgames.core.manifest`): the option sets the solvers are known to finish here in
seconds (docs/solvers.md). Anything else can still be
attempted with ``flipgames solve``, which stops at a position budget and says how far it got.

:func:`solution` is the one in-process memo: every caller (the perfect player, ``analyze``,
the web's hints and analysis) shares one loaded solution per game and options.

>>> from flipgames import make
>>> is_solved(make("flipflop-3x3")), is_solved(make("flipflop"))
(True, False)
"""

from __future__ import annotations

import threading

from flipgames.core.game import Game
from flipgames.core.manifest import is_listed_solved
from flipgames.core.progress import Progress, silent
from flipgames.solvers import cache
from flipgames.solvers.solution import Solution

#: Where the default budget stops a retrograde attempt on the reference engine.
DEFAULT_MAX_POSITIONS = 3_000_000

_memo: dict[Game, Solution] = {}
_lock = threading.Lock()


def is_solved(game: Game) -> bool:
    """True when an exact solver completes ``game`` with these options here (its manifest
    lists the option set as solved)."""
    return is_listed_solved(game)


def solution_ready(game: Game) -> bool:
    """True when ``game`` is solved and its solution can be had now: loaded already, a
    deterministic solved game (it solves quickly), or a chance game whose solution is in the
    disk cache (``flipgames solve`` fills it)."""
    if not is_solved(game):
        return False
    if game in _memo or game.deterministic:
        return True
    from flipgames.solvers import stochastic  # numpy and the solvers load on first use

    return cache.cache_path(stochastic.cache_name(game), stochastic.VERSION, game).exists()


def solve(game: Game, progress: Progress = silent, max_positions: int | None = None) -> Solution:
    """Solve ``game`` from the start with the solver that fits it, through the disk cache
    (``max_positions`` bounds the positions a solve may enumerate; more is a
    :class:`~flipgames.solvers.retrograde.SolverError`)."""
    # Imported on first use: numpy, numba and each solver load only when a game is solved.
    if game.deterministic:
        from flipgames.solvers import retrograde

        return retrograde.cached_solve(game, progress, max_positions)
    from flipgames.solvers import stochastic

    return stochastic.cached_solve(game, progress, max_positions)


def solution(
    game: Game, progress: Progress = silent, max_positions: int = DEFAULT_MAX_POSITIONS
) -> Solution:
    """The exact solution of a solved game (see :func:`is_solved`), loaded once per process
    (a solve of more than ``max_positions`` positions stops with
    :class:`~flipgames.solvers.solution.SolverError`; one loaded already answers)."""
    with _lock:
        found = _memo.get(game)
        if found is None:
            found = _memo[game] = solve(game, progress, max_positions)
        return found
