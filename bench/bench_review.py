"""CPU cost of a game review (:mod:`flipgames.lab.review`): what the arcade spends on one
finished match, per game.

Run: ``.venv/bin/python bench/bench_review.py [--games N] [--seed S] [GAME ...]`` (default:
every registered game with its default options). Each game plays ``N`` seeded games between
two ``easy`` players (chance drawn from the seed), then reviews each in this process and
prints the positions, the CPU seconds per review and per position (``time.process_time``:
the solvers and compiled searches run here), and the sources of the values. A warm-up review
first loads the solutions and compiles the kernels, so the figures are a server's steady
state. Prints the machine and the load average, since figures mean nothing without them.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections import Counter

from _common import cpu_name
from flipgames import game_names, make
from flipgames.agents.levels import make_level_agent
from flipgames.core.game import Game, State
from flipgames.lab.review import review_game


def play(game: Game, seed: int) -> State:
    """One game between two seeded ``easy`` players, chance drawn from the seed."""
    rng = random.Random(seed)
    agents = [make_level_agent(game, "easy", random.Random(seed * 2 + p)) for p in (0, 1)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state = state.apply(rng.choices(outcomes, [float(w) for w in weights])[0])
        else:
            state = state.apply(agents[state.current_player].choose(state))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=list(game_names()))
    parser.add_argument("--games-each", "--games", dest="count", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    columns = ("reviews", 7), ("positions", 9), ("CPU s/review", 12), ("CPU ms/pos", 10)
    print(f"{'game':<16} {' '.join(f'{name:>{width}}' for name, width in columns)}  sources")
    for name in args.games:
        game = make(name)
        finals = [play(game, args.seed + i) for i in range(args.count)]
        review_game(finals[0])  # warm-up: solutions loaded, kernels compiled
        spent, positions, sources = 0.0, 0, Counter[str]()
        for final in finals:
            started = time.process_time()
            review = review_game(final)
            spent += time.process_time() - started
            positions += len(review.points)
            sources.update(p.source for p in review.points)
        words = ", ".join(f"{k} {v}" for k, v in sources.most_common())
        print(
            f"{name:<16} {len(finals):>7} {positions:>9} {spent / len(finals):>12.2f} "
            f"{1000 * spent / positions:>10.1f}  {words}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
