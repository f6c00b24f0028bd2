"""Checkered Flag's numpy graph builder (``games/checkered_flag/batch_graph.py``) against the
compiled kernel's enumeration and the reference engine, the stochastic solver's numpy levels
against its compiled ones, and the solve that uses them without numba."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flipgames import make
from flipgames.core.kernel import PositionGraph
from flipgames.games.checkered_flag.batch_graph import CheckeredFlagGraph
from flipgames.games.checkered_flag.kernel import CheckeredFlagKernel
from flipgames.solvers.compiled import chance_height, component_levels, components
from flipgames.solvers.graph import builder_for, reference_graph
from flipgames.solvers.stochastic import solve_stochastic
from flipgames.solvers.stochastic_values import acyclic_levels

ARRAYS = ("keys", "to_move", "terminal_return", "edge_start", "edge_child", "edge_weight")

OPTION_SETS: list[dict[str, Any]] = [
    {"start": "spin"},
    {"start": "first", "laps": 2},
    {"start": "spin", "track": "short"},
    {"start": "first", "track": "short", "laps": 3},
    {"track": "default-no-crash"},
    {"track": "default-no-passing", "start": "first"},
]


def ids(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def pair(options: dict[str, Any]) -> tuple[CheckeredFlagGraph, CheckeredFlagKernel]:
    game = make("checkered-flag", **options)
    builder, kernel = game.graph_builder(), game.kernel()
    assert isinstance(builder, CheckeredFlagGraph)
    assert isinstance(kernel, CheckeredFlagKernel)
    return builder, kernel


def assert_same(built: PositionGraph, compiled: PositionGraph) -> None:
    assert built.symmetries == compiled.symmetries == 1
    for name in ARRAYS:
        mine, theirs = getattr(built, name), getattr(compiled, name)
        assert mine.dtype == theirs.dtype, name
        assert np.array_equal(mine, theirs), name


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=ids)
def test_the_builder_gives_the_kernels_graph_array_for_array(options: dict[str, Any]) -> None:
    """Keys, node numbers, edges in order, merged chance weights: all the kernel's."""
    builder, kernel = pair(options)
    assert_same(builder.graph(), kernel.graph())


def test_user_tracks_and_spinners_become_the_same_tables(tmp_path: Path) -> None:
    """A no-passing space at the start line and unequal spinner weights (so outcomes of one
    spin reach one position and merge, weights added)."""
    track = tmp_path / "track.json"
    track.write_text(
        json.dumps(
            {"name": "tiny", "length": 12, "start": 0, "crash": [3, 7], "no_passing": [0, 5]}
        )
    )
    spinners = tmp_path / "spinners.json"
    spinners.write_text(
        json.dumps({"name": "lumpy", "A": {"1": 3, "2": 1}, "B": {"1": 1, "2": 2, "4": 5}})
    )
    builder, kernel = pair({"track": str(track), "spinners": str(spinners), "laps": 2})
    built = builder.graph()
    assert_same(built, kernel.graph())
    assert int(built.edge_weight.max()) > 1


def test_from_a_position_in_mid_race() -> None:
    game = make("checkered-flag", track="short")
    builder, kernel = pair({"track": "short"})
    rng = random.Random(3)
    state = game.new_initial_state()
    for _ in range(9):
        state = state.apply(rng.choice(state.legal_actions()))
    assert_same(builder.graph(root=state), kernel.graph(root=state))


@pytest.mark.parametrize("start", ["spin", "first"])
def test_the_short_track_graph_is_the_reference_walks(start: str) -> None:
    """The reference engine's breadth-first walk keyed by the builder's ``encode`` finds the
    same positions in the same order (finished races keyed by their winner)."""
    game = make("checkered-flag", track="short", start=start)
    builder, _ = pair({"track": "short", "start": start})
    built = builder.graph()
    walked, _ = reference_graph(game, game.new_initial_state(), builder.encode)
    assert built.keys.tolist() == walked.keys.tolist()
    assert np.array_equal(built.to_move, walked.to_move)
    assert np.array_equal(built.terminal_return, walked.terminal_return)


@pytest.mark.parametrize("seed", range(10))
def test_encode_is_the_kernels_along_random_races(seed: int) -> None:
    game = make("checkered-flag")
    builder, kernel = pair({})
    rng = random.Random(seed)
    state = game.new_initial_state()
    while True:
        assert builder.encode(state) == kernel.encode(state)
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_actions()))


def test_a_state_of_another_game_is_refused() -> None:
    builder, _ = pair({})
    with pytest.raises(ValueError, match="flipflop-3x3 state given to the checkered-flag graph"):
        builder.encode(make("flipflop-3x3").new_initial_state())


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS[:4], ids=ids)
def test_numpy_levels_are_the_compiled_ones(options: dict[str, Any]) -> None:
    graph = pair(options)[0].graph()
    members, start = components(graph.edge_start, graph.edge_child)
    level, cyclic = component_levels(graph.edge_start, graph.edge_child, members, start)
    height = chance_height(graph.edge_start, graph.edge_child, graph.to_move, members, start)
    assert not cyclic.any()
    found = acyclic_levels(graph.edge_start, graph.edge_child, graph.to_move)
    assert found is not None
    assert np.array_equal(found[0], level)
    assert found[1] == height > 0


def test_a_graph_with_a_cycle_goes_to_the_compiled_components() -> None:
    """Flip Switch's graph has cycles (positions repeat): no numpy levels for it."""
    game = make("flip-switch", rounds=1)
    endgame = "a1 heart b1 heart c1 heart a2 square b2 square c2 square a3 star b3 star a2-a3"
    root = game.state_from_actions(endgame.split())
    builder = builder_for(game)
    assert builder is not None
    graph = builder.graph(root=root)  # type: ignore[call-arg]
    assert acyclic_levels(graph.edge_start, graph.edge_child, graph.to_move) is None


def test_the_solve_is_the_same_through_the_kernels_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    game = make("checkered-flag", track="short", start="first")
    through_builder = solve_stochastic(game)
    monkeypatch.setattr(type(game), "graph_builder", lambda self: None)
    assert isinstance(builder_for(game), CheckeredFlagKernel)
    through_kernel = solve_stochastic(game)
    mine, theirs = through_builder.to_payload(), through_kernel.to_payload()
    mine.pop("seconds")
    theirs.pop("seconds")
    assert mine == theirs
    start = game.new_initial_state()
    assert through_builder.value(start) == through_kernel.value(start)
    assert 0.59 < float(through_builder.value(start).win) < 0.60


def test_a_cold_solve_loads_no_numba(tmp_path: Path) -> None:
    """``solve checkered-flag`` with an empty result cache, through the console entry point
    in a fresh interpreter: the known result, and neither numba nor scipy imported."""
    code = (
        "import sys\n"
        "from flipgames.cli.main import run\n"
        "sys.argv = ['flipgames', 'solve', 'checkered-flag', '-o', 'track=short', '--json']\n"
        "try:\n"
        "    run()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(' '.join(sorted(m for m in ('numba', 'scipy') if m in sys.modules)))\n"
    )
    env = {**os.environ, "FLIPGAMES_CACHE": str(tmp_path), "FLIPGAMES_KERNEL": "fast"}
    lines = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.splitlines()
    report = json.loads(lines[0])
    assert (report["positions"], report["exact"]["win"]) == (7_121, "1/2")
    assert lines[1] == ""
