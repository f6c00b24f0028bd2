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
    """:func:`option_sets` with the part of the thousand games each test plays (None: all).

    Every thousand is marked slow (2 to 15 s of CPU each; FlipFour's default rules 15): the
    fast loop (-m "not slow") plays a hundred games of each option set instead (the test after
    this one), and CI plays the thousands.
    """
    params = []
    for name, options in option_sets():
        if "size" not in options:
            params.append(
                pytest.param(name, options, None, marks=pytest.mark.slow, id=f"{name}-{options}")
            )
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


@pytest.mark.parametrize(
    ("name", "options"),
    [pytest.param(n, o, id=f"{n}-{o}") for n, o in option_sets() if "size" not in o],
)
def test_a_hundred_random_games_of_every_option_set_keep_every_invariant(
    name: str, options: dict[str, Any]
) -> None:
    """The fast loop's share of the thousand games of every option set, the default rules
    included (the thousands are slow): a hundred, the first ten checked state by state."""
    stats = check_random_games(make(name, options), 100, seed=20261202, deep_checks=10)
    assert stats.games == sum(stats.results.values()) == 100
    assert stats.plies >= 100
    assert "*" not in stats.results
