"""The compiled agents per CPU-second: MCTS iterations and alpha-beta nodes, per game.

Run: ``.venv/bin/python bench/bench_kernel_agents.py [--games NAME ...] [--positions N]
[--iterations N] [--nodes N] [--rounds R] [--only mcts|alphabeta]`` (the games by default:
every registered game whose kernel has a compiled MCTS). Each round searches the start and
``N - 1`` positions reached by seeded random play (so the figures are not only about the
opening) with a fixed budget each: ``--iterations`` of the compiled MCTS
(:class:`~flipgames.agents.kernel_mcts.KernelMCTSAgent`) and ``--nodes`` of the compiled
alpha-beta (:class:`~flipgames.agents.kernel_search.KernelAlphaBetaAgent`, where the game has
one). Only the process's CPU time inside the searches counts, so other jobs on a shared
machine count against it less than against a wall clock; a first tiny search per game loads
(or compiles) the machine code outside the measurement. Prints the median and the range over
the rounds, with the machine, its load average and the Python version.

To compare two builds, run the script from this checkout with ``PYTHONPATH`` on the other
build's sources (``git archive <commit> src | tar -x -C DIR``, then ``PYTHONPATH=DIR/src``).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from _common import cpu_name, positions
from flipgames import game_names, make
from flipgames.agents.kernel_mcts import KernelMCTSAgent, has_kernel_mcts
from flipgames.agents.kernel_search import KernelAlphaBetaAgent, has_kernel_search
from flipgames.core.game import Game, State


def mcts_rate(game: Game, states: list[State], iterations: int) -> float:
    """Compiled MCTS iterations per CPU-second over ``states``."""
    spent = 0.0
    for index, state in enumerate(states):
        agent = KernelMCTSAgent(random.Random(index), game, iterations=iterations)
        started = time.process_time()
        agent.search(state)
        spent += time.process_time() - started
    return len(states) * iterations / spent


def alphabeta_rate(game: Game, states: list[State], nodes: int) -> float:
    """Compiled alpha-beta nodes per CPU-second over ``states`` (the nodes searched: a
    proven result stops a search before its budget)."""
    spent, searched = 0.0, 0
    for index, state in enumerate(states):
        agent = KernelAlphaBetaAgent(random.Random(index), game, max_nodes=nodes)
        started = time.process_time()
        searched += agent.search(state).nodes
        spent += time.process_time() - started
    return searched / spent


def _spread(rates: list[float]) -> str:
    return f"{statistics.median(rates):>12,.0f} ({min(rates):,.0f}-{max(rates):,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="*", help="default: every game with a compiled MCTS")
    parser.add_argument("--positions", type=int, default=8, help="positions per round")
    parser.add_argument("--iterations", type=int, default=2000, help="MCTS iterations each")
    parser.add_argument("--nodes", type=int, default=200_000, help="alpha-beta nodes each")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (the median is printed)")
    parser.add_argument("--only", choices=("mcts", "alphabeta"), help="measure one agent only")
    args = parser.parse_args()
    if min(args.positions, args.iterations, args.nodes, args.rounds) < 1:
        parser.error("--positions, --iterations, --nodes and --rounds must be at least 1")
    names = args.games or [n for n in game_names() if has_kernel_mcts(make(n))]
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {platform.system()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'game':<15} {'MCTS iterations/CPU-s':>30} {'alpha-beta nodes/CPU-s':>32}")
    for name in names:
        game = make(name)
        states = positions(game, args.positions, most_plies=30)
        mcts: list[float] = []
        alphabeta: list[float] = []
        if args.only != "alphabeta" and has_kernel_mcts(game):
            mcts_rate(game, states[:1], 10)  # load the machine code first
            mcts = [mcts_rate(game, states, args.iterations) for _ in range(args.rounds)]
        if args.only != "mcts" and has_kernel_search(game):
            alphabeta_rate(game, states[:1], 100)
            alphabeta = [alphabeta_rate(game, states, args.nodes) for _ in range(args.rounds)]
        line = f"{name:<15} {_spread(mcts) if mcts else '-':>30}"
        print(f"{line} {_spread(alphabeta) if alphabeta else '-':>32}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
