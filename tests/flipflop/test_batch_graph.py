"""FlipFlop 3x3's numpy graph builder (``games/flipflop/batch_graph.py``) against the compiled
kernel's enumeration and the reference engine, and the solve that uses it without numba."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import TERMINAL, Game
from flipgames.core.kernel import PositionGraph
from flipgames.games.flipflop.batch_graph import FlipFlop3x3Graph
from flipgames.games.flipflop.kernel import FlipFlop3x3Kernel
from flipgames.solvers import retrograde
from flipgames.solvers.graph import builder_for, keying, reference_graph, solver_graph

ARRAYS = ("keys", "to_move", "terminal_return", "edge_start", "edge_child", "edge_weight")


def game() -> Game:
    return make("flipflop-3x3")


def builder() -> FlipFlop3x3Graph:
    found = game().graph_builder()
    assert isinstance(found, FlipFlop3x3Graph)
    return found


def kernel() -> FlipFlop3x3Kernel:
    found = game().kernel()
    assert isinstance(found, FlipFlop3x3Kernel)
    return found


@cache
def graphs(fold: bool) -> tuple[PositionGraph, PositionGraph]:
    """The builder's and the kernel's graph, folded over the mirror or not."""
    if fold:
        return builder().graph(), kernel().graph()
    return builder().unfolded_graph(), kernel().unfolded_graph()


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "unfolded"])
def test_the_builder_gives_the_kernels_graph_array_for_array(fold: bool) -> None:
    """Same node numbers too, so a solution's payload is the one the kernel's graph gave."""
    built, compiled = graphs(fold)
    assert (built.nodes, built.symmetries) == ((107_439, 2) if fold else (213_270, 1))
    assert built.symmetries == compiled.symmetries
    for name in ARRAYS:
        mine, theirs = getattr(built, name), getattr(compiled, name)
        assert mine.dtype == theirs.dtype, name
        assert np.array_equal(mine, theirs), name


def edges_by_key(graph: PositionGraph) -> dict[int, Counter[int]]:
    """Per node key, its children's keys with multiplicity."""
    keys = graph.keys.tolist()
    children = graph.keys[graph.edge_child].tolist()
    starts = graph.edge_start.tolist()
    return {key: Counter(children[starts[i] : starts[i + 1]]) for i, key in enumerate(keys)}


def test_the_folded_graph_is_the_reference_walks() -> None:
    """The reference engine's breadth-first walk keyed by the builder's ``encode``: the same
    keys, the same children per key (one edge per legal action) and the same terminals."""
    built = graphs(True)[0]
    walked, _ = reference_graph(game(), game().new_initial_state(), builder().encode)
    assert set(built.keys.tolist()) == set(walked.keys.tolist())
    assert edges_by_key(built) == edges_by_key(walked)
    for graph in (built, walked):
        assert graph.to_move[0] == 0
    terminal = {
        int(k): int(r)
        for k, r, m in zip(built.keys, built.terminal_return, built.to_move, strict=True)
        if m == TERMINAL
    }
    assert terminal == {
        int(k): int(r)
        for k, r, m in zip(walked.keys, walked.terminal_return, walked.to_move, strict=True)
        if m == TERMINAL
    }
    assert set(terminal.values()) == {-1, 1}  # no draws in FlipFlop 3x3


def test_the_unfolded_graph_has_the_reference_keys() -> None:
    """Without folding, keys are ``State.key()``: every reference position once, node 0 the
    start."""
    unfolded = graphs(False)[0]
    _, index = reference_graph(game(), game().new_initial_state())
    assert set(unfolded.keys.tolist()) == set(index)
    assert int(unfolded.keys[0]) == game().new_initial_state().key()


@pytest.mark.parametrize("seed", range(20))
def test_encode_is_the_kernels_and_folds_the_mirror(seed: int) -> None:
    rng = random.Random(seed)
    state = game().new_initial_state()
    while not state.is_terminal():
        key = state.key()
        assert isinstance(key, int)
        mirrored = key >> 27 << 27
        for part in range(3):
            board = key >> 9 * part & 511
            flipped = sum(1 << sq // 3 * 3 + 2 - sq % 3 for sq in range(9) if board >> sq & 1)
            mirrored |= flipped << 9 * part
        assert builder().encode(state) == kernel().encode(state) == min(key, mirrored)
        state = state.apply(rng.choice(state.legal_actions()))


def test_a_state_of_another_game_is_refused() -> None:
    with pytest.raises(ValueError, match="flipflop state given to the flipflop-3x3 graph"):
        builder().encode(make("flipflop").new_initial_state())


def test_the_solvers_take_the_builder_unless_told_to_use_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FLIPGAMES_KERNEL", "fast")
    assert builder_for(game()) is builder()
    assert keying(game()) == "kernel"
    assert solver_graph(game()).graph.nodes == 107_439
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    assert builder_for(game()) is None
    assert keying(game()) == "reference"
    # (tests/solvers/test_kernel_vs_reference.py solves it that way: 213,270 positions.)
    # 5x5 offers no builder: its kernel (were it small enough) would be asked.
    assert make("flipflop").graph_builder() is None


def test_the_solve_is_the_same_through_the_kernels_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same values and remoteness per node whether the graph comes from the builder or
    (the builder withheld) from the compiled kernel."""
    through_builder = retrograde.solve(game())
    monkeypatch.setattr(type(game()), "graph_builder", lambda self: None)
    assert isinstance(builder_for(game()), FlipFlop3x3Kernel)
    through_kernel = retrograde.solve(game())
    for solution in (through_builder, through_kernel):
        assert solution.positions == 107_439
    payloads = through_builder.to_payload(), through_kernel.to_payload()
    for part in ("locator", "values", "remoteness"):
        assert payloads[0][part] == payloads[1][part], part
    start = game().new_initial_state()
    for solution in (through_builder, through_kernel):
        value = solution.value(start)
        assert (value.outcome, value.remoteness) == ("win", 15)
        assert [start.action_to_string(a) for a in solution.best_actions(start)] == ["b1xb3"]


def run_cli(args: list[str], cache_dir: Path) -> tuple[dict[str, object], list[str]]:
    """``flipgames ARGS`` through its console entry point in a fresh interpreter: the JSON it
    prints, and which of numba and scipy it imported."""
    code = (
        "import sys\n"
        "from flipgames.cli.main import run\n"
        f"sys.argv = ['flipgames', *{args!r}]\n"
        "try:\n"
        "    run()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(' '.join(sorted(m for m in ('numba', 'scipy') if m in sys.modules)))\n"
    )
    env = {**os.environ, "FLIPGAMES_CACHE": str(cache_dir), "FLIPGAMES_KERNEL": "fast"}
    lines = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.splitlines()
    return json.loads(lines[0]), lines[1].split()


def test_a_cold_solve_and_analysis_from_its_cache_load_no_numba(tmp_path: Path) -> None:
    """``solve flipflop-3x3`` with an empty result cache never imports numba (nor scipy,
    which numba pulls in), and reports the known value; ``analyze`` then reads the stored
    solution, looking up positions other than the start, still without numba."""
    report, loaded = run_cli(["solve", "flipflop-3x3", "--json"], tmp_path)
    assert loaded == []
    assert (report["value"], report["remoteness"], report["positions"]) == ("win", 15, 107_439)
    assert report["best_actions"] == ["b1xb3"]
    assert list(tmp_path.glob("retrograde-kernel-*flipflop-3x3*"))
    analysis, loaded = run_cli(["analyze", "flipflop-3x3", "--moves", "b1xb3", "--json"], tmp_path)
    assert loaded == []
    assert analysis["kind"] == "exact"
    assert analysis["actions"] == [
        {"action": "a3xb3", "value": "loss", "remoteness": 14},
        {"action": "c3xb3", "value": "loss", "remoteness": 14},
    ]


def test_the_check_above_can_fail(tmp_path: Path) -> None:
    """The same wrapper sees numba when the command does load it (FlipFlop 5x5's perft runs
    on its compiled kernel)."""
    code = (
        "import sys\n"
        "from flipgames.cli.main import run\n"
        "sys.argv = ['flipgames', 'perft', 'flipflop', '2']\n"
        "try:\n"
        "    run()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('numba' in sys.modules)\n"
    )
    env = {**os.environ, "FLIPGAMES_CACHE": str(tmp_path), "FLIPGAMES_KERNEL": "fast"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    assert out[-1] == "True"
