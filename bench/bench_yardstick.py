"""FlipFlop 5x5 kernel against a plain C yardstick, interleaved, as a ratio.

The yardstick is a C program kept beside the repository, not in it (by default
``shared/yardsticks/ff_playout.c`` in the folder that holds the checkout; ``--source`` names
another). It is
compiled at run time into a temporary folder with the build line from its header (``gcc -O2``;
``--cc`` picks another compiler) and never kept. Rounds alternate: C random playouts for
``--seconds``, then the kernel's for as long; each round prints both rates and their ratio,
and the summary gives the median ratio (the machines are shared: absolute figures drift,
ratios taken side by side much less). Then perft(6) from the start, C and kernel, timed once
each after a warm-up.

Both play uniformly random FlipFlop 5x5 games cut at 200 plies with xorshift64*; the kernel
also keeps the repetition rule (the C program has none; random games almost never reach it).

Run: ``.venv/bin/python bench/bench_yardstick.py [--rounds 5] [--seconds 3] [--game G]``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flipgames import make
from flipgames.cli.bench import machine
from flipgames.core.kernel import Kernel

DEFAULT_SOURCE = Path(__file__).resolve().parents[2] / "shared" / "yardsticks" / "ff_playout.c"


def c_playouts(binary: Path, seconds: float, seed: int) -> float:
    """Playouts per second printed by the C program (0.5 s warm-up, then ``seconds``)."""
    out = subprocess.run(
        [str(binary), "run", "0.5", str(seconds), str(seed)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = re.search(r"playouts/s=([0-9.]+)", out)
    if found is None:
        sys.exit(f"unexpected output from the yardstick: {out!r}")
    return float(found.group(1))


def kernel_playouts(kernel: Kernel, seconds: float, seed: int) -> float:
    """Playouts per second of the kernel in batches of 4,096 for about ``seconds``."""
    games = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        kernel.playouts(4096, seed + games)
        games += 4096
    return games / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="ff_playout.c")
    parser.add_argument("--cc", default="gcc", help="C compiler (default gcc)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per side per round")
    # The C yardstick plays FlipFlop 5x5 only: another game's kernel needs a C program of its
    # own (--source) with the same command line.
    parser.add_argument("--game", default="flipflop", help="the game of --source (flipflop)")
    args = parser.parse_args()
    if not args.source.is_file():
        sys.exit(f"no yardstick source at {args.source} (give --source)")
    if shutil.which(args.cc) is None:
        sys.exit(f"no C compiler {args.cc!r} on PATH (give --cc)")
    info = machine()
    print(f"machine: {info['cpu']}, {info['cores']} cores, {info['system']}")
    print(f"python: {info['python']}; numpy {info['numpy']}; numba {info['numba']}")
    game = make(args.game)
    kernel = game.kernel()
    if kernel is None:
        sys.exit(f"{args.game} has no compiled kernel to compare")
    kernel.playouts(16, 0)  # compile or load the kernel outside the timing
    with tempfile.TemporaryDirectory() as folder:
        binary = Path(folder) / "ff_playout"
        build = [args.cc, "-O2", "-o", str(binary), str(args.source)]
        print("build: " + " ".join(build))
        subprocess.run(build, check=True)
        ratios = []
        for round_ in range(1, args.rounds + 1):
            c_rate = c_playouts(binary, args.seconds, round_)
            k_rate = kernel_playouts(kernel, args.seconds, round_ * 1_000_003)
            ratios.append(k_rate / c_rate)
            print(
                f"round {round_}: C {c_rate:,.0f} playouts/s, kernel {k_rate:,.0f} playouts/s,"
                f" kernel/C {k_rate / c_rate:.2f}",
                flush=True,
            )
        print(f"random playouts, kernel/C: median {statistics.median(ratios):.2f}", end="")
        print(f" (min {min(ratios):.2f}, max {max(ratios):.2f}, {len(ratios)} rounds)")
        start = game.new_initial_state()
        kernel.perft(start, 4)
        subprocess.run([str(binary), "perft", "4"], check=True, capture_output=True)
        began = time.perf_counter()
        c_out = subprocess.run(
            [str(binary), "perft", "6"], check=True, capture_output=True, text=True
        ).stdout
        c_seconds = time.perf_counter() - began
        began = time.perf_counter()
        leaves = kernel.perft(start, 6)
        k_seconds = time.perf_counter() - began
        c_leaves = int(c_out.strip().splitlines()[-1].split("=")[1])
        # The C program prints perft(1..6), so its time covers all six depths.
        print(
            f"perft(6) = {leaves:,} (C: {c_leaves:,}): kernel {k_seconds:.3f} s,"
            f" C {c_seconds:.3f} s for perft(1..6) incl. process start"
        )


if __name__ == "__main__":
    main()
