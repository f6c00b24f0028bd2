"""FlipFour as seen from outside: game attributes, options, rules text, render, observation,
serialisation and the random-game conformance kit."""

from __future__ import annotations

import json

import pytest

from flipgames import OptionError, make, state_from_json
from flipgames.core.conformance import check_random_games
from flipgames.games.flipfour.rules import FlipFourState


def play(line: str) -> FlipFourState:
    state = make("flipfour").new_initial_state()
    for text in line.split():
        state = state.apply(state.parse_action(text))
    assert isinstance(state, FlipFourState)
    return state


def test_game_attributes():
    """Registered as flipfour, two players White and Black, deterministic, repetition draws."""
    game = make("flipfour")
    assert (game.name, game.title, game.num_players) == ("flipfour", "FlipFour", 2)
    assert game.player_names == ("White", "Black")
    assert game.deterministic and not game.hidden_information and game.repetition_draws
    assert game.options == {}


def test_unknown_options_are_rejected():
    """The rulings name no FlipFour option, so any option is unknown."""
    with pytest.raises(OptionError, match="unknown option 'pieces'"):
        make("flipfour", pieces=5)


def test_rules_summary_states_rulebook_rulings_notation_and_options():
    """The rules text covers the rulebook, our rulings, the notation and the (absent) options."""
    text = make("flipfour").rules_summary()
    for phrase in ("starts empty", "four FlipFlop pieces in hand", "leapt over",
                   "no capturing", "whatever faces", "third time", "no legal move loses",
                   "R@c3", "c3-e5", "Rc3-c5", "Options\n- none"):  # fmt: skip
        assert phrase in text


def test_render_shows_coordinates_pieces_hands_and_status():
    """Rank 5 on top, files a-e on both edges, White capitals, Black small, hands, turn."""
    lines = play("R@a1 B@e5").render().splitlines()
    assert lines[0] == "FlipFour · White to move"
    assert lines[1].split() == list("abcde") == lines[-4].split()
    rank_rows = [line for line in lines if line[:1].isdigit()]
    assert [row[0] for row in rank_rows] == list("54321")
    assert rank_rows[0].endswith("│ b │ 5") and rank_rows[-1].startswith("1 │ R │")
    assert lines[-3] == "In hand: White 3, Black 3"
    assert "Black's in small letters (r, b)" in lines[-1]  # the legend, two lines


def test_render_brackets_the_winning_four():
    """The squares of a winning line are bracketed and the status names the winner."""
    text = play("R@a2 R@a5 B@b2 R@b5 R@c2 B@d5 B@d2").render()
    assert "White wins: four in a row a2 b2 c2 d2" in text
    assert "2 │[R]│[B]│[R]│[B]│   │ 2" in text


def test_observation_is_json_and_says_mine_and_theirs():
    """The observation is JSON-able, names the side to move and each viewer's own hand."""
    state = play("R@a1 B@e5 a1-a3")
    white, black, spectator = (state.observation(v) for v in (0, 1, None))
    for view in (white, black, spectator):
        json.dumps(view)
        pieces = {"a3": {"owner": 0, "face": "bishop"}, "e5": {"owner": 1, "face": "bishop"}}
        assert view["board"]["pieces"] == pieces
        assert view["to_move"] == 1 and view["status"] == "playing"
        assert view["board"]["in_hand"] == [3, 3]
    assert white["board"]["mine"] == {"player": 0, "in_hand": 3}
    assert black["board"]["theirs"]["player"] == 0
    assert "mine" not in spectator["board"] and "theirs" not in spectator["board"]
    assert "e5-d4" in black["legal"]


def test_observation_of_a_finished_game():
    """Once over: no side to move, the winner, the reason and the winning line."""
    view = play("R@a1 B@e5 R@a2 B@e4 R@b5 B@e3 R@c5 B@e2").observation(0)
    board = view["board"]
    assert view["to_move"] is None and view["status"] == "won" and board["winner"] == 1
    assert board["end_reason"] == "four in a row" and view["result"] == "0-1"
    assert board["winning_line"] == ["e2", "e3", "e4", "e5"] and view["legal"] == []


def test_observers_are_players_or_a_spectator():
    """Player numbers other than 0, 1 or None are refused."""
    with pytest.raises(ValueError, match="a viewer is a player 0 to 1 or None"):
        play("").observation(2)


def test_a_state_serialises_as_its_actions_and_replays():
    """to_json gives game, options and actions in notation; replaying restores the state."""
    state = play("R@a1 B@e5 a1-a3 e5-c3")
    data = state.to_json()
    assert data == {
        "game": "flipfour",
        "options": {},
        "actions": ["R@a1", "B@e5", "a1-a3", "e5-c3"],
    }
    assert state_from_json(json.dumps(data)) == state


def test_random_games_keep_every_protocol_invariant():
    """A few checked random games (the registry-wide suite plays 1000)."""
    # The state-by-state checks replay each game from the start at every state, so their cost
    # grows with the square of a game's length; seed 5's first three games are short (317,
    # 206 and 204 plies) where random FlipFour games average about 450.
    stats = check_random_games(make("flipfour"), games=30, seed=5, deep_checks=3)
    assert stats.games == 30 and "*" not in stats.results
    assert stats.results.get("1-0", 0) > 0 and stats.results.get("0-1", 0) > 0
