"""CPU time of ``hard`` moves against their budget: p50, p95 and p100 per game.

Run: ``.venv/bin/python bench/bench_budget.py [--games NAME ...] [--moves 200]
[--max-plies 120] [--seed 1] [--level hard] [--keep] [--no-wall-cap]``.

For each game it plays ``hard`` against ``hard`` (seeded, seats alternating, chance drawn
from a seeded generator) until ``--moves`` moves have been timed, each game cut after
``--max-plies`` plies so the moves come from many games. Every move is timed as the web
arcade and ``flipgames engine`` make it: a fresh agent built for the move (what a web AI
worker does for each job), then its ``choose``; the CPU seconds of this thread
(``time.thread_time``, the clock ``hard``'s budget is counted in) and the wall seconds of
both. ``--keep`` keeps one agent per side for the whole game instead (as the arena does).

Before timing, ``flipgames warmup`` work is done in-process (compiled kernels loaded or
compiled, tables), so a first compile or load is not counted: that is the warmup's cost, and
a process's first load of a game's compiled code (about 0.6 CPU s for Rubik's Flip, before
the move's clock starts) is not a move's (:mod:`flipgames.cli.warmup`).

It prints one Markdown row per game: moves timed, the budget, the CPU seconds of a move at
p50 / p95 / p100 and p100 as a multiple of the budget, the slowest wall seconds, how many
moves reached the wall-clock cap (:func:`flipgames.agents.budget.wall_cap`), and the game and
ply of the move with the most CPU (to replay it). The target: p100 at most 1.5x the budget.
CPU time depends little on the machine's load; the wall seconds do, and on a machine so busy
that this process gets less than a third of a core the cap ends moves before their CPU
budget: ``--no-wall-cap`` puts the cap out of reach (the module's ``WALL_FACTOR``), so the
CPU figures show the budget's own overruns whatever the load.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from _common import cpu_name
from flipgames import game_names, make
from flipgames.agents import budget as move_budget
from flipgames.agents.base import Agent
from flipgames.agents.levels import levels_for, make_level_agent
from flipgames.cli.warmup import warm_game
from flipgames.core.game import Game, sample_chance
from flipgames.core.manifest import manifest_of


@dataclass
class Timings:
    """The moves timed in one game: CPU and wall seconds, and where each was played."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    where: list[tuple[int, int]] = field(default_factory=list)


def budget_of(game: Game, level: str) -> float:
    """The level's budget in seconds a move (its manifest's, or its fallback's)."""
    spec = manifest_of(game).levels[level]
    seconds = spec.seconds if spec.fallback is None else spec.fallback.seconds
    if seconds is None:
        raise SystemExit(f"{game.name}'s {level} has no time budget")
    return seconds


def time_game(
    game: Game, level: str, seed: int, index: int, max_plies: int, keep: bool, timings: Timings
) -> None:
    """Play one game of ``level`` against itself, timing every move into ``timings``."""
    agents: dict[int, Agent] = {}
    chance = random.Random(f"{seed}:{index}:chance")
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history) < max_plies:
        if state.is_chance_node():
            state = state.apply(sample_chance(state, chance))
            continue
        player = state.current_player
        rng = random.Random(f"{seed}:{index}:{player}:{len(state.history) if not keep else 0}")
        cpu, wall = time.thread_time(), time.perf_counter()
        if not keep or player not in agents:
            agents[player] = make_level_agent(game, level, rng)
        action = agents[player].choose(state)
        timings.cpu.append(time.thread_time() - cpu)
        timings.wall.append(time.perf_counter() - wall)
        timings.where.append((index, len(state.history)))
        state = state.apply(action)


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(game_names()), choices=game_names())
    parser.add_argument("--moves", type=int, default=200, help="moves timed per game")
    parser.add_argument("--max-plies", type=int, default=120, help="plies a game at most")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--keep", action="store_true", help="one agent per side a game")
    parser.add_argument("--no-wall-cap", action="store_true", help="CPU budgets only")
    args = parser.parse_args()
    if args.no_wall_cap:
        # The bench's one departure from the shipped level, said in its header line.
        setattr(move_budget, "WALL_FACTOR", 1e9)  # noqa: B010 (a Final, on purpose)
    print(
        f"# {cpu_name()}, {os.cpu_count()} cores, CPython {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f}; {args.level}, {args.moves} moves a game, "
        f"games cut at {args.max_plies} plies, seed {args.seed}, "
        f"{'one agent a game' if args.keep else 'a fresh agent a move'}"
        f"{', no wall-clock cap' if args.no_wall_cap else ''}",
        flush=True,
    )
    print(
        "| game | moves | budget CPU s | CPU s p50 / p95 / p100 | p100 / budget | "
        "wall s p100 | at the wall cap | slowest (game, ply) |"
    )
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | --- |")
    for name in args.games:
        game = make(name)
        if args.level not in levels_for(game):
            continue
        budget = budget_of(game, args.level)
        # Forced, so this process loads (or compiles) what the levels run even where a
        # stamp says the machine is warm: a first load is not a move's cost here.
        warm_game(game, force=True)
        timings, index = Timings(), 0
        while len(timings.cpu) < args.moves:
            time_game(game, args.level, args.seed, index, args.max_plies, args.keep, timings)
            index += 1
        cpu, wall = timings.cpu[: args.moves], timings.wall[: args.moves]
        top = max(range(len(cpu)), key=cpu.__getitem__)
        capped = sum(seconds >= move_budget.wall_cap(budget) for seconds in wall)
        print(
            f"| {name} | {len(cpu)} | {budget:g} | {statistics.median(cpu):.3f} / "
            f"{percentile(cpu, 0.95):.3f} / {cpu[top]:.3f} | {cpu[top] / budget:.2f} | "
            f"{max(wall):.2f} | {capped} | {timings.where[top]} |",
            flush=True,
        )
    print(f"# load average at the end {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
