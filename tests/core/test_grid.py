"""core.grid: the one square-naming helper the square-board games share."""

from __future__ import annotations

import pytest

from flipgames import make
from flipgames.core.errors import NotationError
from flipgames.core.grid import grid


def test_names_run_rank_major_from_a1():
    board = grid(4)
    assert board.names[:5] == ("a1", "b1", "c1", "d1", "a2")
    assert board.name(15) == "d4"
    assert [board.square(f, r) for f, r in ((0, 0), (3, 0), (0, 1))] == [0, 3, 4]


def test_parsing_takes_any_case_and_rejects_squares_off_the_board():
    board = grid(5)
    assert board.parse("E5") == board.parse("e5") == 24
    assert board.find("E5") == 24 and board.find("e6") is None and board.find("e05") is None
    for bad in ("f1", "a6", "a0", "", "a", "11", "a1x"):
        with pytest.raises(NotationError, match="squares run a1 to e5"):
            board.parse(bad)


def test_rays_stop_at_the_edge():
    board = grid(3)
    assert board.ray(4, 1, 0) == (5,)
    assert board.ray(0, 1, 1) == (4, 8)
    assert board.ray(8, 1, 0) == ()
    assert not board.in_bounds(3, 0) and board.in_bounds(2, 2)


def test_one_grid_per_size_and_sizes_are_checked():
    assert grid(5) is grid(5)
    with pytest.raises(ValueError, match="1 to 26"):
        grid(0)


@pytest.mark.parametrize("name", ["flipflop", "flipflop-3x3", "flipfour", "rubiks-flip"])
def test_the_games_name_squares_as_the_grid_does(name):
    game = make(name)
    state = game.new_initial_state()
    size = {"flipflop": 5, "flipflop-3x3": 3, "flipfour": 5, "rubiks-flip": 4}[name]
    names = set(grid(size).names)
    targets = set()
    for action in state.legal_actions():
        info = state.action_info(action)
        assert info.get("from", "a1") in names
        targets.add(info["to"])
    assert targets <= names and len(targets) >= size
