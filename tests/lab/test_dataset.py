"""``flipgames.lab.dataset``: the exported rows agree with the solvers, every solved position is
there once, the file loads with numpy alone, and hidden Flip Switch tiles stay hidden."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import Game, State
from flipgames.lab.dataset import ARRAYS, DatasetError, export
from flipgames.solvers import alphabeta
from flipgames.solvers.catalog import solution
from flipgames.solvers.graph import solver_graph
from flipgames.solvers.ground_truth import GroundTruthError

#: Rows checked one by one against the solver in the big datasets (a seeded sample).
SAMPLE = 1_500


def load(path: Path) -> dict[str, Any]:
    """Every array of the file, read as a researcher would: numpy alone, no pickle."""
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def states(game: Game, history: np.ndarray, rows: Iterator[int]) -> Iterator[tuple[int, State]]:
    """Each row's state, replayed from the start by its history (prefixes shared)."""
    memo: dict[tuple[int, ...], State] = {(): game.new_initial_state()}

    def reach(actions: tuple[int, ...]) -> State:
        found = memo.get(actions)
        if found is None:
            found = memo[actions] = reach(actions[:-1]).apply(actions[-1])
        return found

    for row in rows:
        yield row, reach(tuple(int(a) for a in history[row] if a >= 0))


def check_rows(game: Game, data: dict[str, Any], rows: Iterator[int]) -> int:
    """Every listed row against the solver, asked afresh about the replayed state."""
    solved = solution(game)
    checked = 0
    for row, state in states(game, data["history"], rows):
        player = state.current_player
        assert player == data["player"][row] and player >= 0
        assert np.array_equal(data["observation"][row], state.observation_tensor(player))
        assert np.array_equal(data["legal_mask"][row], state.legal_action_mask())
        value = solved.value(state)
        assert Fraction(str(data["value_fraction"][row])) == value.expected
        assert data["value"][row] == float(value.expected)
        assert (data["win"][row], data["draw"][row], data["loss"][row]) == (
            float(value.win),
            float(value.draw),
            float(value.loss),
        )
        assert data["remoteness"][row] == (-1 if value.remoteness is None else value.remoteness)
        assert np.flatnonzero(data["best_mask"][row]).tolist() == solved.best_actions(state)
        scored = solved.action_values(state)
        action_value = data["action_value"][row]
        assert np.flatnonzero(~np.isnan(action_value)).tolist() == sorted(scored)
        for action, v in scored.items():
            assert action_value[action] == np.float32(float(v.expected))
        checked += 1
    return checked


def decision_nodes(game: Game) -> int:
    """Positions of the solver's own graph (the kernel's or the numpy builder's) where a
    player is to move: what a complete dataset has one row each of."""
    return int((solver_graph(game).graph.to_move >= 0).sum())


def unique_positions(game: Game, data: dict[str, Any]) -> None:
    """No two rows are the same solver position (symmetric images are one)."""
    solved = solution(game)
    rows = range(len(data["value"]))
    nodes = [solved.node(state) for _, state in states(game, data["history"], iter(rows))]
    assert None not in nodes and len(set(nodes)) == len(nodes)


@pytest.fixture(scope="module")
def flipflop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Game, dict[str, Any]]:
    game = make("flipflop-3x3")
    path = tmp_path_factory.mktemp("dataset") / "ff.npz"
    summary = export(game, path)
    assert summary.complete and summary.solver == "retrograde" and not summary.sampled
    return game, load(path)


@pytest.fixture(scope="module")
def flip_switch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Game, dict[str, Any]]:
    game = make("flip-switch", rounds=1)
    path = tmp_path_factory.mktemp("dataset") / "fs.npz"
    assert export(game, path).complete
    return game, load(path)


@pytest.mark.slow
def test_every_flipflop_row_agrees_with_the_retrograde_solution(
    flipflop: tuple[Game, dict[str, Any]],
) -> None:
    game, data = flipflop
    rows = len(data["value"])
    assert rows == decision_nodes(game) == 94_855
    assert check_rows(game, data, iter(range(rows))) == rows
    unique_positions(game, data)
    # The start is the first row: White wins in 15 by b1xb3 alone.
    start = game.new_initial_state()
    assert data["remoteness"][0] == 15 and data["value"][0] == 1
    assert np.flatnonzero(data["best_mask"][0]).tolist() == [start.parse_action("b1xb3")]


@pytest.mark.slow
def test_every_checkered_flag_row_agrees_with_the_stochastic_solution(tmp_path: Path) -> None:
    game = make("checkered-flag")
    summary = export(game, tmp_path / "cf.npz")
    data = load(tmp_path / "cf.npz")
    rows = len(data["value"])
    assert summary.rows == rows == decision_nodes(game)
    assert check_rows(game, data, iter(range(rows))) == rows
    unique_positions(game, data)
    assert (data["draw"] == 0).all() and (data["remoteness"] == -1).all()
    # Rows that look the same to the car to move (the cars' places swapped) agree.
    truth: dict[bytes, str] = {}
    for row in range(rows):
        key = data["observation"][row].tobytes()
        assert (
            truth.setdefault(key, str(data["value_fraction"][row])) == data["value_fraction"][row]
        )
    assert len(truth) == rows // 2
    assert np.allclose(data["win"] - data["loss"], data["value"])


@pytest.mark.slow
def test_a_flip_switch_round_sample_agrees_and_every_position_is_there(
    flip_switch: tuple[Game, dict[str, Any]],
) -> None:
    game, data = flip_switch
    rows = len(data["value"])
    assert rows == decision_nodes(game)
    unique_positions(game, data)
    sample = sorted(random.Random(28).sample(range(rows), SAMPLE))
    assert check_rows(game, data, iter([0, *sample])) == SAMPLE + 1
    # Perfect play draws the round; some positions are decided, some are fractions.
    assert data["value"][0] == 0 and data["draw"][0] == 1
    assert (data["value"] != 0).any() and (data["value"] == 1).any()
    assert any("/" in str(f) and not str(f).endswith("/1") for f in data["value_fraction"])


@pytest.mark.slow
def test_flip_switch_rows_show_no_face_down_shape_and_the_observation_fixes_the_values(
    flip_switch: tuple[Game, dict[str, Any]],
) -> None:
    game, data = flip_switch
    planes, shapes = data["observation"], int(game.options["shapes"])
    face_down = planes[:, 0] == 1
    # A face-down square carries no shape plane: the shape does not exist until flipped.
    for shape in range(shapes):
        assert not (planes[:, 1 + shape] * face_down).any()
    # Chance nodes are not rows, so no tile is being flipped in any row.
    assert not planes[:, 3 * shapes + 1].any()
    # What the player to move sees decides the value: rows that look the same to the mover
    # (e.g. the same position with the players' roles swapped) have the same ground truth.
    seen: dict[bytes, tuple[str, bytes, bytes]] = {}
    repeats = 0
    for row in range(len(planes)):
        truth = (
            str(data["value_fraction"][row]),
            data["best_mask"][row].tobytes(),
            np.nan_to_num(data["action_value"][row], nan=9).tobytes(),
        )
        key = planes[row].tobytes()
        repeats += key in seen
        assert seen.setdefault(key, truth) == truth
    assert repeats > 0  # such pairs exist: 13,026 rows look like an earlier one


def test_the_file_loads_without_pickle_with_its_metadata(tmp_path: Path) -> None:
    game = make("flipflop-3x3")
    export(game, tmp_path / "ff.npz", limit=500)
    data = load(tmp_path / "ff.npz")
    assert set(json.loads(str(data["arrays"]))) == set(ARRAYS) <= set(data)
    assert all(array.dtype != object for array in data.values())
    assert str(data["game"]) == "flipflop-3x3" and str(data["solver"]) == "retrograde"
    assert json.loads(str(data["options"])) == {}
    assert str(data["complete"]) == "false" and str(data["seed"]) == ""
    assert len(str(data["commit"])) in (0, 40)
    assert "the viewer's pieces showing" in str(data["observation_layout"])
    assert data["observation"].shape[1:] == game.observation_tensor_shape
    assert data["legal_mask"].shape[1] == data["best_mask"].shape[1] == game.num_distinct_actions
    # Every best action is legal, and every legal row has one.
    assert not (data["best_mask"] & ~data["legal_mask"].astype(bool)).any()
    assert data["best_mask"].any(axis=1).all()


def test_limit_keeps_the_rows_nearest_the_start(tmp_path: Path) -> None:
    game = make("flipflop-3x3")
    export(game, tmp_path / "more.npz", limit=300)
    summary = export(game, tmp_path / "few.npz", limit=40)
    more, data = load(tmp_path / "more.npz"), load(tmp_path / "few.npz")
    assert summary.rows == 40 and not summary.complete and str(data["complete"]) == "false"
    assert np.array_equal(data["observation"], more["observation"][:40])
    assert np.array_equal(data["value"], more["value"][:40])
    # Breadth first: no row is further from the start than a later one.
    plies = (more["history"] >= 0).sum(axis=1)
    assert (np.diff(plies) >= 0).all() and plies[0] == 0
    assert check_rows(game, more, iter(range(300))) == 300


def test_rubiks_flip_rows_are_positions_the_search_proves(tmp_path: Path) -> None:
    game = make("rubiks-flip")
    summary = export(game, tmp_path / "rf.npz", limit=30, seed=5)
    data = load(tmp_path / "rf.npz")
    assert summary.sampled and not summary.complete and summary.rows == 30
    assert str(data["solver"]) == "alphabeta" and str(data["seed"]) == "5"
    kernel = alphabeta.searchable(game)
    assert kernel is not None
    table = np.zeros(alphabeta.table_entries(8 << 20), dtype=np.int64)
    keys = set()
    for row, state in states(game, data["history"], iter(range(30))):
        keys.add(kernel.canonical(kernel.position(state)))
        # The null-window search the perfect player uses agrees on the best actions.
        best = alphabeta.best_actions(kernel, state, table, 10_000_000)
        assert np.flatnonzero(data["best_mask"][row]).tolist() == best
        legal = data["legal_mask"][row].astype(bool)
        assert data["value"][row] == np.nanmax(data["action_value"][row][legal])
        assert np.array_equal(
            data["observation"][row], state.observation_tensor(state.current_player)
        )
    assert len(keys) == 30
    assert (data["remoteness"] == -1).all()
    # The same seed gives the same rows.
    export(game, tmp_path / "again.npz", limit=30, seed=5)
    assert np.array_equal(load(tmp_path / "again.npz")["history"], data["history"])


@pytest.mark.parametrize(
    ("name", "options", "words"),
    [
        ("flip-switch", {"must_flip": "yes"}, ["single round", "the solved option sets are"]),
    ],
)
def test_unsolved_games_are_refused_by_name_and_nothing_is_written(
    tmp_path: Path, name: str, options: dict[str, Any], words: list[str]
) -> None:
    target = tmp_path / "x.npz"
    with pytest.raises(GroundTruthError) as caught:
        export(make(name, options), target)
    for word in words:
        assert word in str(caught.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("data.csv", ["name a .npz file"]),
        ("folder.npz", ["is a folder"]),
        ("missing/data.npz", ["does not exist"]),
    ],
)
def test_bad_targets_are_refused_before_solving(
    tmp_path: Path, target: str, words: list[str]
) -> None:
    (tmp_path / "folder.npz").mkdir()
    with pytest.raises(DatasetError) as caught:
        export(make("flipfour"), tmp_path / target)
    for word in words:
        assert word in str(caught.value)
    with pytest.raises(DatasetError, match="at least 1"):
        export(make("flipflop-3x3"), tmp_path / "ok.npz", limit=0)
