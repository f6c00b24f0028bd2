"""Weak solutions of short deterministic games by alpha-beta search on a compiled kernel.

Where retrograde analysis would have to enumerate every position (Rubik's Flip has hundreds of
millions), a proof only needs the game's value and every first turn's value. A kernel that
offers an exact search (:class:`Searchable`) runs fail-soft alpha-beta over win / draw / loss
in compiled code, with a transposition table keyed on the position's canonical image under the
game's symmetries; this module drives it from the top (so it can report progress between
subtrees), sizes the table from a memory budget and caches the result on disk.

The first player's value of each first turn is exact (each is searched with a full window),
so the report says which opening wins, draws or loses; turns that are symmetric images of one
another share one search.

>>> parse_memory("4G"), parse_memory("512m"), table_entries(parse_memory("1G"))
(4294967296, 536870912, 134217728)
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import Game, State
from flipgames.core.kernel import kernel_for
from flipgames.core.progress import Progress, silent
from flipgames.solvers import cache

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Bump when the proof's results or payload format change.
VERSION = 1
#: Transposition-table size when none is given: enough for Rubik's Flip to rarely replace.
DEFAULT_MEMORY = "2G"
#: Each table entry is one int64.
ENTRY_BYTES = 8
_MEMORY = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class ProofError(FlipgamesError, ValueError):
    """A proof asked of a game without a searchable kernel, or with a bad memory budget."""


@runtime_checkable
class Searchable(Protocol):
    """A kernel that can search a position exactly (see :mod:`flipgames.core.kernel`).

    Positions are packed ints. Values are +1 (win), 0 (draw), -1 (loss) for the side to move.
    """

    name: str
    #: How many symmetries the transposition keys fold (1 if none).
    symmetries: int

    def position(self, state: State) -> int: ...

    def canonical(self, position: int) -> int: ...

    def children(self, position: int) -> list[tuple[int, int, int | None]]:
        """``(action, child, value)`` per legal action; ``value`` only for terminal children."""
        ...

    def search(
        self,
        position: int,
        alpha: int,
        beta: int,
        table: npt.NDArray[np.int64],
        stats: npt.NDArray[np.int64],
    ) -> int: ...


@dataclass(frozen=True)
class Proof:
    """The value of a game from the start, for the first player, and how it was found."""

    game: str
    options: dict[str, Any]
    #: +1 the first player wins, 0 draw, -1 the first player loses (both playing perfectly);
    #: from another start position (:func:`prove`'s ``state``), for the player to move there.
    value: int
    #: That player's value after each of their turns, by notation, in action id order.
    first_turns: dict[str, int]
    #: Positions searched (transposition hits included) and the solve's time.
    nodes: int
    seconds: float
    table_bytes: int
    symmetries: int

    def to_payload(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "first_turns": self.first_turns,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "table_bytes": self.table_bytes,
            "symmetries": self.symmetries,
        }

    @classmethod
    def from_payload(cls, game: Game, payload: Any) -> Proof:
        try:
            proof = cls(
                game=game.name,
                options=dict(game.options),
                value=int(payload["value"]),
                first_turns={str(k): int(v) for k, v in payload["first_turns"].items()},
                nodes=int(payload["nodes"]),
                seconds=float(payload["seconds"]),
                table_bytes=int(payload["table_bytes"]),
                symmetries=int(payload["symmetries"]),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed proof payload: {exc!r}") from None
        values = set(proof.first_turns.values())
        if not values <= {-1, 0, 1} or proof.value != max(values, default=None):
            raise ValueError("the game's value is not the best first turn's value")
        return proof


def parse_memory(text: str) -> int:
    """Bytes in a size such as ``4G``, ``512M``, ``1.5g`` or ``100000`` (binary units).

    >>> parse_memory("lots")
    Traceback (most recent call last):
    ...
    flipgames.solvers.alphabeta.ProofError: bad memory size 'lots': write e.g. 4G, 512M or 100000
    """
    match = _MEMORY.fullmatch(text)
    if match is None:
        raise ProofError(f"bad memory size {quote(text)}: write e.g. 4G, 512M or 100000")
    size = int(float(match[1]) * _UNITS[match[2].lower()])
    if size < 1 << 20:
        raise ProofError(f"memory size {quote(text)} is too small: give at least 1M")
    return size


def physical_memory() -> int | None:
    """This machine's RAM in bytes, where the platform says (POSIX), else None."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def table_entries(memory: int) -> int:
    """The transposition table's length for a budget of ``memory`` bytes: a power of two."""
    return 1 << (memory // ENTRY_BYTES).bit_length() - 1


def searchable(game: Game) -> Searchable | None:
    """``game``'s kernel when it offers an exact search (and FLIPGAMES_KERNEL allows it)."""
    kernel = kernel_for(game)
    return kernel if isinstance(kernel, Searchable) else None


def is_provable(game: Game) -> bool:
    """True when ``game``'s kernel can prove its value by search (see :class:`Searchable`)."""
    return game.deterministic and searchable(game) is not None


class _Search:
    """One proof in progress: the kernel, its transposition table and the node count."""

    def __init__(self, kernel: Searchable, memory: int) -> None:
        import numpy as np  # only when a search runs: `flipgames --help` never loads numpy

        self.kernel = kernel
        try:
            self.table = np.zeros(table_entries(memory), dtype=np.int64)
        except MemoryError:
            raise ProofError(
                f"cannot allocate a {memory / 2**30:g} GiB table: lower --memory"
            ) from None
        self.stats = np.zeros(3, dtype=np.int64)

    def exact(self, position: int, progress: Progress, label: str) -> int:
        """The exact value of a live ``position`` for its side to move, one child at a time so
        that progress can be reported between the compiled searches."""
        children = self.kernel.children(position)
        best, alpha, beta = -2, -1, 1
        for done, (_, child, terminal) in enumerate(children):
            progress(label, done=done, total=len(children))
            if terminal is None:
                value = -self.kernel.search(child, -beta, -alpha, self.table, self.stats)
            else:
                value = -terminal
            best = max(best, value)
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        progress(label, done=len(children), total=len(children))
        return best


def prove(
    game: Game,
    memory: int | None = None,
    progress: Progress = silent,
    state: State | None = None,
) -> Proof:
    """Search ``game`` from ``state`` (default: the start): its value and every turn's value,
    for the player to move there."""
    kernel = searchable(game)
    if kernel is None:
        raise ProofError(
            f"{game.name} has no compiled search kernel"
            + (" (FLIPGAMES_KERNEL=python forbids it)" if kernel_for(game) is None else "")
        )
    start = game.new_initial_state() if state is None else state
    if start.is_terminal():
        raise ProofError("the position is over: there is nothing to prove")
    budget = parse_memory(DEFAULT_MEMORY) if memory is None else memory
    ram = physical_memory()
    if ram is not None and budget > ram:
        # The table is filled all over: a budget beyond RAM would swap or be killed mid-proof.
        raise ProofError(
            f"a {budget / 2**30:g} GiB table is more than this machine's "
            f"{ram / 2**30:.1f} GiB of memory: lower --memory"
        )
    started = time.perf_counter()
    search = _Search(kernel, budget)
    turns = kernel.children(kernel.position(start))
    # The mover's value after each turn; symmetric turns share one search.
    by_key: dict[int, int] = {}
    classes = len({kernel.canonical(child) for _, child, _ in turns})
    values: dict[str, int] = {}
    for action, child, terminal in turns:
        key = kernel.canonical(child)
        if key not in by_key:
            label = f"turn {len(by_key) + 1}/{classes} ({start.action_to_string(action)})"
            if terminal is None:
                by_key[key] = -search.exact(child, progress, label)
            else:
                by_key[key] = -terminal
        values[start.action_to_string(action)] = by_key[key]
    return Proof(
        game=game.name,
        options=dict(game.options),
        value=max(values.values()),
        first_turns=values,
        # The compiled searches' nodes, plus the start and the turns searched from here.
        nodes=int(search.stats[0]) + 1 + len(by_key),
        seconds=round(time.perf_counter() - started, 3),
        table_bytes=search.table.nbytes,
        symmetries=kernel.symmetries,
    )


def best_actions(
    kernel: Searchable, state: State, table: npt.NDArray[np.int64], max_nodes: int
) -> list[int] | None:
    """The legal actions of a live ``state`` that keep its value, or None when finding them
    takes more than ``max_nodes`` nodes. ``table`` may be kept between calls (its entries are
    facts about positions, true whatever the path)."""
    import numpy as np  # only when a search runs: `flipgames --help` never loads numpy

    stats = np.array([0, max_nodes, 0], dtype=np.int64)
    position = kernel.position(state)
    value = kernel.search(position, -1, 1, table, stats)
    best = []
    for action, child, terminal in kernel.children(position):
        if stats[2]:
            return None
        if terminal is not None:
            keeps = -terminal == value
        else:
            # A null window around the value: the child keeps it iff its own value is at most
            # minus ours (fail-soft, so the answer is on the right side of the window).
            keeps = kernel.search(child, -value, -value + 1, table, stats) <= -value
        if keeps:
            best.append(action)
    return None if stats[2] else best


def exact_action_values(
    kernel: Searchable, state: State, table: npt.NDArray[np.int64], max_nodes: int
) -> dict[int, int] | None:
    """Per legal action of a live ``state``, its exact value for the player to move (+1, 0,
    -1: each child searched with a full window), or None when that takes more than
    ``max_nodes`` nodes in all. Dearer than :func:`best_actions`, whose null windows only say
    which actions keep the value; ground truth (:mod:`flipgames.solvers.ground_truth`) wants
    every action's value."""
    import numpy as np  # only when a search runs: `flipgames --help` never loads numpy

    stats = np.array([0, max_nodes, 0], dtype=np.int64)
    values: dict[int, int] = {}
    for action, child, terminal in kernel.children(kernel.position(state)):
        if terminal is not None:
            values[action] = -terminal
        else:
            values[action] = -kernel.search(child, -1, 1, table, stats)
        if stats[2]:
            return None
    return values


def cached_proof(game: Game) -> Proof | None:
    """The proof from the disk cache if it is there (never searches)."""
    payload = cache.load("alphabeta", VERSION, game)
    if payload is None:
        return None
    try:
        return Proof.from_payload(game, payload)
    except ValueError:
        return None


def cached_prove(game: Game, memory: int | None = None, progress: Progress = silent) -> Proof:
    """:func:`prove` through the disk cache (the table size does not change the result)."""
    return cache.cached(
        "alphabeta",
        VERSION,
        game,
        lambda: prove(game, memory, progress),
        Proof.to_payload,
        lambda payload: Proof.from_payload(game, payload),
    )
