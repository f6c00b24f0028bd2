"""Exact evaluation of fixed policies in chance games, and simple named policies.

:func:`evaluate_policy` gives each player's exact win probability when both follow fixed
policies, or when one does and the other plays the best response to it (``None``). It runs
:func:`~flipgames.solvers.stochastic.solve_stochastic` with the fixed player's choices
restricted to the policy's action, so cycles and chance are handled exactly as there.

A policy is any callable from a state to a legal action id. It should depend on the position
only: it is called once per position, on the first path that reaches it.

>>> from flipgames import make
>>> game = make("checkered-flag", track="short", start="first")
>>> result = evaluate_policy(game, GearUpTo(1), GearUpTo(3))
>>> result.players, result.win + result.draw + result.loss
(('always 1st', 'up to 3rd'), Fraction(1, 1))
>>> best = evaluate_policy(game, GearUpTo(1), None)
>>> best.players[1], best.loss >= result.loss
('optimal', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flipgames.core.game import Game, State
from flipgames.core.progress import Progress, silent
from flipgames.solvers.graph import Policy, policy_name
from flipgames.solvers.stochastic import StochasticSolution, solve_stochastic

_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


@dataclass(frozen=True)
class GearUpTo:
    """Always the highest gear allowed up to ``limit``.

    Written against the protocol, not a game package: of the legal actions whose notation is
    a digit, take the largest one ``<= limit``; with none (leaving a Checkered Flag crash
    circle, or any game whose actions are not digits), take the smallest legal action id.

    >>> from flipgames import make
    >>> state = make("checkered-flag", start="first").new_initial_state()
    >>> GearUpTo(3)(state), GearUpTo(3).name, GearUpTo(1).name
    (1, 'up to 3rd', 'always 1st')
    """

    limit: int

    @property
    def name(self) -> str:
        ordinal = _ORDINALS.get(self.limit, f"gear {self.limit}")
        return f"always {ordinal}" if self.limit == 1 else f"up to {ordinal}"

    def __call__(self, state: State) -> int:
        legal = state.legal_actions()
        digits = []
        for action in legal:
            text = state.action_to_string(action)
            if text.isdigit() and int(text) <= self.limit:
                digits.append((int(text), action))
        return max(digits)[1] if digits else legal[0]


#: The fixed policies the docs compare: always 1st, always up to 2nd, always up to 3rd.
GEAR_POLICIES = (GearUpTo(1), GearUpTo(2), GearUpTo(3))


@dataclass(frozen=True)
class PolicyEvaluation:
    """Exact outcome probabilities from the start for one pair of policies."""

    game: Game
    #: Per player, the policy's name, or ``"optimal"`` for the best response.
    players: tuple[str, str]
    #: Player 0 wins.
    win: Fraction
    draw: Fraction
    #: Player 1 wins.
    loss: Fraction
    solution: StochasticSolution


def evaluate_policy(
    game: Game,
    policy0: Policy | None,
    policy1: Policy | None,
    progress: Progress = silent,
) -> PolicyEvaluation:
    """Exact win/draw/loss probabilities (player 0's view) from the start.

    ``None`` for a player means optimal play: the best response to the other's fixed policy
    (both ``None``: the optimal solution itself).
    """
    solution = solve_stochastic(game, progress, policies=(policy0, policy1))
    win, draw, loss = solution.probabilities(game.new_initial_state(), player=0)
    players = tuple("optimal" if p is None else policy_name(p) for p in (policy0, policy1))
    return PolicyEvaluation(game, (players[0], players[1]), win, draw, loss, solution)
