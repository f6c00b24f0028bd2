"""AI levels and solved games as the arcade offers them.

The levels come from :mod:`flipgames.agents.levels`, with one web rule: ``perfect`` play, hints
and analysis are offered only where the solution is *ready*, meaning it can be had within a
request. A deterministic solved game is (FlipFlop 3x3 solves in about 2.5 s); a chance game
is once its stochastic solution is in the solver's disk cache, which ``flipgames solve GAME``
fills (Flip Switch takes about ten minutes, far too long for a request). Each solution is
loaded once per app and shared by the perfect player, hints and analysis.

>>> from flipgames import make
>>> solutions = Solutions()
>>> solutions.levels(make("flipflop-3x3"))
['easy', 'medium', 'hard', 'perfect']
>>> solutions.levels(make("flipflop"))
['easy', 'medium', 'hard']
"""

from __future__ import annotations

import random
import threading

from flipgames.agents.base import Agent
from flipgames.agents.levels import levels_for, make_level_agent
from flipgames.agents.perfect import PerfectAgent
from flipgames.core.game import Game
from flipgames.solvers import catalog, retrograde, stochastic

Solution = retrograde.Solution | stochastic.StochasticSolution


class Solutions:
    """The solutions of solved games, loaded on first use and kept for the app's lifetime."""

    def __init__(self) -> None:
        self._solved: dict[Game, Solution] = {}
        self._lock = threading.Lock()

    def ready(self, game: Game) -> bool:
        """True when ``game`` (with its options) is solved and its solution can be had now."""
        return game in self._solved or catalog.solution_ready(game)

    def get(self, game: Game) -> Solution:
        """The solution of a :meth:`ready` game; one load however many requests ask at once."""
        with self._lock:
            if game not in self._solved:
                self._solved[game] = catalog.solution(game)
            return self._solved[game]

    def levels(self, game: Game) -> list[str]:
        """The levels the arcade offers for ``game``, weakest first."""
        return [level for level in levels_for(game) if level != "perfect" or self.ready(game)]

    def agent(self, game: Game, level: str, rng: random.Random) -> Agent:
        """The agent for one of :meth:`levels`."""
        if level == "perfect":
            return PerfectAgent(rng, self.get(game))
        return make_level_agent(game, level, rng)
