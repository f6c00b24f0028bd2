"""Environment steps per CPU-second: the vectorised env (compiled batch) for 1 to N
environments, against the single-agent Gymnasium env (reference engine, one Python step per
environment).

Run: ``.venv/bin/python bench/bench_vector.py [--seconds S | --steps K] [--games NAME ...]
[--envs N ...]`` (the games by default: every game whose kernel has a compiled batch).
``--steps K`` times exactly K batch steps per size instead of S seconds of wall time: games
such as FlipFour slow down as they grow longer, so a faster build timed for S seconds reaches
later, slower plies than a slower one; K steps compare two builds on the same plies.
An env step is one agent action plus the random opponent's reply, observation tensor and
mask included (and, for the vectorised env, the copies of the batch it returns); only the CPU
time inside ``step`` counts (the process's CPU clock, so other jobs on a shared machine count
against it less than against a wall clock), not the agent's choice of a uniformly random legal
action. Prints the machine, its load average and the Python version with every run, since
figures mean nothing without them.

``--policy``: the opponent is a policy instead (a uniformly random legal action per row, drawn
in numpy: what self-play's network would compute instead), on the compiled batch (every
game's takes one) and, for comparison, on the reference engine's batch
(``ReferenceVectorEnv``, timed for ``--seconds``, in place of ``gymnasium.make``); the policy's
own time counts, since it runs inside ``step``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import gymnasium
import numpy as np

import flipgames.envs.gymnasium  # noqa: F401 (registers flipgames/<Game>-v0)
from _common import cpu_name
from flipgames import game_names
from flipgames import make as make_game
from flipgames.envs.common import Policy, env_id, sample_legal
from flipgames.envs.reference import ReferenceVectorEnv
from flipgames.envs.vector import FlipgamesVectorEnv, make


def batched_games() -> list[str]:
    """The registered games whose kernel has a compiled batch (loads the kernels)."""
    return [n for n in game_names() if getattr(make_game(n).kernel(), "vector", None)]


def random_policy(seed: int) -> Policy:
    """A uniformly random legal action per row (0 where the opponent is not to act)."""
    rng = np.random.default_rng(seed)

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        playing = masks.any(axis=1)
        actions = np.zeros(len(masks), dtype=np.int64)
        actions[playing] = sample_legal(masks[playing], rng)
        return actions

    return policy


def vector_rate(
    game: str,
    num_envs: int,
    seconds: float,
    batch_steps: int | None,
    opponent: str = "random",
) -> float:
    """Env steps per CPU-second of a batch of ``num_envs``, over ``seconds`` of wall time or
    exactly ``batch_steps`` steps; ``opponent`` ``"policy"``: :func:`random_policy` on the
    compiled batch, ``"reference"``: on the reference engine's batch."""
    if opponent == "reference":
        envs: FlipgamesVectorEnv | ReferenceVectorEnv = ReferenceVectorEnv(
            game, num_envs, random_policy(2), None, seed=1
        )
    else:
        policy = random_policy(2) if opponent == "policy" else "random"
        envs = make(game, num_envs, seed=1, seat=None, opponent=policy)
    observations, _ = envs.reset()
    rng = np.random.default_rng(1)
    steps, inside = 0, 0.0
    started = time.perf_counter()
    while (
        steps < batch_steps * num_envs
        if batch_steps is not None
        else time.perf_counter() - started < seconds
    ):
        # A uniformly random legal action per environment (action 0 once it is over: the
        # next step restarts it and ignores its action).
        mask = observations["action_mask"]
        playing = mask.any(axis=1)
        actions = np.zeros(num_envs, dtype=np.int64)
        actions[playing] = sample_legal(mask[playing], rng)
        before = time.process_time()
        observations, *_ = envs.step(actions)
        inside += time.process_time() - before
        steps += num_envs
    return steps / inside


def single_rate(game: str, seconds: float) -> float:
    """Env steps per CPU-second of one ``gymnasium.make`` env (the reference engine)."""
    env = gymnasium.make(f"flipgames/{env_id(game)}-v0", opponent="random")
    observation, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    steps, inside = 0, 0.0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        action = rng.choice(np.flatnonzero(observation["action_mask"]))
        before = time.process_time()
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()
        inside += time.process_time() - before
        steps += 1
    return steps / inside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument(
        "--games", nargs="*", help="default: every game whose kernel has a compiled batch"
    )
    parser.add_argument(
        "--steps", type=int, help="time this many batch steps per size instead of --seconds"
    )
    parser.add_argument("--envs", nargs="*", type=int, default=[1, 16, 256, 1024])
    parser.add_argument(
        "--policy", action="store_true", help="the opponent is a policy (see the module doc)"
    )
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores (shared); load average {load}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    columns = "".join(f"{f'{n} envs':>13}" for n in args.envs)
    if args.policy:
        print(f"{'game':<14}{'batch':>10}{columns}   (env steps per CPU-second, policy opponent)")
    else:
        print(f"{'game':<14}{'gymnasium.make':>15}{columns}   (env steps per CPU-second)")
    for game in args.games or batched_games():
        # Compile (or load) the batch's reset and step before timing.
        warm = make(game, 1, opponent=random_policy(0) if args.policy else "random")
        warm.reset(seed=0)
        warm.step(np.zeros(1, dtype=np.int64))
        if not args.policy:
            line = f"{game:<14}{single_rate(game, args.seconds):>15,.0f}"
            for n in args.envs:
                line += f"{vector_rate(game, n, args.seconds, args.steps):>13,.0f}"
            print(line, flush=True)
            continue
        compiled = isinstance(warm, FlipgamesVectorEnv)
        for kind in ("policy", "reference") if compiled else ("reference",):
            steps = args.steps if kind == "policy" else None
            rates = [vector_rate(game, n, args.seconds, steps, kind) for n in args.envs]
            label = "compiled" if kind == "policy" else "reference"
            print(f"{game:<14}{label:>10}" + "".join(f"{r:>13,.0f}" for r in rates), flush=True)


if __name__ == "__main__":
    main()
