"""Simulations as Ray tasks: a local Ray (``"auto"``) or a running cluster (its address).

The games are cut into the same batches as for local worker processes
(:func:`flipgames.lab.simulate.batches`); a bounded number of tasks is in flight at once
(four per CPU of the cluster), so a million-game study neither floods the scheduler nor holds
every result in memory: each finished batch is yielded as soon as it arrives and merged into
the totals. Ray needs the ``lab`` extra (``pip install -e '.[lab]'`` in the repository
folder), and every node of a cluster needs flipgames installed in the same version
(docs/lab.md).

Ray is imported here only, so nothing else pays for it.
"""

from __future__ import annotations

import logging
import socket
from collections import deque
from collections.abc import Iterator
from typing import Any

from flipgames.core.errors import FlipgamesError, quote
from flipgames.lab.simulate import Job, batches, run_batch
from flipgames.lab.stats import Tally

#: Tasks in flight per CPU of the cluster.
IN_FLIGHT_PER_CPU = 4


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise FlipgamesError(
            "--ray needs Ray (the 'lab' extra): run pip install -e '.[lab]' in the flipgames "
            "repository folder"
        ) from None
    return ray


def check_address(address: str, timeout: float = 5.0) -> None:
    """Fail in one line, within ``timeout`` seconds, when nothing answers at a cluster
    address (Ray itself would retry for minutes); ``"auto"`` needs no check.

    >>> check_address("head-node")
    Traceback (most recent call last):
    ...
    flipgames.core.errors.FlipgamesError: --ray 'head-node': write auto, HOST:PORT or \
ray://HOST:PORT
    """
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise FlipgamesError(f"--ray {quote(address)}: write auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise FlipgamesError(
            f"--ray {address}: nothing answers at {host}:{port} ({reason}); start the cluster "
            "with 'ray start --head' or check the address"
        ) from None


def connect(address: str) -> bool:
    """Connect to Ray: ``"auto"`` starts a local Ray (or joins the one ``RAY_ADDRESS`` names),
    anything else is a cluster address such as ``ray://head:10001`` or ``10.0.0.5:6379``.

    Returns True when this call started the connection (so the caller shuts it down), False
    when Ray was connected already (a test or a notebook started it)."""
    ray = _ray()
    if ray.is_initialized():
        return False
    check_address(address)
    try:
        ray.init(
            address=None if address == "auto" else address,
            log_to_driver=False,
            logging_level=logging.ERROR,  # no start-up chatter around --json output
        )
    except (ConnectionError, ValueError, RuntimeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FlipgamesError(f"--ray {address}: cannot connect to Ray: {first}") from None
    return True


def shutdown() -> None:
    """Disconnect from Ray (after :func:`connect` returned True)."""
    _ray().shutdown()


def run(job: Job, games: int, address: str) -> Iterator[Tally]:
    """Yield the tallies of ``job``'s batches as the Ray tasks finish (see module doc)."""
    ray = _ray()
    started = connect(address)
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(run_batch)
        shared = ray.put(job)
        work = deque(batches(games, cpus))
        limit = cpus * IN_FLIGHT_PER_CPU
        pending: list[Any] = []
        try:
            while work or pending:
                while work and len(pending) < limit:
                    start, stop = work.popleft()
                    pending.append(remote.remote(shared, start, stop))
                ready, pending = ray.wait(pending, num_returns=1)
                yield ray.get(ready[0])
        finally:
            for task in pending:  # interrupted: stop what is still queued or running
                ray.cancel(task, force=True)
    finally:
        if started:
            ray.shutdown()
