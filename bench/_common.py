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
from flipgames.core.game import Game, State, random_action, sample_chance
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


def baseline_hard(
    game: Game,
    rng: random.Random,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Agent:
    """The frozen old ``hard`` for ``game`` (its manifest's ``bench.baseline_hard``: the
    ``hard`` level as it was before the compiled search, alpha-beta or expectiminimax on the
    reference engine with the game's evaluation and node budgets only); with ``seconds``,
    also stopped after that long by ``clock`` (a match at equal CPU time passes
    ``time.process_time``), keeping the last complete iteration as the old hard did at its
    node limit. ``SystemExit`` names a game whose manifest has none."""
    spec = manifest_of(game).bench.baseline_hard
    if spec is None:
        raise SystemExit(f"{game.name} has no frozen old hard (its manifest's bench facts)")
    agent = AlphaBetaAgent(
        rng, depth=spec.depth, max_nodes=spec.max_nodes, depth_step=spec.depth_step
    )
    if seconds is not None:
        agent.seconds, agent.clock = seconds, clock
    return agent


def positions(game: Game, count: int, seed: int = 1, most_plies: int = 12) -> list[State]:
    """The start and ``count - 1`` positions 2-``most_plies`` plies into seeded random games,
    each with a player to move."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(0 if not found else rng.randrange(2, most_plies + 1)):
            if state.is_terminal():
                break
            state = state.apply(random_action(state, rng))
        while state.is_chance_node():
            state = state.apply(sample_chance(state, rng))
        if not state.is_terminal():
            found.append(state)
    return found
