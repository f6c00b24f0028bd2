"""Candidate fixes of an audit: a rule option solved and compared with the standard rules
(its value, how long perfect play lasts and how often it is decided), with a verdict."""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from flipgames.core.game import Game, sample_chance
from flipgames.core.progress import Progress, silent
from flipgames.lab.audit_findings import Finding, optimal_line, percent, value_details
from flipgames.solvers import catalog


def fix_row(
    game: Game, hole: str, fix: Mapping[str, object], progress: Progress = silent
) -> Finding:
    """Solve ``game`` with the options ``fix``: value, perfect-play game length (mean over
    seeded games where the solver picks the moves) and a recommendation."""
    variant = type(game)({**game.options, **fix})
    label = " ".join(f"{k}={v}" for k, v in fix.items())
    progress(f"audit: solving the candidate fix {label}")
    solution = catalog.solve(variant, progress)
    value = solution.value(variant.new_initial_state(), 0)
    length, decided = perfect_play_length(
        variant, solution, games=200, seed=1, progress=progress, what=f"perfect play with {label}"
    )
    base_length, base_decided = perfect_play_length(
        game,
        catalog.solve(game, progress),
        games=200,
        seed=1,
        progress=progress,
        what="perfect play under the standard rules",
    )
    advice = recommendation(value.expected, decided, base_decided, variant.player_names)
    details = value_details(value.expected, value.win, value.draw, value.loss)
    details.update(
        {
            "hole": hole,
            "fix": dict(fix),
            "mean_length": round(length, 2),
            "decided": round(decided, 4),
            "standard_mean_length": round(base_length, 2),
            "standard_decided": round(base_decided, 4),
            "recommendation": advice,
        }
    )
    return Finding(
        "candidate-fix",
        f"Fix for {hole} with {label}: first player wins {percent(value.win)}, draws "
        f"{percent(value.draw)}, loses {percent(value.loss)} (advantage "
        f"{float(value.expected):+.4f}); perfect play lasts {length:.1f} plies on average and "
        f"is decided in {decided * 100:.1f}% of games (standard rules: {base_length:.1f} plies, "
        f"{base_decided * 100:.1f}%); {advice}.",
        optimal_line(variant, solution),
        details,
    )


def recommendation(
    advantage: Fraction, decided: float, base_decided: float, names: tuple[str, ...]
) -> str:
    """A one-line verdict on a fix: it must make perfect play decide more rounds than the
    standard rules, most of them, without handing either player an edge of 1/4 or more.

    >>> names = ("player 1", "player 2")
    >>> recommendation(Fraction(-1, 2), 0.94, 0.0, names)
    'closes the hole but hands player 2 a large edge'
    >>> recommendation(Fraction(1, 10), 0.3, 0.0, names)
    'partial: perfect play still draws most rounds'
    >>> recommendation(Fraction(1, 10), 0.8, 0.0, names)
    'recommended'
    """
    if decided <= base_decided:
        return "not recommended: perfect play is no more decisive"
    if abs(advantage) >= Fraction(1, 4):
        return f"closes the hole but hands {names[0 if advantage > 0 else 1]} a large edge"
    if decided < 0.5:
        return "partial: perfect play still draws most rounds"
    return "recommended"


def perfect_play_length(
    game: Game,
    solution: Any,
    *,
    games: int,
    seed: int,
    progress: Progress = silent,
    what: str = "perfect play",
) -> tuple[float, float]:
    """Mean plies and share of decided games when both players take a best move (drawn at
    random among the best, seeded) and chance is drawn with its probabilities. ``progress``
    hears of each game played (``what`` names them: on Flip Switch 200 games take about 12 s)."""
    rng = random.Random(seed)
    plies = 0
    decided = 0
    for number in range(games):
        progress(f"audit: {what}", done=number, total=games)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                action = sample_chance(state, rng)
            else:
                action = rng.choice(solution.best_actions(state))
            state = state.apply(action)
            plies += 1
        decided += state.returns()[0] != 0
    progress(f"audit: {what}", done=games, total=games)
    return plies / games, decided / games
