"""What the benchmarks and studies share: the machine's name, the frozen old ``hard`` and
``hard`` at a given time a move.

Scripts import this module instead of each other, so a script can move (to ``studies/``) or
go without breaking the rest. Studies put ``bench/`` on ``sys.path`` to reach it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from flipgames.agents.base import Agent
from flipgames.agents.kernel_search import has_kernel_search
from flipgames.agents.levels import compiled_hard, make_level_agent
from flipgames.agents.search import AlphaBetaAgent
from flipgames.cli.bench import cpu_name as cpu_name  # re-exported for the scripts
from flipgames.core.game import Game
from flipgames.core.manifest import manifest_of


def new_hard(game: Game, rng: random.Random, seconds: float) -> Agent:
    """``hard`` with ``seconds`` a move (CPU seconds where the game has a compiled search)."""
    if has_kernel_search(game):
        step = manifest_of(game).levels["hard"].depth_step
        return compiled_hard(game, rng, seconds, clock=time.process_time, depth_step=step)
    agent = make_level_agent(game, "hard", rng)
    assert isinstance(agent, AlphaBetaAgent)
    agent.seconds = seconds
    return agent


# The ``hard`` level as it was before the compiled search, frozen so later versions of ``hard``
# can still be measured against it (``bench_ai.py --opponents baseline``, the Rubik's Flip trap
# studies). A copy of its configuration then (``agents/levels.py`` before the kernels), built
# from the reference agents: alpha-beta (expectiminimax for chance games) on the reference
# engine with the game's evaluation, node budgets only, so a seeded baseline replays exactly.
# Do not tune it: its point is to stay what it was.
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
