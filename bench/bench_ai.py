"""Playing strength of ``hard``: against the frozen old hard and OpenSpiel's MCTSBot.

Run: ``.venv/bin/python bench/bench_ai.py [--games NAME ...] [--opponents mcts baseline]
[--n 20] [--seconds 0.5] [--seed 1] [--max-plies 400] [--mcts-sims N]`` (OpenSpiel is an
optional dependency: ``pip install -e '.[bench]'``).

The games by default: every game whose ``hard`` is the compiled search (its manifest's
``compiled``) and that is not solved (a solved game's ``perfect`` is the yardstick there).
For each game and opponent it plays ``--n`` games with seats alternating and prints one
Markdown row: the new hard's wins, draws and losses, its score (win 1, draw 1/2) with the 95%
Wilson interval, and the mean CPU seconds per move of each side (``time.process_time``).

* **new hard**: the ``hard`` level with ``--seconds`` a move instead of its default (the
  compiled alpha-beta where the game has a kernel, its budget counted in CPU seconds so the
  load of the machine does not take from it; else the reference agent with that wall-clock
  deadline).
* **mcts**: OpenSpiel's ``MCTSBot`` (UCT constant 2, one random rollout per leaf to the end of
  the game, solver on) at **equal CPU time**: before each match its CPU time a simulation is
  measured on positions spread evenly along random games (a rollout from the opening costs
  many times one from the end), and it gets the simulations a move that make its mean move
  ``--seconds`` (or ``--mcts-sims``, to share one calibration between matches). The
  flipgames game is wrapped for it in ``bench/_openspiel.py`` (a state adapter over the public
  protocol, nothing more).
* **baseline**: the frozen old hard (``baseline_hard`` in ``bench/_common.py``, from the
  game's manifest) at **equal
  CPU time**: its node budgets, and ``--seconds`` of CPU a move, whichever runs out first (the
  old hard spent several seconds a move on its node budgets alone).
* **baseline-nodes**: the frozen old hard with its node budgets only, as it played (not at
  equal time).

A game still running after ``--max-plies`` plies counts as a draw (the table says how many).
Time budgets make these matches depend on the machine's load: the script prints the load
average before and after.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from _common import baseline_hard, cpu_name, new_hard
from _openspiel import MCTSBotAgent
from flipgames import game_names, make
from flipgames.agents.arena import wilson_interval
from flipgames.agents.base import Agent, RandomAgent
from flipgames.core.game import Game, State
from flipgames.core.manifest import manifest_for
from flipgames.solvers.catalog import is_solved


def compiled_unsolved() -> list[str]:
    """The games whose ``hard`` plays the compiled search and that are not solved."""
    return [
        name
        for name in game_names()
        if manifest_for(name).levels["hard"].compiled and not is_solved(make(name))
    ]


def positions(game: Game, seed: int, games: int = 8, per_game: int = 8) -> list[State]:
    """Positions spread evenly along ``games`` random games (``per_game`` each, the start
    first): where a match's moves fall, from the long rollouts of the opening to the short
    ones of the end (for calibration)."""
    rng = random.Random(seed)
    found: list[State] = []
    for _ in range(games):
        line = [game.new_initial_state()]
        while not line[-1].is_terminal():
            line.append(line[-1].apply(rng.choice(line[-1].legal_actions())))
        line.pop()  # the terminal state: nothing to choose there
        found += [line[index * len(line) // per_game] for index in range(per_game)]
    return found


def mcts_simulations(game: Game, seed: int, seconds: float) -> int:
    """The simulations a move that make MCTSBot's mean CPU time a move ``seconds`` over
    positions spread along random games of ``game`` (a rate measured at the start alone, where
    rollouts are longest, gave it too few; a few random positions, 1,100-3,000 by seed)."""
    sims = 200
    per_simulation = []
    for state in positions(game, seed):
        agent = MCTSBotAgent(random.Random(seed), sims)
        clock = time.process_time()
        agent.choose(state)
        per_simulation.append((time.process_time() - clock) / sims)
    return max(1, round(seconds * len(per_simulation) / sum(per_simulation)))


class MCTSBotBudget:
    """MCTSBot's simulations a move over one match at equal CPU time: from the calibration
    (:func:`mcts_simulations`) for the first game, then after each game those that would have
    made its mean CPU time a move over the games so far ``seconds`` (the match's own positions
    decide, not the calibration's random ones); ``fixed`` keeps the first figure."""

    def __init__(self, simulations: int, seconds: float, fixed: bool) -> None:
        self.simulations, self.seconds, self.fixed = simulations, seconds, fixed
        self.spent = 0.0  # MCTSBot's CPU seconds so far
        self.run = 0  # and its simulations
        self.used: list[int] = []  # the simulations a move of each game played

    def agent(self, rng: random.Random) -> Agent:
        return MCTSBotAgent(rng, self.simulations)

    def record(self, cpu: float, moves: int) -> None:
        """MCTSBot's CPU seconds and moves in the game just played."""
        self.used.append(self.simulations)
        self.spent += cpu
        self.run += moves * self.simulations
        if not self.fixed and self.spent > 0:
            self.simulations = max(1, round(self.seconds * self.run / self.spent))

    def label(self) -> str:
        low, high = min(self.used), max(self.used)
        if low == high:
            return f"MCTSBot ({low:,} simulations)"
        mean = round(sum(self.used) / len(self.used))
        return f"MCTSBot ({low:,}-{high:,} simulations, mean {mean:,})"


def play(
    game: Game,
    make_a: Callable[[random.Random], Agent],
    make_b: Callable[[random.Random], Agent],
    n: int,
    seed: int,
    max_plies: int,
    label: str,
    after_game: Callable[[float, int], None] | None = None,
) -> dict[str, Any]:
    """``n`` games of A against B, seats alternating; results for A. ``after_game`` is told
    B's CPU seconds and moves in each game."""
    wins = draws = losses = capped = 0
    cpu = [0.0, 0.0]
    moves = [0, 0]
    for index in range(n):
        b_cpu, b_moves = cpu[1], moves[1]
        a_seat = index % 2
        agents = {
            a_seat: make_a(random.Random(f"{seed}:{index}:a")),
            1 - a_seat: make_b(random.Random(f"{seed}:{index}:b")),
        }
        state = game.new_initial_state()
        plies = 0
        while not state.is_terminal() and plies < max_plies:
            player = state.current_player
            side = 0 if player == a_seat else 1
            gc.collect()  # the reference agents' garbage is not charged to the next mover
            clock = time.process_time()
            action = agents[player].choose(state)
            cpu[side] += time.process_time() - clock
            moves[side] += 1
            state = state.apply(action)
            plies += 1
        if after_game is not None:
            after_game(cpu[1] - b_cpu, moves[1] - b_moves)
        outcome = state.returns()[a_seat] if state.is_terminal() else 0
        capped += not state.is_terminal()
        wins += outcome > 0
        draws += outcome == 0
        losses += outcome < 0
        print(
            f"  {label} game {index + 1}/{n}: A {('second', 'first')[a_seat == 0]} "
            f"{'won' if outcome > 0 else 'drew' if outcome == 0 else 'lost'} in {plies} plies "
            f"(W/D/L {wins}/{draws}/{losses})",
            file=sys.stderr,
            flush=True,
        )
    score = (wins + draws / 2) / n
    return {
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "capped": capped,
        "score": score,
        "interval": wilson_interval(score, n),
        "cpu_per_move": [cpu[i] / moves[i] if moves[i] else 0.0 for i in range(2)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--games", nargs="*", default=compiled_unsolved(), help="default: %(default)s"
    )
    parser.add_argument("--opponents", nargs="*", default=["mcts", "baseline"])
    parser.add_argument("--n", type=int, default=20, help="games per match (seats alternate)")
    parser.add_argument("--seconds", type=float, default=0.5, help="new hard's time a move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument(
        "--mcts-sims",
        type=int,
        help="MCTSBot's simulations a move, instead of calibrating them to --seconds (matches "
        "run side by side then share one calibration made on a quiet machine)",
    )
    args = parser.parse_args()
    if args.n < 1 or args.seconds <= 0:
        parser.error("--n must be at least 1 and --seconds positive")
    if args.mcts_sims is not None and args.mcts_sims < 1:
        parser.error("--mcts-sims must be at least 1")
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {platform.system()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    print(
        "| game | new hard vs | won / drew / lost (capped) | score (95% CI) | games "
        "| CPU s/move new / opponent |"
    )
    print("| --- | --- | --- | --- | ---: | --- |")
    for name in args.games:
        game = make(name)
        # Load (or compile) the machine code outside the timed moves.
        new_hard(game, random.Random(0), 0.01).choose(game.new_initial_state())
        for opponent in args.opponents:
            budget: MCTSBotBudget | None = None
            make_b: Callable[[random.Random], Agent]
            if opponent == "mcts":
                sims = args.mcts_sims or mcts_simulations(game, args.seed, args.seconds)
                budget = MCTSBotBudget(sims, args.seconds, fixed=args.mcts_sims is not None)
                make_b = budget.agent
                label = "MCTSBot"
            elif opponent == "baseline":
                make_b = partial(baseline_hard, game, seconds=args.seconds, clock=time.process_time)
                label = "old hard (frozen), equal CPU time"
            elif opponent == "baseline-nodes":
                make_b = partial(baseline_hard, game)
                label = "old hard (frozen), its node budgets"
            elif opponent == "random":
                make_b = RandomAgent
                label = "random"
            else:
                parser.error(
                    f"unknown opponent {opponent!r}: choose mcts, baseline, baseline-nodes, random"
                )
            result = play(
                game,
                partial(new_hard, game, seconds=args.seconds),
                make_b,
                args.n,
                args.seed,
                args.max_plies,
                f"{name} vs {label}",
                None if budget is None else budget.record,
            )
            if budget is not None:
                label = budget.label()
            low, high = result["interval"]
            new_cpu, other_cpu = result["cpu_per_move"]
            print(
                f"| {name} | {label} | {result['wins']} / {result['draws']} / "
                f"{result['losses']} ({result['capped']}) | {result['score']:.3f} "
                f"({low:.3f}-{high:.3f}) | {args.n} | {new_cpu:.2f} / {other_cpu:.2f} |",
                flush=True,
            )
    print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
