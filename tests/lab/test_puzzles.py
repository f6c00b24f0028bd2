"""Puzzles are checked independently of the code that made them: the answer is replayed on the
reference engine and its win in N is proved by an exhaustive search there; every other first
move is shown not to win (exhaustively where the game is small enough, else by the solver); the
best gear's odds are recomputed by an exact expectimax on the reference engine."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.lab.puzzles import MAX_COUNT, Puzzle, PuzzleError, make_puzzles
from flipgames.solvers import catalog


def wins_within(state: State, plies: int, me: int) -> bool:
    """Player ``me`` can force a win from ``state`` within ``plies`` plies (reference engine,
    every line searched; repetition draws included, as ``apply`` knows them)."""
    return _forced(state, me, plies)


def _forced(state: State, me: int, plies: int) -> bool:
    if state.is_terminal():
        return state.returns()[me] > 0
    if plies == 0:
        return False
    children = (state.apply(a) for a in state.legal_actions())
    if state.current_player == me:
        return any(_forced(child, me, plies - 1) for child in children)
    return all(_forced(child, me, plies - 1) for child in children)


def replay(puzzle: Puzzle) -> tuple[State, int]:
    game = make(puzzle.game, puzzle.options)
    state = game.state_from_actions(puzzle.actions)
    assert state.render() == puzzle.board
    assert state.current_player == puzzle.to_move
    assert game.player_names[puzzle.to_move] == puzzle.player
    answer = state.parse_action(puzzle.answer)
    listed = {v.action for v in puzzle.values}
    assert listed == {state.action_to_string(a) for a in state.legal_actions()}
    assert [v.action for v in puzzle.values if v.best] == [puzzle.answer]
    return state, answer


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_flipflop_puzzles_win_in_n_with_one_winning_move(seed):
    (puzzle,) = make_puzzles(make("flipflop-3x3"), 1, seed)
    state, answer = replay(puzzle)
    n = puzzle.moves
    assert puzzle.kind == "win-in-n" and n is not None and f"win in {n} " in puzzle.question
    assert len(state.legal_actions()) > 1
    # The answer wins within N of the mover's moves against every defence; nothing wins
    # faster (so N is exact).
    assert wins_within(state.apply(answer), 2 * n - 2, puzzle.to_move)
    if n > 1:
        assert not wins_within(state, 2 * n - 3, puzzle.to_move)
    # No other first move wins within N, and (the solver, over the whole game) none wins.
    solution = catalog.solution(make("flipflop-3x3"))
    for action in state.legal_actions():
        if action != answer:
            assert not wins_within(state.apply(action), 2 * n - 2, puzzle.to_move)
            assert solution.value(state.apply(action), puzzle.to_move).outcome != "win"
    assert solution.value(state).remoteness == 2 * n - 1


def negamax(state: State, memo: dict[object, int]) -> int:
    """The exact value (+1, 0, -1) for the player to move, every line to the end."""
    if state.is_terminal():
        return state.returns()[state.parent.current_player] * -1 if state.parent else 0
    key = state.key()
    if key not in memo:
        best = -1
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                value = child.returns()[state.current_player]
            else:
                value = -negamax(child, memo)
            best = max(best, value)
            if best == 1:
                break
        memo[key] = best
    return memo[key]


@pytest.mark.skipif(
    os.environ.get("FLIPGAMES_KERNEL") == "python", reason="Rubik's Flip puzzles need kernels"
)
@pytest.mark.parametrize("seed", [1, 4])
def test_rubiks_flip_endings_have_one_winning_turn(seed):
    (puzzle,) = make_puzzles(make("rubiks-flip"), 1, seed)
    state, answer = replay(puzzle)
    n = puzzle.moves
    assert puzzle.kind == "win-in-n" and n is not None
    assert wins_within(state.apply(answer), 2 * n - 2, puzzle.to_move)
    if n > 1:
        assert not wins_within(state, 2 * n - 3, puzzle.to_move)
    # Every other turn, searched to the end on the reference engine: not a win.
    memo: dict[object, int] = {}
    for action in state.legal_actions():
        child = state.apply(action)
        value = child.returns()[puzzle.to_move] if child.is_terminal() else -negamax(child, memo)
        listed = next(v for v in puzzle.values if v.action == state.action_to_string(action))
        assert {1: "win", 0: "draw", -1: "loss"}[value] == listed.outcome
        assert (value == 1) == (action == answer)


def expectimax(state: State, player: int, memo: dict[object, Fraction]) -> Fraction:
    """``player``'s exact probability of winning with both playing to maximise their own."""
    if state.is_terminal():
        return Fraction(int(state.returns()[player] > 0))
    key = state.key()
    if key not in memo:
        if state.is_chance_node():
            value = sum(
                (p * expectimax(state.apply(a), player, memo) for a, p in state.chance_outcomes()),
                Fraction(0),
            )
        else:
            values = [expectimax(state.apply(a), player, memo) for a in state.legal_actions()]
            value = max(values) if state.current_player == player else min(values)
        memo[key] = value
    return memo[key]


@pytest.mark.parametrize("seed", [1, 2])
def test_checkered_flag_best_gear_has_the_best_exact_odds(seed):
    game = make("checkered-flag", track="short")
    (puzzle,) = make_puzzles(game, 1, seed)
    state, _ = replay(puzzle)
    assert puzzle.kind == "best-gear" and puzzle.moves is None
    memo: dict[object, Fraction] = {}
    odds = {
        state.action_to_string(a): expectimax(state.apply(a), puzzle.to_move, memo)
        for a in state.legal_actions()
    }
    assert {v.action: v.win for v in puzzle.values} == odds
    assert max(odds, key=lambda a: odds[a]) == puzzle.answer
    second = sorted(odds.values())[-2]
    assert odds[puzzle.answer] - second >= Fraction(1, 100)
    assert str(odds[puzzle.answer]) in puzzle.explanation()


def test_default_track_puzzles_come_from_the_solution():
    game = make("checkered-flag")
    puzzles = make_puzzles(game, 2, 9)
    solution = catalog.solution(game)
    for puzzle in puzzles:
        state, answer = replay(puzzle)
        values = solution.action_values(state)
        assert max(values, key=lambda a: values[a].win) == answer
        assert {v.action: v.win for v in puzzle.values} == {
            state.action_to_string(a): v.win for a, v in values.items()
        }


def test_puzzles_are_reproducible_and_distinct():
    game = make("flipflop-3x3")
    first = [p.to_json() for p in make_puzzles(game, 3, 11)]
    assert first == [p.to_json() for p in make_puzzles(game, 3, 11)]
    # Puzzle i of a batch is the puzzle of seed + i alone (unless an earlier one took it).
    assert first[0] == make_puzzles(game, 1, 11)[0].to_json()
    positions = [tuple(p["actions"]) for p in first]
    assert len(set(positions)) == 3
    assert [p["seed"] for p in first] == [11, 12, 13]


def test_public_json_hides_the_answer():
    (puzzle,) = make_puzzles(make("flipflop-3x3"), 1, 5)
    public = puzzle.public_json()
    assert "answer" not in public and "values" not in public and "explanation" not in public
    assert puzzle.to_json()["answer"] == puzzle.answer


def test_a_puzzle_gives_its_position_in_notation_where_the_game_has_one():
    (puzzle,) = make_puzzles(make("flipflop-3x3"), 1, 5)
    game = make("flipflop-3x3")
    assert puzzle.position is not None
    assert game.from_position(puzzle.position).key() == puzzle.state(game).key()
    assert puzzle.public_json()["position"] == puzzle.position


@pytest.mark.parametrize("name", ["flipflop", "flipfour", "flip-switch"])
def test_games_without_puzzles_are_refused(name):
    with pytest.raises(PuzzleError, match=f"{name} has no puzzles: puzzles exist for"):
        make_puzzles(make(name), 1, 1)


@pytest.mark.parametrize("count", [0, -1, MAX_COUNT + 1, True])
def test_bad_counts_are_refused(count):
    with pytest.raises(PuzzleError, match="count must be 1 to"):
        make_puzzles(make("flipflop-3x3"), count, 1)
