"""The FlipFour bitboard C yardstick (bench/c/flipfour_bitboard.c) plays by flipgames' rules:
its perft equals the kernel's and the reference engine's, its random games replay move for
move with the reference rules and equal the kernel's games of the same seed, a third
repetition draws and a shut-in side loses where the reference says; and
bench_yardstick_flipfour.py without a compiler says so and goes on. Needs a C compiler
(``cc``); nothing here is timed."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from flipgames import make
from flipgames.games.flipfour.kernel import FlipFourKernel
from flipgames.solvers.perft import reference_perft

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler cc")


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses, and the script's own import, look there
    spec.loader.exec_module(module)
    return module


yardsticks = load("_yardsticks")
script = load("bench_yardstick_flipfour")


def kernel() -> FlipFourKernel:
    found = make("flipfour").kernel()
    assert isinstance(found, FlipFourKernel)
    return found


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("c")
    built: Path = yardsticks.build("cc", yardsticks.FLIPFOUR_SOURCE, folder)[0]
    return built


def test_perft_equals_the_kernels_and_the_reference_engines(binary: Path) -> None:
    start = make("flipfour").new_initial_state()
    counts = yardsticks.perft_counts(yardsticks.run(binary, "perft", "4").out)
    assert counts == [kernel().perft(start, d) for d in range(1, 5)]
    assert counts[:3] == [reference_perft(start, d) for d in range(1, 4)]
    assert counts == [50, 2400, 125120, 6272736]
    only = yardsticks.run(binary, "perftonly", "3").out
    assert only.startswith("perft(3) = 125120 cpu=")


def test_random_games_replay_move_for_move_and_equal_the_kernels(binary: Path) -> None:
    summary = script.check_program(make("flipfour"), kernel(), binary, 200, 9)
    assert summary.startswith("200 random games (seed 9) equal move for move")
    lines = yardsticks.run(binary, "games", "200", "9").out.splitlines()
    ends = yardsticks.check_games(make("flipfour"), lines)
    assert ends["W"] > 0 and ends["B"] > 0 and ends["C"] > 0


def test_a_game_that_differs_from_the_kernels_is_caught(binary: Path) -> None:
    (line,) = yardsticks.run(binary, "games", "1", "4").out.splitlines()
    _, traces = kernel().traced_playouts(1, 4)
    assert script.played(line) == [int(a) for a in traces[0] if a >= 0]
    _, other = kernel().traced_playouts(1, 5)
    assert script.played(line) != [int(a) for a in other[0] if a >= 0]


def test_repetition_and_no_legal_move_end_games_as_in_the_reference(binary: Path) -> None:
    game = make("flipfour")
    repeated = yardsticks.run(binary, "line", *script.action_ids(game, script.REPETITION)).out
    assert repeated.startswith("D 18 ") and yardsticks.check_games(game, [repeated])["D"] == 1
    shut = yardsticks.run(binary, "line", *script.action_ids(game, script.SHUT_IN)).out
    assert shut.startswith("B 8 ") and shut.rstrip().endswith(" 0:-")
    stopped = subprocess.run([str(binary), "line", "0", "0"], capture_output=True, text=True)
    assert stopped.returncode == 1 and stopped.stdout.startswith("X 1 ")


def test_the_script_without_a_compiler_says_so_and_goes_on() -> None:
    command = [sys.executable, str(ROOT / "bench" / "bench_yardstick_flipfour.py")]
    command += ["--verify-only", "--cc", "no-such-compiler", "--reference-depth", "2"]
    command += ["--perft-depth", "3"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "C bitboard: skipped, no C compiler 'no-such-compiler' on PATH" in done.stdout
    assert "reference perft(1..2) equal to the kernel's" in done.stdout
