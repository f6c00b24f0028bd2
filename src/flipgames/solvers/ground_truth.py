"""Ground truth as arrays: exact values and best actions for a batch of states.

:func:`ground_truth` asks the exact solver that answers a game about every state of a list
and returns numpy arrays indexed like the list (:class:`GroundTruth`): the value for the
player to move (the exact expected return; +1 / 0 / -1 in a deterministic game), the win,
draw and loss probabilities, the remoteness where the solver knows it, and per action id the
legal mask, the best-action mask and each legal action's value, with the same dense action
ids as ``State.legal_action_mask()`` and the environments' masks.

Which solver answers (:func:`oracle`, from the game's manifest, never from its name):

* ``retrograde``: a deterministic game whose option set its manifest lists as solved
  (FlipFlop 3x3): every reachable position, with remoteness (plies to the end, the winner
  hurrying, the loser delaying; -1 for a draw);
* ``stochastic``: a chance game listed as solved (a Flip Switch round, Checkered Flag): exact
  expected values and the canonical strategies' probabilities; no remoteness (-1);
* ``stochastic, rounds added``: a match of independent rounds whose single round is solved
  (Flip Switch with ``rounds`` > 1, through the manifest's ``rounds`` splitter,
  :mod:`flipgames.core.match`): the rounds' values added (:class:`MatchOracle`);
* ``alphabeta``: a game proved by search (Rubik's Flip): the kernel's exact search per state
  within a node budget (the start from the cached proof when ``flipgames solve`` made one);
  values +1 / 0 / -1, no remoteness. A state the search does not finish is refused;
* ``dfpn``: a game the df-pn prover takes (FlipFour, FlipFlop 5x5): every action's child
  proven a win for one side (or disproven both ways: a draw) within a node budget
  (:mod:`flipgames.solvers.ground_truth_dfpn`); values +1 / 0 / -1, no remoteness. A state
  the prover does not finish, or whose game so far repeats a position, is refused.

Every other game is refused by name with the reason (:class:`GroundTruthError`), and so is a
state the solver does not hold or that belongs to another game; nothing is computed then.

Values are for the player to move (``player``), and for player 0 at chance nodes and finished
positions, where nobody is to move (their best-action masks and action values are empty).

>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> start = game.new_initial_state()
>>> truth = ground_truth(game, [start, start.apply(start.parse_action("b1-b2"))])
>>> truth.value.tolist(), truth.remoteness.tolist(), truth.solver
([1.0, 1.0], [15, 13], 'retrograde')
>>> [start.action_to_string(a) for a in truth.best[0].nonzero()[0]]
['b1xb3']
>>> try:
...     ground_truth(make("flip-switch", must_flip="yes"), [])
... except GroundTruthError as error:
...     print(str(error)[:60])
flip-switch's single round: flip-switch (Flip Switch) with l
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

import numpy as np
import numpy.typing as npt

from flipgames.core.game import Game, State
from flipgames.core.manifest import has_manifest, is_listed_solved, manifest_of
from flipgames.core.match import MatchPosition, splitter
from flipgames.core.progress import Progress, silent
from flipgames.solvers.solution import Solution, SolverError

#: Nodes the exact search may spend on one state (all its actions together): about a second
#: of CPU, as the perfect player's budget (agents/proof.py).
MAX_NODES = 1_500_000
#: The search's transposition table, kept across the states of a batch (entries are facts
#: about positions, true whatever the path).
TABLE_BYTES = 32 << 20

__all__ = ["MAX_NODES", "Answer", "GroundTruth", "GroundTruthError", "ground_truth", "oracle"]


class GroundTruthError(SolverError):
    """A game or a state that no exact solver here answers (the message says why)."""


@dataclass(frozen=True)
class Answer:
    """One state's ground truth (exact), for :attr:`player`."""

    player: int
    value: Fraction
    win: Fraction
    draw: Fraction
    loss: Fraction
    #: Plies to the end under perfect play where the solver knows it, else None.
    remoteness: int | None
    #: ``State.legal_actions()``: the player's actions, or the outcomes at a chance node.
    legal: tuple[int, ...] = ()
    #: Per legal action of the player to move, its value for them (empty: nobody to move).
    action_values: dict[int, Fraction] = field(default_factory=dict)
    #: The solver's best actions (ascending).
    best: tuple[int, ...] = ()


class Oracle(Protocol):
    """What answers one game's states: a solution or a search (see the module docstring)."""

    game: Game
    #: ``retrograde``, ``stochastic``, ``alphabeta`` or ``dfpn``.
    solver: str
    #: True when :meth:`key` numbers every position the solver holds (a whole solution),
    #: False when positions are answered one by one (a search).
    exhaustive: bool

    def key(self, state: State) -> Hashable:
        """The solver's identity of ``state``'s position (symmetric images share one)."""
        ...

    def answer(self, state: State) -> Answer | None:
        """``state``'s ground truth, or None when the solver cannot give it (not held, the
        search ran out of its budget, or :meth:`cannot_answer`)."""
        ...

    def cannot_answer(self, state: State) -> str | None:
        """Why the solver takes no such state whatever its budget, or None."""
        ...


class SolutionOracle:
    """Answers from a whole :class:`~flipgames.solvers.solution.Solution`."""

    exhaustive = True

    def __init__(self, solution: Solution, solver: str) -> None:
        self.game = solution.game
        self.solver = solver
        self.solution = solution

    def key(self, state: State) -> Hashable:
        return self.solution.node(state)

    def cannot_answer(self, state: State) -> str | None:
        return None

    def answer(self, state: State) -> Answer | None:
        if not state.is_terminal() and self.solution.node(state) is None:
            return None
        value = self.solution.value(state)
        values: dict[int, Fraction] = {}
        best: tuple[int, ...] = ()
        if state.current_player >= 0:  # a chance node has no actions to value
            scored = self.solution.action_values(state)
            values = {action: v.expected for action, v in scored.items()}
            best = tuple(self.solution.best_actions(state))
        return Answer(
            max(state.current_player, 0),
            value.expected,
            value.win,
            value.draw,
            value.loss,
            value.remoteness,
            state.legal_actions(),
            values,
            best,
        )


class SearchOracle:
    """Answers by the kernel's exact search, state by state, within a node budget."""

    solver = "alphabeta"
    exhaustive = False

    def __init__(self, game: Game, max_nodes: int = MAX_NODES) -> None:
        from flipgames.solvers import alphabeta

        kernel = alphabeta.searchable(game)
        if kernel is None:
            raise GroundTruthError(
                f"{game.name} ({game.title}) is proved by search, but its compiled search is "
                "off here (FLIPGAMES_KERNEL=python or no kernel)"
            )
        self.game = game
        self.max_nodes = max_nodes
        self._kernel = kernel
        self._proof = alphabeta.cached_proof(game)
        self._start = game.new_initial_state().key()
        self._table = np.zeros(alphabeta.table_entries(TABLE_BYTES), dtype=np.int64)

    def key(self, state: State) -> Hashable:
        return self._kernel.canonical(self._kernel.position(state))

    def cannot_answer(self, state: State) -> str | None:
        return None  # no repetition in Rubik's Flip: the searched position is the state

    def answer(self, state: State) -> Answer | None:
        from flipgames.solvers import alphabeta

        if state.is_terminal():
            result = state.returns()[0]
            return Answer(0, Fraction(result), *_certain(result), 0)
        if self._proof is not None and state.key() == self._start:
            values = {state.parse_action(t): v for t, v in self._proof.first_turns.items()}
        else:
            found = alphabeta.exact_action_values(self._kernel, state, self._table, self.max_nodes)
            if found is None:
                return None
            values = found
        best = max(values.values())
        return Answer(
            state.current_player,
            Fraction(best),
            *_certain(best),
            None,
            state.legal_actions(),
            {a: Fraction(v) for a, v in sorted(values.items())},
            tuple(sorted(a for a, v in values.items() if v == best)),
        )


class MatchOracle:
    """Answers a match of independent rounds from its one-round solution, adding the rounds.

    A match position's value for a player is the expected number of rounds they win minus
    the number the opponent wins: the finished rounds' score, plus the current round's value,
    plus each later round's value from its start for its first player (0 for Flip Switch),
    every round played perfectly for itself. Best actions and action values are the round's
    (action values shifted by the same constant, so the best actions do not change). The
    probabilities are of the match result (more rounds won) when every round is played by the
    round solver's canonical strategies, the rounds being independent.
    """

    exhaustive = True

    def __init__(
        self, game: Game, split: Callable[[State], MatchPosition], round_oracle: Oracle
    ) -> None:
        self.game = game
        self.solver = f"{round_oracle.solver}, rounds added"
        self.split = split
        self.round = round_oracle
        first = round_oracle.answer(round_oracle.game.new_initial_state())
        assert first is not None and first.player == 0
        #: A round's start, for its first player.
        self.start = first

    def key(self, state: State) -> Hashable:
        seen = self.split(state)
        inner = None if seen.round_state is None else self.round.key(seen.round_state)
        return seen.score, len(seen.later), seen.swapped, inner

    def cannot_answer(self, state: State) -> str | None:
        inner = self.split(state).round_state
        return None if inner is None else self.round.cannot_answer(inner)

    def answer(self, state: State) -> Answer | None:
        seen = self.split(state)
        if seen.round_state is None:
            return self.compose(seen, state.current_player, None)
        found = self.round.answer(seen.round_state)
        return None if found is None else self.compose(seen, state.current_player, found)

    def compose(self, seen: MatchPosition, mover: int, inner: Answer | None) -> Answer:
        """The match's answer from the round's (``inner``; None once the match is over)."""
        viewer = max(mover, 0)
        sign = 1 if viewer == 0 else -1
        # Distribution of the final score (match player 0's rounds won minus player 1's).
        scores = {seen.score: Fraction(1)}
        if inner is None:
            win, draw, loss = _outcomes(scores, sign)
            return Answer(viewer, Fraction(sign * seen.score), win, draw, loss, 0)
        # The round's player that is the match's player 0.
        first = 1 if seen.swapped else 0
        current = inner.value if inner.player == first else -inner.value
        split = (inner.win, inner.draw, inner.loss)
        scores = _add_round(scores, split if inner.player == first else split[::-1])
        later = Fraction(0)
        start = self.start
        for starter in seen.later:
            later += start.value if starter == 0 else -start.value
            split = (start.win, start.draw, start.loss)
            scores = _add_round(scores, split if starter == 0 else split[::-1])
        offset = sign * (seen.score + later)
        win, draw, loss = _outcomes(scores, sign)
        return Answer(
            viewer,
            sign * (seen.score + later + current),
            win,
            draw,
            loss,
            None,
            inner.legal,
            {action: value + offset for action, value in inner.action_values.items()},
            inner.best,
        )


def _add_round(
    scores: dict[int, Fraction], split: tuple[Fraction, Fraction, Fraction]
) -> dict[int, Fraction]:
    """The score's distribution after one more round won, drawn or lost with ``split``'s
    probabilities (for match player 0)."""
    after: dict[int, Fraction] = {}
    for score, p in scores.items():
        for step, q in zip((1, 0, -1), split, strict=True):
            if q:
                after[score + step] = after.get(score + step, Fraction(0)) + p * q
    return after


def _outcomes(scores: dict[int, Fraction], sign: int) -> tuple[Fraction, Fraction, Fraction]:
    """(win, draw, loss) of the match for match player 0 (``sign`` 1) or player 1 (-1)."""
    ahead = sum((p for s, p in scores.items() if s * sign > 0), Fraction(0))
    behind = sum((p for s, p in scores.items() if s * sign < 0), Fraction(0))
    return ahead, scores.get(0, Fraction(0)), behind


def _certain(result: int) -> tuple[Fraction, Fraction, Fraction]:
    return Fraction(result > 0), Fraction(result == 0), Fraction(result < 0)


def refusal(game: Game) -> str | None:
    """Why no exact solver here answers ``game`` with its options, or None when one does."""
    if is_listed_solved(game):
        return None
    split = splitter(game)
    if split is not None:
        single = split(game.new_initial_state()).round_state
        assert single is not None
        why = refusal(single.game)
        return None if why is None else f"{game.name}'s single round: {why}"
    described = f"{game.name} ({game.title})"
    if not has_manifest(game):
        return f"{described} is not a registered game with a manifest: no solver is known"
    manifest = manifest_of(game)
    # A df-pn prover, compiled or not (DfpnOracle says so when kernels are off).
    if manifest.proved_by_search or hasattr(game, "proof_search"):
        return None
    if not manifest.solved:
        return (
            f"{described} has no exact solution here: no option set of it is solved and no "
            "proof search takes it (docs/solvers.md)"
        )
    chosen = " ".join(f"{k}={v}" for k, v in game.options.items())
    solved = "; ".join(" ".join(f"{k}={v}" for k, v in s.items()) or "any" for s in manifest.solved)
    return (
        f"{described} with {chosen} is not solved here: the solved option sets are {solved} "
        "(docs/solvers.md)"
    )


def oracle(game: Game, progress: Progress = silent, max_nodes: int = MAX_NODES) -> Oracle:
    """The solver that answers ``game`` (see the module docstring), loaded or solved once
    (through the disk cache); :class:`GroundTruthError` naming the game and why when none
    does."""
    why = refusal(game)
    if why is not None:
        raise GroundTruthError(why)
    split = splitter(game)
    if split is not None and not is_listed_solved(game):
        single = split(game.new_initial_state()).round_state
        assert single is not None
        return MatchOracle(game, split, oracle(single.game, progress, max_nodes))
    if not is_listed_solved(game) and manifest_of(game).proved_by_search:
        return SearchOracle(game, max_nodes)
    if not is_listed_solved(game):
        from flipgames.solvers.ground_truth_dfpn import DfpnOracle

        return DfpnOracle(game, max_nodes)
    from flipgames.solvers import catalog

    solver = "retrograde" if game.deterministic else "stochastic"
    return SolutionOracle(catalog.solution(game, progress), solver)


@dataclass(frozen=True)
class GroundTruth:
    """The ground truth of a batch of states, row ``i`` for state ``i`` (module docstring).

    Float values are the exact ones rounded to float64; :attr:`expected` keeps the exact
    fractions.
    """

    game: Game
    solver: str
    #: Whose values: the player to move, or 0 at chance nodes and finished positions.
    player: npt.NDArray[np.int8]
    value: npt.NDArray[np.float64]
    win: npt.NDArray[np.float64]
    draw: npt.NDArray[np.float64]
    loss: npt.NDArray[np.float64]
    #: Plies to the end where the solver knows it, else -1.
    remoteness: npt.NDArray[np.int32]
    #: ``(N, num_distinct_actions)`` int8: ``State.legal_action_mask()``.
    legal: npt.NDArray[np.int8]
    #: ``(N, num_distinct_actions)`` int8: 1 at the solver's best actions.
    best: npt.NDArray[np.int8]
    #: ``(N, num_distinct_actions)`` float32: each legal action's value for the player to
    #: move, NaN elsewhere (and on rows with nobody to move).
    action_value: npt.NDArray[np.float32]
    #: The exact values.
    expected: tuple[Fraction, ...]

    def __len__(self) -> int:
        return len(self.expected)


def _check_state(game: Game, index: int, state: object) -> State:
    if not isinstance(state, State):
        raise GroundTruthError(f"state {index}: expected a flipgames State, got {state!r}")
    if state.game != game:
        raise GroundTruthError(
            f"state {index} is a position of {state.game.name} {dict(state.game.options)}, "
            f"not of {game.name} {dict(game.options)}"
        )
    return state


def answers(found: Oracle, states: Sequence[State], progress: Progress = silent) -> list[Answer]:
    """Every state's :class:`Answer`; :class:`GroundTruthError` naming the first state the
    solver cannot answer (by its index in ``states``)."""
    checked = [_check_state(found.game, i, s) for i, s in enumerate(states)]
    result = []
    for index, state in enumerate(checked):
        why = found.cannot_answer(state)
        if why is not None:
            raise GroundTruthError(f"state {index} of {found.game.name}: {why}")
        answer = found.answer(state)
        if answer is None:
            how = (
                "the solution does not hold this position (not reachable from the start)"
                if found.exhaustive
                else "the exact search did not finish it within its node budget"
            )
            raise GroundTruthError(f"state {index} of {found.game.name}: {how}")
        result.append(answer)
        if (index + 1) % 1_000 == 0:
            progress("ground truth", done=index + 1, total=len(checked))
    return result


def to_arrays(game: Game, solver: str, rows: Sequence[Answer]) -> GroundTruth:
    """The arrays of :class:`GroundTruth` from per-state answers."""
    n, actions = len(rows), game.num_distinct_actions
    legal = np.zeros((n, actions), dtype=np.int8)
    best = np.zeros((n, actions), dtype=np.int8)
    action_value = np.full((n, actions), np.nan, dtype=np.float32)
    for i, row in enumerate(rows):
        legal[i, list(row.legal)] = 1
        ids = list(row.action_values)
        action_value[i, ids] = [float(v) for v in row.action_values.values()]
        best[i, list(row.best)] = 1
    return GroundTruth(
        game=game,
        solver=solver,
        player=np.array([r.player for r in rows], dtype=np.int8),
        value=np.array([float(r.value) for r in rows], dtype=np.float64),
        win=np.array([float(r.win) for r in rows], dtype=np.float64),
        draw=np.array([float(r.draw) for r in rows], dtype=np.float64),
        loss=np.array([float(r.loss) for r in rows], dtype=np.float64),
        remoteness=np.array(
            [-1 if r.remoteness is None else r.remoteness for r in rows], dtype=np.int32
        ),
        legal=legal,
        best=best,
        action_value=action_value,
        expected=tuple(r.value for r in rows),
    )


def ground_truth(
    game: Game,
    states: Sequence[State],
    *,
    progress: Progress = silent,
    max_nodes: int = MAX_NODES,
) -> GroundTruth:
    """The ground truth of every state of ``states`` (positions of ``game``), as arrays
    (see the module docstring); :class:`GroundTruthError`, computing nothing further, for a
    game no solver here answers or a state it cannot answer. ``max_nodes`` bounds the exact
    search (alpha-beta or df-pn) per state where the game is proved by search."""
    found = oracle(game, progress, max_nodes)
    return to_arrays(game, found.solver, answers(found, states, progress))
