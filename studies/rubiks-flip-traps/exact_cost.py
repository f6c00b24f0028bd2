"""What Rubik's Flip ``hard``'s exact search costs at a given tile: nodes and CPU seconds to find
a position's value and every action's (``ExactSearchAgent``'s first step), on positions from
games of the compiled alpha-beta with some random moves.

Run: ``.venv/bin/python studies/rubiks-flip-traps/exact_cost.py [--tile 7] [--positions 6]
[--seed 0]``.

It shows where the exact phase can start within *hard*'s 0.9 s a move: a first player meets
the eighth tile, a second player the seventh, then the ninth. The study's log.md quotes a run.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _common import cpu_name
from flipgames import make
from flipgames.agents.exact import ExactSearchAgent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.game import Game, State

#: Nodes for the heuristic moves that make the positions, and the share of random ones (so the
#: positions differ).
NODES = 20_000
RANDOM_SHARE = 0.3


def position(game: Game, tile: int, rng: random.Random) -> State:
    """A position with ``tile`` tiles placed."""
    player = KernelAlphaBetaAgent(rng, game, max_nodes=NODES, depth_step=2)
    state = game.new_initial_state()
    while len(state.history) < tile and not state.is_terminal():
        if rng.random() < RANDOM_SHARE:
            action = rng.choice(state.legal_actions())
        else:
            action = player.search(state).action
        state = state.apply(action)
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile", type=int, default=7)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not 1 <= args.tile <= 14 or args.positions < 1:
        parser.error("--tile must be 1..14 and --positions positive")
    game = make("rubiks-flip")
    print(f"machine: {cpu_name()}; CPython {platform.python_version()}")
    # Load the compiled search (numba's cache) before anything is timed.
    warm = ExactSearchAgent(random.Random(1), game, max_nodes=10**12)
    warm._values(warm.kernel.position(position(game, 14, random.Random(args.seed))))
    nodes, seconds = [], []
    for index in range(args.positions):
        state = position(game, args.tile, random.Random(args.seed + index))
        if state.is_terminal():
            print(f"position {index}: the game ended before tile {args.tile}")
            continue
        agent = ExactSearchAgent(random.Random(1), game, max_nodes=10**12)
        agent.stats[:] = (0, 10**12, 0)
        began = time.process_time()
        value, keeping = agent._values(agent.kernel.position(state))
        seconds.append(time.process_time() - began)
        nodes.append(int(agent.stats[0]))
        print(
            f"position {index}: value {value:+d}, {len(keeping)} of "
            f"{len(state.legal_actions())} actions keep it, {nodes[-1]:,} nodes, "
            f"{seconds[-1]:.2f} CPU s"
        )
    if nodes:
        print(
            f"tile {args.tile}: median {statistics.median(nodes):,.0f} nodes "
            f"(range {min(nodes):,}-{max(nodes):,}), median {statistics.median(seconds):.2f} "
            f"CPU s (range {min(seconds):.2f}-{max(seconds):.2f})"
        )


if __name__ == "__main__":
    main()
