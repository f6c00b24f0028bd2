"""Each game's facts for the benchmarks (``Manifest.bench``, read by ``bench/``): perft depths
only for deterministic games, arena game counts only for levels that exist, the frozen old
``hard`` an alpha-beta level, and all of it read-only."""

from __future__ import annotations

import pytest

from flipgames import game_names, make
from flipgames.agents.levels import LEVELS
from flipgames.core.manifest import BenchFacts, alphabeta, manifest_for, mcts
from support.toy_game import NAME as TOY


@pytest.mark.parametrize("name", game_names())
def test_a_games_bench_facts_fit_the_game(name):
    facts = manifest_for(name).bench
    if facts.perft_depth is not None:
        assert make(name).deterministic and facts.perft_depth >= 1
    assert set(facts.arena_games) <= set(LEVELS)
    assert all(games >= 1 for games in facts.arena_games.values())
    if facts.baseline_hard is not None:
        assert facts.baseline_hard.agent == "alphabeta"
        assert facts.baseline_hard.seconds is None  # node budgets only: it replays exactly


def test_every_packaged_deterministic_game_has_a_perft_depth_and_each_a_baseline():
    packaged = [name for name in game_names() if name != TOY]
    for name in packaged:
        facts = manifest_for(name).bench
        assert (facts.perft_depth is not None) is make(name).deterministic, name
        assert facts.baseline_hard is not None, name


def test_bench_facts_are_read_only_and_refuse_a_baseline_that_is_not_alpha_beta():
    facts = BenchFacts(arena_games={"easy": 10})
    with pytest.raises(TypeError):
        facts.arena_games["easy"] = 20  # type: ignore[index]
    with pytest.raises(ValueError, match="baseline hard is an alphabeta level"):
        BenchFacts(baseline_hard=mcts(100))
    assert BenchFacts(baseline_hard=alphabeta(3)).baseline_hard == alphabeta(3)
