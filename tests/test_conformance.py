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


#: A board larger than the game's default plays its thousand games in this many parts, each
#: with a seed of its own and its share of the deep checks, so that no test takes a minute of
#: CPU; the parts are marked slow (CI runs them).
PARTS = 4


def marked_option_sets() -> list[Any]:
    """:func:`option_sets` with the part of the thousand games each test plays (None: all)."""
    params = []
    for name, options in option_sets():
        if "size" not in options:
            params.append(pytest.param(name, options, None, id=f"{name}-{options}"))
            continue
        params.extend(
            pytest.param(name, options, part, marks=pytest.mark.slow, id=f"{name}-{options}-{part}")
            for part in range(PARTS)
        )
    return params


@pytest.mark.parametrize(("name", "options", "part"), marked_option_sets())
def test_one_thousand_random_games_keep_every_invariant(
    name: str, options: dict[str, Any], part: int | None
):
    game = make(name, options)
    parts = 1 if part is None else PARTS
    games = 1000 // parts
    stats = check_random_games(game, games, seed=20261129 + (part or 0), deep_checks=20 // parts)
    assert stats.games == games
    assert stats.plies >= games
    assert sum(stats.results.values()) == games
    assert "*" not in stats.results
