"""FlipFlop 5x5: the numba kernel against a bitboard and an array-board C program, in CPU time.

Two C yardsticks, compiled at run time with ``cc -O2 -march=native`` (plain ``-O2`` where the
compiler lacks that flag; ``--cc`` picks another compiler) into a temporary folder and never
kept:

- the bitboard program, in the repository (``bench/c/flipflop_bitboard.c``: 25-bit masks,
  precomputed ray attacks, the repetition rule kept as the kernel keeps it);
- the array-board program, kept beside the repository, not in it (by default
  ``shared/yardsticks/ff_playout.c`` in the folder that holds the checkout;
  ``--array-source`` names another); its rows are skipped, saying so, when it is not there.

Without a compiler the C rows are skipped with a message and the kernel's figures printed.

First the bitboard program is verified: its perft(1..7) against the Python reference
engine's (``reference_perft``; depth 7 costs about half a minute of CPU, ``--reference-depth``
lowers it) and the kernel's, and ``--games`` random games (default 3,000) replayed move for
move with the reference rules (at every ply the number of legal moves and the move played;
the end: who won, a third-repetition draw, or still going at the 200-ply cap). The array
program's perft is checked too.

Then ``--rounds`` rounds, each giving every program ``--seconds`` of CPU for random playouts
(200-ply cap) and printing playouts per CPU-second (the C programs' ratio to the kernel
taken side by side: the machines are shared and absolute figures drift), and perft(7) from
the start once each, in leaves per CPU-second. CPU time: the bitboard program measures its
own (``CLOCK_PROCESS_CPUTIME_ID``); the array program's is its process's (``getrusage``, start
included; its perft prints depths 1 to 7, which adds about 7% to depth 7's work); the
kernel's is this process's around the calls (``time.process_time``), once compiled.

Run: ``.venv/bin/python bench/bench_yardstick.py [--rounds 5] [--seconds 3] [--games 3000]``;
``--verify-only`` stops after the checks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _yardsticks import (
    BITBOARD_SOURCE,
    CAP,
    YardstickError,
    build,
    check_games,
    field,
    kernel_playouts,
    perft_counts,
    run,
)
from flipgames import make
from flipgames.cli.bench import machine
from flipgames.core.game import Game
from flipgames.core.kernel import Kernel
from flipgames.solvers.perft import reference_perft

DEFAULT_ARRAY = Path(__file__).resolve().parents[2] / "shared" / "yardsticks" / "ff_playout.c"
PERFT_DEPTH = 7
#: A line that repeats the start a third time (docs/games/flipflop.md): random games never
#: reach the repetition rule, so the bitboard program's is checked on this one.
REPETITION = "a1-a2 e5-e4 a2-b3 e4-d3 b3-b2 d3-d4 b2-a1 d4-e5 " * 2


def verify(game: Game, kernel: Kernel, binaries: dict[str, Path], args: argparse.Namespace) -> None:
    """The checks of the module docstring; exits naming the first difference."""
    start = game.new_initial_state()
    kernel_counts = [kernel.perft(start, d) for d in range(1, PERFT_DEPTH + 1)]
    began = time.process_time()
    reference = [reference_perft(start, d) for d in range(1, args.reference_depth + 1)]
    if kernel_counts[: len(reference)] != reference:
        sys.exit(f"kernel perft {kernel_counts} differs from the reference's {reference}")
    print(
        f"reference perft(1..{args.reference_depth}) equal to the kernel's ({reference[-1]:,} "
        f"at depth {args.reference_depth}, {time.process_time() - began:.1f} CPU s)"
    )
    for name, binary in binaries.items():
        counts = perft_counts(run(binary, "perft", str(PERFT_DEPTH)).out)
        if counts != kernel_counts or counts[: len(reference)] != reference:
            sys.exit(f"{name}: perft {counts} differs from the kernel's {kernel_counts}")
        print(f"{name}: perft(1..{PERFT_DEPTH}) equal ({counts[-1]:,} at depth {PERFT_DEPTH})")
    if "C bitboard" in binaries:
        began = time.process_time()
        out = run(binaries["C bitboard"], "games", str(args.games), str(args.seed)).out
        state, line = start, []
        for text in REPETITION.split():
            line.append(str(state.parse_action(text)))
            state = state.apply(int(line[-1]))
        repeated = run(binaries["C bitboard"], "line", *line).out
        try:
            ends = check_games(game, out.splitlines())
            if check_games(game, repeated.splitlines())["D"] != 1:
                raise YardstickError(f"the repetition line does not draw: {repeated[:60]!r}")
        except YardstickError as exc:
            sys.exit(f"C bitboard: {exc}")
        print(
            f"C bitboard: {args.games:,} random games equal move for move to the reference "
            f"rules (White won {ends['W']}, Black {ends['B']}, repetition draws {ends['D']}, "
            f"capped at {CAP} plies {ends['C']}; {time.process_time() - began:.1f} CPU s); "
            "a third repetition draws there as in the reference"
        )


def compare(
    game: Game, kernel: Kernel, binaries: dict[str, Path], args: argparse.Namespace
) -> None:
    """Playouts per CPU-second, round by round, then perft(7) leaves per CPU-second."""
    rates: dict[str, list[float]] = {name: [] for name in [*binaries, "kernel"]}
    for round_ in range(1, args.rounds + 1):
        seconds, seed = str(args.seconds), str(args.seed + round_)
        if "C bitboard" in binaries:
            out = run(binaries["C bitboard"], "run", seconds, seed).out
            rates["C bitboard"].append(field(out, "playouts/s"))
        if "C array" in binaries:
            done = run(binaries["C array"], "run", "0", seconds, seed)
            rates["C array"].append(field(done.out, "playouts") / done.cpu)
        rates["kernel"].append(kernel_playouts(kernel, args.seconds, round_ * 1_000_003, 4096))
        print(
            f"round {round_}: "
            + ", ".join(f"{name} {values[-1]:,.0f}" for name, values in rates.items())
            + " playouts per CPU-second",
            flush=True,
        )
    kernel_rate = statistics.median(rates["kernel"])
    for name, values in rates.items():
        median = statistics.median(values)
        print(
            f"random playouts, {name}: median {median:,.0f} per CPU-second "
            f"({median / kernel_rate:.2f}x the kernel; rounds {min(values):,.0f} to "
            f"{max(values):,.0f})"
        )
    start = game.new_initial_state()
    leaves = kernel.perft(start, PERFT_DEPTH)
    began = time.process_time()
    kernel.perft(start, PERFT_DEPTH)
    perft_rates = {"kernel": leaves / (time.process_time() - began)}
    if "C bitboard" in binaries:
        out = run(binaries["C bitboard"], "perftonly", str(PERFT_DEPTH)).out
        perft_rates["C bitboard"] = leaves / field(out, "cpu")
    if "C array" in binaries:
        perft_rates["C array"] = leaves / run(binaries["C array"], "perft", str(PERFT_DEPTH)).cpu
    for name, rate in perft_rates.items():
        print(
            f"perft({PERFT_DEPTH}) = {leaves:,}, {name}: {rate / 1e6:,.1f} M leaves per "
            f"CPU-second ({rate / perft_rates['kernel']:.2f}x the kernel)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cc", default="cc", help="C compiler (default cc)")
    parser.add_argument("--array-source", type=Path, default=DEFAULT_ARRAY, help="ff_playout.c")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of playouts")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per program")
    parser.add_argument("--games", type=int, default=3000, help="games checked move for move")
    parser.add_argument("--seed", type=int, default=1, help="seed of the C programs' games")
    parser.add_argument(
        "--reference-depth",
        type=int,
        default=PERFT_DEPTH,
        help=f"perft depth of the reference engine's check (default {PERFT_DEPTH})",
    )
    parser.add_argument("--verify-only", action="store_true", help="stop after the checks")
    # Both C programs play FlipFlop 5x5 only.
    parser.add_argument("--game", default="flipflop", help="the game of the C programs")
    args = parser.parse_args()
    info = machine()
    print(f"machine: {info['cpu']}, {info['cores']} cores, {info['system']}")
    print(f"python: {info['python']}; numpy {info['numpy']}; numba {info['numba']}")
    game = make(args.game)
    kernel = game.kernel()
    if kernel is None:
        sys.exit(f"{args.game} has no compiled kernel to compare")
    kernel.playouts(16, 0)  # compile or load the kernel outside the timing
    with tempfile.TemporaryDirectory() as folder:
        binaries: dict[str, Path] = {}
        sources = {"C bitboard": BITBOARD_SOURCE, "C array": args.array_source}
        for name, source in sources.items():
            if not source.is_file():
                print(f"{name}: skipped, no source at {source} (give --array-source)")
                continue
            try:
                binaries[name], flags = build(args.cc, source, Path(folder))
            except YardstickError as exc:
                print(f"{name}: skipped, {exc} (give --cc)")
                continue
            print(f"{name}: built {source.name} with {args.cc} {' '.join(flags)}")
        verify(game, kernel, binaries, args)
        if not args.verify_only:
            compare(game, kernel, binaries, args)


if __name__ == "__main__":
    main()
