"""FlipFlop 5x5's compiled alpha-beta probing endgame tables at its nodes: covered positions
get the tables' exact values, a capture into a won ending is found and the win carried to
the end of the game (judged by the reference rules engine), searches that cannot reach the
tables are unchanged, and *hard* and the review engine hand the search the built tables.

The tables here go up to 3 pieces (built in well under a second in the tests' cache), so
4-piece roots have their captures probed, as a 5-piece root has with *hard*'s 4-piece
tables."""

from __future__ import annotations

import random
from typing import cast

import pytest

from flipgames import make
from flipgames.agents.endgame import EndgameAgent, action_values, best_actions, known_values
from flipgames.agents.kernel_search import KernelAlphaBetaAgent, has_kernel_search
from flipgames.core.endgame import EndgameTable
from flipgames.core.game import State
from flipgames.games.flipflop.rules import FlipFlop
from flipgames.kernels.search import PROVEN, WIN, KernelSearchResult
from flipgames.solvers import endgame

pytestmark = pytest.mark.skipif(
    not has_kernel_search(make("flipflop")), reason="kernels switched off (FLIPGAMES_KERNEL)"
)

GAME = cast(FlipFlop, make("flipflop"))
AREA = 25
PIECES = 3
#: The goals (c1, c5): the only squares a capture takes a piece on.
GOALS = (2, 22)


@pytest.fixture(scope="module")
def table() -> EndgameTable:
    built = endgame.endgame_table(GAME, PIECES)
    assert built is not None
    return built


def positions(count: int, pieces: int, seed: int, even: bool = False) -> list[State]:
    """Random live positions with ``pieces`` pieces (each side at least one; ``even``: as
    many for each side as can be), no history."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        squares = rng.sample(range(AREA), pieces)
        colours = [0, 1, *rng.choices((0, 1), k=pieces - 2)]
        if even:
            colours = [i % 2 for i in range(pieces)]
        white = sum(1 << s for s, c in zip(squares, colours, strict=True) if c == 0)
        black = sum(1 << s for s, c in zip(squares, colours, strict=True) if c == 1)
        bishops = sum(1 << s for s in squares if rng.random() < 0.5)
        state = GAME.state_at(white, black, bishops, rng.randrange(2))
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            found.append(state)
    return found


def undone_captures(table: EndgameTable, count: int, value: int, distance: int) -> list[State]:
    """4-piece positions with a capture into a 3-piece ending of ``value`` (+1 or -1) for the
    side the capture leaves to move, at ``distance`` plies or more: a capture undone from
    such an ending (the capturer's piece back on an empty square it came from, flipped, and
    a piece of the other side's on the goal it took), confirmed by the reference engine
    (the capture is legal and makes the ending)."""
    rng = random.Random(value * distance)
    found: list[State] = []
    while len(found) < count:
        child = positions(1, PIECES, seed=rng.randrange(1 << 30))[0]
        found_value = table.value(child)
        assert found_value is not None
        if found_value.value != value or (found_value.distance or 0) < distance:
            continue
        white, black, bishops = child.white, child.black, child.bishops  # type: ignore[attr-defined]
        capturer = 1 - child.current_player
        mine = black if capturer else white
        goal = rng.choice([sq for sq in GOALS if mine >> sq & 1] or [-1])
        origins = [sq for sq in range(AREA) if not (white | black) >> sq & 1]
        if goal < 0:
            continue
        origin = rng.choice(origins)
        moved = 1 << goal | 1 << origin
        faces = bishops & ~(1 << goal) | (~bishops >> goal & 1) << origin
        faces |= rng.randrange(2) << goal  # the captured piece's face
        if capturer == 0:
            parent = GAME.state_at(white ^ moved, black | 1 << goal, faces, 0)
        else:
            parent = GAME.state_at(white | 1 << goal, black ^ moved, faces, 1)
        capture = origin * AREA + goal
        legal = [] if parent.is_terminal() else parent.legal_actions()
        if capture not in legal or len(legal) == 1:
            continue
        made = parent.apply(capture)
        assert made.key() == child.key() and table.value(made) == found_value
        found.append(parent)
    return found


def searched(
    state: State, table: EndgameTable | None, seed: int = 1, **budget: int
) -> KernelSearchResult:
    agent = KernelAlphaBetaAgent(random.Random(seed), GAME, **budget)  # type: ignore[arg-type]
    agent.probe(table)
    return agent.search(state)


def score_of(value: int, distance: int | None) -> int:
    """The search's score of a table result ``distance`` plies from the root."""
    if value == 0:
        return 0
    assert distance is not None
    return value * (WIN - distance)


def test_a_covered_root_gets_the_tables_value_and_best_action(table: EndgameTable) -> None:
    """Every child of a covered root is probed: the root's score is the table's value at its
    distance, and the action keeps it (the quickest win, the longest loss, a draw)."""
    outcomes = set()
    for state in positions(60, 2, seed=1) + positions(150, PIECES, seed=1):
        value = table.value(state)
        assert value is not None
        result = searched(state, table, max_nodes=50_000)
        assert result.score == score_of(value.value, value.distance), state.render()
        values = action_values(table, state)
        assert result.action in best_actions(values)
        outcomes.add(value.outcome)
    assert outcomes == {"win", "loss", "draw"}


def test_a_capture_into_a_won_ending_is_found_and_the_win_carried_out(
    table: EndgameTable,
) -> None:
    """One piece more than the tables: where a capture leads to a won ending, the probing
    search scores the root a proven win, at least as quick as that capture's, and playing
    on with it wins the game within that distance (against the same search defending), as
    the reference engine plays and ends it."""
    for index, state in enumerate(undone_captures(table, 25, -1, 6)):
        wins = [v.distance or 0 for v in known_values(table, state).values() if v.value == 1]
        result = searched(state, table, seed=index, max_nodes=20_000)
        assert PROVEN < WIN - min(wins) <= result.score, state.render()
        attacker = KernelAlphaBetaAgent(random.Random(index), GAME, max_nodes=20_000)
        defender = KernelAlphaBetaAgent(random.Random(-index), GAME, max_nodes=20_000)
        attacker.probe(table)
        defender.probe(table)
        mover, end = state.current_player, state
        for _ in range(WIN - result.score):
            if end.is_terminal():
                break
            end = end.apply((attacker if end.current_player == mover else defender).choose(end))
        assert end.is_terminal() and end.returns()[mover] == 1, state.render()


def test_searches_that_cannot_reach_the_tables_are_unchanged(table: EndgameTable) -> None:
    """From positions of 8 to 10 pieces a 3-ply search never meets 3 pieces: with the tables
    and without, the same nodes, scores and action."""
    rng = random.Random(4)
    compared = 0
    state: State = GAME.new_initial_state()
    while compared < 12:
        key = state.key()
        assert isinstance(key, int)
        if state.is_terminal() or (key & (1 << 2 * AREA) - 1).bit_count() < 8:
            state = GAME.new_initial_state()
        with_tables = searched(state, table, seed=compared, depth=3, max_nodes=200_000)
        without = searched(state, None, seed=compared, depth=3, max_nodes=200_000)
        assert with_tables == without
        compared += 1
        state = state.apply(rng.choice(state.legal_actions()))


def test_a_search_forgets_the_tables_when_told(table: EndgameTable) -> None:
    """``probe(None)`` after tables: the search is the plain one again (same nodes, scores)."""
    state = positions(1, PIECES + 1, seed=5)[0]
    agent = KernelAlphaBetaAgent(random.Random(1), GAME, depth=4, max_nodes=50_000)
    agent.probe(table)
    agent.search(state)
    agent.probe(None)
    agent.searcher.forget()
    assert agent.search(state) == searched(state, None, depth=4, max_nodes=50_000)


def test_hard_hands_its_search_the_built_tables(table: EndgameTable) -> None:
    """The endgame agent gives its search the tables it plays from (once built): after any
    move of the agent's, 4-piece roots with a capture winning in 11 plies or more that a
    3-ply search does not prove without the tables are proven by its search."""
    search = KernelAlphaBetaAgent(random.Random(1), GAME, depth=3, max_nodes=20_000)
    agent = EndgameAgent(random.Random(1), GAME, search, max_pieces=PIECES)
    found = undone_captures(table, 12, -1, 10)
    roots = [s for s in found if searched(s, None, depth=3, max_nodes=20_000).score < PROVEN]
    assert len(roots) >= 3
    agent.choose(GAME.new_initial_state())
    assert all(search.search(state).score > PROVEN for state in roots)


def test_the_review_engine_probes_the_built_tables(
    table: EndgameTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review's engine is the same search, given the tables where they are built: a
    capture win (11 plies or more) it cannot prove alone is a certain result with them."""
    from flipgames.lab.review import Evaluator

    def ready(built: EndgameTable | None) -> None:
        monkeypatch.setattr(endgame, "ready_endgame_table", lambda game, max_pieces=None: built)

    ready(None)
    found = undone_captures(table, 12, -1, 10)
    roots = [state for state in found if Evaluator(GAME).assess(state).value not in (0, 1)]
    assert roots
    ready(table)
    assert all(Evaluator(GAME).assess(state).value in (0, 1) for state in roots)


def test_another_games_search_cannot_take_the_tables(table: EndgameTable) -> None:
    small = KernelAlphaBetaAgent(random.Random(1), make("flipflop-3x3"), max_nodes=10)
    with pytest.raises(ValueError, match="cannot probe that endgame table"):
        small.probe(table)
    small.probe(None)
    four = KernelAlphaBetaAgent(random.Random(1), make("flipfour"), max_nodes=10)
    with pytest.raises(ValueError, match="flipfour has no search that probes endgame tables"):
        four.probe(table)
