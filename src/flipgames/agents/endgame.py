"""``hard`` with endgame tables: perfect play once few pieces are left (FlipFlop 5x5).

:class:`EndgameAgent` wraps a game's compiled alpha-beta
(:class:`~flipgames.agents.kernel_search.KernelAlphaBetaAgent`). In a position its endgame
tables cover (:mod:`flipgames.solvers.endgame`; FlipFlop 5x5: at most 4 pieces) it values
every legal action exactly, from the table value of the position the action leads to:

- won: an action to a position lost for the opponent with the smallest distance (the
  quickest win; ties broken by the agent's generator);
- drawn: only the actions that keep the draw, the heuristic search choosing among them;
- lost: an action with the largest distance (the longest resistance; ties by the generator).

The history counts too: an action that repeats a position for the third time ends the game
in a draw, which the values above see (it is a drawing action, and the best a lost side can
hope for).

One piece more than the tables hold (5 on FlipFlop 5x5), a capture leads into them, so its
value is known: a capture into a won ending is played (the quickest of those; it wins for
certain, if maybe not by the quickest way of all), and captures into lost endings are kept
from the search as long as any other action remains.
Elsewhere, and among what is left, the search plays, and it probes the tables at its nodes
(:meth:`~flipgames.agents.kernel_search.KernelAlphaBetaAgent.probe`): every line that reaches
them within its horizon is scored exactly, so it steers into won endings and away from lost
ones. (Choosing among drawing actions in a covered position, it searches without them: every
child would be a table draw, and the heuristic is there to pick the draw that gives the
opponent the most chances to go wrong.)

The tables are loaded from the disk cache at the agent's first move once they are built (a
few hundredths of a second, once per process), but never built inside a move: a build takes
seconds of CPU (``flipgames warmup`` builds them, and ``flipgames serve`` runs it in the
background at start). Until they exist the agent plays the wrapped search everywhere, without
probes.

>>> import random
>>> from flipgames import make
>>> game = make("flipflop")
>>> search = KernelAlphaBetaAgent(random.Random(1), game, max_nodes=5_000)
>>> agent = EndgameAgent(random.Random(1), game, search, max_pieces=3)
>>> from flipgames.solvers.endgame import endgame_table
>>> endgame_table(game, 3) is not None  # built (or loaded) before play, as warmup does
True
>>> state = game.state_at(1 << 2, 1 << 7, 0, 1)  # Black's rook on c2 captures on c1 and wins
>>> state.action_to_string(agent.choose(state)), agent.last.value
('c2xc1', EndgameValue(value=1, distance=1))
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flipgames.agents.base import Agent
from flipgames.agents.budget import timing
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.endgame import EndgameTable, EndgameValue
from flipgames.core.errors import FlipgamesError
from flipgames.solvers.endgame import endgame_kernel, ready_endgame_table

if TYPE_CHECKING:
    from flipgames.core.game import Game, State


class NoEndgameTableError(FlipgamesError, ValueError):
    """Endgame tables asked of a game without them (or with the kernels switched off)."""


@dataclass
class EndgameReport:
    """The last move's table use: the position's value (None: not in the tables) and the
    value for the mover of each legal action the tables answer for (every one in a covered
    position; the captures into the tables with one piece more; none elsewhere)."""

    value: EndgameValue | None = None
    actions: dict[int, EndgameValue] = field(default_factory=dict)


def has_endgame_tables(game: Game) -> bool:
    """Whether ``game`` has endgame tables (and kernels are on)."""
    return endgame_kernel(game) is not None


def endgame_note(game: Game) -> str:
    """What a level description adds for a game with endgame tables (else nothing)."""
    kernel = endgame_kernel(game)
    if kernel is None:
        return ""
    return (
        f"; perfect play from endgame tables once at most {kernel.endgame_pieces} pieces "
        "are left (the quickest win, the longest resistance), and with one piece more, "
        "captures into them valued exactly"
    )


def known_values(table: EndgameTable, state: State) -> dict[int, EndgameValue]:
    """The exact value for the mover of each legal action of ``state`` that ends the game on
    the spot (counted as it ends, a third repetition included) or leads to a position the
    tables cover; the other actions are left out."""
    mover = state.current_player
    values = {}
    for action in state.legal_actions():
        child = state.apply(action)
        if child.is_terminal():
            result = child.returns()[mover]
            values[action] = EndgameValue(int(result), 1 if result else None)
            continue
        reply = table.value(child)
        if reply is not None:
            distance = None if reply.distance is None else reply.distance + 1
            values[action] = EndgameValue(-reply.value, distance)
    return values


def action_values(table: EndgameTable, state: State) -> dict[int, EndgameValue]:
    """Every legal action's exact value for the mover of a covered ``state``, from the
    positions the actions lead to (a game ending on the spot counted as it ends)."""
    values = known_values(table, state)
    # Captures only take pieces away: every child of a covered position is covered.
    assert len(values) == len(state.legal_actions())
    return values


def best_actions(values: dict[int, EndgameValue]) -> list[int]:
    """The actions of the best value: the quickest win, any draw, the slowest loss."""
    best = max(value.value for value in values.values())
    keep = [action for action, value in values.items() if value.value == best]
    if best == 0:
        return keep
    distances = {action: values[action].distance or 0 for action in keep}
    target = min(distances.values()) if best > 0 else max(distances.values())
    return [action for action in keep if distances[action] == target]


class EndgameAgent(Agent):
    """Table play where the tables cover the position, else the wrapped search; see the
    module docstring."""

    name = "alphabeta-endgame"

    def __init__(
        self,
        rng: random.Random,
        game: Game,
        search: KernelAlphaBetaAgent,
        max_pieces: int | None = None,
        probes: bool = True,
    ) -> None:
        super().__init__(rng)
        kernel = endgame_kernel(game)
        if kernel is None:
            raise NoEndgameTableError(f"{game.name} has no endgame tables (or kernels are off)")
        self.game = game
        self.kernel = kernel
        self.search = search
        self.max_pieces = kernel.endgame_pieces if max_pieces is None else max_pieces
        #: Whether the search probes the tables at its nodes (off: only the agent reads
        #: them, as *hard* did before; for comparisons).
        self.probes = probes
        self.last = EndgameReport()

    def table(self) -> EndgameTable | None:
        """The tables where they are built (loaded on first use), else None."""
        return ready_endgame_table(self.game, self.max_pieces)

    def choose(self, state: State) -> int:
        # The table work and the search are one move of the search's clock.
        with timing(self.search.clock):
            return self._choose(state)

    def _choose(self, state: State) -> int:
        self.last = EndgameReport()
        table = self.table()
        self.search.probe(table if self.probes else None)
        if table is None or not self.kernel.covers(state, self.max_pieces + 1):
            return self.search.choose(state)
        if not self.kernel.covers(state, self.max_pieces):
            return self._one_capture_away(table, state)
        values = action_values(table, state)
        self.last = EndgameReport(table.value(state), values)
        best = best_actions(values)
        if len(best) == 1:
            return best[0]
        if max(values[action].value for action in best) == 0:
            self.search.probe(None)  # every child a table draw: let the heuristic choose
            return self.search.search(state, only=best).action
        return self.rng.choice(best)

    def _one_capture_away(self, table: EndgameTable, state: State) -> int:
        """One piece too many for the tables: a capture leads into them, so its value is
        known. A capture into a won ending wins (the quickest is taken); captures into lost
        endings are left out of the search while anything else remains."""
        values = known_values(table, state)
        self.last = EndgameReport(None, values)
        wins = {action: value for action, value in values.items() if value.value > 0}
        if wins:
            return self.rng.choice(best_actions(wins))
        losing = {action for action, value in values.items() if value.value < 0}
        keep = [action for action in state.legal_actions() if action not in losing]
        if losing and keep:
            return self.search.search(state, only=keep).action
        return self.search.choose(state)
