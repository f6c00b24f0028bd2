"""FlipFlop 5x5: *hard* whose search probes the 4-piece endgame tables at its nodes, against
*hard* whose search does not (the agent around it reads them in both), at the same CPU time.

Run: ``.venv/bin/python bench/bench_endgame_probe.py [--seconds S] [--conversions N]
[--duels N] [--rate-positions N] [--rate-nodes N] [--game-nodes N] [--seed S]``.

Positions come from games: the compiled alpha-beta (``--game-nodes`` nodes a move) against
itself after 4 random opening plies, the positions with 5-7 pieces kept with their games'
histories (at most 3 of each piece count a game).

1. **Search speed.** On ``--rate-positions`` of them, one search of ``--rate-nodes`` nodes
   from an empty table with the tables and one without, in turn: the nodes per CPU-second of
   each (a probed node counts as one node: its value comes from one table lookup).
2. **Duels.** ``--duels`` positions with 6 or 7 pieces, each played twice, the two *hard*
   swapping sides, to the end or 400 plies: the points of the one that probes.
3. **Conversions** (none with ``--conversions 0``). ``--conversions`` 5-piece positions
   that the 5-piece tables (built once in the cache: minutes and 1.5 GB) say are won for
   the side to move at a distance of ``--min-distance`` plies or more, played by each
   *hard* (``--seconds`` CPU seconds a move) against the 5-piece tables' longest
   resistance, to the end or 400 plies: how many it wins.

Prints the machine, its load average and the Python version.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time

from _common import cpu_name
from flipgames import make
from flipgames.agents.base import Agent
from flipgames.agents.endgame import EndgameAgent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent, kernel_searcher
from flipgames.core.endgame import EndgameTable
from flipgames.core.game import Game, State
from flipgames.kernels.search import EndgameProbing, iterative_deepening
from flipgames.solvers.endgame import endgame_table

AREA = 25
MAX_PLIES = 400


def pieces(state: State) -> int:
    key = state.key()
    assert isinstance(key, int)
    return (key & (1 << 2 * AREA) - 1).bit_count()


def from_games(game: Game, wanted: dict[int, int], nodes: int, seed: int) -> dict[int, list[State]]:
    """``wanted[n]`` positions with ``n`` pieces from games (at most 3 per count a game)."""
    rng = random.Random(seed)
    found: dict[int, list[State]] = {n: [] for n in wanted}
    while any(len(found[n]) < wanted[n] for n in wanted):
        state = game.new_initial_state()
        for _ in range(4):
            state = state.apply(rng.choice(state.legal_actions()))
        agent = KernelAlphaBetaAgent(random.Random(rng.random()), game, max_nodes=nodes)
        taken = dict.fromkeys(wanted, 0)
        while not state.is_terminal() and len(state.history) < MAX_PLIES:
            n = pieces(state)
            if n in wanted and taken[n] < 3 and len(found[n]) < wanted[n] and rng.random() < 0.3:
                found[n].append(state)
                taken[n] += 1
            state = state.apply(agent.choose(state))
    return found


def hard(game: Game, seconds: float, probes: bool, seed: int) -> EndgameAgent:
    """*hard* at ``seconds`` CPU seconds a move, its search probing the tables or not."""
    search = KernelAlphaBetaAgent(
        random.Random(seed), game, seconds=seconds, clock=time.process_time
    )
    return EndgameAgent(random.Random(seed), game, search, probes=probes)


def speed(game: Game, table: EndgameTable, states: list[State], nodes: int) -> None:
    totals = {True: [0, 0.0], False: [0, 0.0]}
    for i, state in enumerate(states):
        for probes in (True, False) if i % 2 else (False, True):
            searcher = kernel_searcher(game)
            probing = searcher
            assert searcher is not None and isinstance(probing, EndgameProbing)
            probing.probe(table if probes else None)
            began = time.process_time()
            result = iterative_deepening(searcher, state, random.Random(i), 64, max_nodes=nodes)
            totals[probes][1] += time.process_time() - began
            totals[probes][0] += result.nodes
    rates = {probes: n / s for probes, (n, s) in totals.items()}
    print(f"search speed, {len(states)} positions of 5-7 pieces, {nodes:,} nodes each:")
    for probes in (True, False):
        n, s = totals[probes]
        label = "with the tables" if probes else "without"
        print(f"  {label:16} {int(n):>11,} nodes {s:7.2f} CPU s {rates[probes]:>11,.0f} nodes/s")
    print(f"  ratio with/without: {rates[True] / rates[False]:.2f}")


def play(start: State, seats: dict[int, Agent]) -> State:
    state = start
    while not state.is_terminal() and len(state.history) - len(start.history) < MAX_PLIES:
        state = state.apply(seats[state.current_player].choose(state))
    return state


def conversions(game: Game, won: list[State], five: EndgameTable, seconds: float) -> None:
    distances = [v.distance or 0 for s in won if (v := five.value(s)) is not None]
    print(
        f"\nconversions: {len(won)} won 5-piece positions (distance {min(distances)}-"
        f"{max(distances)}) against the 5-piece tables' defence"
    )
    for probes in (True, False):
        wins = draws = 0
        plies = []
        began = time.process_time()
        for i, start in enumerate(won):
            tie_breaker = KernelAlphaBetaAgent(random.Random(i), game, max_nodes=2_000)
            defender = EndgameAgent(random.Random(i), game, tie_breaker, max_pieces=5)
            mover = start.current_player
            end = play(start, {mover: hard(game, seconds, probes, i), 1 - mover: defender})
            value = five.value(start)
            assert value is not None and value.distance is not None
            if end.is_terminal() and end.returns()[mover] > 0:
                wins += 1
                plies.append((len(end.history) - len(start.history)) / value.distance)
            elif end.is_terminal():
                draws += 1
        label = "hard, probing" if probes else "hard, not probing"
        ratio = f"{sum(plies) / len(plies):.2f}" if plies else "-"
        print(
            f"  {label:18} won {wins}/{len(won)}, drawn {draws}, "
            f"not over {len(won) - wins - draws}; plies/distance {ratio}; "
            f"{time.process_time() - began:.0f} CPU s"
        )


def duels(game: Game, starts: list[State], seconds: float) -> None:
    points = 0.0
    results = {1: 0, 0: 0, -1: 0}
    for i, start in enumerate(starts):
        for probing_side in (start.current_player, 1 - start.current_player):
            seats: dict[int, Agent] = {
                probing_side: hard(game, seconds, True, i),
                1 - probing_side: hard(game, seconds, False, i),
            }
            end = play(start, seats)
            result = int(end.returns()[probing_side]) if end.is_terminal() else 0
            results[result] += 1
            points += (result + 1) / 2
    games = 2 * len(starts)
    print(
        f"\nduels from {len(starts)} positions of 6-7 pieces, both sides each: probing hard "
        f"{results[1]} won, {results[0]} drawn or unfinished, {results[-1]} lost: "
        f"{points:g}/{games} points ({points / games:.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=0.1, help="CPU seconds a move")
    parser.add_argument("--conversions", type=int, default=16)
    parser.add_argument("--min-distance", type=int, default=9, help="of the won positions")
    parser.add_argument("--duels", type=int, default=8)
    parser.add_argument("--rate-positions", type=int, default=30)
    parser.add_argument("--rate-nodes", type=int, default=200_000)
    parser.add_argument("--game-nodes", type=int, default=3_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = make("flipflop")
    print(f"{cpu_name()}, load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}")
    four = endgame_table(game, 4)
    assert four is not None
    per_count = -(-args.rate_positions // 3)
    wanted = {5: max(12 * args.conversions, per_count), 6: max(args.duels, per_count), 7: per_count}
    found = from_games(game, wanted, args.game_nodes, args.seed)
    mixed = [s for n in (5, 6, 7) for s in found[n][:per_count]][: args.rate_positions]
    if mixed:
        speed(game, four, mixed, args.rate_nodes)
    if args.duels:
        duels(game, (found[6] + found[7])[: args.duels], args.seconds)
    if args.conversions:
        five = endgame_table(game, 5)  # built once in the cache (minutes), then loaded
        assert five is not None
        won = [
            s
            for s in found[5]
            if (v := five.value(s)) is not None
            and v.value == 1
            and (v.distance or 0) >= args.min_distance
        ]
        conversions(game, won[: args.conversions], five, args.seconds)


if __name__ == "__main__":
    main()
