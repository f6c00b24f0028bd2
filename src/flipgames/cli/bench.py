"""``flipgames bench``: how fast each game runs, reference engine and compiled kernel, in one run.

For every game (or the ``--game`` ones) and for each implementation it has (the reference
engine always; the kernel when :func:`~flipgames.core.kernel.kernel_for` gives one), each
figure measured for about ``--seconds``:

* random playouts per second and plies per second, from the start, uniformly random actions
  (chance outcomes with their probabilities), games cut at 200 plies so figures compare with
  other systems;
* perft leaves per second (deterministic games): perft from the start at increasing depths
  while the next depth fits the time, the rate of the deepest one;
* MCTS iterations per second and alpha-beta nodes per second from the first position where
  a player moves: the reference agents (:mod:`flipgames.agents`) in reference rows; in kernel
  rows the compiled MCTS (:mod:`flipgames.agents.kernel_mcts`, the same algorithm) and the
  compiled alpha-beta (:mod:`flipgames.agents.kernel_search`, what ``hard`` plays) where the
  game has them, ``null`` in JSON where it has not (the chance games' kernels, Flip Switch's
  and Checkered Flag's, have no compiled alpha-beta).

The machine, Python, numpy and numba versions come with every run: the figures mean nothing
without them. Kernel figures exclude the one-time compile or cache load (a warm-up call).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any

from flipgames.agents.kernel_mcts import KernelMCTSAgent, has_kernel_mcts
from flipgames.agents.kernel_search import KernelAlphaBetaAgent, has_kernel_search
from flipgames.agents.mcts import MCTSAgent
from flipgames.agents.search import AlphaBetaAgent
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State, random_action, sample_chance
from flipgames.core.kernel import Kernel, kernel_for, kernel_mode
from flipgames.core.registry import game_names, make
from flipgames.solvers.perft import reference_perft

#: Random playouts stop here, as in the issue's comparisons with other systems.
PLY_CAP = 200


@dataclass(frozen=True)
class Row:
    """One game and implementation; None where a figure does not apply or is not measured."""

    game: str
    kernel: str  # "fast" or "reference"
    playouts_per_s: float
    plies_per_s: float
    perft_leaves_per_s: float | None
    mcts_iterations_per_s: float | None
    alphabeta_nodes_per_s: float | None


def machine() -> dict[str, object]:
    """Where the figures were measured."""
    return {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "kernel_mode": kernel_mode(),
    }


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def cpu_name() -> str:
    """The processor's model name (figures mean nothing without the machine)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def reference_playouts(game: Game, seconds: float) -> tuple[float, float]:
    """(playouts/s, plies/s) of seeded random games through the public protocol."""
    rng = random.Random(1)
    games = plies = 0
    started = time.perf_counter()
    while True:
        state = game.new_initial_state()
        length = 0
        while length < PLY_CAP and not state.is_terminal():
            state = state.apply(random_action(state, rng))
            length += 1
        games, plies = games + 1, plies + length
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return games / elapsed, plies / elapsed


def kernel_playouts(kernel: Kernel, seconds: float) -> tuple[float, float]:
    """(playouts/s, plies/s) of the kernel's batches, doubling the batch until the time is
    used (one Python call per batch)."""
    kernel.playouts(1, 0, PLY_CAP)  # compile or load the machine code first
    batch, games, plies, seed = 16, 0, 0, 1
    started = time.perf_counter()
    while True:
        plies += kernel.playouts(batch, seed, PLY_CAP).plies
        games, seed = games + batch, seed + 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return games / elapsed, plies / elapsed
        batch *= 2


def perft_rate(count: Callable[[State, int], int], state: State, seconds: float) -> float:
    """Leaves per second of the deepest perft from ``state`` that fits in about ``seconds``
    (each depth's time times its growth predicts the next one's)."""
    count(state, 1)  # compile or load first, for a kernel
    spent, depth, previous, rate = 0.0, 1, 1, 0.0
    while True:
        started = time.perf_counter()
        leaves = count(state, depth)
        took = time.perf_counter() - started
        spent += took
        if leaves == 0:
            return rate
        rate = leaves / took if took > 0 else rate
        predicted = took * max(leaves / previous, 1.0)
        if spent + predicted > seconds or depth >= 64:
            return rate
        depth, previous = depth + 1, leaves


def _player_node(game: Game) -> State:
    """The first position where a player moves (chance drawn with seed 0)."""
    rng = random.Random(0)
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.apply(sample_chance(state, rng))
    return state


def mcts_rate(game: Game, seconds: float) -> float:
    agent = MCTSAgent(random.Random(1), iterations=None, seconds=seconds)
    started = time.perf_counter()
    agent.search(_player_node(game))
    return agent.last_iterations / (time.perf_counter() - started)


def alphabeta_rate(game: Game, seconds: float) -> float:
    agent = AlphaBetaAgent(random.Random(1), depth=64, seconds=seconds)
    started = time.perf_counter()
    agent.search(_player_node(game))
    return agent.last_nodes / (time.perf_counter() - started)


def kernel_mcts_rate(game: Game, seconds: float) -> float | None:
    """Iterations per second of the compiled MCTS, or None where the game has none."""
    if not has_kernel_mcts(game):
        return None
    state = _player_node(game)
    # A first tiny search loads (or compiles) the machine code, outside the measurement.
    KernelMCTSAgent(random.Random(1), game, iterations=10).search(state)
    agent = KernelMCTSAgent(random.Random(1), game, iterations=None, seconds=seconds)
    started = time.perf_counter()
    iterations = agent.search(state).iterations
    return iterations / (time.perf_counter() - started)


def kernel_alphabeta_rate(game: Game, seconds: float) -> float | None:
    """Nodes per second of the compiled alpha-beta, or None where the game has none."""
    if not has_kernel_search(game):
        return None
    state = _player_node(game)
    # A first tiny search loads (or compiles) the machine code, outside the measurement.
    KernelAlphaBetaAgent(random.Random(1), game, max_nodes=100).search(state)
    agent = KernelAlphaBetaAgent(random.Random(1), game, seconds=seconds)
    started = time.perf_counter()
    nodes = agent.search(state).nodes
    return nodes / (time.perf_counter() - started)


def bench_game(game: Game, seconds: float) -> list[Row]:
    """The reference row and, when the game has one, the kernel row."""
    start = game.new_initial_state()
    playouts, plies = reference_playouts(game, seconds)
    rows = [
        Row(
            game.name,
            "reference",
            playouts,
            plies,
            perft_rate(reference_perft, start, seconds) if game.deterministic else None,
            mcts_rate(game, seconds),
            alphabeta_rate(game, seconds),
        )
    ]
    kernel = kernel_for(game)
    if kernel is not None:
        playouts, plies = kernel_playouts(kernel, seconds)
        perft = perft_rate(kernel.perft, start, seconds) if game.deterministic else None
        mcts = kernel_mcts_rate(game, seconds)
        alphabeta = kernel_alphabeta_rate(game, seconds)
        rows.append(Row(game.name, "fast", playouts, plies, perft, mcts, alphabeta))
    return rows


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def cmd_bench(args: argparse.Namespace) -> int:
    if not 0 < args.seconds <= 600:  # also rejects nan and inf
        raise FlipgamesError(f"--seconds must be a positive number up to 600, got {args.seconds}")
    games = [make(name) for name in (args.game or game_names())]
    info = machine()
    rows: list[Row] = []
    if not args.json:
        print(f"machine: {info['cpu']}, {info['cores']} cores, {info['system']}")
        print(f"python: {info['python']}; numpy {info['numpy']}; numba {info['numba']}")
        print(f"kernels: {info['kernel_mode']} (FLIPGAMES_KERNEL); playouts cut at {PLY_CAP} plies")
        header = ("game", "kernel", "playouts/s", "plies/s", "perft leaves/s", "MCTS it/s")
        print(f"{header[0]:<15} {header[1]:<9} " + " ".join(f"{h:>14}" for h in header[2:]), end="")
        print(f" {'alpha-beta nodes/s':>18}")
    for game in games:
        for row in bench_game(game, args.seconds):
            rows.append(row)
            if not args.json:
                figures = (row.playouts_per_s, row.plies_per_s, row.perft_leaves_per_s)
                line = f"{row.game:<15} {row.kernel:<9} "
                line += " ".join(f"{_figure(f):>14}" for f in figures)
                line += f" {_figure(row.mcts_iterations_per_s):>14}"
                print(line + f" {_figure(row.alphabeta_nodes_per_s):>18}", flush=True)
    if args.json:
        print(json.dumps({"machine": info, "results": [asdict(row) for row in rows]}))
    return 0


def add_bench_command(sub: Any) -> None:
    """Register ``flipgames bench`` on the main parser's subcommands."""
    help_text = "measure engine and kernel speed per game (playouts, perft, agents)"
    p = sub.add_parser("bench", help=help_text, description=help_text)
    p.add_argument("--json", action="store_true", help='print {"machine", "results"} as JSON')
    p.add_argument(
        "--game",
        action="append",
        metavar="GAME",
        help="a game to measure (repeatable; default every game): " + ", ".join(game_names()),
    )
    p.add_argument(
        "--seconds", type=float, default=1.0, help="time per figure (default %(default)s)"
    )
    p.set_defaults(run=cmd_bench)
