"""The findings of an audit (:mod:`flipgames.lab.audit`) and what every kind of audit shares:
an optimal line from the start, and a solved value in figures."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game

#: The longest optimal line an example shows (it stops earlier at the end or a repetition).
MAX_LINE = 120


class AuditError(FlipgamesError, ValueError):
    """An audit asked of something it cannot do (e.g. exhaustive on an unsolvable game)."""


@dataclass(frozen=True)
class Finding:
    """One thing the audit found, with an example line from the start."""

    kind: str
    summary: str
    example: list[str]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "summary": self.summary, "example": self.example, **self.details}


def percent(x: Fraction) -> str:
    return f"{float(x) * 100:.1f}%"


def value_details(value: Fraction, win: Fraction, draw: Fraction, loss: Fraction) -> dict[str, Any]:
    return {
        "value": str(value),
        "value_float": round(float(value), 6),
        "win": round(float(win), 6),
        "draw": round(float(draw), 6),
        "loss": round(float(loss), 6),
        "first_player_advantage": round(float(value), 6),
    }


def optimal_line(game: Game, solution: Any, limit: int = MAX_LINE) -> list[str]:
    """Optimal play from the start: the solver's first best action for each player, the most
    likely outcome at chance; stops at the end, at a repeated position or after ``limit``."""
    state = game.new_initial_state()
    line: list[str] = []
    seen = {state.key()}
    while not state.is_terminal() and len(line) < limit:
        if state.is_chance_node():
            action = max(state.chance_outcomes(), key=lambda o: o[1])[0]
        else:
            action = solution.best_actions(state)[0]
        line.append(state.action_to_string(action))
        state = state.apply(action)
        if state.key() in seen:
            break
        seen.add(state.key())
    return line
