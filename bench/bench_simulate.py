"""The lab's speed target: 10,000 games of FlipFlop 3x3, easy against easy, ``--workers 2``.

Run: ``.venv/bin/python bench/bench_simulate.py [--games N] [--workers K] [--agents A,B]``.
Prints the wall-clock seconds, the CPU seconds of this process and its workers (what the same
run takes on idle cores: CPU seconds divided by the workers), the load average before and
after (a shared machine's wall clock says little on its own), the machine and Python.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

from _common import cpu_name
from flipgames import make
from flipgames.lab.simulate import simulate


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # The lab's speed target is set on this game (docs/lab.md); --game measures another.
    parser.add_argument("--game", default="flipflop-3x3")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--agents", default="easy,easy")
    args = parser.parse_args()
    a, b = args.agents.split(",")
    load_before = os.getloadavg()
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = simulate(make(args.game), (a, b), args.games, seed=1, workers=args.workers)
    wall = time.perf_counter() - wall
    cpu = cpu_seconds() - cpu
    load_after = os.getloadavg()
    print(f"{args.game} {a} vs {b}: {result.games:,} games, --workers {args.workers}")
    print(
        f"  wall {wall:.1f} s; CPU {cpu:.1f} s ({1000 * cpu / result.games:.1f} ms a game); "
        f"on {args.workers} idle cores about {cpu / args.workers:.0f} s"
    )
    print(f"  load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    print(f"  {cpu_name()}, {os.cpu_count()} cores; Python {platform.python_version()}")


if __name__ == "__main__":
    main()
