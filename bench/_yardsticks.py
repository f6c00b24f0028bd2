"""The C yardsticks of ``bench_yardstick.py`` and ``bench_yardstick_flipfour.py``: building
them, running them in CPU time, and checking the bitboard programs' games move for move
against the reference rules (both print games in one format).

A helper, not a script (``tests/test_yardstick.py`` imports it to check the checker).
"""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from flipgames.core.ending import Termination
from flipgames.core.game import Game
from flipgames.core.kernel import Kernel

#: The bitboard programs, in the repository: FlipFlop 5x5's and FlipFour's.
BITBOARD_SOURCE = Path(__file__).resolve().parent / "c" / "flipflop_bitboard.c"
FLIPFOUR_SOURCE = BITBOARD_SOURCE.with_name("flipfour_bitboard.c")
#: The ply cap of both C programs' random playouts (and of the kernel's, by default).
CAP = 200


def kernel_playouts(kernel: Kernel, seconds: float, seed: int, batch: int) -> float:
    """Playouts per CPU-second of the kernel, in batches of ``batch``, for about ``seconds``."""
    games = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        kernel.playouts(batch, seed + games, max_plies=CAP)
        games += batch
    return games / (time.process_time() - started)


class YardstickError(Exception):
    """A C program that does not build, run, or agree with the reference rules."""


#: Compiler flags, best first: the machine's own instruction set (a bitboard program lives on
#: the CPU's popcount; without it the compiler calls a library routine), else plain ``-O2``
#: for a compiler that has no ``-march=native``. Every program of a run gets the same.
FLAGS = (("-O2", "-march=native"), ("-O2",))


def build(cc: str, source: Path, folder: Path) -> tuple[Path, tuple[str, ...]]:
    """``source`` compiled with ``cc`` into ``folder``: the binary's path and the flags of
    :data:`FLAGS` it was built with (the first the compiler accepts)."""
    if shutil.which(cc) is None:
        raise YardstickError(f"no C compiler {cc!r} on PATH")
    binary = folder / source.stem
    errors = ""
    for flags in FLAGS:
        done = subprocess.run(
            [cc, *flags, "-o", str(binary), str(source)], capture_output=True, text=True
        )
        if done.returncode == 0:
            return binary, flags
        errors = done.stderr
    raise YardstickError(f"{cc} could not build {source.name}:\n{errors[-2000:]}")


@dataclass(frozen=True)
class Run:
    """One run of a C program: its standard output and the CPU seconds it used (user and
    system time of the child, process start included)."""

    out: str
    cpu: float


def run(binary: Path, *args: str) -> Run:
    """Run ``binary`` with ``args`` and measure its CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([str(binary), *args], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise YardstickError(f"{binary.name} {' '.join(args)} failed: {done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(done.stdout, cpu)


def field(out: str, name: str) -> float:
    """The number after ``name=`` in a program's output."""
    found = re.search(rf"\b{re.escape(name)}=([0-9.]+)", out)
    if found is None:
        raise YardstickError(f"no {name}= in the output {out[:200]!r}")
    return float(found.group(1))


def perft_counts(out: str) -> list[int]:
    """The counts of ``perft(d) = N`` lines, in order of ``d``."""
    return [int(n) for n in re.findall(r"^perft\(\d+\) = (\d+)", out, re.MULTILINE)]


def check_games(game: Game, lines: list[str]) -> dict[str, int]:
    """Replay the bitboard program's ``games`` output with the reference rules of ``game``.

    Each line is ``RESULT PLIES`` then ``LEGAL:ACTION`` per ply and ``LEGAL:-`` for the final
    position. At every position the reference must have ``LEGAL`` legal actions and the
    action must be one of them; the end must be the reference's: ``W``/``B`` that side won,
    ``D`` a draw by the third repetition, ``C`` a game still going at :data:`CAP` plies.
    Returns how many games ended each way; :class:`YardstickError` at the first difference.
    """
    results = {"W": 0, "B": 0, "D": 0, "C": 0}
    for number, line in enumerate(lines, start=1):
        result, plies, *steps = line.split()
        state = game.new_initial_state()
        if result not in results or int(plies) != len(steps) - 1:
            raise YardstickError(f"game {number}: malformed line {line[:80]!r}")
        for ply, step in enumerate(steps):
            legal_text, _, action_text = step.partition(":")
            legal = state.legal_actions()
            if len(legal) != int(legal_text):
                raise YardstickError(
                    f"game {number}, ply {ply}: C counts {legal_text} legal moves, the "
                    f"reference {len(legal)}"
                )
            if action_text == "-":
                break
            if int(action_text) not in legal:
                raise YardstickError(f"game {number}, ply {ply}: C played illegal {action_text}")
            state = state.apply(int(action_text))
        ending = state.end_reason()
        expected = {
            "W": state.result() == "1-0",
            "B": state.result() == "0-1",
            "D": ending == Termination.REPETITION,
            "C": ending is None and len(state.history) == CAP,
        }[result]
        if not expected:
            raise YardstickError(
                f"game {number}: C says {result} after {plies} plies, the reference "
                f"{state.result()} ({ending})"
            )
        results[result] += 1
    return results
