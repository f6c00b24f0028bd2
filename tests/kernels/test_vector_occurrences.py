"""The compiled batches of FlipFlop and FlipFour count repetitions over a blocked filter (three
bits of one word per position, :func:`flipgames.kernels.vector.occurrences`); every count must
equal the plain filter's of :func:`flipgames.kernels.jit.occurrences`, which the
reference-matching tests in ``tests/envs/test_vector.py`` rest on."""

from __future__ import annotations

import numpy as np
import pytest

from flipgames.kernels.jit import occurrences as plain_occurrences
from flipgames.kernels.vector import occurrences


@pytest.mark.parametrize("words", [256, 8])  # FlipFour's filter, FlipFlop's (in its board row)
@pytest.mark.parametrize("distinct", [3, 40, 3000])
def test_the_blocked_filter_counts_as_the_plain_one(distinct: int, words: int) -> None:
    # A line of 3,000 positions drawn from a pool: a small pool repeats every position many
    # times, a large one seldom (most of the filter's alarms are then false).
    rng = np.random.default_rng(distinct)
    pool = rng.integers(0, 1 << 25, size=(distinct, 3))
    history = pool[rng.integers(0, distinct, size=3000)]
    blocked, plain = np.zeros(words, dtype=np.int64), np.zeros(256, dtype=np.int64)
    counts = [occurrences(history, ply, blocked) for ply in range(len(history))]
    expected = [plain_occurrences(history, ply, 0, plain) for ply in range(len(history))]
    assert counts == expected
    assert max(counts) > 1  # the scans behind the filter ran
