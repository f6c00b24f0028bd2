"""The perfect player: reads a solver's values and plays one of the best actions.

Any :class:`~flipgames.solvers.solution.Solution` will do: the retrograde solution of a
deterministic game (the quickest win, any draw, the slowest loss) or the stochastic solution of
a chance game (the actions of highest expected value that make progress). Among equally good
actions the choice is made with the agent's seeded generator, so a perfect player is still
varied and reproducible.

>>> import random
>>> from flipgames import make
>>> from flipgames.solvers.retrograde import solve
>>> game = make("flipflop-3x3")
>>> agent = PerfectAgent(random.Random(0), solve(game))
>>> state = game.new_initial_state()
>>> state.action_to_string(agent.choose(state))
'b1xb3'
"""

from __future__ import annotations

import random

from flipgames.agents.base import Agent
from flipgames.core.game import State
from flipgames.solvers.solution import Solution


class PerfectAgent(Agent):
    """Plays a uniformly random choice among the solution's best actions."""

    name = "perfect"

    def __init__(self, rng: random.Random, solution: Solution) -> None:
        super().__init__(rng)
        self.solution = solution

    def choose(self, state: State) -> int:
        return self.rng.choice(self.solution.best_actions(state))
