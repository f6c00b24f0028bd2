"""CPU seconds to build a game's endgame tables (retrograde analysis in its compiled kernel).

Run: ``.venv/bin/python bench/bench_endgame.py [--games NAME ...] [--pieces K] [--rounds R]``
(the games by default: every registered game whose kernel builds endgame tables; ``--pieces``
by default each game's ``endgame_pieces``, the tables its players use). A first build of two
pieces loads (or compiles) the machine code outside the measurement; then each round builds
the tables of 2..K pieces from nothing and takes the process's CPU time. Prints the median
and the range over the rounds, the positions built, the machine, its load average and the
Python version.

To compare two builds, run the script from this checkout with ``PYTHONPATH`` on the other
build's sources (``git archive <commit> src | tar -x -C DIR``, then ``PYTHONPATH=DIR/src``).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from _common import cpu_name
from flipgames import game_names, make
from flipgames.core.endgame import EndgameKernel
from flipgames.core.kernel import kernel_for


def endgame_kernel(name: str) -> EndgameKernel | None:
    """The game's kernel when it builds endgame tables."""
    kernel = kernel_for(make(name))
    return kernel if isinstance(kernel, EndgameKernel) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="*", help="default: every game that builds tables")
    parser.add_argument("--pieces", type=int, help="default: each game's endgame_pieces")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (the median is printed)")
    args = parser.parse_args()
    if args.rounds < 1 or (args.pieces is not None and args.pieces < 2):
        parser.error("--rounds must be at least 1 and --pieces at least 2")
    names = args.games or [n for n in game_names() if endgame_kernel(n) is not None]
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {platform.system()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'game':<15} {'pieces':>6} {'positions':>12} {'CPU seconds: median (range)':>30}")
    for name in names:
        kernel = endgame_kernel(name)
        if kernel is None:
            parser.error(f"{name} has no kernel that builds endgame tables")
        pieces = args.pieces or kernel.endgame_pieces
        kernel.build_endgame(2)  # load the machine code first
        times, positions = [], 0
        for _ in range(args.rounds):
            started = time.process_time()
            layers = kernel.build_endgame(pieces)
            times.append(time.process_time() - started)
            positions = sum(len(layer) for layer in layers)
        spread = f"{statistics.median(times):.2f} ({min(times):.2f}-{max(times):.2f})"
        print(f"{name:<15} {pieces:>6} {positions:>12,} {spread:>30}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
