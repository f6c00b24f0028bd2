"""AI levels and solved games as the arcade offers them.

The levels come from :mod:`flipgames.agents.levels`, with one web rule: ``perfect`` play, hints
and analysis are offered only where the solution is *ready*, meaning it can be had within a
request. A deterministic solved game is; a chance game is once its stochastic solution is in
the solver's disk cache, which ``flipgames solve GAME`` fills. Each solution is loaded once
per process and shared by the perfect player, hints and analysis.

>>> from flipgames import make
>>> solutions = Solutions()
>>> solutions.levels(make("flipflop-3x3"))
['easy', 'medium', 'hard', 'perfect']
>>> solutions.levels(make("flipflop"))
['easy', 'medium', 'hard']
"""

from __future__ import annotations

import random

from flipgames.agents.base import Agent
from flipgames.agents.levels import levels_for, make_level_agent
from flipgames.agents.perfect import PerfectAgent
from flipgames.core.game import Game
from flipgames.solvers import catalog
from flipgames.solvers.solution import Solution


class Solutions:
    """The solutions of solved games as the arcade offers them; loading and keeping them is
    :func:`flipgames.solvers.catalog.solution`'s one in-process memo."""

    def ready(self, game: Game) -> bool:
        """True when ``game`` (with its options) is solved and its solution can be had now."""
        return catalog.solution_ready(game)

    def get(self, game: Game) -> Solution:
        """The solution of a :meth:`ready` game; one load however many requests ask at once."""
        return catalog.solution(game)

    def levels(self, game: Game) -> list[str]:
        """The levels the arcade offers for ``game``, weakest first."""
        return [level for level in levels_for(game) if level != "perfect" or self.ready(game)]

    def agent(self, game: Game, level: str, rng: random.Random) -> Agent:
        """The agent for one of :meth:`levels`."""
        if level == "perfect":
            return PerfectAgent(rng, self.get(game))
        return make_level_agent(game, level, rng)
