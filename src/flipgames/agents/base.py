"""The agent interface and the uniformly random agent.

>>> import random
>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> agent = RandomAgent(random.Random(3))
>>> agent.choose(state) in state.legal_actions()
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from flipgames.core.game import State


class Agent(ABC):
    """Chooses a legal action for the player to move (never at a chance node).

    Every agent draws whatever randomness it needs from the generator it is given, so a
    seeded generator makes its play reproducible.
    """

    name: str

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    @abstractmethod
    def choose(self, state: State) -> int:
        """Return one of ``state.legal_actions()``."""


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"

    def choose(self, state: State) -> int:
        return self.rng.choice(state.legal_actions())
