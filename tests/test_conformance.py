"""Random-simulation invariants over every registered game and every option set.

Each option set plays 1,000 random games (the first few checked state by state: clone equals
original, JSON round-trips, legal actions non-empty unless terminal, notation round-trips,
zero-sum returns, chance probabilities sum to one, rejected actions change nothing).
"""

from __future__ import annotations

from typing import Any

import pytest

from flipgames import game_class, game_names, make
from flipgames.core.conformance import check_random_games

# Integer options get extra values here; choice options are covered one value at a time.
EXTRA_OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "flip-switch": [
        {"rounds": 1},
        # The candidate fixes (docs/lab/flip-switch.md) and a 4x4 with lines of four.
        {"rounds": 1, "switch_limit": 4},
        {"rounds": 1, "must_flip": "yes", "switch_limit": 4},
        {"rounds": 1, "size": 4, "shapes": 4, "copies": 4, "line": 4},
    ],
    "checkered-flag": [{"laps": 2}],
}


def option_sets() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for name in game_names():
        cases.append((name, {}))
        for option in game_class(name).option_spec:
            for choice in option.choices or ():
                if choice != option.default:
                    cases.append((name, {option.name: choice}))
        cases.extend((name, extra) for extra in EXTRA_OPTION_SETS.get(name, []))
    return cases


def marked_option_sets() -> list[Any]:
    """:func:`option_sets`, the boards larger than the game's default marked slow (a thousand
    games on them take the longest; CI runs them)."""
    return [
        pytest.param(name, options, marks=pytest.mark.slow if "size" in options else ())
        for name, options in option_sets()
    ]


@pytest.mark.parametrize(("name", "options"), marked_option_sets(), ids=lambda v: str(v))
def test_one_thousand_random_games_keep_every_invariant(name: str, options: dict[str, Any]):
    game = make(name, options)
    stats = check_random_games(game, games=1000, seed=20261129)
    assert stats.games == 1000
    assert stats.plies >= 1000
    assert sum(stats.results.values()) == 1000
    assert "*" not in stats.results
