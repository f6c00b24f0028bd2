"""Ground truth from the df-pn prover (FlipFour, FlipFlop 5x5): every action of a state valued
by proofs, within a node budget.

:class:`DfpnOracle` answers a state of a game whose ``proof_search()`` the prover drives
(:mod:`flipgames.solvers.dfpn`) when it can value every legal action exactly for the player to
move: after an action that ends the game, by the rules' result; otherwise by the child's
position searched as a root, both questions asked in alternation with doubling node budgets
(each question in its own table, kept across the states of a batch: a resolved entry is a
fact whatever the root, an open one only a guess that speeds the next search):

* +1: the mover forces a win from the child (proven);
* -1: the side to move there forces a win (proven);
* 0: both "does X force a win" questions disproven (a draw; df-pn closes draws only where
  every line ends in a repetition or an endgame table's draw, so these are rare).

A state is answered only when every action is valued within ``max_nodes`` nodes in all, so
its value and best actions are exact; otherwise it is unanswered (None). Values have no
remoteness (a proof's plies are only a bound).

**Repetition.** The prover searches a position with no history, while the third occurrence
of a position draws. A proof never repeats a position on its lines, so it holds in the game
as long as no position before it has occurred twice; a disproof holds whatever the history
(an earlier repetition can only draw sooner). So a state is taken only when its game so far
repeats no position (:meth:`DfpnOracle.cannot_answer` names one that does): a child then
meets each earlier position at most once more.

>>> from flipgames import make
>>> game = make("flipfour")
>>> state = game.from_position("R1RB1/2r1b/2b2/1B3/2b2 b 00")  # from a random game's end
>>> answer = DfpnOracle(game, table_bytes=1 << 20).answer(state)
>>> float(answer.value), [state.action_to_string(a) for a in answer.best], len(answer.legal)
(1.0, ['e4-c2'], 16)
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import Any

import numpy as np

from flipgames.core.game import Game, State
from flipgames.kernels.dfpn import STATS
from flipgames.solvers import dfpn
from flipgames.solvers.ground_truth import MAX_NODES, Answer, GroundTruthError, _certain

#: Bytes of each question's table (two tables: "White wins?" and "Black wins?"); a full
#: table replaces its cheapest entries, which only costs speed.
TABLE_BYTES = 1 << 24
#: Nodes of a child's first search per question; each round doubles it.
FIRST_BUDGET = 1_000

__all__ = ["TABLE_BYTES", "DfpnOracle"]


class DfpnOracle:
    """Answers by the df-pn prover, state by state (see the module docstring)."""

    solver = "dfpn"
    exhaustive = False

    def __init__(
        self, game: Game, max_nodes: int = MAX_NODES, table_bytes: int = TABLE_BYTES
    ) -> None:
        search = dfpn.proof_search(game)
        if search is None:
            raise GroundTruthError(
                f"{game.name} ({game.title}) is proved by df-pn search, but its compiled "
                "prover is off here (FLIPGAMES_KERNEL=python)"
            )
        self.game = game
        self.max_nodes = max_nodes
        self._search = search
        entries = dfpn.table_entries(table_bytes, search.entry_bytes)
        # Indexed by attacker: a table's numbers are about one side's win.
        self._tables = [search.new_table(entries) for _ in range(game.num_players)]
        self._stats = [np.zeros(STATS, dtype=np.int64) for _ in range(game.num_players)]

    def key(self, state: State) -> Hashable:
        return self._search.key(self._position(state))

    def cannot_answer(self, state: State) -> str | None:
        """Why the prover's values would not hold for ``state`` (a position its game so far
        has already met), or None."""
        seen: set[Hashable] = set()
        node: State | None = state
        while node is not None:
            key = node.key()
            if key in seen:
                return (
                    f"its game so far repeats the position {node.position()} (the prover values "
                    "positions reached without a repetition)"
                )
            seen.add(key)
            node = node.parent
        return None

    def answer(self, state: State) -> Answer | None:
        if state.is_terminal():
            result = state.returns()[0]
            return Answer(0, Fraction(result), *_certain(result), 0)
        if self.cannot_answer(state) is not None:
            return None
        mover = state.current_player
        budget = self.max_nodes
        values: dict[int, int] = {}
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                values[action] = child.returns()[mover]
                continue
            found, budget = self._value(child, mover, budget)
            if found is None:
                return None
            values[action] = found
        best = max(values.values())
        return Answer(
            mover,
            Fraction(best),
            *_certain(best),
            None,
            state.legal_actions(),
            {a: Fraction(v) for a, v in sorted(values.items())},
            tuple(sorted(a for a, v in values.items() if v == best)),
        )

    def _position(self, state: State) -> Any:
        key = state.key()
        assert isinstance(key, int)
        return self._search.root(key)

    def _value(self, child: State, mover: int, budget: int) -> tuple[int | None, int]:
        """``child``'s value for ``mover`` (None: not resolved) and the budget left.

        Both questions are asked in turn with doubling budgets, since either may be the quick
        one: a proof of one side's win answers at once, and a draw needs both disproven.
        """
        position = self._position(child)
        attackers = [child.current_player, 1 - child.current_player]
        step = FIRST_BUDGET
        while budget > 0:
            for attacker in list(attackers):
                pn, dn, dep, spent = self._run(position, attacker, min(step, budget))
                budget -= spent
                if pn == 0:
                    return (1 if attacker == mover else -1), budget
                if dn == 0 and dep >= dfpn.FREE:
                    attackers.remove(attacker)
                elif dn == 0:
                    return None, budget  # the depth limit: no answer
                if budget <= 0:
                    break
            if not attackers:
                return 0, budget
            step *= 2
        return None, budget

    def _run(self, position: Any, attacker: int, budget: int) -> tuple[int, int, int, int]:
        """One search of "``attacker`` wins": (pn, dn, dep, nodes spent)."""
        stats = self._stats[attacker]
        before = int(stats[0])
        pn, dn, _, dep = self._search.run(position, attacker, self._tables[attacker], stats, budget)
        return pn, dn, dep, int(stats[0]) - before
