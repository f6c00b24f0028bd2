"""Cold ``flipgames solve``: the whole command, with an empty result cache, in fresh processes.

Run: ``.venv/bin/python bench/bench_cold_solve.py [--runs N] [GAME ...]`` (default: every
game solved with its default options). Each run starts the installed ``flipgames`` entry point with
``FLIPGAMES_CACHE`` set to a new empty folder ("cold": no cached solution) and measures the
wall time of the whole process, interpreter start-up and imports included; then one more run
through a small wrapper says whether numba was imported. Prints the machine, the Python
version and the load average before and after, since figures mean nothing without them.
Python's bytecode cache matters here: with ``PYTHONDONTWRITEBYTECODE=1`` and no
``__pycache__`` every module is compiled from source on every run (about 0.1 s more).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import cpu_name
from flipgames import game_names, make
from flipgames.solvers.catalog import is_solved

WRAPPER = (
    "import sys\n"
    "from flipgames.cli.main import run\n"
    "sys.argv = ['flipgames', 'solve', sys.argv[1], '--json']\n"
    "try:\n"
    "    run()\n"
    "except SystemExit:\n"
    "    pass\n"
    "print('numba' in sys.modules)\n"
)


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def entry_point() -> list[str]:
    """The ``flipgames`` next to this interpreter (a virtual environment's), else on PATH."""
    beside = Path(sys.executable).with_name("flipgames")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("flipgames")
    if found is None:
        raise SystemExit("bench_cold_solve: no flipgames entry point found (pip install -e .)")
    return [found]


def cold_run(command: list[str]) -> tuple[float, dict[str, object]]:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "FLIPGAMES_CACHE": folder}
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        return time.perf_counter() - started, json.loads(done.stdout)


def numba_loaded(game: str) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "FLIPGAMES_CACHE": folder}
        done = subprocess.run(
            [sys.executable, "-c", WRAPPER, game],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        return done.stdout.splitlines()[-1] == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    solved = [name for name in game_names() if is_solved(make(name))]
    parser.add_argument("games", nargs="*", default=solved, help="default: %(default)s")
    parser.add_argument("--runs", type=int, default=7, help="runs per game (default 7)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {platform.system()}")
    print(f"python: {platform.python_version()}; load average before: {load()}")
    writes = "off" if sys.dont_write_bytecode else "on"
    print(f"bytecode cache writes: {writes} (PYTHONDONTWRITEBYTECODE; existing .pyc are read)")
    command = entry_point()
    for game in args.games:
        walls, solves = [], []
        for _ in range(args.runs):
            wall, report = cold_run([*command, "solve", game, "--json"])
            walls.append(wall)
            solves.append(float(str(report["seconds"])))
        print(
            f"{game}: whole command min {min(walls):.2f} s, median "
            f"{statistics.median(walls):.2f} s, max {max(walls):.2f} s over {args.runs} runs; "
            f"the solve itself median {statistics.median(solves):.3f} s; "
            f"{report['positions']:,} positions; numba loaded: {numba_loaded(game)}"
        )
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
