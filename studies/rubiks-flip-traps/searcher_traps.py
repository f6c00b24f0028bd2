"""How many traps for a shallow searcher Rubik's Flip ``hard`` is offered against the old hard.

Run: ``.venv/bin/python studies/rubiks-flip-traps/searcher_traps.py [--games 12] [--seed 61]
[--seconds 0.9]``.

Plays ``--games`` games of ``hard`` against the frozen old *hard* (``baseline_hard`` in
``bench/_common.py``), both ``--seconds`` CPU s a move, seats alternating. At each move where
``hard``'s exact search answered and the position is a draw, every drawing action gets the
short-horizon searcher's figure (``LureProbe.searched``: the share of losing replies among those a
shallow search with the game's evaluation ranks first, each checked exactly), the model of the old
*hard*. The summary gives, per game, the best figure ``hard`` was offered at any move (the most a
game could be won by choosing the searcher's traps) and the figure of the action it chose.
The study's log.md quotes a run.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _common import baseline_hard, cpu_name, new_hard
from flipgames import make
from flipgames.agents.exact import ExactSearchAgent
from flipgames.agents.opponent_models import LureProbe
from flipgames.core.game import State


def searcher_figures(agent: ExactSearchAgent, state: State) -> dict[int, float]:
    """The searcher's figure of each drawing action of ``state`` (``agent`` has just moved
    there and its exact search answered)."""
    agent.stats[:] = (0, 10**12, 0)  # no node limit: the probes are outside the timed move
    figures = {}
    for action in agent.last.keeping:
        child = state.apply(action)
        if not child.is_terminal():
            figures[action] = LureProbe(agent, child, agent.kernel.position(child)).searched()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=61)
    parser.add_argument("--seconds", type=float, default=0.9, help="CPU s a move, both sides")
    args = parser.parse_args()
    if args.games < 1 or args.seconds <= 0:
        parser.error("--games and --seconds must be positive")
    game = make("rubiks-flip")
    print(f"machine: {cpu_name()}; CPython {platform.python_version()}")
    print(f"hard against the old hard, {args.seconds:g} CPU s a move each\n")
    print("| game | hard | result | moves with a searcher trap | best figure | chosen |")
    print("| ---: | --- | --- | --- | ---: | ---: |")
    bests, chosen_sum = [], 0.0
    for index in range(args.games):
        seat = index % 2
        hard = new_hard(game, random.Random(f"{args.seed}:{index}:a"), args.seconds)
        assert isinstance(hard, ExactSearchAgent)
        old = baseline_hard(
            game, random.Random(f"{args.seed}:{index}:b"), args.seconds, time.process_time
        )
        state = game.new_initial_state()
        best = chosen = 0.0
        trapped = []
        while not state.is_terminal():
            if state.current_player != seat:
                state = state.apply(old.choose(state))
                continue
            action = hard.choose(state)
            report = hard.last
            if report.exact and report.value == 0 and len(report.keeping) > 1:
                figures = searcher_figures(hard, state)
                if figures and max(figures.values()) > 0:
                    trapped.append(
                        f"tile {len(state.history)}: "
                        f"{sum(f > 0 for f in figures.values())}/{len(figures)}"
                    )
                    best = max(best, max(figures.values()))
                chosen = max(chosen, figures.get(action, 0.0))
            state = state.apply(action)
        outcome = state.returns()[seat]
        result = "won" if outcome > 0 else "drew" if outcome == 0 else "lost"
        bests.append(best)
        chosen_sum += chosen
        print(
            f"| {index + 1} | {('second', 'first')[seat == 0]} | {result} | "
            f"{', '.join(trapped) or 'none'} | {best:.2f} | {chosen:.2f} |",
            flush=True,
        )
    print(
        f"\nmean best figure a game {statistics.mean(bests):.3f}, "
        f"mean chosen {chosen_sum / len(bests):.3f} (figures: the chance that the old hard, "
        "modelled as the shallow searcher, replies with a losing move)"
    )


if __name__ == "__main__":
    main()
