"""One test per rulebook clause (the Rubik's Flip rulebook) and per ruling
(docs/rulings.md).

Positions are built by playing turns in notation from the empty board. The longer lines were
found by a seeded random search for the situation named and are pinned here with the board
they reach drawn in a comment (upper case = the tile's face; R/B first player, Y/W second).
"""

from __future__ import annotations

import pytest

from flipgames import make
from flipgames.core.errors import IllegalActionError, NotationError
from flipgames.games.rubiks_flip.rules import LINES, RubiksFlipState

SQUARES = [f + r for r in "1234" for f in "abcd"]


def play(moves: str, **options: str) -> RubiksFlipState:
    state = make("rubiks-flip", options).state_from_actions(moves.split())
    assert isinstance(state, RubiksFlipState)
    return state


def moves_of(state: RubiksFlipState) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


# 4 | B  B  B  B      Red/Blue places b3 last: a4 b4 c4 (and b4 c4 d4) are all B and locked.
# 3 | W  B* W  W
# 2 | B  .  Y  .
# 1 | .  .  .  W
MOVER_WINS = "a2B a2/d3W d3/c4R c4/c3W c3/b4B b4/a3W d3/d4B a2/c2Y c3/a4B b4/d1Y d1/b3B"

# 4 | Y  R* .  .      Red/Blue places b4 last, which locks Yellow/White's a2 a3 a4 (all Y).
# 3 | Y  R  .  .
# 2 | Y  R  W  .
# 1 | R  R  .  .
OPPONENT_WINS = "b2B b2/c2Y c2/b3R b2/a4Y c2/b1B b2/a3W c2/a1R b1/a2Y a3/b4R"

# 4 | .  Y  W  B      Yellow/White places c2 last: its c2 c3 c4 (W) and Red/Blue's b1 c1 d1
# 3 | .  W  W  B      and d2 d3 d4 (B) are all locked at once.
# 2 | R  Y  W* B
# 1 | Y  B  B  B
BOTH_HAVE_ROWS = (
    "d4R d4/b2W b2/b1R d4/b3W b3/a2B a2/c4W b3/c1B c1/b4W b3/d2B d4/c3W b3/d3B c1/a1Y b4/d1B b1/c2W"
)

# 1 | R  B  R  B      rank 1 is all Red/Blue and locked, but the faces are mixed.
MIXED_ROW = "b1R b1/c2Y c2/c1B c1/a3W a3/d1B b1/d2W a3/a1R b1/a2W c2/b2R"

# 4 | W  Y  W  Y      every Yellow/White tile is locked; Red/Blue to move with c1 and d1 empty.
# 3 | B  B  W  W
# 2 | W  R  B  B
# 1 | B  B  .  .
ALL_OPPONENT_TILES_LOCKED = (
    "b3R b3/b4W b4/a3R a3/d4Y b4/b2R b3/d3Y d3/c2R b3/c4W d3/a1B a3/c3W b4/b1B a3/a4W d3/d2B c2/a2W"
)

# 4 | Y  B  R  B
# 3 | R  R  W  W      16 tiles, no locked row of one owner and one colour.
# 2 | Y  W  W  B
# 1 | B  B  Y  W
DRAW = (
    "d2B d2/c3Y c3/b3B d2/a2Y a2/d4B d4/a4Y a4/a1R a1/c2Y a2/b1B d4/b2Y b2/a3R b3/d3W c2/c4R "
    "d2/c1Y a4/b4B d2/d1W"
)

# 3 | W  .  .  .      with lock=orthogonal, Yellow/White's b2 locks a1 b1 c1 (R) of Red/Blue;
# 2 | W  W* W  .      with lock=king c1 still touches the empty d2.
# 1 | R  R  R  R
ORTHOGONAL_ROW = "b1R b1/c2Y c2/c1B c1/a3W a3/d1B b1/a2W a3/a1R d1/b2W"

# 4 | .  .  W  R      flip=flap: Red/Blue's d4 touches the empty c3 diagonally (unlocked) but
# 3 | .  .  .  R      both its orthogonal neighbours are full, so only d3 can be flapped.
FLAP_BLOCKED_TILE = "d2B d2-d3/d4Y d4-c4/d4R"

# flip=flap: no Yellow/White tile has an empty orthogonal neighbour (c1 and b2 are still
# unlocked through the empty d2 and c3), so Red/Blue only places.
# 4 | B  R  R  .
# 3 | Y  R  .  .
# 2 | W  W  B  .
# 1 | W  W  W  R
FLAP_NONE_POSSIBLE = (
    "c4B c4-b4/d1W d1-c1/b2B b4-c4/b3W c1-b1/d3B c4-b4/c2Y c2-c1/c4R d3-d2/a1Y a1-a2/a4B "
    "d2-c2/a1W b3-a3/d1R b2-b3/b2W"
)


# --- setup and turn structure ---------------------------------------------------------------


def test_each_player_has_eight_tiles_and_the_first_player_starts():
    """Setup: one player takes the 8 Red/Blue tiles, the other the 8 Yellow/White; the
    coin-toss winner goes first (the engine calls the starter the first player)."""
    state = play("")
    assert state.current_player == 0
    assert (state.in_hand(0), state.in_hand(1)) == (8, 8)
    assert state.apply(state.legal_actions()[0]).in_hand(0) == 7


def test_first_turn_places_only_on_any_square_either_colour():
    """First turn: place one of your tiles on any space, choosing which colour is up."""
    state = play("")
    expected = {sq + c for sq in SQUARES for c in "RB"}
    assert set(moves_of(state)) == expected
    assert len(state.legal_actions()) == 32
    assert state.flip_choices() == ()


def test_first_turn_rejects_a_flip():
    """First turn (ruling): place only; there is nothing to flip."""
    with pytest.raises(IllegalActionError, match=r"no flip is possible \(no opponent tile is on"):
        play("").parse_action("a1/b2R")


def test_flip_is_mandatory_when_an_unlocked_opponent_tile_exists():
    """Ruling: the flip is mandatory when any unlocked opponent tile exists."""
    state = play("b2R")
    assert all(m.startswith("b2/") for m in moves_of(state))
    with pytest.raises(IllegalActionError, match="a flip is mandatory: first flip one of b2"):
        state.parse_action("c3Y")


def test_flip_changes_the_colour_of_the_opponent_tile():
    """Flip: turn over one of your opponent's tiles, changing its visible colour."""
    state = play("b2R b2/c3Y")
    assert (state.tile("b2"), state.owner("b2")) == ("B", 0)
    state = play("b2R b2/c3Y c3/d4R")
    assert (state.tile("c3"), state.owner("c3")) == ("W", 1)
    assert play("b2R b2/c3Y c3/d4R b2/a1W").tile("b2") == "R"


def test_any_unlocked_opponent_tile_may_be_flipped_not_only_the_last_placed():
    """You do not have to flip the most recently placed tile; you may flip any."""
    state = play("a1R a1/b1Y b1/d4R")
    assert state.flip_choices() == ("a1", "d4")
    assert play("a1R a1/b1Y b1/d4R a1/c3Y").tile("a1") == "R"


def test_cannot_flip_your_own_tile():
    """Flip an opponent's tile: your own tiles cannot be flipped."""
    with pytest.raises(IllegalActionError, match="b2 holds your own tile; flip one of c3"):
        play("b2R b2/c3Y").parse_action("b2/a1R")


def test_cannot_flip_an_empty_square():
    """Flip a tile that is already on the board."""
    with pytest.raises(IllegalActionError, match="a1 is empty; flip one of c3"):
        play("b2R b2/c3Y").parse_action("a1/d1R")


def test_cannot_flip_a_locked_tile():
    """A player cannot flip a locked tile; they must choose an unlocked opponent tile."""
    state = play(" ".join(OPPONENT_WINS.split()[:8]))
    assert state.is_locked("a2") and not state.is_locked("a4")
    assert state.flip_choices() == ("c2", "a3", "a4")
    with pytest.raises(IllegalActionError, match="a2 is locked"):
        state.parse_action("a2/b4R")


def test_flip_is_skipped_when_every_opponent_tile_is_locked():
    """If a player has no unlocked opponent tiles to flip, they skip the flip and place."""
    state = play(ALL_OPPONENT_TILES_LOCKED)
    assert all(state.is_locked(sq) for sq in SQUARES if state.owner(sq) == 1)
    assert moves_of(state) == ["c1R", "c1B", "d1R", "d1B"]
    with pytest.raises(IllegalActionError, match=r"no flip is possible \(every opponent tile"):
        state.parse_action("c4/c1R")


def test_place_is_on_an_empty_square_and_mandatory():
    """Place one of your tiles on any vacant space (ruling: mandatory, no passing)."""
    state = play("b2R")
    assert len(state.legal_actions()) == 15 * 2
    with pytest.raises(IllegalActionError, match="b2 is occupied"):
        state.parse_action("b2/b2Y")
    with pytest.raises(NotationError):
        state.parse_action("b2/")


def test_colour_letters_belong_to_the_mover():
    """Ruling: R and B for the first player, Y and W for the second."""
    with pytest.raises(IllegalActionError, match="Y is a colour of Yellow/White's tiles"):
        play("").parse_action("c3Y")
    with pytest.raises(IllegalActionError, match="Yellow/White places Y or W"):
        play("b2R").parse_action("b2/c3B")


# --- locking ------------------------------------------------------------------------------


def test_king_lock_needs_the_diagonal_neighbour_and_orthogonal_lock_does_not():
    """Locked: every adjacent square (orthogonal and diagonal) is occupied; option
    lock=orthogonal counts only the four orthogonal ones."""
    line = "a1R a1/b1Y b1/a2R"  # a1 has b1 and a2 beside it; b2 (diagonal) is empty
    king, orthogonal = play(line), play(line, lock="orthogonal")
    assert not king.is_locked("a1") and orthogonal.is_locked("a1")
    assert king.flip_choices() == ("a1", "a2")
    assert orthogonal.flip_choices() == ("a2",)


def test_edge_and_corner_tiles_lock_with_fewer_neighbours():
    """Edge and corner tiles are easier to lock since they have fewer adjacent spaces."""
    state = play("a1R a1/b1Y b1/a2R a1/b2Y")  # a1's three neighbours are full; b2 has eight
    assert state.is_locked("a1") and not state.is_locked("b2")
    assert "a1" not in play("a1R a1/b1Y b1/a2R a1/b2Y b1/c3R").flip_choices()


def test_there_are_24_rows_of_three():
    """Ruling: any 3 consecutive squares in a row, column or diagonal (24 on 4x4)."""
    cells = {(f, r) for f in range(4) for r in range(4)}
    expected = set()
    for f, r in cells:
        for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            line = [(f + i * df, r + i * dr) for i in range(3)]
            if set(line) <= cells:
                expected.add(sum(1 << (x + 4 * y) for x, y in line))
    assert len(LINES) == 24
    assert set(LINES) == expected


# --- winning --------------------------------------------------------------------------------


def test_locked_row_of_three_of_the_movers_colour_wins():
    """Win: 3 of your tiles showing the same colour in a locked row."""
    state = play(MOVER_WINS)
    assert state.is_terminal() and state.winner == 0 and state.returns() == (1, -1)
    assert state.winning_squares == ("a4", "b4", "c4")
    assert state.result() == "1-0"


def test_a_row_of_four_of_one_colour_wins_through_a_locked_three():
    """Decision: four in a line contain two rows of three; a locked one wins."""
    state = play(MOVER_WINS)
    assert [state.tile(sq) for sq in ("a4", "b4", "c4", "d4")] == ["B"] * 4
    assert all(state.is_locked(sq) for sq in ("a4", "b4", "c4", "d4"))


def test_unlocked_row_does_not_win():
    """A locked row means none of the 3 tiles can be flipped; an unlocked row does not win."""
    state = play(" ".join(MOVER_WINS.split()[:-1]))  # b3 is still empty
    assert [state.tile(sq) for sq in ("a4", "b4", "c4")] == ["B"] * 3
    assert not state.is_locked("a4")
    assert not state.is_terminal() and state.returns() == (0, 0)


def test_mixed_colours_do_not_win():
    """Three of your tiles must show the same colour: R B R in a locked row is no win."""
    state = play(MIXED_ROW)
    assert [state.tile(sq) for sq in ("a1", "b1", "c1", "d1")] == ["R", "B", "R", "B"]
    assert all(state.is_locked(sq) for sq in ("a1", "b1", "c1", "d1"))
    assert not state.is_terminal()


def test_opponent_row_locked_by_the_movers_placement_gives_the_opponent_the_win():
    """Ruling: otherwise if the opponent has one (a placement can lock it), they win."""
    state = play(OPPONENT_WINS)
    assert state.history_notation()[-1] == "a3/b4R"  # played by Red/Blue
    assert state.winner == 1 and state.winning_squares == ("a2", "a3", "a4")
    assert state.result() == "0-1"
    # Red/Blue's own column b1-b4 shows R but is not locked (c3 is empty).
    assert not state.is_locked("b3")


def test_both_have_a_row_mover_wins_by_default():
    """Ruling: option both=mover (default): the player who just placed wins."""
    state = play(BOTH_HAVE_ROWS)
    assert state.winner == 1 and state.winning_squares == ("c2", "c3", "c4")


def test_both_have_a_row_opponent_wins_with_both_opponent():
    """Ruling: option both=opponent: the other player wins when both have a row."""
    state = play(BOTH_HAVE_ROWS, both="opponent")
    assert state.winner == 0 and state.winning_squares == ("b1", "c1", "d1")


def test_orthogonal_lock_option_applies_to_winning_rows():
    """Option lock=orthogonal: rows lock (and win) once their orthogonal neighbours are full."""
    assert play(ORTHOGONAL_ROW, lock="orthogonal").winner == 0
    king = play(ORTHOGONAL_ROW)
    assert not king.is_terminal() and not king.is_locked("c1")


def test_draw_when_all_sixteen_tiles_are_placed_without_a_winning_row():
    """If all 16 tiles are placed and no locked three-in-a-row exists, the game is a draw."""
    state = play(DRAW)
    assert state.is_terminal() and state.winner is None
    assert state.result() == "1/2-1/2" and state.returns() == (0, 0)
    assert state.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.parse_action("a1R")


def test_the_game_lasts_at_most_eight_turns_per_player():
    """Each player has 8 tiles and the board has 16 spaces: at most 8 turns each."""
    state = play(DRAW)
    assert len(state.history) == 16
    assert (state.in_hand(0), state.in_hand(1)) == (0, 0)
    assert all(state.owner(sq) is not None for sq in SQUARES)


# --- flip=flap ------------------------------------------------------------------------------


def test_flap_turns_the_tile_onto_an_adjacent_empty_square_changing_its_colour():
    """Option flip=flap: the tile is turned over onto an orthogonally adjacent empty square."""
    state = play("b2R", flip="flap")
    assert state.flip_choices() == ("b2-b3", "b2-c2", "b2-b1", "b2-a2")
    after = play("b2R b2-b3/c3W", flip="flap")
    assert after.owner("b2") is None
    assert (after.owner("b3"), after.tile("b3")) == (0, "B")


def test_flap_cannot_go_diagonally():
    """Option flip=flap: only orthogonally adjacent squares."""
    with pytest.raises(IllegalActionError, match="c3 is not orthogonally next to b2"):
        play("b2R", flip="flap").parse_action("b2-c3/a1Y")


def test_flap_leaves_its_square_free_for_the_placement():
    """Decision: the square a flapped tile leaves is empty, so the same turn may place there;
    the square it lands on is taken."""
    assert play("b2R b2-b3/b2Y", flip="flap").owner("b2") == 1
    with pytest.raises(IllegalActionError, match="b3 is where the flapped tile lands"):
        play("b2R", flip="flap").parse_action("b2-b3/b3Y")


def test_flap_is_impossible_without_an_adjacent_empty_square():
    """Decision: an unlocked tile with no orthogonal empty neighbour cannot be flapped."""
    state = play(FLAP_BLOCKED_TILE, flip="flap")
    assert not state.is_locked("d4")
    assert state.flip_choices() == ("d3-d2", "d3-c3")
    with pytest.raises(IllegalActionError, match="d3 is occupied; a flap needs an empty"):
        state.parse_action("d4-d3/a1Y")


def test_flap_flip_is_skipped_when_no_tile_can_be_flapped():
    """Decision: with flip=flap the flip is mandatory only if some tile can be flapped."""
    state = play(FLAP_NONE_POSSIBLE, flip="flap")
    assert not state.is_locked("c1") and state.owner("c1") == 1
    assert state.flip_choices() == ()
    assert moves_of(state) == ["d2R", "d2B", "c3R", "c3B", "d3R", "d3B", "d4R", "d4B"]
    with pytest.raises(IllegalActionError, match="no opponent tile has an empty square"):
        state.parse_action("c1-c2/c3R")
