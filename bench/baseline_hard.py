"""The ``hard`` level as it was before the compiled search: a frozen baseline.

A copy of its configuration (``agents/levels.py`` before the kernels), built from the
reference agents, so later versions of ``hard`` can still be measured against it:
``bench/bench_ai.py`` plays the new ``hard`` against it. Node budgets only, as then (about
1-2 s a move on the documented machine; 2.5-4 s measured by the issue), so a seeded baseline
replays exactly. Do not tune it: its point is to stay what it was.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from flipgames.agents.base import Agent
from flipgames.agents.search import AlphaBetaAgent
from flipgames.core.game import Game

#: Per game, the old hard: alpha-beta (expectiminimax for chance games) on the reference
#: engine with the game's evaluation.
BASELINE: dict[str, Callable[[random.Random], Agent]] = {
    "flipflop-3x3": lambda rng: AlphaBetaAgent(rng, depth=20, max_nodes=200_000),
    "flipflop": lambda rng: AlphaBetaAgent(rng, depth=12, max_nodes=100_000),
    "flipfour": lambda rng: AlphaBetaAgent(rng, depth=12, max_nodes=80_000),
    "rubiks-flip": lambda rng: AlphaBetaAgent(rng, depth=5, max_nodes=150_000, depth_step=2),
    "flip-switch": lambda rng: AlphaBetaAgent(rng, depth=8, max_nodes=30_000),
    "checkered-flag": lambda rng: AlphaBetaAgent(rng, depth=6),
}


def baseline_hard(
    game: Game,
    rng: random.Random,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Agent:
    """The frozen old ``hard`` for ``game``; with ``seconds``, also stopped after that long
    by ``clock`` (a match at equal CPU time passes ``time.process_time``), keeping the last
    complete iteration as the old hard did at its node limit."""
    agent = BASELINE[game.name](rng)
    if seconds is not None and isinstance(agent, AlphaBetaAgent):
        agent.seconds, agent.clock = seconds, clock
    return agent
