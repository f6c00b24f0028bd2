"""Do the endgame tables win games? The compiled alpha-beta with them against itself without.

Run: ``.venv/bin/python bench/endgame_match.py [--openings N] [--nodes N] [--plies N]
[--seed S]``. FlipFlop 5x5, ``--openings`` random openings of ``--plies`` plies (seeded), each
played twice with the seats swapped: the compiled alpha-beta with ``--nodes`` nodes a move
(reproducible; *hard* itself thinks 0.9 s, about ten times more) once with the endgame tables
(``EndgameAgent``, 4 pieces) and once without. Prints the table side's wins, draws and losses,
its score with the 95% Wilson interval, how many games reached the tables, and the time.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time

from bench_engines import cpu_name
from flipgames import make
from flipgames.agents.arena import wilson_interval
from flipgames.agents.base import Agent
from flipgames.agents.endgame import EndgameAgent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.game import Game, State


def opening(game: Game, plies: int, rng: random.Random) -> State:
    state = game.new_initial_state()
    for _ in range(plies):
        state = state.apply(rng.choice(state.legal_actions()))
    return state


def play(start: State, agents: dict[int, Agent], limit: int = 600) -> tuple[State, bool]:
    """Play to the end (or ``limit`` plies); also whether a table position was met."""
    state, reached = start, False
    while not state.is_terminal() and len(state.history) < limit:
        agent = agents[state.current_player]
        state = state.apply(agent.choose(state))
        reached = reached or (isinstance(agent, EndgameAgent) and agent.last.value is not None)
    return state, reached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--openings", type=int, default=50)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--plies", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    game = make("flipflop")
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    wins = draws = losses = reached = 0
    started = time.perf_counter()
    for i in range(args.openings):
        start = opening(game, args.plies, random.Random(f"{args.seed}-{i}"))
        for seat in (0, 1):
            rng = random.Random(f"{args.seed}-{i}-{seat}")
            plain = KernelAlphaBetaAgent(random.Random(rng.random()), game, max_nodes=args.nodes)
            search = KernelAlphaBetaAgent(random.Random(rng.random()), game, max_nodes=args.nodes)
            tables = EndgameAgent(random.Random(rng.random()), game, search)
            side = (start.current_player + seat) % 2
            end, met = play(start, {side: tables, 1 - side: plain})
            result = end.returns()[side] if end.is_terminal() else 0
            wins += result > 0
            draws += result == 0
            losses += result < 0
            reached += met
            print(
                f"  opening {i + 1}, tables as {'White' if side == 0 else 'Black'}: "
                f"{result:+d} in {len(end.history)} plies{', tables used' if met else ''}",
                file=sys.stderr,
                flush=True,
            )
    games = wins + draws + losses
    score = (wins + draws / 2) / games
    low, high = wilson_interval(score, games)
    print()
    print("| match | won / drew / lost | score (95% CI) | games | tables used in | seconds |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    print(
        f"| alpha-beta {args.nodes:,} nodes with tables vs without | {wins} / {draws} / "
        f"{losses} | {score:.3f} ({low:.3f}-{high:.3f}) | {games} | {reached} | "
        f"{time.perf_counter() - started:.0f} |"
    )


if __name__ == "__main__":
    main()
