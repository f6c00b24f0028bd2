"""flipgames.envs.common.sample_legal: uniform over each row's legal actions, never an
illegal one, and a clear error for a row with none."""

from __future__ import annotations

import numpy as np
import pytest

from flipgames.envs.common import NoLegalActionError, sample_legal


def test_each_row_is_uniform_over_its_legal_actions():
    rng = np.random.default_rng(7)
    mask = np.zeros((4, 12), dtype=np.int8)
    mask[0, [1, 5, 11]] = 1
    mask[1, :] = 1
    mask[2, [0]] = 1
    mask[3, [2, 3, 7, 8, 9]] = 1
    draws = 20_000
    counts = np.zeros_like(mask, dtype=np.int64)
    for _ in range(draws):
        counts[np.arange(4), sample_legal(mask, rng)] += 1
    assert not counts[mask == 0].any()  # never an illegal action
    assert counts[2, 0] == draws  # one legal action: always it
    # The 99.9% points of the chi-square law by degrees of freedom (legal actions - 1).
    critical = {2: 13.82, 11: 31.26, 4: 18.47}
    for row in (0, 1, 3):
        legal = np.flatnonzero(mask[row])
        expected = draws / len(legal)
        chi2 = float((((counts[row, legal] - expected) ** 2) / expected).sum())
        assert chi2 < critical[len(legal) - 1], (row, counts[row, legal])


def test_a_large_batch_never_picks_an_illegal_action():
    rng = np.random.default_rng(1)
    mask = rng.random((1024, 625)) < 0.02
    mask[np.arange(1024), rng.integers(0, 625, 1024)] = True
    chosen = sample_legal(mask, rng)
    assert chosen.shape == (1024,) and chosen.dtype == np.int64
    assert mask[np.arange(1024), chosen].all()


def test_one_row_gives_one_action_and_the_same_seed_the_same_choices():
    mask = np.array([0, 1, 1, 0, 1])
    picks = [int(sample_legal(mask, np.random.default_rng(3))) for _ in range(2)]
    assert picks[0] == picks[1] and mask[picks[0]]


def test_a_row_without_a_legal_action_is_a_clear_error():
    mask = np.ones((3, 4), dtype=np.int8)
    mask[1] = 0
    with pytest.raises(
        NoLegalActionError, match=r"1 mask row\(s\) have no legal action \(rows 1\)"
    ):
        sample_legal(mask, np.random.default_rng(0))
