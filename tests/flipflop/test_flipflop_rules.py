"""FlipFlop 5x5 and 3x3: one test per rulebook clause and per ruling (docs/rulings.md).

Positions are reached by playing moves in notation from the initial position.
"""

from __future__ import annotations

import pytest

from flipgames import make
from flipgames.core.errors import IllegalActionError, OptionError
from flipgames.games.flipflop.rules import FlipFlopState
from flipgames.solvers.perft import perft

# Black's cycle mirrors White's: each piece goes rook, bishop, rook, bishop and comes home
# showing + again, so the whole position recurs every 8 plies.
CYCLE_5X5 = ["a1-a2", "e5-e4", "a2-b3", "e4-d3", "b3-b2", "d3-d4", "b2-a1", "d4-e5"]
# On 3x3, after three captures on the goals, the survivors can circle without meeting.
PREFIX_3X3 = ["c1-c2", "b3xb1", "a1xb1", "c3-b3", "c2xb3", "a3xb3"]
CYCLE_3X3 = ["b1-a2", "b3-c2", "a2-b2", "c2-c3", "b2-a1", "c3-b2", "a1-b1", "b2-b3"]


def play(name: str, moves: str | list[str] = "") -> FlipFlopState:
    """The state after ``moves`` (notation, space separated or a list) from the start."""
    actions = moves.split() if isinstance(moves, str) else moves
    state = make(name).state_from_actions(actions)
    assert isinstance(state, FlipFlopState)
    return state


def legal(state: FlipFlopState) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def pieces(state: FlipFlopState) -> dict[str, tuple[str, str]]:
    """Square name -> (owner, face), as the observation reports them."""
    board = state.observation(None)["board"]
    return {sq: (p["colour"], p["face"]) for sq, p in board["pieces"].items()}


# --- setup --------------------------------------------------------------------------------


def test_setup_5x5_white_on_rank_1_black_on_rank_5_all_rook_face_up() -> None:
    """Setup: five pieces each, + side up, White on the first rank, Black on the fifth."""
    board = pieces(play("flipflop"))
    assert board == {
        **{f"{f}1": ("White", "rook") for f in "abcde"},
        **{f"{f}5": ("Black", "rook") for f in "abcde"},
    }


def test_setup_3x3_three_pieces_a_side_on_first_and_third_ranks() -> None:
    """FlipFlop 3x3: three pieces a side lined up on the first and third ranks."""
    board = pieces(play("flipflop-3x3"))
    assert board == {
        **{f"{f}1": ("White", "rook") for f in "abc"},
        **{f"{f}3": ("Black", "rook") for f in "abc"},
    }


@pytest.mark.parametrize(
    ("name", "goals"), [("flipflop", ("c1", "c5")), ("flipflop-3x3", ("b1", "b3"))]
)
def test_goals_belong_to_white_and_black_and_centre_pieces_start_on_their_own_goal(
    name: str, goals: tuple[str, str]
) -> None:
    """Ruling: goals c1 (White), c5 (Black), b1/b3 on 3x3; centre pieces start on their own."""
    state = play(name)
    assert state.observation(None)["board"]["goals"] == {"White": goals[0], "Black": goals[1]}
    assert pieces(state)[goals[0]][0] == "White"
    assert pieces(state)[goals[1]][0] == "Black"
    assert not state.in_check  # a piece on its own goal gives no check


def test_white_moves_first_and_players_alternate_without_passing() -> None:
    """White gets the first move; the players then alternate moves without passing."""
    state = play("flipflop")
    assert state.current_player == 0
    state = play("flipflop", "a1-a2")
    assert state.current_player == 1
    assert play("flipflop", "a1-a2 e5-e4").current_player == 0
    # Every legal action moves a piece: there is no pass action.
    assert all("-" in m or "x" in m for m in legal(state))


# --- movement -----------------------------------------------------------------------------


def test_rook_face_moves_orthogonally_any_distance_without_leaping() -> None:
    """A piece with + up moves like a chess rook; pieces cannot jump (designer)."""
    start = play("flipflop")
    assert [m for m in legal(start) if m.startswith("a1")] == ["a1-a2", "a1-a3", "a1-a4"]
    # b1-b3 puts a White piece in the way of Black's b5 rook: it reaches b4 only.
    state = play("flipflop", "b1-b3")
    assert [m for m in legal(state) if m.startswith("b5")] == ["b5-b4"]
    with pytest.raises(IllegalActionError, match="cannot leap"):
        state.parse_action("b5-b2")


def test_bishop_face_moves_diagonally_any_distance_without_leaping() -> None:
    """A piece with x up moves like a chess bishop, never over another piece."""
    state = play("flipflop", "a1-a2 e5-e4")  # a2 now shows x
    assert [m for m in legal(state) if m.startswith("a2")] == ["a2-b3", "a2-c4"]
    with pytest.raises(IllegalActionError, match="moves like a bishop"):
        state.parse_action("a2-a3")
    # b1-b3 blocks the a2 bishop's long diagonal: it cannot jump to c4.
    state = play("flipflop", "a1-a2 e5-e4 b1-b3 e4-d3")
    assert [m for m in legal(state) if m.startswith("a2")] == ["a2-b1"]
    with pytest.raises(IllegalActionError, match="cannot leap"):
        state.parse_action("a2-c4")


def test_moved_piece_flips_to_its_other_face() -> None:
    """After each move, the moved piece must be flipped over."""
    assert pieces(play("flipflop", "a1-a2"))["a2"] == ("White", "bishop")
    assert pieces(play("flipflop", "a1-a2 e5-e4 a2-b3"))["b3"] == ("White", "rook")
    # The other pieces keep their faces.
    assert pieces(play("flipflop", "a1-a2 e5-e4 a2-b3"))["e4"] == ("Black", "bishop")


# --- captures -----------------------------------------------------------------------------


def test_no_capture_of_a_piece_that_is_not_on_a_goal() -> None:
    """Pieces may only be captured if they are on either player's goal."""
    state = play("flipflop")  # a1 rook sees Black's a5 down the open a-file
    assert "a1xa5" not in legal(state)
    with pytest.raises(IllegalActionError, match="only on a goal"):
        state.parse_action("a1xa5")


def test_capture_of_an_enemy_on_its_own_goal_designer_opening_b1xb3() -> None:
    """Designer: the 3x3 games open with White capturing on b3 at once."""
    state = play("flipflop-3x3")
    assert "b1xb3" in legal(state)
    after = play("flipflop-3x3", "b1xb3")
    assert pieces(after)["b3"] == ("White", "bishop")
    assert len([p for p in pieces(after).values() if p[0] == "Black"]) == 2


def test_black_recaptures_on_its_own_goal() -> None:
    """Designer: Black recaptures on b3 (with either rook beside it)."""
    state = play("flipflop-3x3", "b1xb3")
    assert legal(state) == ["a3xb3", "c3xb3"]
    after = play("flipflop-3x3", "b1xb3 a3xb3")
    assert pieces(after)["b3"] == ("Black", "bishop")
    assert not after.in_check


def test_capture_of_an_enemy_on_the_capturers_own_goal() -> None:
    """Capture on either goal: Black on White's goal b1 is taken there by White."""
    state = play("flipflop-3x3", "a1-a2 b3xb1")
    assert legal(state) == ["c1xb1", "a2xb1"]  # in id order: c1 = 2 comes before a2 = 3
    assert pieces(play("flipflop-3x3", "a1-a2 b3xb1 c1xb1"))["b1"] == ("White", "bishop")


def test_moving_onto_own_goal_is_allowed() -> None:
    """Ruling: moving onto one's own goal is allowed."""
    state = play("flipflop", "c1-c3 a5-a4")
    assert "b1-c1" in legal(state)
    assert pieces(play("flipflop", "c1-c3 a5-a4 b1-c1"))["c1"] == ("White", "bishop")


# --- check, checkmate, no move -------------------------------------------------------------


def test_piece_on_opponents_goal_is_check_and_only_captures_of_it_are_legal() -> None:
    """A player in check must capture that piece at once: nothing else is legal."""
    state = play("flipflop", "c1xc5")
    assert state.in_check
    assert legal(state) == ["b5xc5", "d5xc5"]
    with pytest.raises(IllegalActionError, match="in check"):
        state.parse_action("a5-a4")


def test_in_check_even_a_capture_on_the_other_goal_is_not_legal() -> None:
    """Ruling: in check, the only legal moves are captures of the checking piece."""
    state = play("flipflop-3x3", "a1-a2 c3-c2 a2xb3")  # c2 (x) also sees White's b1
    assert legal(state) == ["c2xb3", "a3xb3"]  # id order: c2 = 5, a3 = 6
    with pytest.raises(IllegalActionError, match="in check and must capture the piece on b3"):
        state.parse_action("c2xb1")


def test_checkmate_loses() -> None:
    """A player in check unable to capture the checking piece is checkmated and loses."""
    state = play("flipflop-3x3", "a1-a2 c3-c2 a2xb3 c2xb3 c1-c3 b3xb1")
    assert state.in_check and state.is_terminal()
    assert state.returns() == (-1, 1) and state.result() == "0-1"
    assert "checkmated" in state.status_text()


def test_no_legal_move_loses() -> None:
    """A player can win by leaving the opponent without legal moves (not in check)."""
    state = play("flipflop-3x3", "a1-a2 b3xb1 c1xb1 a3-b3 b1-c2")
    assert not state.in_check
    assert any(p[0] == "Black" for p in pieces(state).values())
    assert state.is_terminal() and state.returns() == (1, -1)
    assert "no legal move" in state.status_text()


def test_capturing_all_enemy_pieces_wins() -> None:
    """A player can win by capturing all the opponent's pieces."""
    state = play("flipflop-3x3", "a1-a2 b3xb1 a2xb1 a3-a2 b1-b3 a2xb3 c1-b1 b3xb1")
    assert all(p[0] == "Black" for p in pieces(state).values())
    assert state.is_terminal() and state.returns() == (-1, 1)
    assert "no pieces left" in state.status_text()


# --- repetition ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "prefix", "cycle"),
    [("flipflop", [], CYCLE_5X5), ("flipflop-3x3", PREFIX_3X3, CYCLE_3X3)],
)
def test_third_repetition_draws_and_second_does_not(
    name: str, prefix: list[str], cycle: list[str]
) -> None:
    """The only draw: the same position (same orientations) appearing three times."""
    once = play(name, prefix)
    twice = play(name, prefix + cycle)
    assert twice.key() == once.key() and twice.occurrences == 2
    assert not twice.is_terminal() and "twice" in twice.status_text()
    thrice = play(name, prefix + cycle * 2)
    assert thrice.occurrences == 3
    assert thrice.is_terminal() and thrice.returns() == (0, 0) and thrice.result() == "1/2-1/2"
    with pytest.raises(IllegalActionError, match="game is over"):
        thrice.parse_action(cycle[0])


def test_repetition_counts_faces_same_squares_other_faces_is_a_new_position() -> None:
    """Same position means same piece orientations: other faces on the same squares differ."""
    start = play("flipflop-3x3")
    state = play("flipflop-3x3", "a1-a2 b3-b2 b1-a1 a3-b3 a2-b1 b2-a3")
    same_squares = {sq: owner for sq, (owner, _) in pieces(state).items()}
    assert same_squares == {sq: owner for sq, (owner, _) in pieces(start).items()}
    assert pieces(state) != pieces(start)
    assert state.key() != start.key() and state.occurrences == 1


def test_repetition_key_includes_side_to_move() -> None:
    """Ruling: a position is pieces, faces and side to move; the key holds all three."""
    side_shift = 3 * 25  # key = white | black << 25 | bishops << 50 | side << 75
    assert play("flipflop").key() >> side_shift == 0
    assert play("flipflop", "a1-a2").key() >> side_shift == 1
    assert play("flipflop", "a1-a2 e5-e4").key() >> side_shift == 0


def test_perft_ignores_repetition_draws_but_not_the_end_of_play() -> None:
    """Ruling R3: perft ignores repetition draws; a mate or a blocked side still ends it."""
    drawn = play("flipflop", CYCLE_5X5 * 2)
    assert drawn.legal_actions() == ()
    assert drawn.perft_actions() == play("flipflop").legal_actions()
    assert perft(drawn, 2) == perft(play("flipflop"), 2)
    mate = play("flipflop-3x3", "a1-a2 c3-c2 a2xb3 c2xb3 c1-c3 b3xb1")
    assert mate.perft_actions() == () and perft(mate, 1) == 0


# --- options and rejected actions ----------------------------------------------------------


def test_no_options_exist_and_unknown_ones_are_rejected() -> None:
    """Ruling R10: no FlipFlop option; an unknown option is an OptionError naming it."""
    assert make("flipflop").options == {} and make("flipflop-3x3").options == {}
    with pytest.raises(OptionError, match="unknown option 'size'"):
        make("flipflop", size=3)


def test_a_rejected_action_changes_nothing() -> None:
    """States are values: an illegal action raises and leaves the state as it was."""
    state = play("flipflop", "a1-a2")
    before = (state.key(), state.history)
    with pytest.raises(IllegalActionError):
        state.apply(0)
    assert (state.key(), state.history) == before
