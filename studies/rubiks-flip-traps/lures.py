"""How well Rubik's Flip ``hard``'s trap figures predict OpenSpiel's MCTSBot's real mistakes.

Run: ``.venv/bin/python studies/rubiks-flip-traps/lures.py [--games 20] [--ply 10] [--sims 4918]
[--answers 4] [--seed 31] [--seconds 0.9]`` (OpenSpiel is an optional dependency:
``pip install -e '.[bench]'``).

1. Plays ``--games`` games of ``hard`` (``--seconds`` CPU s a move, its level's 0.9 by
   default) against MCTSBot (``--sims`` simulations) and keeps each position at ``--ply``
   tiles where ``hard`` is to move and the position is a draw.
2. For each, takes the drawing actions with the most losing replies (ten), three others at
   random and ``hard``'s own choice; MCTSBot with ``--sims`` simulations answers each of them
   ``--answers`` times, and each answer is checked exactly (does it lose?).
3. Prints, for each figure ``hard`` could rank the actions by, its correlation with MCTSBot's
   real rate of losing answers, and the mean rate (per position) after the action the figure
   ranks first, beside the best and the average of the measured actions.

The study's log.md quotes a run (``--games 20 --ply 10 --sims 4918 --answers 4 --seed 31``, about
15 minutes on one core).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _common import new_hard
from _openspiel import MCTSBotAgent
from flipgames import make
from flipgames.agents.exact import ExactSearchAgent
from flipgames.agents.opponent_models import LureProbe
from flipgames.core.game import Game, State
from flipgames.solvers import alphabeta

#: How many of the actions with the most losing replies are measured, besides ``hard``'s
#: and a few others.
MOST_LOSING = 10
OTHERS = 3


def collect(game: Game, games: int, ply: int, seed: int, seconds: float, sims: int) -> list[State]:
    """Positions at ``ply`` tiles with ``hard`` to move from games against MCTSBot."""
    found = []
    for index in range(games):
        seat = index % 2
        hard = new_hard(game, random.Random(f"{seed}:{index}:hard"), seconds)
        bot = MCTSBotAgent(random.Random(f"{seed}:{index}:bot"), sims)
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history) < ply:
            agent = hard if state.current_player == seat else bot
            state = state.apply(agent.choose(state))
        if not state.is_terminal() and state.current_player == seat:
            found.append(state)
        print(f"  game {index + 1}/{games}: {len(found)} positions", file=sys.stderr, flush=True)
    return found


def figures(agent: ExactSearchAgent, state: State, action: int) -> dict[str, float]:
    """Every figure ``hard`` could rank ``action`` by (the MCTS model at two budgets, one and
    several searches, the searcher's pull and their old mean)."""
    child = state.apply(action)
    if child.is_terminal():
        return {}
    probe = LureProbe(agent, child, agent.kernel.position(child))
    out: dict[str, float] = {}
    for iterations, runs in ((1_500, 1), (1_500, 4), (5_000, 1), (5_000, 3)):
        out[f"mean of {runs} MCTS of {iterations:,}"] = (
            sum(probe.sampled(iterations) for _ in range(runs)) / runs
        )
    out["searcher's pull"] = probe.searched()
    out["old mean of searcher and one MCTS of 1,500"] = (
        out["searcher's pull"] + out["mean of 1 MCTS of 1,500"]
    ) / 2
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ply", type=int, default=10)
    parser.add_argument("--sims", type=int, default=4_918)
    parser.add_argument("--answers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--seconds", type=float, default=0.9, help="hard's time a move")
    args = parser.parse_args()
    if min(args.games, args.sims, args.answers) < 1 or args.seconds <= 0:
        parser.error("--games, --sims, --answers and --seconds must be positive")
    if not 1 <= args.ply <= 14:
        parser.error("--ply must be 1..14")
    game = make("rubiks-flip")
    began = time.process_time()
    rows: list[tuple[int, float, dict[str, float]]] = []
    kernel = alphabeta.searchable(game)
    assert kernel is not None, "Rubik's Flip's kernel is off (FLIPGAMES_KERNEL=python?)"
    table = np.zeros(alphabeta.table_entries(1 << 28), dtype=np.int64)
    stats = np.zeros(3, dtype=np.int64)
    rng = random.Random(args.seed)
    for index, state in enumerate(
        collect(game, args.games, args.ply, args.seed, args.seconds, args.sims)
    ):
        agent = ExactSearchAgent(random.Random(index), game, max_nodes=10**9)
        chosen = agent.choose(state)
        report = agent.last
        if report.value != 0:
            continue
        ranked = sorted(report.keeping, key=lambda a: -report.traps.get(a, 0.0))
        actions = ranked[:MOST_LOSING]
        rest = [a for a in report.keeping if a not in actions]
        actions += rng.sample(rest, min(OTHERS, len(rest)))
        if chosen not in actions:
            actions.append(chosen)
        for action in actions:
            child = state.apply(action)
            if child.is_terminal():
                continue
            losing = 0
            for _ in range(args.answers):
                bot = MCTSBotAgent(random.Random(rng.random()), args.sims)
                after = child.apply(bot.choose(child))
                if after.is_terminal():
                    losing += after.returns()[child.current_player] < 0
                else:  # the answer loses if the position after it is won for us
                    stats[:] = 0
                    losing += kernel.search(kernel.position(after), -1, 1, table, stats) == 1
            found = figures(agent, state, action)
            found["share of losing replies"] = report.traps[action]
            rows.append((index, losing / args.answers, found))
        print(f"  position {index + 1}: {len(actions)} actions", file=sys.stderr, flush=True)
    report_rows(rows, args, time.process_time() - began)


def report_rows(
    rows: list[tuple[int, float, dict[str, float]]], args: argparse.Namespace, cpu: float
) -> None:
    positions = sorted({index for index, _, _ in rows})
    if not rows:
        print("no drawn position with hard to move was reached")
        return

    def per_position(pick: Callable[[list[tuple[int, float, dict[str, float]]]], float]) -> float:
        return statistics.mean(pick([r for r in rows if r[0] == p]) for p in positions)

    print(
        f"{len(positions)} positions at ply {args.ply}, {len(rows)} actions, MCTSBot "
        f"{args.sims:,} simulations x {args.answers} answers each ({cpu:.0f} CPU s)\n"
    )
    print("| figure | correlation with MCTSBot's rate | its first action's rate |")
    print("| --- | ---: | ---: |")
    truth = [rate for _, rate, _ in rows]
    for name in rows[0][2]:
        values = [found[name] for _, _, found in rows]
        corr = statistics.correlation(truth, values) if len(set(values)) > 1 else float("nan")

        def first(group: list[tuple[int, float, dict[str, float]]], name: str = name) -> float:
            top = max(found[name] for _, _, found in group)
            return statistics.mean(rate for _, rate, found in group if found[name] == top)

        print(f"| {name} | {corr:.2f} | {per_position(first):.2f} |")
    best = per_position(lambda group: max(rate for _, rate, _ in group))
    mean = per_position(lambda group: statistics.mean(rate for _, rate, _ in group))
    print(f"\nbest measured action's rate {best:.2f}, average action's {mean:.2f}")


if __name__ == "__main__":
    main()
