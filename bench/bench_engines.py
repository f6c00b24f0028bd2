"""Engine speed per game: random playouts and perft, through the public protocol.

Run: ``.venv/bin/python bench/bench_engines.py [--seconds S] [--games NAME ...]``. perft here
is always the reference engine's (``flipgames bench`` compares it with the compiled kernels),
to each game's own depth (its manifest's ``bench.perft_depth``; none: no perft figure).
Prints the machine and Python version with every run, since figures mean nothing without them.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

from _common import cpu_name
from flipgames import game_names, make, random_action
from flipgames.core.game import Game
from flipgames.core.manifest import manifest_of
from flipgames.solvers.perft import reference_perft


def playouts(game: Game, seconds: float) -> tuple[int, int, float]:
    """Random games until ``seconds`` pass: (games, plies, elapsed)."""
    rng = random.Random(1)
    games = plies = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            action = random_action(state, rng)
            state = state.apply(action)
            plies += 1
        games += 1
    return games, plies, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="playout time per game")
    parser.add_argument("--games", nargs="*", default=game_names())
    args = parser.parse_args()
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {platform.system()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    header = f"{'game':<15} {'games/s':>9} {'plies/s':>10} {'plies/game':>10}   perft"
    print(header)
    for name in args.games:
        game = make(name)
        games, plies, elapsed = playouts(game, args.seconds)
        line = f"{name:<15} {games / elapsed:>9.0f} {plies / elapsed:>10.0f} {plies / games:>10.1f}"
        depth = manifest_of(game).bench.perft_depth
        if game.deterministic and depth is not None:
            root = game.new_initial_state()
            started = time.perf_counter()
            nodes = sum(reference_perft(root, d) for d in range(1, depth + 1))
            took = time.perf_counter() - started
            line += f"   perft(1..{depth}) {nodes} nodes in {took:.2f} s = {nodes / took:,.0f}/s"
        print(line, flush=True)


if __name__ == "__main__":
    main()
