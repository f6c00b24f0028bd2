"""Rubik's Flip as a registered game: options, rules text, views, and random-play conformance."""

from __future__ import annotations

import itertools
import json

import pytest

from flipgames import make
from flipgames.core.conformance import check_random_games
from flipgames.core.errors import OptionError

OPTION_SETS = [
    dict(zip(("flip", "lock", "both"), values, strict=True))
    for values in itertools.product(
        ("inplace", "flap"), ("king", "orthogonal"), ("mover", "opponent")
    )
]


def test_registered_name_title_and_defaults():
    """The registry makes "rubiks-flip" with the seed rules as defaults."""
    game = make("rubiks-flip")
    assert (game.name, game.title) == ("rubiks-flip", "Rubik's Flip")
    assert game.options == {"flip": "inplace", "lock": "king", "both": "mover"}
    assert game.deterministic and not game.hidden_information and not game.repetition_draws


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"flip": "spin"}, "bad value 'spin' for option 'flip': allowed inplace | flap"),
        ({"lock": "rook"}, "option 'lock': allowed king | orthogonal"),
        ({"both": "draw"}, "option 'both': allowed mover | opponent"),
        ({"size": "5"}, "unknown option 'size': this game's options are flip, lock, both"),
    ],
)
def test_bad_options_name_the_option_and_what_is_allowed(options, message):
    """OptionError names the option and the allowed values."""
    with pytest.raises(OptionError, match=message):
        make("rubiks-flip", options)


def test_rules_summary_states_rulings_and_every_option_with_default():
    """rules_summary: the clauses, our rulings, and each option with default and values."""
    text = make("rubiks-flip", flip="flap").rules_summary()
    for needed in (
        "8\nred/blue tiles",
        "Turn 1: place only",
        "Mandatory when some opponent tile can be flipped",
        "24 on the board",
        "(a placement can lock it)",
        "all 16 tiles placed",
        "- A flipped tile turns over: where it stands (default) or onto an adjacent empty",
        "This game: onto an adjacent empty square.",
        "- A tile is locked when these neighbours are occupied: all around it (default) or",
        "- When both have a locked row: the player who placed wins (default) or the other",
        "cannot be flapped",
        "b2-b3/c3W",
    ):
        assert needed in text


def test_render_shows_coordinates_locks_hands_and_whose_turn():
    """The board has files and ranks around it (rank 1 at the bottom) and a status line."""
    state = make("rubiks-flip").state_from_actions(["a1R", "a1/b1Y", "b1/a2R", "a1/b2Y"])
    lines = state.render().splitlines()
    assert lines[0].split() == ["a", "b", "c", "d"] == lines[-3].split()
    assert lines[2].startswith("4 │") and lines[8].startswith("1 │[R]│ W │")
    assert "In hand: Red/Blue (R/B) 6, Yellow/White (Y/W) 6" in lines[-2]
    assert (
        lines[-1] == "Red/Blue to move: flip one of b1, b2, then place a tile, red or blue side up"
    )


def test_render_marks_the_winning_row():
    """A finished game stars the winning tiles and names the winner."""
    moves = "a2B a2/d3W d3/c4R c4/c3W c3/b4B b4/a3W d3/d4B a2/c2Y c3/a4B b4/d1Y d1/b3B"
    text = make("rubiks-flip").state_from_actions(moves.split()).render()
    assert "4 │*B*│*B*│*B*│[B]│ 4" in text
    assert text.endswith("Red/Blue wins: locked row a4 b4 c4, all blue")


def test_observation_is_json_and_the_same_board_for_every_viewer():
    """Everything is public: players and spectators see the same board and status."""
    state = make("rubiks-flip").state_from_actions(["b2R", "b2/c3Y"])
    views = [state.observation(v) for v in (0, 1, None)]
    for view in views:
        json.dumps(view)
        board = view["board"]
        assert board["squares"]["b2"] == {"owner": 0, "colour": "B", "locked": False}
        assert board["squares"]["a1"] is None
        assert view["to_move"] == 0 and board["flip_choices"] == ["c3"]
        assert board["tiles_in_hand"] == [7, 7]
    assert views[0]["board"]["my_colours"] == ["R", "B"]
    assert views[1]["board"]["my_colours"] == ["Y", "W"]
    assert "my_colours" not in views[2]["board"]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o.values()))
def test_random_games_keep_the_protocol_invariants(options):
    """The conformance kit passes for every option set (the registry-wide test runs 1000)."""
    stats = check_random_games(make("rubiks-flip", options), games=40, seed=7, deep_checks=4)
    assert stats.games == 40 and "*" not in stats.results
    assert stats.max_length <= 16
