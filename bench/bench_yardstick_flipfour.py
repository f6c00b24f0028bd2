"""FlipFour: the numba kernel against the bitboard C program, in CPU time.

The C program is in the repository (``bench/c/flipfour_bitboard.c``: 25-bit masks, a piece's
targets one AND of its lines with the empty squares, four in a row by shifts, the repetition
rule kept as the kernel keeps it). It is compiled at run time with ``cc -O2 -march=native``
(plain ``-O2`` where the compiler lacks that flag; ``--cc`` picks another compiler) into a
temporary folder and never kept; without a compiler its rows are skipped with a message and
the kernel's figures printed.

First the program is verified: its perft(1..``--perft-depth``) against the kernel's and, to
``--reference-depth`` (default 4, about 2 CPU s; 5 costs minutes), the Python reference
engine's; ``--games`` random games (default 1,000) replayed move for move with the reference
rules (at every ply the number of legal actions and the action played; the end: who won, a
third-repetition draw, or still going at the 200-ply cap) and equal, action for action, to
the kernel's games of the same seed (both draw ``below(n)`` into the legal actions in
increasing id from one xorshift64* stream); a line that repeats a position a third time
draws there, and the rulings' shut-in position loses for the side to move.

Then ``--rounds`` rounds, each giving both programs ``--seconds`` of CPU for random playouts
(200-ply cap) and printing playouts per CPU-second (the ratio taken side by side: the
machines are shared and absolute figures drift), and perft(``--perft-depth``) from the start
three times each, in turn (the median CPU time). CPU time: the C program measures its own
(``CLOCK_PROCESS_CPUTIME_ID``); the kernel's is this process's around the calls
(``time.process_time``), once compiled.

Run: ``.venv/bin/python bench/bench_yardstick_flipfour.py [--rounds 5] [--seconds 3]``;
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
    CAP,
    FLIPFOUR_SOURCE,
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
from flipgames.games.flipfour.kernel import FlipFourKernel
from flipgames.solvers.perft import reference_perft

#: Two drops, then each side's piece walks a closed four-move loop twice: the position after
#: the drops occurs a third time at ply 18.
REPETITION = "R@a1 R@e5 " + "a1-a2 e5-e4 a2-b3 e4-d3 b3-b2 d3-d4 b2-a1 d4-e5 " * 2
#: The rulings' example of a side with no legal move: White's four bishop faces shut in.
SHUT_IN = "B@b1 R@c2 B@a2 R@b3 B@e4 R@d3 B@d5 R@c4"


def action_ids(game: Game, texts: str) -> list[str]:
    """The action ids of a line written in notation, as the C program's arguments."""
    state, ids = game.new_initial_state(), []
    for text in texts.split():
        ids.append(str(state.parse_action(text)))
        state = state.apply(int(ids[-1]))
    return ids


def played(line: str) -> list[int]:
    """The actions of one game line of the C program (``RESULT PLIES LEGAL:ACTION ...``)."""
    return [int(step.partition(":")[2]) for step in line.split()[2:-1]]


def check_program(game: Game, kernel: FlipFourKernel, binary: Path, games: int, seed: int) -> str:
    """The C program's random games, repetition line and shut-in position against the
    reference rules and its games against the kernel's; a summary, or YardstickError."""
    lines = run(binary, "games", str(games), str(seed)).out.splitlines()
    ends = check_games(game, lines)
    _, traces = kernel.traced_playouts(games, seed, max_plies=CAP)
    for number, (line, trace) in enumerate(zip(lines, traces, strict=True), start=1):
        if played(line) != [int(a) for a in trace if a >= 0]:
            raise YardstickError(f"game {number} differs from the kernel's game of seed {seed}")
    repeated = run(binary, "line", *action_ids(game, REPETITION)).out
    if not repeated.startswith("D 18 ") or check_games(game, [repeated])["D"] != 1:
        raise YardstickError(f"the repetition line does not draw at ply 18: {repeated[:60]!r}")
    shut = run(binary, "line", *action_ids(game, SHUT_IN)).out
    if not shut.startswith("B 8 ") or check_games(game, [shut])["B"] != 1:
        raise YardstickError(f"the shut-in position is not lost by White: {shut[:60]!r}")
    return (
        f"{games:,} random games (seed {seed}) equal move for move to the reference rules and "
        f"to the kernel's (White won {ends['W']}, Black {ends['B']}, repetition draws "
        f"{ends['D']}, capped at {CAP} plies {ends['C']}); the repetition line draws and the "
        "shut-in position loses as in the reference"
    )


def verify(
    game: Game, kernel: FlipFourKernel, binary: Path | None, args: argparse.Namespace
) -> None:
    """The checks of the module docstring; exits naming the first difference."""
    start = game.new_initial_state()
    kernel_counts = [kernel.perft(start, d) for d in range(1, args.perft_depth + 1)]
    began = time.process_time()
    reference = [reference_perft(start, d) for d in range(1, args.reference_depth + 1)]
    if kernel_counts[: len(reference)] != reference:
        sys.exit(f"kernel perft {kernel_counts} differs from the reference's {reference}")
    print(
        f"reference perft(1..{args.reference_depth}) equal to the kernel's ({reference[-1]:,} "
        f"at depth {args.reference_depth}, {time.process_time() - began:.1f} CPU s)"
    )
    if binary is None:
        return
    counts = perft_counts(run(binary, "perft", str(args.perft_depth)).out)
    if counts != kernel_counts:
        sys.exit(f"C bitboard: perft {counts} differs from the kernel's {kernel_counts}")
    print(f"C bitboard: perft(1..{args.perft_depth}) equal ({counts[-1]:,} at the last depth)")
    began = time.process_time()
    try:
        summary = check_program(game, kernel, binary, args.games, args.seed)
    except YardstickError as exc:
        sys.exit(f"C bitboard: {exc}")
    print(f"C bitboard: {summary}; {time.process_time() - began:.1f} CPU s")


def compare(
    game: Game, kernel: FlipFourKernel, binary: Path | None, args: argparse.Namespace
) -> None:
    """Playouts per CPU-second, round by round, then perft's CPU time from the start."""
    rates: dict[str, list[float]] = {"kernel": []}
    if binary is not None:
        rates["C bitboard"] = []
    for round_ in range(1, args.rounds + 1):
        if binary is not None:
            out = run(binary, "run", str(args.seconds), str(args.seed + round_)).out
            rates["C bitboard"].append(field(out, "playouts/s"))
        rates["kernel"].append(kernel_playouts(kernel, args.seconds, round_ * 1_000_003, 1024))
        print(
            f"round {round_}: "
            + ", ".join(f"{name} {values[-1]:,.0f}" for name, values in rates.items())
            + " playouts per CPU-second"
            + (
                f" (kernel / C {rates['kernel'][-1] / rates['C bitboard'][-1]:.2f})"
                if binary is not None
                else ""
            ),
            flush=True,
        )
    for name, values in rates.items():
        print(
            f"random playouts, {name}: median {statistics.median(values):,.0f} per CPU-second "
            f"(rounds {min(values):,.0f} to {max(values):,.0f})"
        )
    if binary is not None:
        ratios = [k / c for k, c in zip(rates["kernel"], rates["C bitboard"], strict=True)]
        print(
            f"random playouts, kernel / C bitboard: median {statistics.median(ratios):.2f} "
            f"(rounds {min(ratios):.2f} to {max(ratios):.2f})"
        )
    perft_times(game, kernel, binary, args.perft_depth)


def perft_times(game: Game, kernel: FlipFourKernel, binary: Path | None, depth: int) -> None:
    """perft(``depth``) from the start, three times each program in turn: the median CPU
    time (single runs drift with the other jobs on a shared machine)."""
    start = game.new_initial_state()
    times: dict[str, list[float]] = {"kernel": []}
    if binary is not None:
        times["C bitboard"] = []
    leaves = kernel.perft(start, depth)
    for _ in range(3):
        began = time.process_time()
        kernel.perft(start, depth)
        times["kernel"].append(time.process_time() - began)
        if binary is not None:
            times["C bitboard"].append(field(run(binary, "perftonly", str(depth)).out, "cpu"))
    kernel_time = statistics.median(times["kernel"])
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"perft({depth}) = {leaves:,}, {name}: median {median:.3f} CPU s of 3 "
            f"({leaves / median / 1e6:,.1f} M leaves per CPU-second; "
            f"{median / kernel_time:.2f}x the kernel's time)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cc", default="cc", help="C compiler (default cc)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of playouts")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per program")
    parser.add_argument("--games", type=int, default=1000, help="games checked move for move")
    parser.add_argument("--seed", type=int, default=1, help="seed of the checked games")
    parser.add_argument("--perft-depth", type=int, default=5, help="perft depth (default 5)")
    parser.add_argument(
        "--reference-depth",
        type=int,
        default=4,
        help="perft depth of the reference engine's check (default 4)",
    )
    parser.add_argument("--verify-only", action="store_true", help="stop after the checks")
    args = parser.parse_args()
    info = machine()
    print(f"machine: {info['cpu']}, {info['cores']} cores, {info['system']}")
    print(f"python: {info['python']}; numpy {info['numpy']}; numba {info['numba']}")
    game = make("flipfour")
    kernel = game.kernel()
    assert isinstance(kernel, FlipFourKernel)
    kernel.playouts(16, 0)  # compile or load the kernel outside the timing
    with tempfile.TemporaryDirectory() as folder:
        binary: Path | None = None
        try:
            binary, flags = build(args.cc, FLIPFOUR_SOURCE, Path(folder))
            print(f"C bitboard: built {FLIPFOUR_SOURCE.name} with {args.cc} {' '.join(flags)}")
        except YardstickError as exc:
            print(f"C bitboard: skipped, {exc} (give --cc)")
        verify(game, kernel, binary, args)
        if not args.verify_only:
            compare(game, kernel, binary, args)


if __name__ == "__main__":
    main()
