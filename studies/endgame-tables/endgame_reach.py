"""How often real FlipFlop 5x5 games reach few pieces: is an endgame table worth having?

Run: ``.venv/bin/python studies/endgame-tables/endgame_reach.py [--games N] [--hard-nodes N]
[--mcts-iterations N] [--seed S]``. Plays seeded games (seats alternate) for two pairings and
prints, per pairing, the share of games that reach a position with at most 4 (and at most 5)
pieces on the board before they end, with 95% Wilson intervals, plus how the games ended.

A position counts when the game is not over there and each side still has a piece (what an
endgame table covers): a capture of the last enemy piece ends the game, it does not reach the
table. Pairings:

- ``hard`` vs ``medium``: the compiled alpha-beta with a node budget (``--hard-nodes``; the
  level itself thinks 0.9 s a move, about 10x more, which would make 100 games take hours)
  against the ``medium`` level (reference alpha-beta, depth 3);
- ``mcts`` vs ``mcts``: the compiled MCTS with ``--mcts-iterations`` iterations a move each;
- ``hard`` vs ``hard``: the node-budgeted compiled alpha-beta on both sides.

Every game is reproducible from its seed (node and iteration budgets, no clocks).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _common import cpu_name
from flipgames import make
from flipgames.agents import make_level_agent
from flipgames.agents.arena import wilson_interval
from flipgames.agents.base import Agent
from flipgames.agents.kernel_mcts import KernelMCTSAgent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.game import Game, State

Factory = Callable[[random.Random], Agent]


def pieces(state: State) -> tuple[int, int]:
    """White's and Black's piece counts (the key's first two bitboards)."""
    key = state.key()
    assert isinstance(key, int)
    return (key & (1 << 25) - 1).bit_count(), (key >> 25 & (1 << 25) - 1).bit_count()


def play(game: Game, first: Agent, second: Agent) -> tuple[int, int, str]:
    """One game: the fewest pieces seen in a live position with both sides on the board, the
    plies played and how it ended ('White', 'Black' or 'draw')."""
    state = game.new_initial_state()
    fewest = 10
    seats = (first, second)
    while not state.is_terminal():
        white, black = pieces(state)
        if white and black:
            fewest = min(fewest, white + black)
        state = state.apply(seats[state.current_player].choose(state))
    returns = state.returns()
    result = "White" if returns[0] > 0 else "Black" if returns[0] < 0 else "draw"
    return fewest, len(state.history), result


def pairing(game: Game, name: str, a: Factory, b: Factory, games: int, seed: int) -> str:
    """Play ``games`` games with alternating seats and format a Markdown row."""
    reach4 = reach5 = plies = 0
    results: dict[str, int] = {}
    started = time.perf_counter()
    for i in range(games):
        rng_a, rng_b = random.Random(f"{seed}-{i}-a"), random.Random(f"{seed}-{i}-b")
        first, second = (a(rng_a), b(rng_b)) if i % 2 == 0 else (b(rng_b), a(rng_a))
        fewest, length, result = play(game, first, second)
        reach4 += fewest <= 4
        reach5 += fewest <= 5
        plies += length
        results[result] = results.get(result, 0) + 1
        print(f"  {name} game {i + 1}/{games}: fewest {fewest}, {length} plies, {result}",
              file=sys.stderr, flush=True)  # fmt: skip
    seconds = time.perf_counter() - started

    def share(hits: int) -> str:
        low, high = wilson_interval(hits / games, games)
        return f"{hits}/{games} = {hits / games:.2f} ({low:.2f}-{high:.2f})"

    ended = ", ".join(f"{k} {v}" for k, v in sorted(results.items()))
    return (
        f"| {name} | {share(reach4)} | {share(reach5)} | {plies / games:.0f} | {ended} "
        f"| {seconds:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100, help="games per pairing")
    parser.add_argument("--hard-nodes", type=int, default=100_000)
    parser.add_argument("--mcts-iterations", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    game = make("flipflop")
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print()
    print("| pairing | reach <= 4 pieces (95% CI) | reach <= 5 pieces | mean plies | results "
          "| seconds |")  # fmt: skip
    print("| --- | --- | --- | ---: | --- | ---: |")
    hard: Factory = lambda rng: KernelAlphaBetaAgent(rng, game, max_nodes=args.hard_nodes)  # noqa: E731
    medium: Factory = lambda rng: make_level_agent(game, "medium", rng)  # noqa: E731
    mcts: Factory = lambda rng: KernelMCTSAgent(rng, game, iterations=args.mcts_iterations)  # noqa: E731
    rows = [
        (f"hard ({args.hard_nodes:,} nodes) vs medium", hard, medium),
        (f"mcts vs mcts ({args.mcts_iterations:,} iterations)", mcts, mcts),
        (f"hard vs hard ({args.hard_nodes:,} nodes)", hard, hard),
    ]
    for name, a, b in rows:
        print(pairing(game, name, a, b, args.games, args.seed), flush=True)


if __name__ == "__main__":
    main()
