"""FlipFlop 5x5 endgame tables: what they cost and what they fix.

Run: ``.venv/bin/python studies/endgame-tables/endgame_tables.py [--pieces K] [--positions N]
[--seconds S] [--game-positions N] [--game-nodes N] [--verify N] [--seed S] [--skip-play]``.

1. **Cost.** Builds the tables of up to ``--pieces`` pieces (default 4, what ``hard`` uses)
   cold, in a fresh cache folder: build time per layer, peak memory of the process (RSS, with
   the figure before the build for comparison), positions, bytes in memory and on disk, the
   time to load them back from the cache, and per layer the share of wins, draws and losses
   for the side to move and the longest distance.
2. **Benefit.** On ``--positions`` sampled positions with at most ``--pieces`` pieces, each
   side at least one, the game not over, and no piece of the side to move standing on the
   enemy goal (the enemy would have had to capture it, so no game reaches such a position),
   drawn uniformly from the tables, and on ``--game-positions`` positions with as few pieces
   from real games (the compiled alpha-beta with ``--game-nodes`` nodes a move
   against itself after 4 random opening plies, at most 4 positions a game, with their
   games' histories): how often ``hard`` *without* the tables (the compiled
   alpha-beta, ``--seconds`` a move) picks a move that drops the table value (a win thrown
   to a draw or a loss, a draw to a loss), how often it wins more slowly than it could, and
   how often it resists less long than it could; then the same for ``hard`` *with* the
   tables (zero by construction, shown). The same on ``--positions`` positions drawn
   uniformly among the drawn ones and those won or lost at a distance of at least
   ``--min-distance`` plies (beyond what a search proves in a second).
3. **Conversion.** ``--conversions`` won positions at a distance of at least
   ``--min-distance``, played out by ``hard`` without and with the tables against the
   tables' longest resistance, to the end or 400 plies.

Between the two, ``--verify`` sampled positions (default 20,000) are checked against their
children made by the reference rules engine, as the tests check the 3-piece tables.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

import numpy as np

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _common import cpu_name
from flipgames import make
from flipgames.agents.base import Agent
from flipgames.agents.endgame import EndgameAgent, action_values
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.endgame import EndgameKernel, EndgameTable, EndgameValue
from flipgames.core.game import Game, State
from flipgames.games.flipflop.endgame import DRAW, _position, binomials, layer_size
from flipgames.games.flipflop.rules import FlipFlop
from flipgames.solvers import endgame

AREA = 25


def flipflop() -> FlipFlop:
    return cast(FlipFlop, make("flipflop"))


GOALS = (2, 22)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cost(pieces: int, cold: bool = True) -> EndgameTable:
    """Build (``cold``: in an empty cache; else in the user's, from the largest smaller table
    cached there, the build's checkpoint), report, load back, report; returns the table."""
    game = flipflop()
    kernel = cast(EndgameKernel, game.kernel())
    if cold:
        os.environ["FLIPGAMES_CACHE"] = tempfile.mkdtemp(prefix="flipgames-endgame-")
    kernel.build_endgame(2)  # compile (or load the machine code) outside the timing
    before = peak_mb()
    marks: dict[str, float] = {}
    started = time.perf_counter()

    def progress(message: str, *, done: int | None = None, total: int | None = None) -> None:
        layer = message.split(",")[0]
        marks[layer] = time.perf_counter() - started

    table = endgame.endgame_table(game, pieces, progress)
    built = time.perf_counter() - started
    assert table is not None
    path = endgame.table_path(game, pieces)
    cache = "cold cache" if cold else "the user's cache"
    print(f"build of up to {pieces} pieces: {built:.1f} s ({cache}, compiled code loaded)")
    previous = 0.0
    for layer, at in marks.items():
        print(f"  {layer}: done at {at:.1f} s ({at - previous:.1f} s)")
        previous = at
    print(f"peak RSS {peak_mb():.0f} MB (before the build {before:.0f} MB)")
    print(
        f"positions {table.positions:,}; {2 * table.positions / 1e6:.1f} MB in memory; "
        f"{path.stat().st_size / 1e6:.1f} MB on disk ({path.name})"
    )
    endgame._MEMO.clear()
    started = time.perf_counter()
    loaded = endgame.endgame_table(game, pieces)
    print(f"load from the cache: {time.perf_counter() - started:.2f} s")
    assert loaded is not None
    print()
    print("| pieces | positions | win | draw | loss | longest win | longest loss |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with np.load(path) as stored:
        for n in range(2, pieces + 1):
            layer = stored[f"pieces{n}"]
            decided = layer[layer != DRAW]
            wins, losses = decided[decided % 2 == 1], decided[decided % 2 == 0]
            print(
                f"| {n} | {len(layer):,} | {len(wins) / len(layer):.1%} | "
                f"{np.mean(layer == DRAW):.1%} | {len(losses) / len(layer):.1%} | "
                f"{wins.max()} | {losses.max()} |"
            )
    print()
    return loaded


def plausible(state: State) -> bool:
    """Not over, and the side to move has no piece on the enemy goal (unreachable)."""
    if state.is_terminal():
        return False
    key = state.key()
    assert isinstance(key, int)
    side = key >> 3 * AREA
    mine = key >> side * AREA & (1 << AREA) - 1
    return not mine >> GOALS[1 - side] & 1


def sample(
    pieces: int, count: int, seed: int, keep: Callable[[EndgameValue], bool] | None = None
) -> list[State]:
    """``count`` plausible positions, uniform over the tables' positions (those whose value
    ``keep`` accepts, if given)."""
    game = flipflop()
    table = endgame.endgame_table(game, pieces) if keep else None
    rng = random.Random(seed)
    sizes = [layer_size(AREA, n) for n in range(2, pieces + 1)]
    binom = binomials(AREA, pieces)
    found: list[State] = []
    while len(found) < count:
        n = rng.choices(range(2, pieces + 1), weights=sizes)[0]
        index = rng.randrange(layer_size(AREA, n))
        state = game.state_at(*_position(index, n, binom, AREA))
        if table is not None and keep is not None and not keep(table.value(state)):  # type: ignore[arg-type]
            continue
        if plausible(state):
            found.append(state)
    return found


def verify(table: EndgameTable, states: list[State]) -> None:
    """Each position's table value against its children made by the reference engine (as
    tests/solvers/test_endgame.py checks the 3-piece tables): the quickest win over children
    lost for the opponent, else a draw if a child is drawn, else the longest loss."""
    for state in states:
        values = action_values(table, state)
        wins = [v.distance or 0 for v in values.values() if v.value == 1]
        if wins:
            expected = EndgameValue(1, min(wins))
        elif any(v.value == 0 for v in values.values()):
            expected = EndgameValue(0, None)
        else:
            expected = EndgameValue(-1, max(v.distance or 0 for v in values.values()))
        if table.value(state) != expected:
            raise AssertionError(f"table {table.value(state)}, children {expected}:\n{state}")
    print(f"verified {len(states)} positions against the reference engine's children\n")


def from_games(pieces: int, count: int, seed: int, nodes: int, per_game: int = 4) -> list[State]:
    """``count`` positions with at most ``pieces`` pieces from real games: the compiled alpha-beta
    (``nodes`` a move) against itself after 4 random opening plies (so that the games differ),
    up to ``per_game`` positions from each game, spread over its ending; each position keeps
    its game's history."""
    game = flipflop()
    rng = random.Random(seed)
    found: list[State] = []
    seen: set[int] = set()
    while len(found) < count:
        state: State = game.new_initial_state()
        for _ in range(4):
            state = state.apply(rng.choice(state.legal_actions()))
        agents = [KernelAlphaBetaAgent(random.Random(rng.random()), game, max_nodes=nodes)] * 2
        ending: list[State] = []
        while not state.is_terminal() and len(state.history) < 400:
            key = state.key()
            assert isinstance(key, int)
            if (key & (1 << 2 * AREA) - 1).bit_count() <= pieces and key not in seen:
                ending.append(state)
            state = state.apply(agents[state.current_player].choose(state))
        for picked in ending[:: max(1, len(ending) // per_game)][:per_game]:
            picked_key = picked.key()
            assert isinstance(picked_key, int)
            seen.add(picked_key)
            found.append(picked)
    return found[:count]


def convert(table: EndgameTable, states: list[State], player: Agent, name: str) -> None:
    """Play each won position out with ``player`` against the table's longest resistance, to
    the end or 400 plies: how often it wins, and in how many plies against the distance."""
    game = flipflop()
    wins = draws = 0
    ratios = []
    started = time.perf_counter()
    moves = 0
    for i, start in enumerate(states):
        value = table.value(start)
        assert value is not None and value.distance is not None
        defender = EndgameAgent(random.Random(i), game, player_search(game))
        seats = {start.current_player: player, 1 - start.current_player: defender}
        state = start
        while not state.is_terminal() and len(state.history) < 400:
            moves += state.current_player == start.current_player
            state = state.apply(seats[state.current_player].choose(state))
        if state.is_terminal() and state.returns()[start.current_player] > 0:
            wins += 1
            ratios.append(len(state.history) / value.distance)
        elif state.is_terminal():
            draws += 1
    seconds = time.perf_counter() - started
    distances = [table.value(s).distance or 0 for s in states]  # type: ignore[union-attr]
    mean_ratio = f"{sum(ratios) / len(ratios):.2f}" if ratios else "-"
    print(
        f"| {name} | {len(states)} (distance {min(distances)}-{max(distances)}) | {wins} | "
        f"{draws} | {len(states) - wins - draws} | {mean_ratio} | "
        f"{seconds / max(moves, 1):.2f} |"
    )


def player_search(game: Game) -> KernelAlphaBetaAgent:
    """The defender's tie-breaker among equally long resistances (cheap: rarely used)."""
    return KernelAlphaBetaAgent(random.Random(0), game, max_nodes=2_000)


def judge(name: str, agent: Agent, table: EndgameTable, states: list[State]) -> None:
    """Play one move in each position and compare it with the table's values."""
    dropped = slower = shorter = wins = draws = losses = 0
    started = time.perf_counter()
    for state in states:
        value = table.value(state)
        assert value is not None
        values = action_values(table, state)
        chosen = values[agent.choose(state)]
        best = max(v.value for v in values.values())
        if value.outcome == "win":
            wins += 1
        elif value.outcome == "draw":
            draws += 1
        else:
            losses += 1
        if chosen.value < best:
            dropped += 1
        elif best == 1 and (chosen.distance or 0) > min(
            v.distance or 0 for v in values.values() if v.value == 1
        ):
            slower += 1
        elif best == -1 and (chosen.distance or 0) < max(v.distance or 0 for v in values.values()):
            shorter += 1
    seconds = time.perf_counter() - started
    total = len(states)
    print(
        f"| {name} | {total} ({wins} won, {draws} drawn, {losses} lost) | "
        f"{dropped} ({dropped / total:.1%}) | {slower} | {shorter} | "
        f"{seconds / total:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pieces", type=int, default=4)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=0.9, help="hard's time a move")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--min-distance", type=int, default=15)
    parser.add_argument("--conversions", type=int, default=10)
    parser.add_argument("--game-positions", type=int, default=100)
    parser.add_argument("--game-nodes", type=int, default=100_000)
    parser.add_argument("--verify", type=int, default=20_000, help="positions to verify")
    parser.add_argument("--skip-play", action="store_true", help="only the cost")
    parser.add_argument(
        "--keep-cache",
        action="store_true",
        help="build in the user's cache, from its largest smaller table (a long build resumes)",
    )
    parser.add_argument(
        "--only-conversions", action="store_true", help="the cost, then only the conversions"
    )
    args = parser.parse_args()
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print()
    table = cost(args.pieces, cold=not args.keep_cache)
    verify(table, sample(args.pieces, args.verify, args.seed + 1))
    if args.skip_play:
        return
    if args.only_conversions:
        conversions(args, table)
        return
    game = flipflop()
    states = sample(args.pieces, args.positions, args.seed)
    print("| player | positions | value dropped | slower win | shorter resistance | s/move |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    long_ones = sample(
        args.pieces,
        args.positions,
        args.seed + 2,
        lambda v: v.value == 0 or (v.distance or 0) >= args.min_distance,
    )
    played = from_games(args.pieces, args.game_positions, args.seed, args.game_nodes)
    rows = (
        ("uniform", states),
        (f"drawn or distance >= {args.min_distance}", long_ones),
        ("from games", played),
    )
    for what, positions in rows:
        plain, tables = without_and_with(game, args)
        judge(f"{what}: hard without tables ({args.seconds:g} s)", plain, table, positions)
        judge(f"{what}: hard with tables", tables, table, positions)
    conversions(args, table)


def conversions(args: argparse.Namespace, table: EndgameTable) -> None:
    """Part 3: the won positions played out without and with the tables."""
    game = flipflop()
    print()
    print(
        "| player, from won positions | positions | won | drawn | not over at ply 400 "
        "| plies / distance | s/move |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    won = sample(
        args.pieces,
        args.conversions,
        args.seed + 3,
        lambda v: v.value == 1 and (v.distance or 0) >= args.min_distance,
    )
    plain, tables = without_and_with(game, args)
    convert(table, won, plain, f"hard without tables ({args.seconds:g} s)")
    convert(table, won, tables, "hard with tables")


def without_and_with(game: Game, args: argparse.Namespace) -> tuple[Agent, Agent]:
    """*hard* without the tables and with them, each with ``--seconds`` a move and a search
    of its own (the same seed: only the tables differ)."""
    plain = KernelAlphaBetaAgent(random.Random(1), game, seconds=args.seconds)
    search = KernelAlphaBetaAgent(random.Random(1), game, seconds=args.seconds)
    return plain, EndgameAgent(random.Random(1), game, search, max_pieces=args.pieces)


if __name__ == "__main__":
    main()
