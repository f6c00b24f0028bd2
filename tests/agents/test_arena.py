"""The arena: seats alternate, chance and agents are seeded, counts and intervals add up."""

from __future__ import annotations

import pytest

from flipgames import make
from flipgames.agents import ArenaResult, RandomAgent, make_level_agent, play_match
from flipgames.agents.arena import wilson_interval
from flipgames.agents.base import Agent
from flipgames.core.game import State


class FirstAction(Agent):
    """Always the lowest legal id: a fixed, recognisable player."""

    name = "first"

    def choose(self, state: State) -> int:
        return state.legal_actions()[0]


def test_results_add_up_and_seats_alternate() -> None:
    result = play_match(make("flipflop-3x3"), RandomAgent, FirstAction, games=9, seed=4)
    assert result.games == 9
    assert result.wins + result.draws + result.losses == 9
    assert sum(result.as_first) == 5 and sum(result.as_second) == 4
    assert [a + b for a, b in zip(result.as_first, result.as_second, strict=True)] == [
        result.wins,
        result.draws,
        result.losses,
    ]
    assert result.moves[0] > 0 and result.moves[1] > 0
    assert result.plies == sum(result.moves)  # no chance in FlipFlop


def test_a_match_is_reproducible_and_the_seed_matters() -> None:
    game = make("checkered-flag")
    runs = [play_match(game, RandomAgent, RandomAgent, games=6, seed=s) for s in (8, 8, 9)]
    same = [(r.wins, r.draws, r.losses, r.plies) for r in runs]
    assert same[0] == same[1]
    assert same[0] != same[2]


def test_chance_is_drawn_from_the_match_seed_not_the_agents() -> None:
    """Two deterministic agents (no use of their generators) in a chance game: the games
    differ from one another only through the seeded chance, and replay exactly."""
    game = make("checkered-flag", start="first")
    first = play_match(game, FirstAction, FirstAction, games=4, seed=1)
    again = play_match(game, FirstAction, FirstAction, games=4, seed=1)
    assert first.plies == again.plies and first.wins == again.wins


def test_results_are_from_a_point_of_view() -> None:
    """A decent player against a terrible one scores well whichever seat it has."""
    game = make("flipflop-3x3")
    result = play_match(
        game, lambda rng: make_level_agent(game, "medium", rng), FirstAction, games=10, seed=2
    )
    assert result.as_first[0] >= 4 and result.as_second[0] >= 4
    swapped = play_match(
        game, FirstAction, lambda rng: make_level_agent(game, "medium", rng), games=10, seed=2
    )
    assert swapped.losses >= 8


def test_progress_reports_each_game() -> None:
    lines: list[str] = []
    counts: list[tuple[int | None, int | None]] = []

    def report(message: str, *, done: int | None = None, total: int | None = None) -> None:
        lines.append(message)
        counts.append((done, total))

    play_match(make("flipflop-3x3"), RandomAgent, RandomAgent, games=3, seed=1, progress=report)
    assert counts == [(1, 3), (2, 3), (3, 3)]
    assert lines[0].startswith("game 1/3: A (first) ")
    assert lines[2].startswith("game 3/3: A (first) ")
    assert "3 games: A won" in lines[2]


def test_bad_matches_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one game"):
        play_match(make("flipflop-3x3"), RandomAgent, RandomAgent, games=0, seed=1)


def test_wilson_interval() -> None:
    low, high = wilson_interval(0.5, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0.0, 20)[0] == 0.0 and wilson_interval(1.0, 20)[1] == pytest.approx(1)
    # More games, narrower interval; always around the score.
    widths = [wilson_interval(0.7, n)[1] - wilson_interval(0.7, n)[0] for n in (10, 100, 1000)]
    assert widths[0] > widths[1] > widths[2]
    assert all(lo <= 0.7 <= hi for lo, hi in (wilson_interval(0.7, n) for n in (10, 100)))


def test_summary_and_json() -> None:
    result = ArenaResult("flipflop-3x3", {}, 1, games=4, wins=2, draws=1, losses=1)
    assert result.score == 0.625
    data = result.to_json()
    assert data["games"] == 4 and data["score"] == 0.625
    assert data["interval"] == list(result.interval)
    assert "score 0.625" in result.summary()
