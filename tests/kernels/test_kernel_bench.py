"""``flipgames bench`` through the real entry point, and numba staying out of the way.

These check what bench prints and how it refuses bad input, never how fast anything is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from flipgames import make
from flipgames.core.kernel import kernel_for


def flipgames(*args: str, kernel: str = "fast") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FLIPGAMES_KERNEL": kernel}
    return subprocess.run(
        [sys.executable, "-m", "flipgames", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


FIGURES = (
    "playouts_per_s",
    "plies_per_s",
    "perft_leaves_per_s",
    "mcts_iterations_per_s",
    "alphabeta_nodes_per_s",
)


#: The games of the one ``bench --json`` run the report tests below read.
GAMES = ["flipflop-3x3", "checkered-flag", "rubiks-flip", "flip-switch"]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """One ``bench --json`` run over :data:`GAMES` (a run starts Python, numba and every
    game's kernel: once for all the tests that read its report)."""
    args = ["bench", "--json", "--seconds", "0.1", *(f"--game={g}" for g in GAMES)]
    done = flipgames(*args)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def rows_of(report: dict[str, Any], game: str) -> dict[str, dict[str, Any]]:
    return {row["kernel"]: row for row in report["results"] if row["game"] == game}


def test_json_has_the_machine_and_a_row_per_game_and_implementation(
    report: dict[str, Any],
) -> None:
    assert {"cpu", "cores", "python", "numpy", "numba"} <= set(report["machine"])
    expected = [
        (name, kind)
        for name in GAMES
        for kind in ("reference", "fast")
        if kind == "reference" or kernel_for(make(name)) is not None
    ]
    assert [(row["game"], row["kernel"]) for row in report["results"]] == expected
    assert ("flipflop-3x3", "fast") in expected
    for row in report["results"]:
        assert set(row) == {"game", "kernel", *FIGURES}
        assert row["playouts_per_s"] > 0 and row["plies_per_s"] >= row["playouts_per_s"]


def test_mcts_and_alphabeta_rows_of_flipflop_3x3_and_checkered_flag(
    report: dict[str, Any],
) -> None:
    for game in ("flipflop-3x3", "checkered-flag"):
        for row in rows_of(report, game).values():
            chance = row["game"] == "checkered-flag"
            assert (row["perft_leaves_per_s"] is None) == chance
            # MCTS runs on both engines of both games (Checkered Flag's kernel has a compiled
            # MCTS); alpha-beta on the reference engines and FlipFlop's kernel, not on
            # Checkered Flag's (a chance game's kernel has no compiled search).
            mcts, alphabeta = row["mcts_iterations_per_s"], row["alphabeta_nodes_per_s"]
            assert mcts is not None and mcts > 0
            measured = row["game"] == "flipflop-3x3" or row["kernel"] == "reference"
            assert (alphabeta is not None and alphabeta > 0) == measured


def test_the_kernel_row_of_rubiks_flip_has_mcts_iterations(report: dict[str, Any]) -> None:
    rows = rows_of(report, "rubiks-flip")
    assert set(rows) == {"reference", "fast"}
    for row in rows.values():
        assert isinstance(row["mcts_iterations_per_s"], float)
        assert row["mcts_iterations_per_s"] > 0


def test_the_kernel_row_of_flip_switch_has_mcts_iterations(report: dict[str, Any]) -> None:
    """Flip Switch's kernel has a compiled MCTS (flips as chance nodes) but no alpha-beta."""
    rows = rows_of(report, "flip-switch")
    assert set(rows) == {"reference", "fast"}
    for row in rows.values():
        assert isinstance(row["mcts_iterations_per_s"], float)
        assert row["mcts_iterations_per_s"] > 0
    assert rows["fast"]["alphabeta_nodes_per_s"] is None


def test_python_mode_measures_the_reference_alone() -> None:
    done = flipgames("bench", "--game", "flipflop", "--seconds", "0.05", kernel="python")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("python: CPython") for line in lines)
    rows = [line.split()[:2] for line in lines if line.startswith("flipflop ")]
    assert rows == [["flipflop", "reference"]]


def test_bad_arguments_get_one_line_errors() -> None:
    for args, message in [
        (("--seconds", "0"), "flipgames: error: --seconds must be a positive number up to 600"),
        (("--seconds", "inf"), "flipgames: error: --seconds must be a positive number up to 600"),
        (("--game", "chess"), "flipgames: error: unknown game 'chess'"),
    ]:
        done = flipgames("bench", *args)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith(message) and done.stderr.count("\n") == 1
    done = flipgames("bench", "--seconds", "soon")
    assert done.returncode == 2 and "invalid float value: 'soon'" in done.stderr


def test_a_bad_kernel_mode_is_one_line() -> None:
    done = flipgames("perft", "flipflop", "2", kernel="turbo")
    assert done.returncode == 1
    assert (
        done.stderr
        == "flipgames: error: FLIPGAMES_KERNEL must be 'fast' or 'python', not 'turbo'\n"
    )


def test_the_cli_and_the_reference_path_never_import_numba() -> None:
    """numba loads only when a kernel is asked for, so ``flipgames --help`` stays quick."""
    check = (
        "import sys, flipgames.cli.main as m; m.main(['perft', 'flipflop-3x3', '3']);"
        " print('numba' in sys.modules)"
    )
    for kernel, loaded in (("python", "False"), ("fast", "True")):
        done = subprocess.run(
            [sys.executable, "-c", check],
            capture_output=True,
            text=True,
            env={**os.environ, "FLIPGAMES_KERNEL": kernel},
            timeout=120,
        )
        assert done.stdout.splitlines() == [
            "perft(1) = 4",
            "perft(2) = 10",
            "perft(3) = 36",
            loaded,
        ]
    done = subprocess.run(
        [sys.executable, "-c", "import sys, flipgames.cli.main; print('numba' in sys.modules)"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout == "False\n"
