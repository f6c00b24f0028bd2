"""``flipgames dataset`` for the games the df-pn prover takes (FlipFour, FlipFlop 5x5): every
row agrees with a fresh prover run on each action's child and with a brute-force search of
the reference rules for short wins; the file loads with numpy alone; a state after a
repetition is refused; the command line writes a file and refuses a bad option."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import Game, State
from flipgames.lab.dataset import export
from flipgames.solvers import dfpn as dfpn_module
from flipgames.solvers.dfpn import Solver
from flipgames.solvers.ground_truth import GroundTruthError, ground_truth, oracle
from flipgames.solvers.ground_truth_dfpn import DfpnOracle

#: Rows per game: positions near the ends of seeded random games, quick to prove.
ROWS = {"flipfour": 3, "flipflop": 6}
#: Seeds whose games give those rows in a few seconds at 20,000 nodes a position.
SEED = {"flipfour": 2, "flipflop": 3}
#: FlipFlop 5x5's third repetition from the start (docs/games/flipflop.md): 8 plies that
#: bring the start back.
CYCLE = ["a1-a2", "e5-e4", "a2-b3", "e4-d3", "b3-b2", "d3-d4", "b2-a1", "d4-e5"]


@pytest.fixture(autouse=True)
def _three_piece_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """FlipFlop's prover probes the 3-piece endgame tables (cheap to build), not the 4-piece."""
    monkeypatch.setattr(dfpn_module, "TABLE_PIECES", 3)


def load(path: Path) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def replay(game: Game, history: np.ndarray) -> State:
    state = game.new_initial_state()
    for action in history:
        if action >= 0:
            state = state.apply(int(action))
    return state


def prover_value(child: State, mover: int) -> int:
    """``child``'s value for ``mover``: the rules' result, else a fresh Solver's (own table,
    both questions, the child's position with no history)."""
    if child.is_terminal():
        return child.returns()[mover]
    fresh = child.game.from_position(child.position())
    report = Solver(child.game, fresh, memory=1 << 20).solve(max_nodes=2_000_000)
    assert report.value is not None, child.position()
    sign = {"win": 1, "draw": 0, "loss": -1}[report.value]
    return sign if child.current_player == mover else -sign


def forces_win(state: State, attacker: int, plies: int) -> bool:
    """Brute force on the reference rules: ``attacker`` wins within ``plies`` plies whatever
    the other side plays."""
    if state.is_terminal():
        return state.returns()[attacker] == 1
    if plies == 0:
        return False
    children = (state.apply(a) for a in state.legal_actions())
    if state.current_player == attacker:
        return any(forces_win(c, attacker, plies - 1) for c in children)
    return all(forces_win(c, attacker, plies - 1) for c in children)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_every_row_agrees_with_a_fresh_prover_and_brute_force(tmp_path: Path, name: str) -> None:
    game = make(name)
    summary = export(game, tmp_path / "d.npz", limit=ROWS[name], seed=SEED[name], max_nodes=20_000)
    assert (summary.rows, summary.solver, summary.sampled) == (ROWS[name], "dfpn", True)
    data = load(tmp_path / "d.npz")
    assert str(data["solver"]) == "dfpn" and str(data["complete"]) == "false"
    assert str(data["seed"]) == str(SEED[name]) and (data["remoteness"] == -1).all()
    short_wins = 0
    for row in range(summary.rows):
        state = replay(game, data["history"][row])
        mover = state.current_player
        assert mover == data["player"][row] and mover >= 0
        assert np.array_equal(data["observation"][row], state.observation_tensor(mover))
        assert np.array_equal(data["legal_mask"][row], state.legal_action_mask())
        values = {a: prover_value(state.apply(a), mover) for a in state.legal_actions()}
        assert {a: float(data["action_value"][row][a]) for a in values} == values
        best = max(values.values())
        assert data["value"][row] == best and str(data["value_fraction"][row]) == f"{best}/1"
        assert np.flatnonzero(data["best_mask"][row]).tolist() == sorted(
            a for a, v in values.items() if v == best
        )
        # Short wins the rules alone find: the mover's in 3 plies, the opponent's in 2.
        if forces_win(state, mover, 3):
            assert best == 1
            short_wins += 1
        if forces_win(state, 1 - mover, 2):
            assert best == -1
    # Rows near the games' ends: the brute force decides some of them.
    assert short_wins > 0


def test_a_state_after_a_repetition_is_refused_by_name() -> None:
    game = make("flipflop")
    state = game.new_initial_state()
    for text in CYCLE:
        state = state.apply(state.parse_action(text))
    found = oracle(game, max_nodes=10_000)
    assert isinstance(found, DfpnOracle) and found.solver == "dfpn"
    assert found.answer(state) is None
    why = found.cannot_answer(state)
    assert why is not None and "repeats the position rrrrr/5/5/5/RRRRR w" in why
    with pytest.raises(GroundTruthError, match=r"state 0 of flipflop: its game so far repeats"):
        ground_truth(game, [state], max_nodes=10_000)
    # The same position reached without the cycle is taken.
    assert found.cannot_answer(game.new_initial_state()) is None


def test_a_state_beyond_the_budget_is_unanswered() -> None:
    # The start of FlipFour is not proven: no budget here values its first moves.
    game = make("flipfour")
    with pytest.raises(GroundTruthError, match=r"state 0 of flipfour: .*node budget"):
        ground_truth(game, [game.new_initial_state()], max_nodes=5_000)


def test_with_kernels_off_the_prover_is_named_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    with pytest.raises(GroundTruthError, match=r"compiled prover is off here"):
        oracle(make("flipfour"))


def test_the_command_line_writes_a_flipfour_file(tmp_path: Path) -> None:
    argv = [
        "dataset",
        "flipfour",
        "--limit",
        "2",
        "--seed",
        "2",
        "--max-nodes",
        "20000",
        "--out",
        "f4.npz",
        "--json",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "flipgames", *argv], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["solver"], report["rows"], report["sampled"]) == ("dfpn", 2, True)
    data = load(tmp_path / "f4.npz")
    assert str(data["game"]) == "flipfour" and data["observation"].shape == (2, 8, 5, 5)
    bad = subprocess.run(
        [sys.executable, "-m", "flipgames", "dataset", "flipfour", "--max-nodes", "none"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "--max-nodes" in bad.stderr and "Traceback" not in bad.stderr
    assert list(tmp_path.glob("*.npz")) == [tmp_path / "f4.npz"]
