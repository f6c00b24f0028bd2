"""FlipFlop 5x5 endgame tables: checked position by position against the reference rules
engine, short results confirmed by a plain minimax, the index, the disk cache, and ``hard``
converting won endings.

The tables here go up to 3 pieces (225,600 positions, well under a second to build); the
4-piece layer that ``hard`` uses is built by the same code
(studies/endgame-tables/endgame_tables.py)."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flipgames import make
from flipgames.agents import describe_level, make_level_agent
from flipgames.agents.base import Agent, RandomAgent
from flipgames.agents.endgame import (
    EndgameAgent,
    NoEndgameTableError,
    action_values,
    has_endgame_tables,
    known_values,
)
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.endgame import EndgameTable, EndgameValue
from flipgames.core.game import State
from flipgames.games.flipflop.rules import FlipFlop
from flipgames.solvers import endgame
from flipgames.solvers.cache import MAX_FILE_BYTES

pytestmark = pytest.mark.skipif(
    not has_endgame_tables(make("flipflop")), reason="kernels switched off (FLIPGAMES_KERNEL)"
)

GAME = make("flipflop")
AREA = 25
PIECES = 3


@pytest.fixture(scope="module")
def table() -> EndgameTable:
    built = endgame.endgame_table(GAME, PIECES)
    assert built is not None
    return built


def layers() -> list[np.ndarray]:
    return GAME.kernel().build_endgame(PIECES)  # type: ignore[attr-defined, no-any-return]


@cache
def _positions() -> tuple[tuple[int, int, int, int], ...]:
    """Every position of up to 3 pieces, by its bitboards (the reference's view of the
    index: which squares hold which colour and face, and the side to move)."""
    from itertools import combinations, product

    found = []
    for n in range(2, PIECES + 1):
        for squares in combinations(range(AREA), n):
            for colours in product((0, 1), repeat=n):
                if len(set(colours)) < 2:
                    continue
                for faces in product((0, 1), repeat=n):
                    white = sum(1 << s for s, c in zip(squares, colours, strict=True) if c == 0)
                    black = sum(1 << s for s, c in zip(squares, colours, strict=True) if c == 1)
                    bishops = sum(1 << s for s, f in zip(squares, faces, strict=True) if f)
                    found.extend((white, black, bishops, side) for side in (0, 1))
    return tuple(found)


def sample(count: int, seed: int) -> list[State]:
    """``count`` table positions drawn uniformly, as reference states with no history."""
    game = FlipFlop()
    rng = random.Random(seed)
    return [game.state_at(*position) for position in rng.sample(_positions(), count)]


def reference_value(table: EndgameTable, state: State) -> EndgameValue:
    """The value the table must give ``state``, computed from its children's table values
    (the reference engine makes the children and says how a finished game ended)."""
    if state.is_terminal():
        assert state.returns()[state.side] == -1  # type: ignore[attr-defined]
        return EndgameValue(-1, 0)
    children = action_values(table, state)
    wins = [v.distance for v in children.values() if v.value == 1]
    if wins:
        return EndgameValue(1, min(w for w in wins if w is not None))
    if any(v.value == 0 for v in children.values()):
        return EndgameValue(0, None)
    return EndgameValue(-1, max(v.distance or 0 for v in children.values()))


def test_every_position_of_the_index_is_one_of_the_reference_positions() -> None:
    """The index is a bijection: its size is the number of positions, and every position's
    number is distinct and in range."""
    from flipgames.games.flipflop.endgame import _index, _position, binomials, layer_size

    binom = binomials(AREA, PIECES)
    for n in range(2, PIECES + 1):
        positions = [p for p in _positions() if (p[0] | p[1]).bit_count() == n]
        assert len(positions) == layer_size(AREA, n)
        numbers = {_index(*p, n, binom, AREA) for p in positions}
        assert numbers == set(range(layer_size(AREA, n)))
    # ... and numbering back gives the position, here for 5 pieces too (102 M positions).
    binom = binomials(AREA, 5)
    rng = random.Random(3)
    for n in (2, 3, 4, 5):
        for index in rng.sample(range(layer_size(AREA, n)), 300):
            white, black, bishops, side = _position(index, n, binom, AREA)
            assert (white | black).bit_count() == n and white and black
            assert not white & black and not bishops & ~(white | black)
            assert _index(white, black, bishops, side, n, binom, AREA) == index


def test_values_agree_with_the_children_by_the_reference_engine(table: EndgameTable) -> None:
    """For 4,000 sampled positions: a win at d has a child lost for the opponent at d - 1 and
    none quicker; a loss at d has only children won for the opponent, the longest at d - 1;
    a loss at 0 is a position where the reference finds no legal move; a draw has a drawn
    child and no losing one for the opponent."""
    states = sample(4000, seed=1)
    outcomes = set()
    for state in states:
        expected = reference_value(table, state)
        assert table.value(state) == expected, state.render()
        outcomes.add(expected.outcome)
    assert outcomes == {"win", "draw", "loss"}


def test_positions_without_a_legal_move_are_lost_at_distance_0(table: EndgameTable) -> None:
    """Every covered position where the reference engine finds no legal move (checkmate,
    blocked) is lost at 0, and the table has no other loss at 0."""
    game = FlipFlop()
    for position in _positions()[::7]:
        state = game.state_at(*position)
        value = table.value(state)
        assert value is not None
        assert (value == EndgameValue(-1, 0)) == state.is_terminal()


def wins_within(state: State, plies: int) -> bool:
    """Plain minimax over the reference engine: can the side to move force a win within
    ``plies`` plies? (Five plies from a fresh position cannot reach a third repetition.)"""
    if plies <= 0 or state.is_terminal():
        return False
    return any(loses_within(state.apply(a), plies - 1) for a in state.legal_actions())


def loses_within(state: State, plies: int) -> bool:
    """Does the side to move lose within ``plies`` plies whatever it does?"""
    if state.is_terminal():
        return state.returns()[state.side] == -1  # type: ignore[attr-defined]
    if plies <= 0:
        return False
    return all(wins_within(state.apply(a), plies - 1) for a in state.legal_actions())


def test_short_results_are_confirmed_by_minimax(table: EndgameTable) -> None:
    """Every sampled win at distance d <= 5 is a forced win within d plies and (from d = 3)
    not within d - 2; every sampled loss at d <= 4 is a forced loss within d and (from d = 2)
    not within d - 2; and
    no drawn position is a forced result within 5 plies."""
    checked = {"win": 0, "loss": 0, "draw": 0}
    for state in sample(1500, seed=2):
        value = table.value(state)
        assert value is not None
        if value.outcome == "win" and value.distance is not None and value.distance <= 5:
            assert wins_within(state, value.distance), state.render()
            assert value.distance < 3 or not wins_within(state, value.distance - 2)
        elif value.outcome == "loss" and value.distance is not None and value.distance <= 4:
            assert loses_within(state, value.distance), state.render()
            assert value.distance < 2 or not loses_within(state, value.distance - 2)
        else:
            continue
        checked[value.outcome] += 1
    # Draws are rare (0.3% of 3-piece positions): 40 drawn ones, drawn at random.
    game, rng = FlipFlop(), random.Random(4)
    drawn = [p for p in _positions() if table.value(game.state_at(*p)) == EndgameValue(0, None)]
    for position in rng.sample(drawn, 40):
        state = game.state_at(*position)
        assert not wins_within(state, 5) and not loses_within(state, 4), state.render()
        checked["draw"] += 1
    assert min(checked.values()) >= 40, checked


def test_hand_made_positions(table: EndgameTable) -> None:
    """Positions worked out by hand: a capture of the last enemy piece wins at once; a side
    in check that cannot capture on its goal has lost on the spot."""
    c1, c2, a3 = 2, 7, 10
    # Black's rook on c2 takes White's piece on White's goal c1: a win in one ply.
    assert table.value(GAME.state_at(1 << c1, 1 << c2, 0, 1)) == EndgameValue(1, 1)
    # White to move, in check (Black on c1), its rook on a3 cannot reach c1: lost now.
    assert table.value(GAME.state_at(1 << a3, 1 << c1, 0, 0)) == EndgameValue(-1, 0)
    # With a bishop on a3 instead it captures on c1 (a3-b2-c1) and wins.
    assert table.value(GAME.state_at(1 << a3, 1 << c1, 1 << a3, 0)) == EndgameValue(1, 1)


def test_the_cache_stores_loads_and_rebuilds_a_corrupt_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FLIPGAMES_CACHE", str(tmp_path))
    monkeypatch.setattr(endgame, "_MEMO", {})
    built = endgame.endgame_table(GAME, 2)
    path = endgame.table_path(GAME, 2)
    assert built is not None and path.exists()
    monkeypatch.setattr(endgame, "_MEMO", {})
    loaded = endgame.endgame_table(GAME, 2)
    assert loaded is not None and loaded is not built
    state = GAME.state_at(1 << 2, 1 << 7, 0, 1)
    assert loaded.value(state) == built.value(state) == EndgameValue(1, 1)
    # Flip one stored distance: the checksum catches it and the table is rebuilt.
    with np.load(path) as stored:
        arrays = {name: stored[name].copy() for name in stored.files}
    arrays["pieces2"][0] += 2
    np.savez(path, **arrays)
    monkeypatch.setattr(endgame, "_MEMO", {})
    rebuilt = endgame.endgame_table(GAME, 2)
    assert "ignoring corrupt endgame table" in capsys.readouterr().err
    assert rebuilt is not None and rebuilt.value(state) == EndgameValue(1, 1)
    with np.load(path) as stored:
        assert np.array_equal(stored["pieces2"], layers()[0])


def test_a_larger_table_is_built_on_the_cached_smaller_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each table size is a checkpoint of the next build: the 3-piece build reads the cached
    2-piece layer and builds only the third, to the same tables as a build from nothing."""
    from flipgames.games.flipflop import endgame as tables

    monkeypatch.setenv("FLIPGAMES_CACHE", str(tmp_path))
    monkeypatch.setattr(endgame, "_MEMO", {})
    assert endgame.endgame_table(GAME, 2) is not None
    built: list[int] = []
    build_layer = tables.build_layer

    def counted(geometry: Any, n: int, *rest: Any) -> Any:
        built.append(n)
        return build_layer(geometry, n, *rest)

    monkeypatch.setattr(tables, "build_layer", counted)
    monkeypatch.setattr(endgame, "_MEMO", {})
    assert endgame.endgame_table(GAME, 3) is not None
    assert built == [3]
    with np.load(endgame.table_path(GAME, 3)) as stored:
        assert all(
            np.array_equal(stored[f"pieces{n}"], layer) for n, layer in enumerate(layers(), 2)
        )


def test_a_tables_own_size_bounds_what_loading_it_unpacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = endgame.endgame_kernel(GAME)
    assert kernel is not None and kernel.table_bytes(3) == 2 * (4_800 + 220_800)
    # The 6-piece table (2.8 GB) is larger than any other cached file may be.
    assert kernel.table_bytes(6) > MAX_FILE_BYTES
    monkeypatch.setenv("FLIPGAMES_CACHE", str(tmp_path))
    monkeypatch.setattr(endgame, "MAX_FILE_BYTES", 0)
    monkeypatch.setattr(endgame, "_MEMO", {})
    assert endgame.endgame_table(GAME, 2) is not None
    monkeypatch.setattr(endgame, "_MEMO", {})
    assert endgame.ready_endgame_table(GAME, 2) is not None  # its own size: it loads
    path = endgame.table_path(GAME, 2)
    with np.load(path) as stored:
        arrays = {name: stored[name].copy() for name in stored.files}
    np.savez(path, **arrays, padding=np.zeros(2**20, dtype=np.int16))  # 2 MB more
    monkeypatch.setattr(endgame, "_MEMO", {})
    assert endgame.ready_endgame_table(GAME, 2) is None
    assert "unpacks to more than" in capsys.readouterr().err


def test_a_probe_refuses_layers_of_the_wrong_shape_and_a_bad_size() -> None:
    kernel = GAME.kernel()
    with pytest.raises(ValueError, match="must hold 4,800 int16 values"):
        kernel.endgame_table([np.zeros(10, dtype=np.int16)])  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"needs 2\.\.10 pieces, not 11"):
        kernel.build_endgame(11)  # type: ignore[attr-defined]


def play_out(state: State, winner: Agent, defender: Agent, plies: int) -> State:
    """Play at most ``plies`` plies, ``winner`` for the side to move now."""
    seats = {state.current_player: winner, 1 - state.current_player: defender}
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(seats[state.current_player].choose(state))
    return state


def table_agent(seed: int, pieces: int = PIECES) -> EndgameAgent:
    search = KernelAlphaBetaAgent(random.Random(seed), GAME, max_nodes=2_000)
    return EndgameAgent(random.Random(seed), GAME, search, max_pieces=pieces)


def test_won_positions_are_converted_within_their_distance(table: EndgameTable) -> None:
    """From won positions at distances 5 and more, the table player wins within the
    distance against a defender holding out longest (then in exactly the distance), a
    random one and the compiled search."""
    won = [s for s in sample(3000, seed=5) if (v := table.value(s)) and v.value == 1]
    long_wins = sorted(won, key=lambda s: -(table.value(s).distance or 0))[:6]  # type: ignore[union-attr]
    assert (table.value(long_wins[0]).distance or 0) >= 9  # type: ignore[union-attr]
    for i, start in enumerate(long_wins):
        distance = table.value(start).distance  # type: ignore[union-attr]
        assert distance is not None
        mover = start.current_player
        defenders: list[Agent] = [
            table_agent(100 + i),
            RandomAgent(random.Random(i)),
            KernelAlphaBetaAgent(random.Random(i), GAME, max_nodes=5_000),
        ]
        for defender in defenders:
            end = play_out(start, table_agent(i), defender, distance)
            assert end.is_terminal() and end.returns()[mover] == 1, start.render()
            if isinstance(defender, EndgameAgent):
                assert len(end.history) == distance  # both perfect: exactly the distance


def test_drawn_positions_stay_drawn_and_lost_ones_hold_out(table: EndgameTable) -> None:
    """In a drawn position the table player only plays drawing actions (checked against the
    table); a lost one, facing the quickest winner, lasts exactly the table's distance."""
    agent = table_agent(7)
    for state in sample(400, seed=6):
        value = table.value(state)
        assert value is not None
        if value.outcome == "draw":
            action = agent.choose(state)
            child = table.value(state.apply(action))
            assert child is not None and child.value == 0
        elif value.outcome == "loss" and value.distance:
            end = play_out(state, agent, table_agent(8), value.distance)
            assert end.is_terminal() and len(end.history) == value.distance


def test_a_lost_side_takes_a_draw_by_third_repetition(table: EndgameTable) -> None:
    """The tables know positions, not games. Both sides walk one piece round a square of
    four moves (White e1-d2-e2-d1, Black d4-e3-d3-e4); before Black closes the second round,
    Black is lost by the table (in 8), but closing it makes the start position occur for the
    third time: a draw, which the table player takes."""
    e1, e5, d4 = 4, 24, 18
    start = GAME.state_at(1 << e1 | 1 << e5, 1 << d4, 1 << e1 | 1 << e5 | 1 << d4, 0)
    cycle = ["e1-d2", "d4-e3", "d2-e2", "e3-d3", "e2-d1", "d3-e4", "d1-e1", "e4-d4"]
    state = start
    for move in cycle + cycle[:-1]:
        state = state.apply(state.parse_action(move))
    assert table.value(state) == EndgameValue(-1, 8)
    closing = state.parse_action("e4-d4")
    assert action_values(table, state)[closing] == EndgameValue(0, None)
    agent = table_agent(3)
    end = state.apply(agent.choose(state))
    assert end.is_terminal() and end.returns() == (0, 0)
    assert agent.last.value == EndgameValue(-1, 8)


def test_hard_on_flipflop_5x5_plays_from_the_tables_and_says_so() -> None:
    assert isinstance(make_level_agent(GAME, "hard", random.Random(1)), EndgameAgent)
    assert "endgame tables once at most 4 pieces" in describe_level(GAME, "hard")
    small = make("flipflop-3x3")
    assert not has_endgame_tables(small)
    assert "endgame" not in describe_level(small, "hard")
    with pytest.raises(NoEndgameTableError, match="flipflop-3x3 has no endgame tables"):
        EndgameAgent(
            random.Random(1), small, KernelAlphaBetaAgent(random.Random(1), small, max_nodes=10)
        )
    assert endgame.endgame_table(small) is None


def four_piece_positions(count: int, seed: int) -> list[State]:
    """Random live positions with 4 pieces (one more than the test tables hold) in which
    some capture is possible."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        squares = rng.sample(range(AREA), 4)
        colours = [0, 1, *rng.choices((0, 1), k=2)]
        white = sum(1 << s for s, c in zip(squares, colours, strict=True) if c == 0)
        black = sum(1 << s for s, c in zip(squares, colours, strict=True) if c == 1)
        bishops = sum(1 << s for s in squares if rng.random() < 0.5)
        state = GAME.state_at(white, black, bishops, rng.randrange(2))
        if not state.is_terminal() and any(
            (white | black) >> (a % AREA) & 1 for a in state.legal_actions()
        ):
            found.append(state)
    return found


def test_one_piece_too_many_a_capture_into_the_tables_is_valued(table: EndgameTable) -> None:
    """With one piece more than the tables hold, a capture into a won ending is played (and
    wins: the reference engine makes the child, the tables say it is lost for the
    opponent), and a capture into a lost ending is never played while anything else
    remains. (The search behind it gets a single node, too few to see any of that.)"""
    search = KernelAlphaBetaAgent(random.Random(4), GAME, max_nodes=1)
    agent = EndgameAgent(random.Random(4), GAME, search, max_pieces=PIECES)
    took_win = avoided = 0
    for state in four_piece_positions(300, seed=13):
        action = agent.choose(state)
        values = known_values(table, state)
        assert agent.last.actions == values
        child = state.apply(action)
        if any(v.value > 0 for v in values.values()):
            assert action in values and values[action].value == 1
            reply = table.value(child)
            assert child.is_terminal() or (reply is not None and reply.value == -1)
            took_win += 1
        elif any(v.value < 0 for v in values.values()) and len(values) < len(state.legal_actions()):
            assert action not in values or values[action].value >= 0, state.render()
            avoided += 1
    assert took_win >= 30 and avoided >= 10, (took_win, avoided)


def test_tables_are_never_built_inside_a_move_but_loaded_once_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A covered position before the tables exist is played by the search (nothing is built
    inside a move); the build (what ``flipgames warmup`` runs) reports progress; then the
    agent plays from them, and the next process loads them from the cache."""
    monkeypatch.setenv("FLIPGAMES_CACHE", str(tmp_path))
    monkeypatch.setattr(endgame, "_MEMO", {})
    reports: list[tuple[str, int | None, int | None]] = []

    def record(message: str, *, done: int | None = None, total: int | None = None) -> None:
        reports.append((message, done, total))

    covered = GAME.state_at(1 << 2, 1 << 7, 0, 1)  # Black's rook on c2 captures on c1 and wins
    agent = table_agent(1)
    agent.choose(GAME.new_initial_state())
    agent.choose(covered)
    assert agent.last.value is None and not agent.last.actions
    assert not endgame.table_path(GAME, PIECES).exists()
    assert endgame.ready_endgame_table(GAME, PIECES) is None
    assert endgame.endgame_table(GAME, PIECES, record) is not None
    assert endgame.table_path(GAME, PIECES).exists()
    messages = {message.split(",")[0] for message, _, _ in reports}
    assert messages == {"endgame tables: 2 pieces", "endgame tables: 3 pieces"}
    assert all(
        done is not None and total is not None and done <= total for _, done, total in reports
    )
    assert ("endgame tables: 3 pieces, moves", 220_800, 220_800) in reports
    assert covered.action_to_string(agent.choose(covered)) == "c2xc1"
    assert agent.last.value == EndgameValue(1, 1)
    monkeypatch.setattr(endgame, "_MEMO", {})
    reports.clear()
    loaded = table_agent(2)
    loaded.choose(covered)
    assert loaded.last.value == EndgameValue(1, 1) and not reports  # loaded from the cache


def test_without_the_kernels_there_are_no_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """``FLIPGAMES_KERNEL=python``: the tables are the compiled kernel's, so none; ``hard``
    is the reference alpha-beta and says nothing of tables."""
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    assert not has_endgame_tables(GAME) and endgame.endgame_table(GAME) is None
    assert not isinstance(make_level_agent(GAME, "hard", random.Random(1)), EndgameAgent)
    assert "endgame" not in describe_level(GAME, "hard")


def test_hard_keeps_searching_where_the_tables_do_not_reach() -> None:
    agent = table_agent(1)
    start = GAME.new_initial_state()
    assert agent.choose(start) in start.legal_actions()
    assert agent.last.value is None and not agent.last.actions
