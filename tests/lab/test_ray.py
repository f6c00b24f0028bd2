"""Simulations as Ray tasks on a local Ray with 2 CPUs give the single-process result."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flipgames import make
from flipgames.lab.simulate import simulate

ray = pytest.importorskip(
    "ray", reason="Ray comes with the lab extra (installed by the test extra)"
)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray for the module (starting one takes seconds)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_tasks_equal_one_process(local_ray: None) -> None:
    game = make("flipflop-3x3")
    seen: list[int] = []

    def progress(message: str, *, done: int | None = None, total: int | None = None) -> None:
        assert done is not None and total == 20
        seen.append(done)

    on_ray = simulate(game, ("random", "easy"), 20, seed=11, ray="auto", progress=progress)
    here = simulate(game, ("random", "easy"), 20, seed=11)
    assert on_ray == here
    assert on_ray.games == 20 and not on_ray.interrupted
    # Results streamed in batch by batch (20 games on 2 CPUs: batches of one game).
    assert seen == sorted(seen) and seen[-1] == 20 and len(seen) > 1


def test_ray_stays_connected_for_the_caller(local_ray: None) -> None:
    # A Ray the caller started is used, not shut down, by a simulation.
    simulate(make("flipflop-3x3"), ("random", "random"), 4, seed=1, ray="auto")
    assert ray.is_initialized()


def test_an_interrupted_ray_run_keeps_the_finished_batches(local_ray: None) -> None:
    def interrupt(message: str, *, done: int | None = None, total: int | None = None) -> None:
        raise KeyboardInterrupt

    game = make("flipflop-3x3")
    result = simulate(game, ("random", "random"), 20, seed=3, ray="auto", progress=interrupt)
    assert result.interrupted and result.games == 1  # one batch of one game arrived
    assert ray.is_initialized()  # the caller's Ray is left running
