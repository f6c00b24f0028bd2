"""The bitboard C yardstick (bench/c/flipflop_bitboard.c) plays FlipFlop 5x5 by flipgames'
rules: its perft equals the reference engine's, its random games replay move for move with
the reference rules, its repetition rule draws where the reference's does; the checker of
bench/_yardsticks.py rejects a game that differs; and bench_yardstick.py without a compiler
says so and goes on. Needs a C compiler (``cc``)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from flipgames import make
from flipgames.solvers.perft import reference_perft

ROOT = Path(__file__).resolve().parents[1]
REPETITION = "a1-a2 e5-e4 a2-b3 e4-d3 b3-b2 d3-d4 b2-a1 d4-e5 " * 2

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler cc")


def load_helper() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_yardsticks", ROOT / "bench" / "_yardsticks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


yardsticks = load_helper()


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built: Path = yardsticks.build("cc", yardsticks.BITBOARD_SOURCE, tmp_path_factory.mktemp("c"))[
        0
    ]
    return built


def test_perft_equals_the_reference_engines(binary: Path) -> None:
    start = make("flipflop").new_initial_state()
    counts = yardsticks.perft_counts(yardsticks.run(binary, "perft", "5").out)
    assert counts == [reference_perft(start, d) for d in range(1, 6)]
    only = yardsticks.run(binary, "perftonly", "5").out
    assert only.startswith(f"perft(5) = {counts[-1]} cpu=")


def test_random_games_replay_move_for_move(binary: Path) -> None:
    lines = yardsticks.run(binary, "games", "400", "9").out.splitlines()
    ends = yardsticks.check_games(make("flipflop"), lines)
    assert sum(ends.values()) == len(lines) == 400
    assert ends["W"] > 0 and ends["B"] > 0


def line_of(texts: str) -> list[str]:
    state, ids = make("flipflop").new_initial_state(), []
    for text in texts.split():
        ids.append(str(state.parse_action(text)))
        state = state.apply(int(ids[-1]))
    return ids


def test_the_third_repetition_draws_as_in_the_reference(binary: Path) -> None:
    out = yardsticks.run(binary, "line", *line_of(REPETITION)).out
    assert out.startswith("D 16 ")
    assert yardsticks.check_games(make("flipflop"), out.splitlines())["D"] == 1


def test_the_checker_rejects_games_that_differ(binary: Path) -> None:
    game = make("flipflop")
    (good,) = yardsticks.run(binary, "games", "1", "4").out.splitlines()
    result, plies, first, *rest = good.split()
    count, action = first.split(":")
    other = "W" if result != "W" else "B"
    wrong = [
        " ".join([result, plies, f"{int(count) + 1}:{action}", *rest]),  # a legal-move count
        " ".join([result, plies, "16:0", *rest]),  # a1-a1 is never legal
        " ".join([other, plies, first, *rest]),  # the winner
        " ".join([result, str(int(plies) + 1), first, *rest]),  # the length
    ]
    for line in wrong:
        with pytest.raises(yardsticks.YardstickError):
            yardsticks.check_games(game, [line])
    stopped = subprocess.run([str(binary), "line", "5", "5"], capture_output=True, text=True)
    assert stopped.returncode == 1 and stopped.stdout.startswith("X ")


def test_the_script_without_a_compiler_says_so_and_goes_on() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_yardstick.py"),
            "--verify-only",
            "--cc",
            "no-such-compiler",
            "--reference-depth",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "C bitboard: skipped, no C compiler 'no-such-compiler' on PATH" in done.stdout
    assert "reference perft(1..3) equal to the kernel's" in done.stdout
