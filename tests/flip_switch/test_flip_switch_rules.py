"""Flip Switch: one test per rulebook clause and per ruling (the designer's Flip
Switch page, docs/rulings.md).

Positions are built by playing notation from the initial state: a flip is its square followed
by the shape the chance node reveals (``"b2 heart"`` is one turn).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction

import pytest

from flipgames import make
from flipgames.core.errors import IllegalActionError, OptionError
from flipgames.core.game import CHANCE, random_action
from flipgames.games.flip_switch.notation import orthogonal_pairs, square_name
from flipgames.games.flip_switch.rules import FlipSwitch, FlipSwitchState, lines_through

Play = Callable[..., FlipSwitchState]

# Every tile face up, no line anywhere; player 2 to move.
#   3  heart  heart  square
#   2  square star   star
#   1  star   square heart
FULL_NO_LINE = "a1 star b1 square c1 heart a2 square b2 star c2 star a3 heart b3 heart c3 square"
# The round's starter lines up hearts on rank 1, then squares on rank 2: two shapes, a win.
STARTER_WINS = "a1 heart a2 square b1 heart c3 star c1 heart b2 square c2 square"
# The same, but the starter's opponent makes both lines.
SECOND_WINS = "c3 star a1 heart a2 square b1 heart b3 star c1 heart b2 square c2 square"
# 4x4, 4 shapes of 4: each player lines up two shapes (a majority is 3), then the last four
# tiles are flipped. Every shape is nullified, so no switch is legal; player 1 to move.
ALL_NULLIFIED_4X4 = (
    "a1 heart a4 star b1 heart b4 star c1 heart c4 star "
    "a2 square a3 circle b2 square b3 circle c2 square c3 circle "
    "d1 heart d2 square d3 circle d4 star"
)
VARIANT_4X4 = {"size": 4, "shapes": 4, "copies": 4}


def switches(state: FlipSwitchState) -> set[str]:
    """The legal switches of ``state`` in notation."""
    return {t for t in map(state.action_to_string, state.legal_actions()) if "-" in t}


# --- setup ------------------------------------------------------------------------------------


def test_setup_nine_tiles_three_per_shape_all_face_down(play: Play) -> None:
    """Setup: 9 tiles, 3 each of heart, square, star, face down on 3x3; nothing is revealed."""
    state = play("")
    obs = state.observation(None)["board"]
    assert obs["grid"] == [[None] * 3] * 3
    assert obs["unrevealed"] == {"heart": 3, "square": 3, "star": 3}
    assert state.current_player == 0
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"
    ]  # fmt: skip


# --- flipping -----------------------------------------------------------------------------


def test_flip_is_the_players_choice_of_square_then_chance_reveals_the_shape(play: Play) -> None:
    """Hidden tiles: a flip is a player action followed by a chance outcome (the shape)."""
    state = play("b2")
    assert state.current_player == CHANCE
    assert state.observation(None)["board"]["flipping"] == {"square": "b2", "player": 0}
    state = play("b2 star")
    assert state.observation(None)["board"]["grid"][1] == [None, "star", None]
    assert state.current_player == 1


def test_flip_probabilities_are_proportional_to_shapes_not_yet_revealed(play: Play) -> None:
    """Each flip's shape has probability proportional to the unrevealed tiles of that shape."""
    state = play("a1 heart b1 heart c1")
    outcomes = {state.action_to_string(a): p for a, p in state.chance_outcomes()}
    assert outcomes == {"heart": Fraction(1, 7), "square": Fraction(3, 7), "star": Fraction(3, 7)}
    assert sum(outcomes.values()) == 1
    assert all(isinstance(p, Fraction) for p in outcomes.values())


def test_a_shape_with_no_face_down_tile_left_is_not_a_flip_outcome(play: Play) -> None:
    """Probability proportional to unrevealed copies: zero copies left means no outcome."""
    state = play("a1 heart b2 heart c3 heart a2")
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["square", "star"]
    with pytest.raises(IllegalActionError, match="no face-down heart is left"):
        state.parse_action("heart")


def test_flip_only_a_face_down_tile(play: Play) -> None:
    """Turn option 1: the player may flip over a face-down tile (not a face-up one)."""
    state = play("b2 heart")
    with pytest.raises(IllegalActionError, match="b2 is already face up"):
        state.parse_action("b2")


# --- switching ----------------------------------------------------------------------------


def test_switch_only_orthogonally_adjacent_tiles(play: Play) -> None:
    """Switch two adjacent tiles, 'directly next to each other, not diagonally'."""
    state = play(FULL_NO_LINE)
    board = state.observation(None)["board"]["grid"]
    expected = set()
    for i, j in orthogonal_pairs(3):
        if board[i // 3][i % 3] != board[j // 3][j % 3]:
            expected.add(f"{square_name(i, 3)}-{square_name(j, 3)}")
    assert switches(state) == expected
    for text in ("a1-b2", "a1-c1", "a1-a1"):
        with pytest.raises(IllegalActionError, match="orthogonally adjacent"):
            state.parse_action(text)


def test_switch_not_two_tiles_of_the_same_shape(play: Play) -> None:
    """A switch may not swap two of the same shape."""
    state = play(FULL_NO_LINE)
    with pytest.raises(IllegalActionError, match="both tiles are stars"):
        state.parse_action("b2-c2")
    with pytest.raises(IllegalActionError, match="both tiles are hearts"):
        state.parse_action("a3-b3")


def test_switch_not_a_face_down_tile(play: Play) -> None:
    """A switch may not move any face-down tile."""
    state = play("b2 heart b1 square")
    with pytest.raises(IllegalActionError, match="c2 is face down"):
        state.parse_action("b2-c2")
    assert switches(state) == {"b1-b2"}


def test_switch_not_two_nullified_shapes(play: Play) -> None:
    """Two different shapes that have been nullified can not switch positions."""
    # Player 1 nullifies hearts (rank 1), player 2 stars (rank 3); player 1 then moves a heart
    # next to a star.
    state = play("a1 heart a3 star b1 heart b3 star c1 heart c3 star a2 square c2 square a1-a2")
    assert state.observation(None)["board"]["nullified"] == {"heart": 0, "star": 1}
    with pytest.raises(IllegalActionError, match="heart and star are both nullified"):
        state.parse_action("a2-a3")


def test_nullified_shape_may_switch_with_a_shape_not_nullified(play: Play) -> None:
    """FAQ: you can switch a nullified shape as long as the other is not nullified."""
    state = play("a1 heart a2 square b1 heart c3 star c1 heart")
    assert state.observation(None)["board"]["nullified"] == {"heart": 0}
    after = state.apply(state.parse_action("a1-a2"))
    assert after.observation(None)["board"]["grid"][0][0] == "square"


def test_switch_not_the_exact_switch_the_opponent_just_made(play: Play) -> None:
    """A player may not make the same position switch that the previous player made."""
    state = play(FULL_NO_LINE + " a1-b1")
    assert state.observation(0)["board"]["banned_switch"] == "a1-b1"
    for text in ("a1-b1", "b1-a1"):
        with pytest.raises(IllegalActionError, match="immediately preceding turn"):
            state.parse_action(text)
    assert "a1-b1" not in switches(state)


def test_opponents_switch_may_be_repeated_after_an_intervening_turn(play: Play) -> None:
    """The ban covers only the immediately preceding turn: later the same switch is legal."""
    state = play(FULL_NO_LINE + " a1-b1 b3-c3 c1-c2")
    assert "a1-b1" in switches(state)


def test_own_previous_switch_is_not_restricted(play: Play) -> None:
    """The ban names the opponent's switch: a player may repeat their own previous switch."""
    state = play(FULL_NO_LINE + " a1-b1 b3-c3")
    assert state.current_player == 1
    assert "a1-b1" in switches(state)


def test_a_flip_lifts_the_ban(play: Play) -> None:
    """Only a switch in the immediately preceding turn is banned; after a flip none is."""
    state = play("a1 heart b1 square a1-b1 c3 star")
    assert state.observation(None)["board"]["banned_switch"] is None
    assert "a1-b1" in switches(state)


# --- lines and scoring --------------------------------------------------------------------


@pytest.mark.parametrize("line", ["a2 b2 c2", "b1 b2 b3"])
def test_lines_all_middle_row_and_column_score(play: Play, line: str) -> None:
    """Option lines=all (default): 3 rows, 3 columns and 2 diagonals all score."""
    first, second, third = line.split()
    state = play(f"{first} heart a3 star {second} heart c3 star {third} heart")
    assert state.observation(None)["board"]["nullified"] == {"heart": 0}


@pytest.mark.parametrize("line", ["a2 b2 c2", "b1 b2 b3"])
def test_lines_edges_middle_row_and_column_do_not_score(play: Play, line: str) -> None:
    """Option lines=edges: only an 'entire side' or corner-to-corner diagonal scores."""
    first, second, third = line.split()
    state = play(f"{first} heart a3 star {second} heart c3 star {third} heart", lines="edges")
    assert state.observation(None)["board"]["nullified"] == {}


@pytest.mark.parametrize("line", ["a1 b1 c1", "c1 c2 c3", "a1 b2 c3", "c1 b2 a3"])
def test_lines_edges_sides_and_diagonals_score(play: Play, line: str) -> None:
    """Option lines=edges: the four sides and both corner-to-corner diagonals score."""
    first, second, third = line.split()
    filler = [sq for sq in ("a2", "b3", "a3", "b1") if sq not in line][:2]
    state = play(
        f"{first} heart {filler[0]} star {second} heart {filler[1]} star {third} heart",
        lines="edges",
    )
    assert state.observation(None)["board"]["nullified"] == {"heart": 0}


def test_lines_on_larger_boards_are_any_three_in_a_row_or_edges_and_long_diagonals() -> None:
    """Variants: lines=all is any 3 consecutive squares; lines=edges keeps sides and diagonals."""
    for size, edges, count in ((4, False, 24), (4, True, 12), (5, False, 48), (5, True, 18)):
        assert len(set(sum(lines_through(size, edges), ()))) == count


def test_scoring_credits_the_acting_player_and_nullifies_for_both(play: Play) -> None:
    """Three in a row credits the player who made it; the shape is nullified for both."""
    state = play("a1 heart a2 square b1 heart c3 star c1 heart")
    obs = state.observation(1)["board"]
    assert obs["credited"] == [["heart"], []]
    assert obs["nullified"] == {"heart": 0}
    assert obs["mine"]["shapes"] == [] and obs["theirs"]["shapes"] == ["heart"]


def test_a_switch_scores_for_the_switcher(play: Play) -> None:
    """An action that makes a line credits the acting player (here player 2, by a switch)."""
    state = play(FULL_NO_LINE + " c2-c3")  # the a1-b2-c3 diagonal becomes three stars
    assert state.observation(None)["board"]["nullified"] == {"star": 1}


def test_a_flip_can_score_for_the_flipper(play: Play) -> None:
    """A flip can score: the flipper is credited when the chance outcome is applied."""
    before = play("a1 heart a2 square b1 heart c3 star c1")
    assert before.current_player == CHANCE
    state = before.apply(before.parse_action("heart"))
    assert state.observation(None)["board"]["credited"] == [["heart"], []]


def test_one_action_can_credit_two_shapes(play: Play) -> None:
    """One switch making a heart line and a star line credits both (and so wins the round)."""
    state = play("a1 heart a2 star b1 heart b2 star c1 star c2 heart c1-c2")
    assert state.observation(None)["board"]["credited"] == [["heart", "star"], []]
    assert state.is_terminal() and state.returns() == (1, -1)


def test_a_nullified_shape_cannot_score_again(play: Play) -> None:
    """Nullified shapes 'cannot be used to score again in that round'."""
    # Player 1 lines up hearts; player 2 breaks and later remakes the heart line.
    state = play("a1 heart a2 square b1 heart c3 star c1 heart a1-a2 b2 square a1-a2")
    obs = state.observation(None)["board"]
    assert obs["grid"][0] == ["heart", "heart", "heart"]
    assert obs["credited"] == [["heart"], []]


# --- the round ----------------------------------------------------------------------------


def test_first_player_credited_with_two_shapes_wins_the_round(play: Play) -> None:
    """Once one of the players has nullified 2 shapes, they earn a point for that round."""
    before = play(STARTER_WINS.rsplit(" ", 1)[0])
    assert not before.is_terminal()
    state = before.apply(before.parse_action("square"))
    assert state.is_terminal() and state.result() == "1-0"
    assert (
        state.observation(None)["board"]["last_round"]
        == "round 1: player 1 won with heart and square"
    )


def test_second_player_can_win_the_round(play: Play) -> None:
    """The round goes to whoever is first credited with 2 shapes, starter or not."""
    state = play(SECOND_WINS)
    assert state.returns() == (-1, 1)


def test_third_repetition_draws_the_round_and_the_key_includes_the_last_switch(
    play: Play,
) -> None:
    """A position (tiles, nullified, last switch, side to move) occurring a third time draws."""
    state = play(FULL_NO_LINE)
    start = state
    seen = []
    for ply in range(9):
        assert not state.is_terminal(), f"drawn after {ply} switches"
        state = state.apply(state.parse_action("a1-b1" if ply % 2 == 0 else "b3-c3"))
        seen.append(state)
    # Switches 4 and 8 restore the tiles of the start, but the start had no last switch, so
    # ignoring it would draw at switch 8. The draw comes at switch 9: the third occurrence of
    # the position after switch 1 (last switch a1-b1, player 1 to move).
    assert seen[3].observation(None)["board"]["grid"] == start.observation(None)["board"]["grid"]
    assert seen[3].key() != start.key() and seen[3].key() == seen[7].key()
    assert seen[0].key() == seen[4].key()
    assert state.is_terminal() and state.result() == "1/2-1/2"
    assert "third time" in state.observation(None)["board"]["last_round"]


def test_repetition_key_includes_nullified_shapes_and_their_owners(play: Play) -> None:
    """The repeated position includes which shapes are nullified and who owns them."""
    mine = play("a1 heart c3 star b1 heart c2 square c1 heart b3 square")
    theirs = play("c3 star a1 heart c2 square b1 heart b3 square c1 heart")
    assert mine.observation(None)["board"]["grid"] == theirs.observation(None)["board"]["grid"]
    assert mine.current_player == theirs.current_player == 0
    assert mine.observation(None)["board"]["nullified"] == {"heart": 0}
    assert theirs.observation(None)["board"]["nullified"] == {"heart": 1}
    assert mine.key() != theirs.key()


def test_no_legal_action_draws_the_round_by_default(play: Play) -> None:
    """no_move=draw: if the player to move has no legal action, the round is drawn."""
    state = play(ALL_NULLIFIED_4X4, **VARIANT_4X4)
    assert state.is_terminal() and state.result() == "1/2-1/2"
    assert state.observation(None)["board"]["last_round"] == (
        "round 1 drawn: player 1 had no legal action"
    )


def test_no_move_pass_option_makes_the_player_pass(play: Play) -> None:
    """no_move=pass: the player with no legal action passes instead (notation 'pass')."""
    state = play(ALL_NULLIFIED_4X4, no_move="pass", **VARIANT_4X4)
    assert not state.is_terminal()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["pass"]
    state = state.apply(state.parse_action("pass"))
    assert state.current_player == 1


def test_both_players_passing_forever_is_drawn_by_repetition(play: Play) -> None:
    """Our ruling: when both can only pass, the third repetition (after 4 passes) draws."""
    state = play(ALL_NULLIFIED_4X4 + " pass pass pass", no_move="pass", **VARIANT_4X4)
    assert not state.is_terminal()
    state = state.apply(state.parse_action("pass"))
    assert state.is_terminal() and state.result() == "1/2-1/2"
    assert "third time" in state.observation(None)["board"]["last_round"]


def test_pass_only_when_no_other_action_is_legal(play: Play) -> None:
    """'pass' is legal only with no_move=pass and only when nothing else is legal."""
    with pytest.raises(IllegalActionError, match="no other action is legal"):
        play("", no_move="pass").parse_action("pass")
    with pytest.raises(IllegalActionError, match="needs the option no_move=pass"):
        play("").parse_action("pass")


def test_in_the_standard_game_no_player_is_ever_left_without_a_legal_action() -> None:
    """Our analysis (docs): on the standard board a live shape always borders two other tiles,
    so one banned switch never blocks; random games never end by 'no legal action'."""
    game = make("flip-switch", rounds=3)
    rng = random.Random(5)
    for _ in range(100):
        state = game.new_initial_state()
        while not state.is_terminal():
            state = state.apply(random_action(state, rng))
            assert "no legal action" not in str(state.observation(None)["board"]["last_round"])


# --- the match ----------------------------------------------------------------------------


def test_match_rounds_alternate_the_first_player(play: Play) -> None:
    """Option rounds: player 1 starts round 1, player 2 round 2, ...; each a fresh grid."""
    state = play(STARTER_WINS, rounds=3)
    obs = state.observation(None)["board"]
    assert not state.is_terminal()
    assert obs["round"] == 2 and obs["round_results"] == [0]
    assert obs["grid"] == [[None] * 3] * 3 and obs["nullified"] == {}
    assert state.current_player == 1
    state = play(f"{STARTER_WINS} {STARTER_WINS}", rounds=3)
    assert state.current_player == 0 and state.observation(None)["board"]["round_results"] == [0, 1]


def test_match_most_rounds_won_wins(play: Play) -> None:
    """Winner is determined by number of rounds won (a fixed number of rounds is played)."""
    after_two = play(f"{STARTER_WINS} {SECOND_WINS}", rounds=3)
    assert after_two.observation(None)["board"]["round_wins"] == [2, 0]
    assert not after_two.is_terminal() and after_two.returns() == (0, 0)
    state = play(f"{STARTER_WINS} {STARTER_WINS} {STARTER_WINS}", rounds=3)
    assert state.is_terminal() and state.returns() == (1, -1)
    assert state.observation(None)["board"]["round_wins"] == [2, 1]


def test_match_with_equal_rounds_won_is_a_draw(play: Play) -> None:
    """Match: most rounds won wins; equal is a draw."""
    state = play(f"{STARTER_WINS} {STARTER_WINS}", rounds=2)
    assert state.is_terminal() and state.result() == "1/2-1/2"
    assert state.observation(None)["board"]["round_wins"] == [1, 1]


# --- variants and options -----------------------------------------------------------------


def test_variant_round_needs_a_majority_of_the_shapes() -> None:
    """Our ruling for variants: '2 shapes' is a majority (shapes // 2 + 1): 2 of 3, 3 of 4."""
    assert FlipSwitch().target == 2
    assert FlipSwitch(VARIANT_4X4).target == 3
    assert FlipSwitch({"size": 4, "shapes": 2, "copies": 8}).target == 2


def test_variant_two_of_four_shapes_does_not_win(play: Play) -> None:
    """On 4x4 with 4 shapes, two credited shapes are not yet a majority: play goes on."""
    state = play(ALL_NULLIFIED_4X4.split(" d1")[0], **VARIANT_4X4)
    assert state.observation(None)["board"]["credited"] == [["heart", "square"], ["star", "circle"]]
    assert not state.is_terminal()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"lines": "rows"}, "option 'lines': allowed all | edges"),
        ({"no_move": "lose"}, "option 'no_move': allowed draw | pass"),
        ({"rounds": 0}, "option 'rounds': allowed an integer 1 <= n <= 99"),
        ({"size": 2}, "option 'size': allowed an integer 3 <= n <= 6"),
        ({"shapes": 9}, "option 'shapes': allowed an integer 2 <= n <= 8"),
        ({"copies": 2}, "option 'copies': allowed an integer 3 <= n <= 18"),
        ({"size": 4}, "options size, shapes and copies do not fit"),
        ({"shapes": 2, "copies": 4}, "3x3 board has 9 squares but shapes x copies = 2 x 4"),
        ({"speed": 1}, "unknown option 'speed'"),
    ],
)
def test_variant_options_are_validated(options: dict[str, object], message: str) -> None:
    """The engine takes grid size, shape count and copies per shape; bad values are refused."""
    with pytest.raises(OptionError, match=message):
        make("flip-switch", options)
