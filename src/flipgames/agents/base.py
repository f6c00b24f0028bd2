"""The agent interface and the uniformly random agent.

>>> import random
>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> agent = make_agent("random", random.Random(3))
>>> agent.choose(state) in state.legal_actions()
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import State


class Agent(ABC):
    """Chooses a legal action for the player to move (never at a chance node)."""

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


_AGENTS: dict[str, type[Agent]] = {"random": RandomAgent}


def make_agent(name: str, rng: random.Random) -> Agent:
    """Create an agent by name; an unknown name lists the known ones."""
    try:
        return _AGENTS[name](rng)
    except KeyError:
        raise FlipgamesError(
            f"unknown agent {name!r}: known agents are {', '.join(_AGENTS)}"
        ) from None
