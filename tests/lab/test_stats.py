"""Totals and intervals of the lab, against answers derived by hand."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from flipgames.agents.arena import Z95, wilson_interval
from flipgames.lab.stats import DRAW, GameStats, Tally, rate, rate_interval


def reference_wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval as the two roots of (p_hat - p)^2 n = z^2 p (1 - p) in p, solved
    with the quadratic formula (written independently of the code under test)."""
    p_hat = successes / n
    a = n + z * z
    b = -(2 * n * p_hat + z * z)
    c = n * p_hat * p_hat
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize(
    ("successes", "n"), [(0, 1), (1, 3), (3, 10), (5, 10), (10, 10), (1, 7), (613, 1000)]
)
def test_intervals_match_the_reference_formula(successes: int, n: int) -> None:
    low, high = rate_interval(successes, n)
    ref_low, ref_high = reference_wilson(successes, n)
    assert low == pytest.approx(max(0.0, ref_low), abs=1e-12)
    assert high == pytest.approx(min(1.0, ref_high), abs=1e-12)
    assert wilson_interval(successes / n, n) == (low, high)


def test_rates_are_true_divisions() -> None:
    # 1 of 3 is a third, not 0 (integer division) and not 0.33 rounded.
    assert rate(1, 3) == pytest.approx(1 / 3)
    assert rate(2, 3) > rate(1, 3) > 0
    assert rate(0, 0) == 0.0
    assert rate_interval(0, 0) == (0.0, 1.0)


def record(winner: int, moves: int, a_seat: int = 0, **extra: object) -> GameStats:
    return GameStats(
        index=0,
        a_seat=a_seat,
        winner=winner,
        moves=moves,
        plies=moves,
        branching=tuple(range(1, moves + 1)),
        **extra,  # type: ignore[arg-type]
    )


def test_wins_per_seat_and_per_agent_draws() -> None:
    tally = Tally()
    # A in the first seat wins; A in the second seat wins; B (second seat) wins; a draw.
    for game in (
        record(0, 3, a_seat=0),
        record(1, 4, a_seat=1),
        record(1, 5, a_seat=0),
        record(DRAW, 6, a_seat=1),
    ):
        tally.add(game)
    assert tally.games == 4
    assert tally.wins == [1, 2]  # seat 0 won once, seat 1 twice
    assert tally.agent_wins == [2, 1]  # A twice, B once
    assert tally.draws == 1


def test_lengths_mean_median_p90_and_histogram() -> None:
    tally = Tally()
    for moves in (2, 3, 3, 4, 10, 3, 2, 5, 6, 20):
        tally.add(record(0, moves))
    # Sorted: 2 2 3 3 3 4 5 6 10 20: mean 58/10, median (3 + 4) / 2, nearest-rank p90 is
    # the 9th value, 10.
    assert tally.lengths == Counter({2: 2, 3: 3, 4: 1, 5: 1, 6: 1, 10: 1, 20: 1})
    assert tally.length_mean() == pytest.approx(5.8)
    assert tally.length_median() == 3.5
    assert tally.length_quantile(0.9) == 10
    assert tally.length_quantile(1.0) == 20
    tally.add(record(0, 7))  # 11 games: the median is the 6th value
    assert tally.length_median() == 4.0


def test_branching_by_ply_averages_over_the_games_that_reached_the_ply() -> None:
    tally = Tally()
    tally.add(GameStats(0, 0, 0, 3, 3, (4, 2, 6)))
    tally.add(GameStats(1, 1, 0, 1, 1, (2,)))
    assert tally.branching_by_ply() == [3.0, 2.0, 6.0]
    assert tally.branching_count == [2, 1, 1]
    assert tally.branching_mean() == pytest.approx(14 / 4)


def test_repetitions_caps_leads_and_time() -> None:
    tally = Tally()
    tally.add(record(DRAW, 4, repetition=True, lead_changes=0))
    tally.add(
        record(DRAW, 9, capped=True, lead_changes=3, think_seconds=(0.5, 0.25), agent_moves=(5, 4))
    )
    tally.add(record(1, 2, lead_changes=1, think_seconds=(0.5, 0.75), agent_moves=(5, 4)))
    tally.add(record(0, 2))  # no evaluation
    assert (tally.repetition_draws, tally.capped, tally.draws) == (1, 1, 2)
    assert (tally.lead_games, tally.lead_changes, tally.lead_changed_games) == (3, 4, 2)
    assert tally.seconds_per_move(0) == pytest.approx(0.1)
    assert tally.seconds_per_move(1) == pytest.approx(1.0 / 8)


def test_merging_in_any_order_gives_the_same_totals() -> None:
    rng = random.Random(5)
    games = [
        GameStats(
            i,
            i % 2,
            rng.choice((0, 1, DRAW)),
            n,
            n,
            tuple(rng.randrange(1, 9) for _ in range(n)),
            lead_changes=rng.randrange(3),
            think_seconds=(rng.random(), rng.random()),
        )
        for i, n in enumerate(rng.randrange(1, 30) for _ in range(60))
    ]
    one = Tally()
    for game in games:
        one.add(game)
    chunks = [games[i : i + 7] for i in range(0, 60, 7)]
    rng.shuffle(chunks)
    merged = Tally()
    for chunk in chunks:
        part = Tally()
        for game in reversed(chunk):
            part.add(game)
        merged.merge(part)
    assert merged == one
    assert merged.think_seconds == pytest.approx(one.think_seconds)
