"""Agent speed per game: MCTS iterations per second and alpha-beta nodes per second.

Run: ``.venv/bin/python bench/bench_agents.py [--positions N] [--iterations N] [--nodes N]
[--games NAME ...]``. Each game is measured from its start and from a few positions reached
by seeded random play (so the figures are not only about the opening), with the game's own
evaluation at the search horizon. Prints the machine and Python version with every run, since
figures mean nothing without them.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

from _common import cpu_name, positions
from flipgames import game_names, make
from flipgames.agents.mcts import MCTSAgent
from flipgames.agents.search import AlphaBetaAgent
from flipgames.core.game import Game


def measure(game: Game, count: int, iterations: int, nodes: int) -> tuple[float, float]:
    """(MCTS iterations per second, alpha-beta nodes per second) over ``count`` positions."""
    mcts_time = search_time = 0.0
    searched = 0
    for index, state in enumerate(positions(game, count)):
        mcts = MCTSAgent(random.Random(index), iterations=iterations)
        started = time.perf_counter()
        mcts.search(state)
        mcts_time += time.perf_counter() - started
        alphabeta = AlphaBetaAgent(random.Random(index), depth=64, max_nodes=nodes)
        started = time.perf_counter()
        alphabeta.search(state)
        search_time += time.perf_counter() - started
        # A proven result stops the search early, so count what was searched, not the budget.
        searched += alphabeta.last_nodes
    return count * iterations / mcts_time, searched / search_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=4, help="positions per game")
    parser.add_argument("--iterations", type=int, default=2000, help="MCTS iterations each")
    parser.add_argument("--nodes", type=int, default=50_000, help="alpha-beta nodes each")
    parser.add_argument("--games", nargs="*", default=game_names())
    args = parser.parse_args()
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {platform.system()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"{'game':<15} {'MCTS iter/s':>12} {'alpha-beta nodes/s':>19}")
    for name in args.games:
        per_second, nodes_per_second = measure(
            make(name), args.positions, args.iterations, args.nodes
        )
        print(f"{name:<15} {per_second:>12,.0f} {nodes_per_second:>19,.0f}", flush=True)


if __name__ == "__main__":
    main()
