"""Flip Switch under the conformance kit, for every option value and the variant boards.

The registry-wide suite plays 1,000 games per option set; this quick check covers the variant
sizes too (which that suite does not), and runs in a few seconds.
"""

from __future__ import annotations

import pytest

from flipgames import make
from flipgames.core.conformance import check_random_games
from flipgames.solvers.perft import PerftUnsupportedError, perft

OPTION_SETS: list[object] = [
    {},
    {"lines": "edges"},
    {"no_move": "pass"},
    {"rounds": 3},
    # The variant boards take the longest: slow (CI runs them).
    *(
        pytest.param(options, marks=pytest.mark.slow)
        for options in (
            {"size": 4, "shapes": 4, "copies": 4},
            {"size": 4, "shapes": 4, "copies": 4, "no_move": "pass", "lines": "edges"},
            {"size": 4, "shapes": 2, "copies": 8},
            {"size": 5, "shapes": 5, "copies": 5},
            {"size": 6, "shapes": 4, "copies": 9},
        )
    ),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_random_games_keep_every_invariant(options: dict[str, object]) -> None:
    """Random games: legal actions, chance odds, notation, JSON and records all hold."""
    stats = check_random_games(make("flip-switch", options), games=40, seed=2026, deep_checks=3)
    assert stats.games == 40 and "*" not in stats.results


def test_perft_is_refused_because_flips_are_chance() -> None:
    """perft is defined only for deterministic games; Flip Switch has chance nodes."""
    with pytest.raises(PerftUnsupportedError, match="flip-switch"):
        perft(make("flip-switch").new_initial_state(), 1)
