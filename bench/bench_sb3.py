"""Stable-Baselines3 environment steps per CPU-second: SB3's ``DummyVecEnv`` over the single
Gymnasium env (reference engine, ``observation="flat"``) against ``flipgames.envs.sb3`` over
the compiled batch (same-step autoreset included), per game with a compiled batch.

Run: ``.venv/bin/python bench/bench_sb3.py [--seconds S] [--games NAME ...] [--envs N]``
(needs the ``sb3`` extra). An env step is one agent action plus the random opponent's reply,
observations and masks included; only the CPU time inside ``VecEnv.step`` counts (the
process's CPU clock, so other jobs on a shared machine do not count against it), not the
choice of a uniformly random legal action from ``action_masks()``. Prints the machine, its
load average and the Python version with the figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from functools import partial

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from _common import cpu_name
from flipgames import game_names, make
from flipgames.envs.common import sample_legal
from flipgames.envs.gymnasium import FlipgamesEnv
from flipgames.envs.sb3 import FlipgamesSB3VecEnv


def masks_of(envs: VecEnv) -> np.ndarray:
    """The legal actions of every environment, as MaskablePPO asks for them."""
    return np.stack(envs.env_method("action_masks"))


def rate(envs: VecEnv, seconds: float) -> float:
    """Env steps per CPU-second inside ``step`` (after a warm-up step)."""
    envs.seed(1)
    envs.reset()
    rng = np.random.default_rng(1)
    envs.step(sample_legal(masks_of(envs), rng))
    steps, inside = 0, 0.0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        actions = sample_legal(masks_of(envs), rng)
        before = time.process_time()
        envs.step(actions)
        inside += time.process_time() - before
        steps += envs.num_envs
    return steps / inside


def batched_games() -> list[str]:
    """The registered games whose kernel has a compiled batch, with their default options."""
    return [name for name in game_names() if getattr(make(name).kernel(), "vector", None)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--games", nargs="*", default=None, help="default: every batched game")
    parser.add_argument("--envs", type=int, default=1024, help="environments of the batch")
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores (shared); load average {load}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"{'game':<16}{'DummyVecEnv':>14}{f'sb3 {args.envs} envs':>18}{'ratio':>9}")
    for game in args.games or batched_games():
        single = DummyVecEnv([partial(FlipgamesEnv, game, observation="flat")])
        reference = rate(single, args.seconds)
        fast = rate(FlipgamesSB3VecEnv(game, args.envs), args.seconds)
        print(f"{game:<16}{reference:>14,.0f}{fast:>18,.0f}{fast / reference:>8.1f}x", flush=True)


if __name__ == "__main__":
    main()
