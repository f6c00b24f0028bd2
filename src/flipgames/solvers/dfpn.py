"""Games too big to enumerate, proved by df-pn search, with checkpoints and a proof file.

A game whose :class:`~flipgames.core.game.Game` offers ``proof_search()`` (FlipFour: a
depth-first proof-number search in numba, :mod:`flipgames.games.flipfour.dfpn_kernel`) is
solved here by asking two questions in turn: does the side to move force a win, and does the
other side? A yes is a win (or a loss) with a proof; two noes are a draw. The search runs in
chunks of nodes, so that between chunks this module reports progress (the root's proof and
disproof numbers, nodes, rate), writes checkpoints and honours a time limit:

- **Memory** is the transposition table (``memory`` bytes, a power of two entries); when it
  is full a bucket replaces its cheapest entry, so a small table only costs speed.
- **Checkpoints**: every ``every`` seconds (and when stopping) the table's entries and the
  questions answered so far go to ``DIR/table-N.npz`` and ``DIR/state.json`` (each written to
  a temporary file and renamed, the state last, so a stop at any moment leaves the previous
  checkpoint whole). Running again with the same folder resumes, here or on another machine.
- **Proofs**: :func:`write_proof` replays the table from the start into JSON lines
  (:mod:`flipgames.solvers.proof` documents the format and checks it with the reference
  rules), re-searching any position whose entry was replaced. A win (or loss) is the
  prover's strategy; a draw is both sides' non-losing strategies, each read from its own
  question's table (the question asked first is searched again from the start, since the
  second cleared the table).

>>> from flipgames import make
>>> game = make("flipfour")
>>> solver = Solver(game, game.from_position("5/5/RRR1b/bb3/b4 w 10"), memory=1 << 20)
>>> report = solver.solve()
>>> report.value, report.phases[0].status, report.phases[0].plies
('win', 'proven', 1)
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import Game, State

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Bump when a checkpoint's layout changes (an old one is then refused, not misread).
VERSION = 1
#: The most nodes per call of the compiled search (a progress line and a clock check come
#: between calls, about every SECONDS_A_CHUNK at the measured rate; FIRST_CHUNK to start).
CHUNK = 20_000_000
FIRST_CHUNK = 100_000
SECONDS_A_CHUNK = 10.0
#: Proof and disproof numbers at or above this are infinite (the kernel's INF).
INFINITE = (1 << 30) - 1
#: Seconds between checkpoints unless told.
DEFAULT_EVERY = 300.0
#: A ``dep`` that rests on nothing (the kernel's FREE).
FREE = 1 << 40
STATE_FILE = "state.json"
#: Pieces of the endgame tables a proof search probes (None: those *hard* plays from).
TABLE_PIECES: int | None = None


class DfpnError(FlipgamesError, ValueError):
    """A proof search that cannot run: no search for the game, a bad checkpoint, a proof that
    cannot be rebuilt."""


class ProofSearch(Protocol):
    """What a game's ``proof_search()`` offers (positions are opaque tuples of ints)."""

    entry_bytes: int
    infinity: int

    def root(self, key: int) -> tuple[int, ...]: ...

    def to_move(self, position: Any) -> int: ...

    def key(self, position: Any) -> tuple[int, int]: ...

    def new_table(self, entries: int) -> Any: ...

    def run(
        self, position: Any, attacker: int, table: Any, stats: Any, budget: int
    ) -> tuple[int, int, int, int]: ...

    def children(self, position: Any) -> list[tuple[int, Any, bool]]: ...

    def entry(self, position: Any, table: Any) -> tuple[int, int, int] | None: ...

    def entries(self, table: Any) -> dict[str, npt.NDArray[np.int64]]: ...

    def load(self, table: Any, columns: dict[str, npt.NDArray[np.int64]], stats: Any) -> None: ...

    def position_text(self, position: Any) -> str: ...

    def action_text(self, action: int) -> str: ...


def proof_search(game: Game) -> ProofSearch | None:
    """``game``'s df-pn search, or None (none offered, or ``FLIPGAMES_KERNEL=python``)."""
    maker = getattr(game, "proof_search", None)
    if maker is None or os.environ.get("FLIPGAMES_KERNEL") == "python":
        return None
    from flipgames.solvers.endgame import endgame_table

    # A game with endgame tables (FlipFlop) probes them, from the disk cache (built once
    # per machine); the others take none.
    table = endgame_table(game, TABLE_PIECES)
    search: ProofSearch = maker() if table is None else maker(table)
    return search


def is_provable(game: Game) -> bool:
    """True when ``game`` offers a df-pn search (checked without building it: no numba)."""
    return hasattr(game, "proof_search") and os.environ.get("FLIPGAMES_KERNEL") != "python"


@dataclass
class Phase:
    """One question: does ``attacker`` force a win from the start?"""

    attacker: int
    #: ``proven``, ``disproven``, ``open`` (stopped first) or ``depth-limit`` (the search
    #: ran into its depth limit: no answer).
    status: str = "open"
    pn: int = 1
    dn: int = 1
    #: Plies to the win (an upper bound) when proven.
    plies: int = 0
    nodes: int = 0
    seconds: float = 0.0


@dataclass
class Report:
    """What a solve found: ``value`` for the side to move at ``start`` (None: not known)."""

    game: str
    start: str
    value: str | None
    phases: list[Phase] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    table_bytes: int = 0
    table_used: int = 0
    resumed: bool = False
    #: Per first move (one per symmetry class): what the table says of it (see
    #: :meth:`Solver.first_moves`).
    first_moves: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def number(value: int) -> str:
    """A proof or disproof number for people: ``inf`` for infinity.

    >>> number(12345), number(INFINITE)
    ('12,345', 'inf')
    """
    return "inf" if value >= INFINITE else f"{value:,}"


def table_entries(memory: int, entry_bytes: int) -> int:
    """A power of two of entries within ``memory`` bytes (at least one bucket of 4)."""
    return max(4, 1 << max(2, (memory // entry_bytes).bit_length() - 1))


class Solver:
    """One solve of ``state`` (default: the start) with a table of ``memory`` bytes,
    checkpointing to ``checkpoint`` every ``every`` seconds and reporting lines to
    ``report`` (nothing by default)."""

    def __init__(
        self,
        game: Game,
        state: State | None = None,
        memory: int = 1 << 30,
        checkpoint: Path | None = None,
        every: float = DEFAULT_EVERY,
        report: Callable[[str], None] = lambda line: None,
        attackers: tuple[int, ...] | None = None,
    ) -> None:
        import numpy as np  # only when a solve runs: `flipgames --help` never loads numpy

        search = proof_search(game)
        if search is None:
            raise DfpnError(f"{game.name} has no proof search (df-pn runs on FlipFour)")
        self.game, self.search = game, search
        self.state = game.new_initial_state() if state is None else state
        if self.state.is_terminal():
            raise DfpnError("the position is over: there is nothing to prove")
        key = self.state.key()
        assert isinstance(key, int)
        self.position = search.root(key)
        self.start = self.state.position()
        try:
            self.table = search.new_table(table_entries(memory, search.entry_bytes))
        except MemoryError:
            raise DfpnError(
                f"cannot allocate a {memory / 2**30:g} GiB table: lower --memory"
            ) from None
        self.stats = np.zeros(7, dtype=np.int64)
        self.checkpoint, self.every, self.say = checkpoint, every, report
        self.mover = mover = self.state.current_player
        asked = (mover, 1 - mover) if attackers is None else attackers
        self.phases = [Phase(attacker=attacker) for attacker in asked]
        self.nodes, self.seconds, self.generation, self.resumed = 0, 0.0, 0, False
        self.rate = 0.0
        #: The attacker whose question the table's numbers answer (None: an empty table).
        self.table_attacker: int | None = None
        if checkpoint is not None:
            self._resume(checkpoint)

    @property
    def table_bytes(self) -> int:
        return sum(column.nbytes for column in self.table)

    # --- the search ---------------------------------------------------------------------

    def solve(self, max_time: float | None = None, max_nodes: int | None = None) -> Report:
        """Answer the questions still open, stopping (status ``open``) after ``max_time``
        seconds or ``max_nodes`` nodes of this call; checkpoint on the way and at the end."""
        started = time.monotonic()
        spent_before = self.nodes
        last_save = started
        for phase in self.phases:
            if phase.status != "open" or self._value() is not None:
                continue
            if phase.nodes == 0:
                # Entries are numbers for one attacker: the other question starts afresh.
                for column in self.table:
                    column[:] = 0
                self.stats[5] = 0
            while phase.status == "open":
                budget = self._chunk_size(max_time, started)
                if max_nodes is not None:
                    budget = min(budget, max_nodes - (self.nodes - spent_before))
                if budget <= 0 or (max_time is not None and time.monotonic() - started >= max_time):
                    break
                self._chunk(phase, budget)
                now = time.monotonic()
                if self.checkpoint is not None and now - last_save >= self.every:
                    self.save()
                    last_save = now
            if phase.status == "open":
                break  # stopped: the next question waits for this one's answer
        if self.checkpoint is not None:
            self.save()
        return self.report()

    def _chunk_size(self, max_time: float | None, started: float) -> int:
        """Nodes for about ``SECONDS_A_CHUNK`` at the last rate (fewer near a time limit)."""
        rate = self.rate if self.rate > 0 else FIRST_CHUNK / SECONDS_A_CHUNK
        seconds = SECONDS_A_CHUNK
        if max_time is not None:
            seconds = min(seconds, max_time - (time.monotonic() - started))
        return max(1_000, min(CHUNK, int(rate * seconds)))

    def _chunk(self, phase: Phase, budget: int) -> None:
        before, clock = int(self.stats[0]), time.monotonic()
        pn, dn, plies, dep = self.search.run(
            self.position, phase.attacker, self.table, self.stats, budget
        )
        self.table_attacker = phase.attacker
        spent, took = int(self.stats[0]) - before, time.monotonic() - clock
        self.rate = spent / max(took, 1e-6)
        self.nodes += spent
        self.seconds += took
        phase.nodes += spent
        phase.seconds += took
        phase.pn, phase.dn, phase.plies = pn, dn, plies
        if pn == 0:
            phase.status = "proven"
        elif dn == 0:
            phase.status = "disproven" if dep >= FREE else "depth-limit"
        used = int(self.stats[5])
        name = self.game.player_names[phase.attacker]
        self.say(
            f"{name} wins? pn {number(pn)} dn {number(dn)} ({phase.status}); {self.nodes:,} nodes, "
            f"{spent / max(took, 1e-9):,.0f} nodes/s, {self.seconds:,.0f} s searched, table "
            f"{min(used, len(self.table[0])) / len(self.table[0]):.0%} full"
        )

    def _value(self) -> str | None:
        """win / loss for the side to move once a question is proven; draw once both sides
        are disproven; None before."""
        status = {phase.attacker: phase.status for phase in self.phases}
        if status.get(self.mover) == "proven":
            return "win"
        if status.get(1 - self.mover) == "proven":
            return "loss"
        if status.get(self.mover) == status.get(1 - self.mover) == "disproven":
            return "draw"
        return None

    def first_moves(self) -> dict[str, str]:
        """What the table says of each first move (one per class of symmetric moves) for the
        question being asked: ``win`` / ``not a win`` for its attacker where resolved, else
        its proof and disproof numbers."""
        phase = next((p for p in self.phases if p.status == "open"), self.phases[-1])
        found: dict[str, str] = {}
        seen: set[tuple[int, int]] = set()
        for action, child, four in self.search.children(self.position):
            key = self.search.key(child)
            if key in seen:
                continue
            seen.add(key)
            text = self.search.action_text(action)
            entry = None if four else self.search.entry(child, self.table)
            if four:
                found[text] = "ends the game"
            elif entry is None:
                found[text] = "not searched"
            elif entry[0] == 0:
                found[text] = f"{self.game.player_names[phase.attacker]} wins"
            elif entry[1] == 0:
                found[text] = f"no win for {self.game.player_names[phase.attacker]}"
            else:
                found[text] = f"pn {number(entry[0])} dn {number(entry[1])}"
        return found

    def report(self) -> Report:
        return Report(
            game=self.game.name,
            start=self.start,
            value=self._value(),
            phases=list(self.phases),
            nodes=self.nodes,
            seconds=round(self.seconds, 3),
            table_bytes=self.table_bytes,
            table_used=int((self.table[0] != 0).sum()),
            resumed=self.resumed,
            first_moves=self.first_moves(),
        )

    # --- checkpoints --------------------------------------------------------------------

    def save(self) -> None:
        """Write the checkpoint (the table first, then the state that names it)."""
        import numpy as np

        folder = self.checkpoint
        assert folder is not None
        folder.mkdir(parents=True, exist_ok=True)
        self.generation += 1
        table_name = f"table-{self.generation}.npz"
        temporary = folder / f".{table_name}.tmp"
        with temporary.open("wb") as handle:
            np.savez(handle, allow_pickle=False, **self.search.entries(self.table))
        os.replace(temporary, folder / table_name)
        state = {
            "version": VERSION,
            "game": self.game.name,
            "start": self.start,
            "table": table_name,
            "generation": self.generation,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "phases": [asdict(phase) for phase in self.phases],
        }
        temporary = folder / f".{STATE_FILE}.tmp"
        temporary.write_text(json.dumps(state, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, folder / STATE_FILE)
        for old in folder.glob("table-*.npz"):
            if old.name != table_name:
                old.unlink(missing_ok=True)

    def _resume(self, folder: Path) -> None:
        import numpy as np

        path = folder / STATE_FILE
        if not path.exists():
            return
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            if state.get("version") != VERSION:
                raise DfpnError(
                    f"{path}: a checkpoint of another version ({state.get('version')}); "
                    "use a new folder"
                )
            if state["game"] != self.game.name or state["start"] != self.start:
                raise DfpnError(
                    f"{path}: a checkpoint of {state['game']} from {quote(state['start'])}, "
                    f"not of {self.game.name} from {quote(self.start)}: use another folder"
                )
            with np.load(folder / state["table"]) as columns:
                self.search.load(self.table, dict(columns), self.stats)
            self.phases = [Phase(**phase) for phase in state["phases"]]
            self.nodes, self.seconds = int(state["nodes"]), float(state["seconds"])
            self.generation = int(state["generation"])
            asked = [phase.attacker for phase in self.phases if phase.nodes]
            self.table_attacker = asked[-1] if asked else None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, DfpnError):
                raise
            raise DfpnError(f"{folder}: not a readable checkpoint ({exc})") from None
        self.resumed = True
        self.say(f"resumed from {folder}: {self.nodes:,} nodes searched before")

    # --- proofs -------------------------------------------------------------------------

    def proof_lines(self, budget: int = 50_000_000) -> Iterator[dict[str, Any]]:
        """The claim and the strategies of a proven value, read from the table (a position
        whose entries were replaced is searched again, within ``budget`` nodes each): the
        prover's positions for a win or loss, both sides' non-losing ones for a draw."""
        value = self._value()
        if value is None:
            raise DfpnError("a proof file needs a proven value (win, loss or draw)")
        yield {"game": self.game.name, "start": self.start, "value": value}
        if value == "draw":
            for defender in (self.mover, 1 - self.mover):
                self._table_for(1 - defender, budget)
                yield from self.drawing_strategy(self.position, defender, budget)
            return
        attacker = self.mover if value == "win" else 1 - self.mover
        self._table_for(attacker, budget)
        yield from self.strategy(self.position, attacker, budget)

    def _table_for(self, attacker: int, budget: int) -> None:
        """Make the table hold ``attacker``'s resolved question from the start (searched
        again, from an empty table, when it holds the other question's numbers)."""
        if self.table_attacker == attacker:
            return
        for column in self.table:
            column[:] = 0
        self.stats[5] = 0
        self.table_attacker = attacker
        pn, dn, _, dep = self.search.run(self.position, attacker, self.table, self.stats, budget)
        if pn != 0 and (dn != 0 or dep < FREE):
            raise DfpnError(
                f"{self.start}: {self.game.player_names[attacker]}'s question did not resolve "
                f"again within {budget:,} nodes"
            )

    def strategy(self, root: Any, attacker: int, budget: int) -> Iterator[dict[str, Any]]:
        """The proven ``attacker``'s positions from ``root`` on, each with its move."""
        seen: set[tuple[int, int]] = set()
        stack = [root]
        while stack:
            position = stack.pop()
            key = self.search.key(position)
            if key in seen:
                continue
            seen.add(key)
            if self.search.to_move(position) != attacker:
                for _, reply, four in self.search.children(position):
                    if four:
                        raise DfpnError(f"{self.search.position_text(position)}: not a proof")
                    stack.append(reply)
                continue
            action, child, four = self._winning_move(position, attacker, budget)
            yield {
                "position": self.search.position_text(position),
                "value": "win",
                "move": self.search.action_text(action),
            }
            if not four:
                stack.append(child)

    def _winning_move(self, position: Any, attacker: int, budget: int) -> tuple[int, Any, bool]:
        """The attacker's move at ``position`` with the fewest plies to the win known."""
        for attempt in range(2):
            best: tuple[int, int, Any, bool] | None = None
            for action, child, four in self.search.children(position):
                if four:
                    return action, child, True
                entry = self.search.entry(child, self.table)
                if entry is not None and entry[0] == 0 and (best is None or entry[2] < best[0]):
                    best = (entry[2], action, child, False)
            if best is not None:
                return best[1], best[2], best[3]
            if attempt == 0:  # the entries were replaced: prove this position again
                self.search.run(position, attacker, self.table, self.stats, budget)
        raise DfpnError(f"{self.search.position_text(position)}: cannot rebuild the proof here")

    def drawing_strategy(self, root: Any, defender: int, budget: int) -> Iterator[dict[str, Any]]:
        """The ``defender``'s non-losing strategy from ``root`` on (the table must hold the
        disproof of the other side's win): a closed set of the defender's positions, each
        with a move to a position the attacker does not win from; every attacker reply
        leads back into the set. Every position kept is not a win for the attacker, so a
        move back to a kept position keeps the set closed (repetition then draws)."""
        attacker = 1 - defender
        kept: set[tuple[int, int]] = set()
        stack = [root]
        while stack:
            position = stack.pop()
            key = self.search.key(position)
            if key in kept:
                continue
            kept.add(key)
            if self.search.to_move(position) == attacker:
                for _, reply, four in self.search.children(position):
                    if four:
                        raise DfpnError(f"{self.search.position_text(position)}: not a draw")
                    stack.append(reply)
                continue
            action, child, four = self._holding_move(position, attacker, kept, budget)
            yield {
                "position": self.search.position_text(position),
                "value": "draw",
                "move": self.search.action_text(action),
            }
            if not four:
                stack.append(child)

    def _holding_move(
        self, position: Any, attacker: int, kept: set[tuple[int, int]], budget: int
    ) -> tuple[int, Any, bool]:
        """A defender's move at ``position`` after which ``attacker`` does not win: a four,
        else a move back into the kept set, else one to a disproven entry, else the first
        whose search from there (as a root, so that its disproof rests on no path above)
        disproves the attacker's win."""
        children = self.search.children(position)
        for action, child, four in children:
            if four:
                return action, child, True
        for action, child, _ in children:
            if self.search.key(child) in kept:
                return action, child, False
        entries = [
            (action, child, self.search.entry(child, self.table)) for action, child, _ in children
        ]
        for action, child, entry in entries:
            if entry is not None and entry[1] == 0:
                return action, child, False
        for action, child, entry in entries:
            if entry is not None and entry[0] == 0:
                continue  # a proven win for the attacker
            _, dn, _, dep = self.search.run(child, attacker, self.table, self.stats, budget)
            if dn == 0 and dep >= FREE:
                return action, child, False
        raise DfpnError(f"{self.search.position_text(position)}: cannot rebuild the draw here")


def write_proof(solver: Solver, path: Path) -> int:
    """Write the solver's proof as JSON lines; return the number of positions."""
    return write_lines(solver.proof_lines(), path)


def write_lines(lines: Iterable[dict[str, Any]], path: Path) -> int:
    """Write a proof (the claim, then positions) as JSON lines, to a temporary file renamed
    at the end; return the number of positions."""
    temporary = path.with_name(f".{path.name}.tmp")
    count = 0
    try:
        with temporary.open("w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line) + "\n")
                count += 1
        os.replace(temporary, path)
    except OSError as exc:
        raise DfpnError(f"cannot write the proof to {path}: {exc.strerror}") from None
    return count - 1
