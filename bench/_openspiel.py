"""OpenSpiel's MCTSBot as a flipgames agent, for the benchmarks and studies that play it.

OpenSpiel is an optional dependency (``pip install -e '.[bench]'``), so this is apart from
``_common.py``: a script that does not play MCTSBot does not need it.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms.mcts import MCTSBot, RandomRolloutEvaluator

from flipgames.agents.base import Agent
from flipgames.core.game import State


class SpielState:
    """The part of ``pyspiel.State`` that MCTSBot and its rollouts use, over a flipgames
    state (deterministic two-player games only)."""

    def __init__(self, state: State) -> None:
        self.state = state

    def current_player(self) -> int:
        return self.state.current_player if not self.state.is_terminal() else -4

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self, player: int | None = None) -> list[int]:
        return list(self.state.legal_actions())

    def apply_action(self, action: int) -> None:
        self.state = self.state.apply(int(action))

    def clone(self) -> SpielState:
        return SpielState(self.state)  # flipgames states are immutable: sharing is a copy

    def returns(self) -> list[float]:
        return [float(r) for r in self.state.returns()]


class SpielGame:
    """What MCTSBot asks of a game: its type (terminal rewards, sequential) and max utility."""

    def get_type(self) -> Any:
        return pyspiel.load_game("tic_tac_toe").get_type()

    def max_utility(self) -> float:
        return 1.0


class MCTSBotAgent(Agent):
    """OpenSpiel's MCTSBot as a flipgames agent."""

    name = "openspiel-mcts"

    def __init__(self, rng: random.Random, simulations: int) -> None:
        super().__init__(rng)
        numpy_rng = np.random.RandomState(rng.randrange(2**31))
        evaluator = RandomRolloutEvaluator(n_rollouts=1, random_state=numpy_rng)
        self.bot = MCTSBot(
            SpielGame(), 2.0, simulations, evaluator, solve=True, random_state=numpy_rng
        )

    def choose(self, state: State) -> int:
        return int(self.bot.step(SpielState(state)))
