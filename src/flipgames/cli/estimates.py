"""How long a request will take, judged before it starts, so nothing unbounded starts silently.

``perft`` and ``analyze --depth`` grow exponentially with the depth. Before a deep request the
command line runs the same job at small depths for a moment, measures how fast the work grows
per ply (the effective branching factor) and how fast this machine does it, and extrapolates.
A request estimated beyond :data:`LIMIT_SECONDS` is refused with the estimate unless the user
passes ``--force``. The figures are rough (growth per ply varies along a game), but wrong by
a factor of a few at worst, which is enough to tell a minute from a century.

>>> format_duration(42), format_duration(5400), format_duration(3e9 * 365.25 * 86400)
('42 s', '1.5 hours', '3e+09 years')
"""

from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass

from flipgames.agents.search import AlphaBetaAgent
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State
from flipgames.core.kernel import kernel_for
from flipgames.core.manifest import has_manifest, manifest_of, matches
from flipgames.solvers import catalog
from flipgames.solvers.perft import perft

#: Requests estimated to take longer than this are refused unless ``--force`` is given.
LIMIT_SECONDS = 600.0
#: How long the probe at small depths may run before extrapolating.
PROBE_SECONDS = 0.5

_YEAR = 365.25 * 86400


def format_duration(seconds: float) -> str:
    """A duration in words, rounded: ``42 s``, ``3.5 minutes``, ``2e+40 years``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    for unit, size in (("minutes", 60), ("hours", 3600), ("days", 86400)):
        if seconds < size * (90 if unit == "minutes" else 48 if unit == "hours" else 730):
            return f"{seconds / size:.1f} {unit}"
    years = seconds / _YEAR
    return f"{years:.0f} years" if years < 1e6 else f"{years:.0e} years"


class TooLongError(FlipgamesError):
    """A request estimated to run longer than :data:`LIMIT_SECONDS` (without ``--force``)."""


@dataclass(frozen=True)
class Estimate:
    """The extrapolated cost of a request: seconds, and the growth per ply it is based on."""

    seconds: float
    growth: float

    def words(self) -> str:
        return f"about {format_duration(self.seconds)} (the work grows ~{self.growth:.1f}x per ply)"


def _extrapolate(times: list[float], sizes: list[int], depth: int) -> Estimate:
    """Seconds for depths ``len(times) + 1 .. depth`` from the last measured depth's time.

    ``sizes`` are the work per measured depth (nodes); their last ratio is the growth.
    """
    done = len(times)
    growth = max(sizes[-1] / sizes[-2], 1.0) if done >= 2 and sizes[-2] > 0 else float(sizes[-1])
    growth = max(growth, 1.0)
    last = max(times[-1], 1e-6)
    remaining = depth - done
    if growth <= 1.0:
        return Estimate(last * remaining, growth)
    # last * (g + g^2 + ... + g^remaining), in logs so that depth 1000 cannot overflow.
    log_seconds = math.log(last) + remaining * math.log(growth)
    log_seconds += math.log(growth / (growth - 1)) if growth > 1.001 else math.log(remaining)
    return Estimate(math.exp(min(log_seconds, 700.0)), growth)


def check_perft(state: State, depth: int, force: bool) -> Estimate | None:
    """Refuse (:class:`TooLongError`) a perft to ``depth`` estimated beyond the limit.

    Returns the estimate (None when the probe itself reached ``depth``: it is quick).
    """
    # One untimed call first: a compiled kernel loads (or compiles) on its first use, which
    # would otherwise be taken for the cost of depth 1 and inflate the extrapolation.
    perft(state, 1)
    times: list[float] = []
    sizes: list[int] = []
    spent = 0.0
    for d in range(1, depth + 1):
        if spent > PROBE_SECONDS:
            estimate = _extrapolate(times, sizes, depth)
            if estimate.seconds > LIMIT_SECONDS and not force:
                raise TooLongError(
                    f"perft {depth} of {state.game.name} would take {estimate.words()} on this "
                    f"machine; refusing: choose a smaller depth, or add --force to run it anyway"
                )
            return estimate
        started = time.perf_counter()
        sizes.append(perft(state, d))
        times.append(time.perf_counter() - started)
        spent += times[-1]
        if sizes[-1] == 0:
            return None  # the game ends before this depth: nothing deeper to count
    return None


def check_search(state: State, depth: int, seed: int, force: bool) -> Estimate | None:
    """Refuse (:class:`TooLongError`) an analysis search to ``depth`` estimated beyond the
    limit. Returns the estimate (None when the probe reached ``depth`` or a proven result)."""
    times: list[float] = []
    sizes: list[int] = []
    spent = 0.0
    for d in range(1, depth + 1):
        if spent > PROBE_SECONDS:
            estimate = _extrapolate(times, sizes, depth)
            if estimate.seconds > LIMIT_SECONDS and not force:
                raise TooLongError(
                    f"a depth-{depth} search of {state.game.name} would take {estimate.words()} "
                    f"on this machine; refusing: choose a smaller --depth, or add --force to run "
                    f"it anyway"
                )
            return estimate
        agent = AlphaBetaAgent(random.Random(seed), depth=d, exact_scores=True)
        started = time.perf_counter()
        result = agent.search(state)
        times.append(time.perf_counter() - started)
        sizes.append(max(agent.last_nodes, 1))
        spent += times[-1]
        if result.depth < d:
            return None  # proven before this depth: a deeper search stops just as early
    return None


#: Memory of the retrograde solver per position enumerated, from the catalog's default budget
#: (3,000,000 positions take about 2-3 GB).
BYTES_PER_POSITION = 1_000


def check_budget(max_positions: int, force: bool) -> None:
    """Refuse (:class:`TooLongError`) a retrograde position budget that this machine's memory
    could not hold, unless ``force``: such a solve would run until the memory runs out."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    fits = memory // BYTES_PER_POSITION
    if max_positions > fits and not force:
        needed = max_positions * BYTES_PER_POSITION / 1e9
        raise TooLongError(
            f"--max-positions {max_positions:,} needs about {needed:,.0f} GB of memory (about "
            f"{BYTES_PER_POSITION:,} bytes a position) and this machine has "
            f"{memory / 1e9:.0f} GB, room for about {fits:,} positions; choose a smaller budget, "
            "or add --force to try anyway"
        )


def solve_cost(game: Game) -> str | None:
    """What the first exact solve of ``game`` costs where that is long enough to warn about
    (None otherwise): the manifest's ``solve_costs``, measured with ``flipgames solve``
    (docs/solvers.md: machine, Python). Only the reference walk is slow: on the game's
    compiled kernel the solve takes seconds."""
    if not has_manifest(game):
        return None
    cost = next((c for c in manifest_of(game).solve_costs if matches(game, c.options)), None)
    # The manifest first: kernel_for imports the game's kernel (and numba), which a cold solve
    # of a game without a slow reference walk must not pay for.
    if cost is None or not catalog.is_solved(game) or kernel_for(game) is not None:
        return None
    return (
        f"{cost.positions:,} positions, about {cost.duration} and {cost.memory} of memory "
        "on the reference engines (FLIPGAMES_KERNEL=python; 2-core AMD EPYC, CPython 3.11.7); "
        "the result is cached, so this happens once"
    )
