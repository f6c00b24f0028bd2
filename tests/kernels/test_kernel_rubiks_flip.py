"""The Rubik's Flip kernel against the reference engine, for every option set.

Seeded random games are played in lockstep: at every ply the kernel's legal action ids (and so
their notation) must equal the engine's, and stepping both with the same action must give the
same boards, winner and end of game. perft from the start must equal the golden counts of
``tests/rubiks_flip/test_rubiks_flip_perft.py`` (which checks them against an independent move
generator) and perft from random mid-game positions must equal the engine's.
"""

from __future__ import annotations

import random
from itertools import product

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.core.kernel import kernel_for
from flipgames.games.rubiks_flip.kernel import (
    GROUP_SHIFT,
    MAX_GROUPS,
    RubiksFlipKernel,
    groups,
    pack,
)
from flipgames.games.rubiks_flip.notation import PLACEMENTS
from flipgames.games.rubiks_flip.rules import RubiksFlip
from flipgames.solvers.perft import perft_counts

VALUES = (("inplace", "flap"), ("king", "orthogonal"), ("mover", "opponent"))
OPTION_SETS = [{"flip": f, "lock": lock, "both": both} for f, lock, both in product(*VALUES)]
#: perft 1..4 from the empty board (golden counts, by flip and lock; ``both`` cannot matter).
GOLDEN = {
    ("inplace", "king"): [32, 960, 26880, 1397760],
    ("inplace", "orthogonal"): [32, 960, 26880, 1394432],
    ("flap", "king"): [32, 2880, 224000, 30963712],
    ("flap", "orthogonal"): [32, 2880, 224000, 30963712],
}


def _id(options: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def _kernel(options: dict[str, str]) -> tuple[RubiksFlip, RubiksFlipKernel]:
    game = make("rubiks-flip", options)
    assert isinstance(game, RubiksFlip)
    return game, game.kernel()


def _random_position(game: RubiksFlip, rng: random.Random, plies: int) -> State:
    state: State = game.new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_random_games_agree_ply_by_ply_with_the_reference(options: dict[str, str]) -> None:
    game, kernel = _kernel(options)
    rng = random.Random(f"kernel-{_id(options)}")
    plies = wins = 0
    for _ in range(400):
        state: State = game.new_initial_state()
        first, second, faces = pack(state)
        while not state.is_terminal():
            legal = kernel.legal_actions(first, second, faces)
            assert legal == list(state.legal_actions()), state.history_notation()
            assert [state.action_to_string(a) for a in legal] == [
                state.action_to_string(a) for a in state.legal_actions()
            ]
            action = rng.choice(legal)
            first, second, faces, winner = kernel.step(first, second, faces, action)
            state = state.apply(action)
            plies += 1
            assert (first, second, faces) == pack(state), state.history_notation()
            assert winner == (-1 if state.winner is None else state.winner)
            ended = winner != -1 or first | second == 0xFFFF
            assert ended == state.is_terminal()
        wins += state.winner is not None
    # The games reached the interesting parts: locks, wins for both rules of `both`.
    assert plies > 400 * 8 and wins > 50


@pytest.mark.parametrize("options", OPTION_SETS[::2], ids=_id)
def test_perft_from_the_start_equals_the_golden_counts(options: dict[str, str]) -> None:
    game, kernel = _kernel(options)
    root = game.new_initial_state()
    golden = GOLDEN[(options["flip"], options["lock"])]
    assert [kernel.perft(root, depth) for depth in range(1, 5)] == golden
    assert kernel.perft(root, 0) == 1


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_mid_game_perft_equals_the_reference(options: dict[str, str]) -> None:
    game, kernel = _kernel(options)
    rng = random.Random(f"perft-{_id(options)}")
    checked = 0
    for plies in (4, 6, 8, 9, 10, 11, 12, 13):
        state = _random_position(game, rng, plies)
        expected = perft_counts(state, 3) if not state.is_terminal() else [0, 0, 0]
        assert [kernel.perft(state, depth) for depth in (1, 2, 3)] == expected
        checked += expected[-1] > 0
    assert checked >= 4


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_groups_hold_the_legal_actions_in_order(options: dict[str, str]) -> None:
    # The vector batch counts, draws and masks the legal actions from groups() alone.
    game, kernel = _kernel(options)
    rng = random.Random(f"groups-{_id(options)}")
    out = np.empty(MAX_GROUPS, dtype=np.int64)
    for plies in [p % 15 for p in range(60)]:
        state = _random_position(game, rng, plies)
        if state.is_terminal():
            continue
        first, second, faces = pack(state)
        expanded = []
        for word in out[: groups(first, second, kernel.flap, kernel.king, out)].tolist():
            part, squares = word >> GROUP_SHIFT, word & 0xFFFF
            for square in (s for s in range(16) if squares >> s & 1):
                expanded += [part * PLACEMENTS + 2 * square, part * PLACEMENTS + 2 * square + 1]
        assert expanded == kernel.legal_actions(first, second, faces), state.history_notation()


def test_perft_of_a_finished_game_is_zero() -> None:
    game, kernel = _kernel({})
    rng = random.Random(5)
    state = _random_position(game, rng, 16)
    assert state.is_terminal()
    assert kernel.perft(state, 2) == 0 and kernel.perft(state, 0) == 1


@pytest.mark.parametrize("options", OPTION_SETS[::3], ids=_id)
def test_playouts_are_seeded_and_well_formed(options: dict[str, str]) -> None:
    _, kernel = _kernel(options)
    batch = kernel.playouts(2000, seed=7)
    again = kernel.playouts(2000, seed=7)
    other = kernel.playouts(2000, seed=8)
    assert np.array_equal(batch.returns, again.returns)
    assert np.array_equal(batch.lengths, again.lengths)
    assert not np.array_equal(batch.lengths, other.lengths)
    assert set(np.unique(batch.returns)) == {-1, 0, 1}
    assert batch.lengths.min() >= 5 and batch.lengths.max() <= 16 and batch.capped == 0
    # A draw needs a full board; a shorter game was won.
    short = batch.lengths < 16
    assert np.all(batch.returns[short] != 0)
    assert batch.plies == int(batch.lengths.sum())


def test_playouts_stop_at_the_ply_cap() -> None:
    _, kernel = _kernel({})
    batch = kernel.playouts(500, seed=3, max_plies=6)
    assert batch.lengths.max() == 6
    capped = batch.lengths == 6
    assert batch.capped == int(capped.sum()) > 0
    assert np.all(batch.returns[capped] == 0)


def test_playouts_match_the_reference_statistics() -> None:
    """Uniform random play: the kernel's results and lengths have the reference's distribution
    (within five standard errors: the two draw different random numbers)."""
    game, kernel = _kernel({})
    n = 1500
    batch = kernel.playouts(20 * n, seed=11)
    rng = random.Random(11)
    lengths, first_wins = [], []
    for _ in range(n):
        state = _random_position(game, rng, 16)
        lengths.append(len(state.history_notation()))
        first_wins.append(state.winner == 0)
    for sample, reference in (
        (batch.lengths.astype(float), np.array(lengths, dtype=float)),
        ((batch.returns == 1).astype(float), np.array(first_wins, dtype=float)),
    ):
        error = np.sqrt(reference.var() / n + sample.var() / len(sample))
        assert abs(sample.mean() - reference.mean()) < 5 * error


def test_kernel_for_honours_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    game = make("rubiks-flip")
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    assert kernel_for(game) is None
    monkeypatch.setenv("FLIPGAMES_KERNEL", "fast")
    kernel = kernel_for(game)
    assert isinstance(kernel, RubiksFlipKernel) and kernel.name == "rubiks-flip"
