"""The perfect player of games proved by search: exact where the search answers in time.

A game too big to solve position by position (Rubik's Flip) has no table of values to read.
This player asks the kernel's exact search (:func:`flipgames.solvers.alphabeta.best_actions`)
for the actions that keep the position's value, within a node budget; at the first turn it
reads the cached proof (``flipgames solve``) instead. Where neither answers it plays the
fallback agent's move (the game's ``hard`` level), so it is perfect from the middle game on
and as strong as ``hard`` before.

>>> import random
>>> from flipgames import make
>>> from flipgames.agents.base import RandomAgent
>>> game = make("rubiks-flip")
>>> agent = ProofAgent(random.Random(1), game, RandomAgent(random.Random(2)))
>>> state, rng = game.new_initial_state(), random.Random(4)
>>> for _ in range(10):
...     state = state.apply(rng.choice(state.legal_actions()))
>>> best = agent.best_actions(state)  # ten plies in: well within the budget
>>> best is not None and 0 < len(best) and set(best) <= set(state.legal_actions())
True
>>> agent.choose(state) in best
True
"""

from __future__ import annotations

import random

from flipgames.agents.base import Agent
from flipgames.core.game import Game, State
from flipgames.solvers import alphabeta

#: Nodes per move: about 1.5 s of CPU on the machine of docs/solvers.md (more on a busy one).
MAX_NODES = 1_500_000
#: The transposition table kept between moves (per player: a web arcade holds many).
TABLE_BYTES = 16 << 20


class ProofAgent(Agent):
    """A uniformly random choice among the value-keeping actions, else the fallback's move."""

    name = "perfect"

    def __init__(
        self, rng: random.Random, game: Game, fallback: Agent, max_nodes: int = MAX_NODES
    ) -> None:
        super().__init__(rng)
        self.fallback = fallback
        self.max_nodes = max_nodes
        self.kernel = alphabeta.searchable(game)
        self.proof = alphabeta.cached_proof(game)
        self.start = game.new_initial_state().key()
        import numpy as np  # only when this player is built: `flipgames --help` stays light

        self.table = np.zeros(
            alphabeta.table_entries(TABLE_BYTES) if self.kernel else 0, dtype=np.int64
        )

    def best_actions(self, state: State) -> list[int] | None:
        """The actions that keep ``state``'s value, or None when they are not known in time."""
        if self.proof is not None and state.key() == self.start:
            return [
                state.parse_action(turn)
                for turn, value in self.proof.first_turns.items()
                if value == self.proof.value
            ]
        if self.kernel is None:
            return None
        return alphabeta.best_actions(self.kernel, state, self.table, self.max_nodes)

    def choose(self, state: State) -> int:
        best = self.best_actions(state)
        return self.rng.choice(best) if best else self.fallback.choose(state)
