"""The registry: every game by name, capabilities as data, unknown names listed."""

from __future__ import annotations

import pytest

from flipgames import Game, UnknownGameError, game_names, make

EXPECTED = {
    "flipflop": (False, True),
    "flipflop-3x3": (False, True),
    "flipfour": (False, True),
    "rubiks-flip": (False, False),
    "flip-switch": (True, True),
    "checkered-flag": (True, False),
}


def test_the_six_games_are_registered():
    assert game_names() == list(EXPECTED)


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
    with pytest.raises(UnknownGameError) as info:
        make("chess")
    assert str(info.value) == "unknown game 'chess': known games are " + ", ".join(EXPECTED)


def test_games_with_equal_options_are_equal():
    assert make("flipflop") == make("flipflop")
    assert make("flip-switch", lines="edges") != make("flip-switch")
