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


class SometimesBestAgent(Agent):
    """Plays one of the solution's best actions with probability ``best_share``, else a
    uniformly random legal action (which may be a best one too): a level whose strength is
    set by how often it finds the best move, in games where search is no weaker than the
    solution (Checkered Flag's ``medium``).

    >>> import random
    >>> from flipgames import make
    >>> from flipgames.solvers.stochastic import solve_stochastic
    >>> game = make("checkered-flag", track="short", start="first")
    >>> agent = SometimesBestAgent(random.Random(0), solve_stochastic(game), best_share=0.5)
    >>> state = game.new_initial_state()
    >>> agent.choose(state) in state.legal_actions()
    True
    """

    name = "sometimes-best"

    def __init__(self, rng: random.Random, solution: Solution, best_share: float) -> None:
        super().__init__(rng)
        if not 0 <= best_share <= 1:
            raise ValueError(f"best_share must be between 0 and 1, not {best_share}")
        self.solution = solution
        self.best_share = best_share

    def choose(self, state: State) -> int:
        if self.rng.random() < self.best_share:
            return self.rng.choice(self.solution.best_actions(state))
        return self.rng.choice(state.legal_actions())
