"""The registry: every game by name, capabilities as data, unknown names listed.

The six packaged games are checked exactly; a game the tests register at run time (the toy
game, under ``-p support.toy_plugin``) is allowed after them and nothing else is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flipgames import Game, UnknownGameError, game_names, make
from flipgames.core import registry
from support.toy_game import MANIFEST as TOY_MANIFEST
from support.toy_game import NAME as TOY

#: Each packaged game: (has chance, repetition draws).
EXPECTED = {
    "flipflop": (False, True),
    "flipflop-3x3": (False, True),
    "flipfour": (False, True),
    "rubiks-flip": (False, False),
    "flip-switch": (True, True),
    "checkered-flag": (True, False),
}


def added_by_the_tests() -> list[str]:
    """The games registered at run time in this run: the toy game, when its plugin is on."""
    return [TOY] if TOY in game_names() else []


@pytest.fixture
def toy() -> Iterator[None]:
    """The toy game registered for one test (left as it is when the plugin registered it)."""
    already = TOY in game_names()
    if not already:
        registry.register({TOY: TOY_MANIFEST})
    yield
    if not already:
        registry.unregister(TOY)


def test_the_six_games_are_registered():
    assert game_names() == list(EXPECTED) + added_by_the_tests()


@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_six_games_come_from_game_packages(name):
    with pytest.raises(ValueError, match="comes from a game package"):
        registry.unregister(name)


def test_the_six_games_come_first_and_a_registered_game_after_them(toy):
    assert game_names() == [*EXPECTED, TOY]
    assert added_by_the_tests() == [TOY]


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_game_declares_its_capabilities(name):
    game = make(name)
    assert isinstance(game, Game)
    assert game.name == name
    assert game.num_players == 2
    assert len(game.player_names) == 2
    assert (game.has_chance, game.repetition_draws) == EXPECTED[name]
    assert game.deterministic is not game.has_chance
    assert game.rules_summary().strip()


def test_unknown_game_lists_the_known_ones():
    known = [*EXPECTED, *added_by_the_tests()]
    with pytest.raises(UnknownGameError) as info:
        make("chess")
    assert str(info.value) == "unknown game 'chess': known games are " + ", ".join(known)


def test_unknown_game_lists_a_registered_game_too(toy):
    with pytest.raises(UnknownGameError) as info:
        make("chess")
    assert str(info.value).endswith(f"checkered-flag, {TOY}")


def test_games_with_equal_options_are_equal():
    assert make("flipflop") == make("flipflop")
    assert make("flip-switch", lines="edges") != make("flip-switch")
