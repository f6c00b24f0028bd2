"""Rule options side by side: every combination of the values a designer wants to compare.

``compare(game_name, {}, {"laps": ["1", "2"]}, ...)`` makes the game with each combination
of the varied options (the other options as given, else their defaults) and answers, for
each, with the **solved value** where the game with those options is solved here
(:mod:`flipgames.solvers.catalog`: exact, from the start, for the first player) and with a
**self-play simulation** (:func:`flipgames.lab.simulate.simulate`) otherwise. Both give a
first-player score in [0, 1] (a draw counts half), so the variants line up in one table and
one chart whatever answered them. (FlipFlop 3x3, solved: the first player wins.)

>>> variants = compare("flipflop-3x3", {}, {}, ("random", "random"), games=4, seed=1)
>>> [(v.method, v.first_player_score()) for v in variants]
[('solved', 1.0)]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flipgames.core.errors import FlipgamesError, OptionError, quote
from flipgames.core.game import Game
from flipgames.core.options import OptionValue
from flipgames.core.progress import Progress, silent
from flipgames.core.registry import game_class, make
from flipgames.lab.simulate import SimulationResult, check_agents, simulate
from flipgames.solvers import catalog

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: More combinations than this is a typo more often than a plan (and hours of play).
MAX_VARIANTS = 64


def parse_vary(game_name: str, pairs: list[str], fixed: dict[str, str]) -> dict[str, list[str]]:
    """``["name=a,b", ...]`` as option name -> values, each checked against the game's
    options (one-line errors naming what is allowed).

    >>> parse_vary("checkered-flag", ["laps=1,2"], {})
    {'laps': ['1', '2']}
    >>> parse_vary("checkered-flag", ["gears=1,2"], {})
    Traceback (most recent call last):
    ...
    flipgames.core.errors.OptionError: --vary 'gears=1,2': unknown option 'gears'; \
checkered-flag's options are start, laps, track, spinners
    """
    spec = {option.name: option for option in game_class(game_name).option_spec}
    vary: dict[str, list[str]] = {}
    for pair in pairs:
        name, sep, values = pair.partition("=")
        name = name.strip()
        listed = [v.strip() for v in values.split(",")]
        if not sep or not name or not all(listed):
            raise OptionError(f"--vary {quote(pair)}: write name=value,value, e.g. laps=1,2")
        if name not in spec:
            known = ", ".join(spec) or "none"
            raise OptionError(
                f"--vary {quote(pair)}: unknown option {quote(name)}; {game_name}'s options "
                f"are {known}"
            )
        if name in vary or name in fixed:
            raise OptionError(f"--vary {quote(pair)}: option {quote(name)} is given twice")
        for value in listed:
            try:
                spec[name].parse(value)
            except OptionError as exc:
                raise OptionError(f"--vary {quote(pair)}: {exc}") from None
        if len(set(listed)) != len(listed):
            raise OptionError(f"--vary {quote(pair)}: a value is listed twice")
        vary[name] = listed
    return vary


@dataclass
class Variant:
    """One combination of options and what answered for it."""

    options: dict[str, OptionValue]
    #: The varied options only (what the table's first columns show).
    varied: dict[str, OptionValue]
    method: str
    #: Solved: the first player's exact expected return and its outcome probabilities.
    expected: float | None = None
    win: float | None = None
    draw: float | None = None
    loss: float | None = None
    simulation: SimulationResult | None = None

    def first_player_score(self) -> float:
        """The first player's score in [0, 1]: exact where solved, else the simulation's."""
        if self.simulation is not None:
            return self.simulation.first_player_score()
        assert self.expected is not None
        return (self.expected + 1) / 2

    def to_json(self) -> dict[str, object]:
        solved = None
        if self.method == "solved":
            solved = {
                "expected": self.expected,
                "win": self.win,
                "draw": self.draw,
                "loss": self.loss,
            }
        return {
            "options": dict(self.options),
            "varied": dict(self.varied),
            "method": self.method,
            "first_player_score": self.first_player_score(),
            "solved": solved,
            "simulation": None if self.simulation is None else self.simulation.to_json(),
        }


def compare(
    game_name: str,
    fixed: dict[str, str],
    vary: dict[str, list[str]],
    agents: tuple[str, str],
    games: int,
    seed: int,
    *,
    workers: int = 1,
    ray: str | None = None,
    progress: Progress = silent,
) -> list[Variant]:
    """Answer every combination of ``vary`` (module docstring), in the order listed."""
    names = list(vary)
    combinations = list(itertools.product(*(vary[name] for name in names)))
    if len(combinations) > MAX_VARIANTS:
        raise FlipgamesError(
            f"--vary gives {len(combinations)} combinations; at most {MAX_VARIANTS} at once"
        )
    built = [make(game_name, {**fixed, **dict(zip(names, c, strict=True))}) for c in combinations]
    simulated = [game for game in built if not catalog.is_solved(game)]
    if simulated:
        # Check the levels before anything is played, on a variant that will be simulated.
        check_agents(simulated[0], agents)
    # One connection to Ray for all the simulated variants, not a new local Ray for each.
    connected = False
    if ray is not None and simulated:
        from flipgames.lab import cluster

        connected = cluster.connect(ray)
    try:
        return _answer(built, names, agents, games, seed, workers, ray, progress)
    finally:
        if connected:
            cluster.shutdown()


def _answer(
    built: list[Game],
    names: list[str],
    agents: tuple[str, str],
    games: int,
    seed: int,
    workers: int,
    ray: str | None,
    progress: Progress,
) -> list[Variant]:
    variants = []
    for game in built:
        varied = {name: game.options[name] for name in names}
        if catalog.is_solved(game):
            value = catalog.solution(game, progress).value(game.new_initial_state(), 0)
            variants.append(
                Variant(
                    dict(game.options),
                    varied,
                    "solved",
                    expected=float(value.expected),
                    win=float(value.win),
                    draw=float(value.draw),
                    loss=float(value.loss),
                )
            )
        else:
            result = simulate(
                game, agents, games, seed, workers=workers, ray=ray, progress=progress
            )
            variants.append(Variant(dict(game.options), varied, "simulated", simulation=result))
            if result.interrupted:
                raise KeyboardInterrupt
    return variants


def table(variants: list[Variant]) -> list[list[str]]:
    """The comparison as rows of text: a header, then one row per variant."""
    names = list(variants[0].varied) if variants else []
    header = [*names, "method", "first-player score", "draws", "mean length"]
    rows = [header]
    for v in variants:
        cells = [str(v.varied[name]) for name in names]
        if v.simulation is not None:
            t = v.simulation.tally
            to_json = v.simulation.to_json()
            ci = to_json["first_player_advantage_ci"]
            assert isinstance(ci, list)
            cells += [
                f"self-play {v.simulation.agents[0]},{v.simulation.agents[1]} x{t.games}",
                f"{v.first_player_score():.3f} (95% CI {ci[0] + 0.5:.3f}-{ci[1] + 0.5:.3f})",
                f"{100 * t.draws / t.games:.1f}%",
                f"{t.length_mean():.1f} moves",
            ]
        else:
            assert v.draw is not None and v.expected is not None
            outcome = "win" if v.win == 1 else "loss" if v.loss == 1 else "draw"
            exact = outcome if max(v.win or 0, v.draw, v.loss or 0) == 1 else "mixed"
            cells += [
                "solved (exact)",
                f"{v.first_player_score():.3f} ({exact} for the first player)",
                f"{100 * v.draw:.1f}% (perfect play)",
                "-",
            ]
        rows.append(cells)
    return rows


def markdown(game_name: str, variants: list[Variant]) -> str:
    """The comparison's report text: the table, how to read it, the chart."""
    rows = table(variants)
    lines = [
        f"# {game_name}: options compared",
        "",
        "| " + " | ".join(rows[0]) + " |",
        "|" + "---|" * len(rows[0]),
        *("| " + " | ".join(row) + " |" for row in rows[1:]),
        "",
        "The first-player score counts a win 1 and a draw 1/2. Solved variants show the "
        "exact value under perfect play from the start; the others the self-play result "
        "with its 95% Wilson interval (seats alternating, so neither agent's strength "
        "favours a seat).",
        "",
        "![First-player score by variant](comparison.png)",
        "",
    ]
    return "\n".join(lines)


def figures(game_name: str, variants: list[Variant]) -> dict[str, Figure]:
    """The option comparison chart: each variant's first-player score with its interval."""
    from flipgames.lab.report import rates_chart

    labels, scores, intervals = [], [], []
    for v in variants:
        label = ", ".join(f"{k}={val}" for k, val in v.varied.items()) or "default"
        labels.append(f"{label} ({'solved' if v.simulation is None else 'self-play'})")
        score = v.first_player_score()
        scores.append(score)
        if v.simulation is None:
            intervals.append((score, score))
        else:
            ci = v.simulation.to_json()["first_player_advantage_ci"]
            assert isinstance(ci, list)
            intervals.append((ci[0] + 0.5, ci[1] + 0.5))
    return {
        "comparison": rates_chart(
            labels,
            scores,
            intervals,
            f"{game_name}: first-player score by variant",
            "first-player score (a draw half a win; bars: 95% Wilson interval)",
        )
    }
