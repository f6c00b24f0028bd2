"""``flipgames bench`` through the real entry point, and numba staying out of the way.

These check what bench prints and how it refuses bad input, never how fast anything is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

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


def test_json_has_the_machine_and_a_row_per_game_and_implementation() -> None:
    games = ["flipflop-3x3", "checkered-flag"]
    args = ["bench", "--json", "--seconds", "0.05", *(f"--game={g}" for g in games)]
    done = flipgames(*args)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"cpu", "cores", "python", "numpy", "numba"} <= set(report["machine"])
    expected = [
        (name, kind)
        for name in games
        for kind in ("reference", "fast")
        if kind == "reference" or kernel_for(make(name)) is not None
    ]
    assert [(row["game"], row["kernel"]) for row in report["results"]] == expected
    assert ("flipflop-3x3", "fast") in expected
    for row in report["results"]:
        assert set(row) == {"game", "kernel", *FIGURES}
        assert row["playouts_per_s"] > 0 and row["plies_per_s"] >= row["playouts_per_s"]
        chance = row["game"] == "checkered-flag"
        assert (row["perft_leaves_per_s"] is None) == chance
        # MCTS runs on both engines of both games (Checkered Flag's kernel has a compiled
        # MCTS); alpha-beta on the reference engines and FlipFlop's kernel, not on Checkered
        # Flag's (a chance game's kernel has no compiled search).
        mcts, alphabeta = row["mcts_iterations_per_s"], row["alphabeta_nodes_per_s"]
        assert mcts is not None and mcts > 0
        measured = row["game"] == "flipflop-3x3" or row["kernel"] == "reference"
        assert (alphabeta is not None and alphabeta > 0) == measured


def test_the_kernel_row_of_rubiks_flip_has_mcts_iterations() -> None:
    done = flipgames("bench", "--json", "--game", "rubiks-flip", "--seconds", "0.2")
    assert done.returncode == 0, done.stderr
    rows = {row["kernel"]: row for row in json.loads(done.stdout)["results"]}
    assert set(rows) == {"reference", "fast"}
    for row in rows.values():
        assert isinstance(row["mcts_iterations_per_s"], float)
        assert row["mcts_iterations_per_s"] > 0


def test_the_kernel_row_of_flip_switch_has_mcts_iterations() -> None:
    """Flip Switch's kernel has a compiled MCTS (flips as chance nodes) but no alpha-beta."""
    done = flipgames("bench", "--json", "--game", "flip-switch", "--seconds", "0.1")
    assert done.returncode == 0, done.stderr
    rows = {row["kernel"]: row for row in json.loads(done.stdout)["results"]}
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
