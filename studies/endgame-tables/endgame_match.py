"""Do the endgame tables win games? The compiled alpha-beta with them against itself without.

Run: ``.venv/bin/python studies/endgame-tables/endgame_match.py [--openings N] [--nodes N]
[--plies N] [--seed S]``. FlipFlop 5x5, ``--openings`` random openings of ``--plies`` plies
(seeded), each played twice with the seats swapped: the compiled alpha-beta with ``--nodes``
nodes a move (reproducible; *hard* itself thinks 0.9 s, about ten times more) once with the endgame
tables (``EndgameAgent``, 4 pieces) and once without. Prints the table side's wins, draws and
losses, its score with the 95% Wilson interval, how many games reached the tables, and the time;
then, for each side, of the games that reached the tables (a position with at most 4 pieces)
in a won position for it, how many it won, and of those reached in a drawn one, how many it
did not lose.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _common import cpu_name
from flipgames import make
from flipgames.agents.arena import wilson_interval
from flipgames.agents.base import Agent
from flipgames.agents.endgame import EndgameAgent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.endgame import EndgameTable, EndgameValue
from flipgames.core.game import Game, State
from flipgames.solvers.endgame import endgame_table


def opening(game: Game, plies: int, rng: random.Random) -> State:
    state = game.new_initial_state()
    for _ in range(plies):
        state = state.apply(rng.choice(state.legal_actions()))
    return state


def play(
    start: State, agents: dict[int, Agent], table: EndgameTable, limit: int = 600
) -> tuple[State, EndgameValue | None]:
    """Play to the end (or ``limit`` plies); also the table value of the first position the
    tables cover, for White (None if the game never got there)."""
    state, entry = start, None
    while not state.is_terminal() and len(state.history) < limit:
        if entry is None and (value := table.value(state)) is not None:
            flip = 1 if state.current_player == 0 else -1
            entry = EndgameValue(value.value * flip, value.distance)
        state = state.apply(agents[state.current_player].choose(state))
    return state, entry


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
    table = endgame_table(game)
    assert table is not None
    wins = draws = losses = reached = 0
    # Per player (with, without tables): endings entered won, and of those converted.
    entered_won = {"with": 0, "without": 0}
    converted = {"with": 0, "without": 0}
    entered_drawn = {"with": 0, "without": 0}
    held = {"with": 0, "without": 0}
    started = time.perf_counter()
    for i in range(args.openings):
        start = opening(game, args.plies, random.Random(f"{args.seed}-{i}"))
        for seat in (0, 1):
            rng = random.Random(f"{args.seed}-{i}-{seat}")
            plain = KernelAlphaBetaAgent(random.Random(rng.random()), game, max_nodes=args.nodes)
            search = KernelAlphaBetaAgent(random.Random(rng.random()), game, max_nodes=args.nodes)
            tables = EndgameAgent(random.Random(rng.random()), game, search)
            side = (start.current_player + seat) % 2
            end, entry = play(start, {side: tables, 1 - side: plain}, table)
            result = end.returns()[side] if end.is_terminal() else 0
            wins += result > 0
            draws += result == 0
            losses += result < 0
            met = entry is not None
            reached += met
            if entry is not None:
                for who, seat_of, sign in (("with", side, 1), ("without", 1 - side, -1)):
                    mine = entry.value * (1 if seat_of == 0 else -1)
                    outcome = result * sign
                    if mine > 0:
                        entered_won[who] += 1
                        converted[who] += outcome > 0
                    elif mine == 0:
                        entered_drawn[who] += 1
                        held[who] += outcome >= 0
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
    print("| match | won / drew / lost | score (95% CI) | games | reached the tables | seconds |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    print(
        f"| alpha-beta {args.nodes:,} nodes with tables vs without | {wins} / {draws} / "
        f"{losses} | {score:.3f} ({low:.3f}-{high:.3f}) | {games} | {reached} | "
        f"{time.perf_counter() - started:.0f} |"
    )
    print()
    print("| player | endings entered won: won | endings entered drawn: not lost |")
    print("| --- | ---: | ---: |")
    for who in ("with", "without"):
        print(
            f"| alpha-beta {who} tables | {converted[who]} of {entered_won[who]} | "
            f"{held[who]} of {entered_drawn[who]} |"
        )


if __name__ == "__main__":
    main()
