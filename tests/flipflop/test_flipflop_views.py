"""FlipFlop views (render, observation, rules summary) and the conformance kit on both sizes."""

from __future__ import annotations

import json

import pytest

from flipgames import make
from flipgames.core.conformance import check_random_games


def test_render_has_coordinates_rank_1_at_the_bottom_goals_and_the_turn() -> None:
    """The terminal board: files and ranks around it, rank 1 last, goals bracketed, status."""
    lines = make("flipflop").new_initial_state().render().splitlines()
    assert lines[0].split() == ["a", "b", "c", "d", "e"] == lines[-3].split()
    assert lines[2] == "5 │ ●+ │ ●+ │[●+]│ ●+ │ ●+ │ 5"
    assert lines[10] == "1 │ ○+ │ ○+ │[○+]│ ○+ │ ○+ │ 1"
    assert lines[-1] == "White to move"


def test_render_status_shows_check_repetition_and_the_end() -> None:
    """The status line says what a player needs: check, a second occurrence, the result."""
    game = make("flipflop-3x3")
    in_check = game.state_from_actions(["b1xb3"]).render()
    assert in_check.endswith("Black to move, in check: capture the piece on b3")
    mate = game.state_from_actions(["a1-a2", "c3-c2", "a2xb3", "c2xb3", "c1-c3", "b3xb1"]).render()
    assert mate.endswith("Black wins: White is checkmated (cannot capture on b1)")
    cycle = ["a1-a2", "e5-e4", "a2-b3", "e4-d3", "b3-b2", "d3-d4", "b2-a1", "d4-e5"]
    again = make("flipflop").state_from_actions(cycle).render()
    assert again.endswith("White to move (this position has occurred twice: a third time draws)")
    drawn = make("flipflop").state_from_actions(cycle * 2).render()
    assert drawn.endswith("Draw: the same position occurred for the third time")


def test_observation_is_json_and_tells_each_viewer_which_pieces_are_theirs() -> None:
    """Everything is public; a player's view marks its own pieces, a spectator's does not."""
    state = make("flipflop-3x3").state_from_actions(["b1xb3"])
    white, black, spectator = (state.observation(p) for p in (0, 1, None))
    json.dumps([white, black, spectator])
    piece = {"owner": 0, "colour": "White", "face": "bishop", "mine": True}
    assert white["board"]["pieces"]["b3"] == piece
    assert black["board"]["pieces"]["b3"]["mine"] is False
    assert "mine" not in spectator["board"]["pieces"]["b3"]
    assert white["to_move"] == 1 and white["board"]["in_check"] is True
    assert white["status"] == "playing" and white["status_text"].startswith("Black to move")
    assert white["legal"] == ["a3xb3", "c3xb3"]
    assert white["result"] == "*" and white["board"]["occurrences"] == 1


def test_rules_summary_states_rules_rulings_and_options() -> None:
    """`flipgames rules` prints the rules as played, with the rulings and options."""
    text = make("flipflop-3x3").rules_summary()
    for phrase in (
        "3x3",
        "b1 is White's goal",
        "never leaping",
        "flipped",
        "either goal",
        "check",
        "third time",
        "Options: none",
    ):
        assert phrase in text


@pytest.mark.parametrize("name", ["flipflop", "flipflop-3x3"])
def test_random_games_keep_the_protocol_invariants(name: str) -> None:
    """The conformance kit: a short seeded run (the registry-wide test plays 1,000)."""
    stats = check_random_games(make(name), games=60, seed=7, deep_checks=3)
    assert stats.games == 60 and "*" not in stats.results
