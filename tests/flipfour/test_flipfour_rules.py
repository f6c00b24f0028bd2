"""FlipFour rules: one test per rulebook clause (the FlipFour rules in
Nakajima's FlipFlop rulebook) and per ruling (docs/rulings.md).

Positions are built by playing actions in notation from the initial state.
"""

from __future__ import annotations

import pytest

from flipgames import TERMINAL, IllegalActionError, make, repetition_count
from flipgames.games.flipfour.board import BISHOP, ROOK, SQUARE_INDEX
from flipgames.games.flipfour.rules import FlipFourState
from flipgames.solvers.perft import perft


def play(*lines: str) -> FlipFourState:
    state = make("flipfour").new_initial_state()
    for text in " ".join(lines).split():
        state = state.apply(state.parse_action(text))
    assert isinstance(state, FlipFourState)
    return state


def legal(state: FlipFourState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def piece(state: FlipFourState, square: str) -> tuple[int, int] | None:
    return state.piece_at(SQUARE_INDEX[square])


# White's four bishops on b1, a2, e4, d5 are shut in by Black on c2, b3, d3, c4.
WHITE_SHUT_IN = "B@b1 R@c2 B@a2 R@b3 B@e4 R@d3 B@d5 R@c4"
# Every piece on the board, then White and Black each walk one piece round a four-move cycle.
ALL_DROPPED = "R@a1 R@e5 R@c3 R@c5 R@e1 R@e3 R@a5 B@b4"
BOTH_CYCLE = "a1-a2 e5-e4 a2-b1 e4-d5 b1-b2 d5-d4 b2-a1 d4-e5"


def test_board_starts_empty_with_four_pieces_in_hand_each_and_white_first():
    """ "The 5x5 board starts empty", four pieces a side in hand, "White gets the first move"."""
    state = play()
    assert all(state.piece_at(s) is None for s in range(25))
    assert (state.pieces_in_hand(0), state.pieces_in_hand(1)) == (4, 4)
    assert state.current_player == 0


def test_players_alternate():
    """Players alternate turns: White, Black, White..."""
    line = ["R@a1", "R@e5", "a1-a3", "e5-e4"]
    assert [play(*line[:n]).current_player for n in range(5)] == [0, 1, 0, 1, 0]


def test_drop_either_face_up_on_any_empty_square():
    """ "A player may drop a piece (either side up)": on any empty square."""
    first = legal(play())
    assert first == {f"{face}@{sq}" for face in "RB" for sq in SQUARE_INDEX}
    assert piece(play("R@c3"), "c3") == (0, ROOK)
    assert piece(play("B@c3"), "c3") == (0, BISHOP)
    assert play("R@c3").pieces_in_hand(0) == 3


def test_drop_does_not_flip_the_piece():
    """A drop puts the piece down with the chosen face up and does not flip it (ruling)."""
    state = play("B@a1 R@e5")
    assert piece(state, "a1") == (0, BISHOP)
    assert piece(state, "e5") == (1, ROOK)


def test_cannot_drop_on_an_occupied_square():
    """Drops go on empty squares only."""
    state = play("R@c3")
    assert not legal(state) & {"R@c3", "B@c3"}
    with pytest.raises(IllegalActionError, match="c3 is occupied"):
        state.parse_action("B@c3")


def test_cannot_drop_with_no_pieces_left_in_hand():
    """Each side has four pieces; once all are on the board only moves remain."""
    state = play("R@a1 R@e5 R@b3 R@e4 R@c5 R@d1 B@e2 d1-d2")
    assert state.current_player == 0
    assert state.pieces_in_hand(0) == 0 and state.pieces_in_hand(1) == 1
    assert not any("@" in text for text in legal(state))
    with pytest.raises(IllegalActionError, match="White has no pieces left in hand"):
        state.parse_action("R@c3")


def test_moves_are_allowed_while_pieces_remain_in_hand():
    """ "On their turn a player may drop a piece ... or move a piece": moving needs no full
    board."""
    state = play("R@a1 R@e5")
    assert "a1-a4" in legal(state)
    assert play("R@a1 R@e5 a1-a4").pieces_in_hand(0) == 3


def test_rook_face_moves_orthogonally_any_distance_leaping_over_pieces():
    """The + face moves like a rook, any distance, and pieces "may freely be leapt over"."""
    state = play("R@c3 R@c4 R@a1 R@b3")
    moves = {t for t in legal(state) if t.startswith("c3-")}
    assert moves == {"c3-c1", "c3-c2", "c3-c5", "c3-a3", "c3-d3", "c3-e3"}


def test_bishop_face_moves_diagonally_any_distance_leaping_over_pieces():
    """The x face moves like a bishop, any distance, leaping over pieces of either colour."""
    state = play("B@c3 R@d4 R@a1 R@b2")
    moves = {t for t in legal(state) if t.startswith("c3-")}
    assert moves == {"c3-e5", "c3-b4", "c3-a5", "c3-d2", "c3-e1"}


def test_a_piece_moves_only_along_the_lines_of_its_face():
    """A rook face cannot go diagonally nor a bishop face orthogonally."""
    rook, bishop = play("R@c3 R@a1"), play("B@c3 R@a1")
    with pytest.raises(IllegalActionError, match="moves along its rank or file"):
        rook.parse_action("c3-d4")
    with pytest.raises(IllegalActionError, match="moves along its diagonals"):
        bishop.parse_action("c3-c4")


def test_moved_piece_flips():
    """ "After each move, the moved piece must be flipped over": rook face to bishop and back."""
    state = play("R@c3 R@a1 c3-c5")
    assert piece(state, "c5") == (0, BISHOP) and piece(state, "c3") is None
    state = play("R@c3 R@a1 c3-c5 a1-a2 c5-d4")
    assert piece(state, "d4") == (0, ROOK)


def test_no_captures_moves_end_on_empty_squares_only():
    """ "There is no capturing": a piece may not end on any occupied square."""
    state = play("R@c3 R@c5 R@c1")
    assert not legal(state) & {"c5-c3", "c5-c1"}
    with pytest.raises(IllegalActionError, match="c3 is occupied and FlipFour has no captures"):
        state.parse_action("c5-c3")
    after = play("R@c3 R@c5 R@c1 c5-a5")
    assert piece(after, "c3") == (0, ROOK) and piece(after, "c1") == (0, ROOK)


def test_only_your_own_pieces_move():
    """A move is a move of one of your pieces on the board."""
    state = play("R@c3")
    assert not any(t.startswith("c3-") for t in legal(state))
    with pytest.raises(IllegalActionError, match="the piece on c3 is White's"):
        state.parse_action("c3-c4")
    with pytest.raises(IllegalActionError, match="there is no piece on d4"):
        state.parse_action("d4-d5")


def test_no_passing():
    """ "The players then alternate moves without passing": every turn changes the board."""
    state = play("R@c3 R@a1 c3-c5 a1-a3")
    assert state.pieces_in_hand(0) == 3
    assert all(state.apply(a).key() != state.key() for a in state.legal_actions())
    with pytest.raises(IllegalActionError, match="a piece must move to another square"):
        state.parse_action("c5-c5")


def test_four_in_a_row_with_mixed_faces_wins():
    """Four of your pieces in an unbroken row win, whatever faces they show (ruling)."""
    state = play("R@a2 R@a5 B@b2 R@b5 R@c2 B@d5 B@d2")
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.returns() == (1, -1) and state.result() == "1-0"
    assert state.end_reason() == "four in a row"
    assert sorted(state.winning_line()) == [SQUARE_INDEX[s] for s in ("a2", "b2", "c2", "d2")]


def test_four_in_a_column_wins():
    """An unbroken vertical line of four wins."""
    state = play("R@a1 B@e5 R@a2 B@e4 R@b5 B@e3 R@c5 B@e2")
    assert state.result() == "0-1"
    assert sorted(state.winning_line()) == [SQUARE_INDEX[s] for s in ("e2", "e3", "e4", "e5")]


# All eight diagonal fours: both halves of each long diagonal and the four-square diagonals.
DIAGONAL_FOURS = ["a1 b2 c3 d4", "b2 c3 d4 e5", "a5 b4 c3 d2", "e1 d2 c3 b4"]
DIAGONAL_FOURS += ["a2 b3 c4 d5", "b1 c2 d3 e4", "d1 c2 b3 a4", "b5 c4 d3 e2"]


@pytest.mark.parametrize("line", [four.split() for four in DIAGONAL_FOURS])
def test_four_on_a_diagonal_with_mixed_faces_wins(line):
    """A diagonal line of four wins, on the long diagonals and the four-square ones."""
    black = [s for s in ("a5", "e3", "b5", "d5", "a3") if s not in line][:3]
    faces = "RBRB"
    actions = []
    for i in range(4):
        actions.append(f"{faces[i]}@{line[i]}")
        if i < 3:
            actions.append(f"R@{black[i]}")
    state = play(*actions)
    assert state.result() == "1-0"
    assert sorted(state.winning_line()) == sorted(SQUARE_INDEX[s] for s in line)


def test_four_pieces_of_mixed_colours_in_a_row_do_not_win():
    """The line must be of the player's own pieces: a row shared by both colours is nothing."""
    state = play("R@a1 R@b1 R@c1 R@e3 R@e5 R@d1")
    assert not state.is_terminal()
    assert state.end_reason() is None and state.winning_line() == ()


def test_a_broken_line_does_not_win():
    """The line must be unbroken: four on a rank with a gap is not four in a row."""
    state = play("R@a1 R@a5 R@b1 R@b5 R@d1 R@c5 R@e1")
    assert not state.is_terminal()


def test_three_in_a_row_does_not_win():
    """Four are needed, not three."""
    assert not play("R@a1 R@a5 R@b1 R@b5 R@c1").is_terminal()


def test_win_is_checked_after_a_drop():
    """Four in a row is checked after each action: a drop can win."""
    state = play("R@a1 R@e5 R@b2 R@e4 R@c3 R@a5")
    assert not state.is_terminal()
    assert play("R@a1 R@e5 R@b2 R@e4 R@c3 R@a5 B@d4").result() == "1-0"


def test_win_is_checked_after_a_move():
    """Four in a row is checked after each action: a move can win (the moved piece flips)."""
    before = play("R@a1 R@e5 R@b1 R@e4 R@c1 R@e2 R@d3 R@a5")
    assert not before.is_terminal()
    state = play("R@a1 R@e5 R@b1 R@e4 R@c1 R@e2 R@d3 R@a5 d3-d1")
    assert state.result() == "1-0" and piece(state, "d1") == (0, BISHOP)


def test_third_repetition_is_a_draw():
    """Draw (our ruling): the same position, faces and side to move for the third time."""
    start = play(ALL_DROPPED)
    once = play(ALL_DROPPED, BOTH_CYCLE)
    assert once.key() == start.key() and once.occurrences() == 2 and not once.is_terminal()
    almost = play(ALL_DROPPED, BOTH_CYCLE, BOTH_CYCLE.rsplit(" ", 1)[0])
    assert not almost.is_terminal()
    state = almost.apply(almost.parse_action("d4-e5"))
    assert state.key() == start.key() and state.occurrences() == 3
    assert state.is_terminal() and state.returns() == (0, 0) and state.result() == "1/2-1/2"
    assert state.end_reason() == "third repetition" and state.winner is None


def test_repetition_count_agrees_with_a_full_walk_on_every_branch():
    """The count handed down a line agrees with counting every ancestor, clones included."""
    start = play(ALL_DROPPED)
    line = BOTH_CYCLE.split() * 2
    branch = start.clone()
    for text in line[:-1]:
        start = start.apply(start.parse_action(text))
        branch = branch.apply(branch.parse_action(text))
        side = start.parent.clone().apply(start.history[-1])
        for state in (start, branch, side):
            assert state.occurrences() == repetition_count(state, step=2)


def test_a_side_with_no_legal_move_loses():
    """A side with no legal move loses (ruling): White's four bishops shut in after the drops."""
    state = play(WHITE_SHUT_IN)
    assert state.pieces_in_hand(0) == 0 and state.legal_actions() == ()
    assert state.is_terminal() and state.returns() == (-1, 1) and state.result() == "0-1"
    assert state.end_reason() == "no legal move"
    assert state.status_text() == "Black wins: White has no legal move"


def test_black_with_no_legal_move_after_whites_move_loses():
    """The same for Black, shut in by a White move (the moved piece flips as it arrives)."""
    state = play("R@c2 B@b1 R@b3 B@a2 R@d3 B@e4 R@c5 B@d5 c5-c4")
    assert state.legal_actions() == () and state.result() == "1-0"
    assert state.end_reason() == "no legal move"


def test_a_finished_game_accepts_no_action():
    """After a win, a draw or a loss by no move, nothing is legal and notation says why."""
    won = play("R@a2 R@a5 B@b2 R@b5 R@c2 B@d5 B@d2")
    with pytest.raises(IllegalActionError, match=r"the game is over \(White wins: four in a row"):
        won.parse_action("R@e1")
    assert won.legal_actions() == ()


def test_perft_ignores_repetition_draws():
    """perft counts actions as if repetition draws did not exist (ruling R3)."""
    state = play(ALL_DROPPED, BOTH_CYCLE, BOTH_CYCLE)
    assert state.is_terminal() and state.legal_actions() == ()
    assert len(state.perft_actions()) > 0
    assert perft(state, 1) == len(state.perft_actions()) == len(play(ALL_DROPPED).legal_actions())
    assert perft(state, 2) == perft(play(ALL_DROPPED), 2)


def test_perft_stops_at_wins_and_at_no_legal_move():
    """A won position and a side with no legal move have no perft actions."""
    assert play("R@a2 R@a5 B@b2 R@b5 R@c2 B@d5 B@d2").perft_actions() == ()
    assert play(WHITE_SHUT_IN).perft_actions() == ()
