"""A seventh game that exists only in the tests proves that a game needs no line outside its
own code: Turning Turtles (``support/toy_game.py``), registered at run time through the
registry's API with a manifest, goes through the registry-wide machinery (conformance,
playthroughs, the action kinds its manifest declares, levels and perfect play from its
manifest, the solver catalogue, the web lobby and a match against the computer) without
anything in flipgames knowing its name; and every registry-wide test that needs no file of a
real game (its board module, docs page and golden playthrough, which docs/adding-a-game.md
lists) passes with it registered.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flipgames import make
from flipgames.agents.levels import levels_for, make_level_agent
from flipgames.core import registry
from flipgames.core.conformance import check_random_games
from flipgames.core.manifest import is_listed_solved, manifest_for
from flipgames.core.playthrough import playthrough
from flipgames.solvers import catalog
from support.toy_game import MANIFEST, NAME

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    registry.register({NAME: MANIFEST})
    yield
    registry.unregister(NAME)


def test_the_toy_is_registered_after_the_packaged_games_and_then_removed():
    assert registry.game_names()[-1] == NAME and manifest_for(NAME) is MANIFEST
    assert make(NAME, coins=3).new_initial_state().render() == "H H H"
    with pytest.raises(ValueError, match="already registered"):
        registry.register({NAME: MANIFEST})
    with pytest.raises(ValueError, match="cannot be unregistered"):
        registry.unregister(registry.game_names()[0])


@pytest.mark.parametrize("coins", [2, 5, 8, 10])
def test_conformance(coins):
    check_random_games(make(NAME, coins=coins), games=30, seed=coins)


def test_playthrough_is_reproducible():
    game = make(NAME)
    assert playthrough(game, seed=4) == playthrough(game, seed=4)
    assert f"game: {NAME}" in playthrough(game, seed=4)


def test_action_kinds_are_the_declared_ones():
    state, seen = make(NAME).new_initial_state(), set()
    while not state.is_terminal():
        seen |= {info["kind"] for info in state.legal_actions_info()}
        state = state.apply(state.legal_actions()[-1])
    assert seen == set(MANIFEST.action_kinds)


def test_levels_and_perfect_play_come_from_the_manifest():
    game = make(NAME)
    assert is_listed_solved(game) and catalog.is_solved(game)
    assert levels_for(game) == ["easy", "medium", "hard", "perfect"]
    # No draws in this game: the solver names the winner, and perfect play keeps the win.
    outcome = catalog.solution(game).value(game.new_initial_state()).outcome
    assert outcome in ("win", "loss")
    winner = 0 if outcome == "win" else 1
    for level in levels_for(game):
        perfect = make_level_agent(game, "perfect", random.Random(1))
        other = make_level_agent(game, level, random.Random(2))
        state = game.new_initial_state()
        while not state.is_terminal():
            state = state.apply(
                (perfect if state.current_player == winner else other).choose(state)
            )
        assert state.returns()[winner] == 1, level


def test_the_web_lobby_lists_it_and_plays_it(tmp_path: Path):
    from fastapi.testclient import TestClient

    from flipgames.web.app import create_app
    from flipgames.web.settings import Settings

    url = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    with TestClient(create_app(Settings(database_url=url))) as client:
        games = {g["name"]: g for g in client.get("/api/games").json()}
        assert games[NAME]["art"] == MANIFEST.art and games[NAME]["pitch"] == MANIFEST.pitch
        assert games[NAME]["levels"][-1] == "perfect"
        created = client.post("/api/matches", json={"game": NAME, "level": "easy", "seed": 1})
        assert created.status_code == 201, created.text


#: The registry-wide test files: every test parametrized over the game names.
REGISTRY_WIDE = [
    "tests/test_conformance.py",
    "tests/test_playthroughs.py",
    "tests/core",
    "tests/cli",
    "tests/envs",
    "tests/agents",
    "tests/solvers",
    "tests/lab",
    "tests/web",
]
#: The two tests of files a real game adds (board module, docs page, golden playthrough).
NEEDS_FILES = "golden_file or board_module_docs_page"


@pytest.mark.slow
def test_the_registry_wide_tests_pass_with_the_toy_registered():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    command = [sys.executable, "-m", "pytest", "-n0", "-p", "no:randomly"]
    command += ["-p", "support.toy_plugin", "-k", f"turning and not ({NEEDS_FILES})"]
    run = subprocess.run(
        [*command, *REGISTRY_WIDE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    passed = int(re.findall(r"(\d+) passed", run.stdout)[-1])
    assert passed >= 25, run.stdout[-1000:]  # conformance, protocol, levels, envs, CLI, ...
