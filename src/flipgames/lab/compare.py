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
from random import Random
from typing import TYPE_CHECKING

from flipgames.agents.arena import wilson_interval
from flipgames.agents.levels import describe_level
from flipgames.core.errors import FlipgamesError, OptionError, quote
from flipgames.core.game import Game, sample_chance
from flipgames.core.options import OptionValue
from flipgames.core.progress import Progress, silent
from flipgames.core.registry import game_class, make
from flipgames.lab.simulate import SimulationResult, check_agents, simulate
from flipgames.solvers import catalog

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from flipgames.solvers.solution import Solution

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
    #: Solved: the moves perfect play lasts, and how that was found (exact remoteness, or
    #: the mean of seeded perfect-play games where chance makes the length vary).
    length: float | None = None
    length_how: str = ""
    #: Solved, in a comparison with simulated variants: the same agents' games on this
    #: variant, to check them against its exact value (their warnings say where they fail).
    check: SimulationResult | None = None

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
            "perfect_play_length": self.length,
            "perfect_play_length_how": self.length_how or None,
            "simulation": None if self.simulation is None else self.simulation.to_json(),
            "agents_check": None if self.check is None else self.check.to_json(),
            "warnings": self.warnings(),
        }

    def warnings(self) -> list[str]:
        """Where the agents' games contradict this variant's solved value."""
        checked = self.check if self.check is not None else self.simulation
        return [] if checked is None else list(checked.warnings)


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
    # Where solved and simulated variants meet, the agents play the solved ones too: their
    # results there, against the exact value, say how far to trust them on the others.
    mixed = any(not catalog.is_solved(game) for game in built)
    variants = []
    for game in built:
        varied = {name: game.options[name] for name in names}
        if catalog.is_solved(game):
            variant = _solved(game, varied, games, seed, progress)
            if mixed:
                variant.check = simulate(
                    game, agents, games, seed, workers=workers, ray=ray, progress=progress
                )
            variants.append(variant)
        else:
            result = simulate(
                game, agents, games, seed, workers=workers, ray=ray, progress=progress
            )
            variants.append(Variant(dict(game.options), varied, "simulated", simulation=result))
        last = variants[-1].check or variants[-1].simulation
        if last is not None and last.interrupted:
            raise KeyboardInterrupt
    return variants


def _solved(
    game: Game, varied: dict[str, OptionValue], games: int, seed: int, progress: Progress
) -> Variant:
    """A solved variant: its exact value and how long perfect play lasts."""
    solution = catalog.solution(game, progress)
    value = solution.value(game.new_initial_state(), 0)
    if value.remoteness is not None:
        length, how = float(value.remoteness), "exact"
    else:
        length, capped = perfect_play_moves(game, solution, games, seed)
        how = f"mean of {games:,} perfect-play games"
        if capped:
            how += f", {capped:,} stopped at the {game.max_game_length:,}-action cap"
    return Variant(
        dict(game.options),
        varied,
        "solved",
        expected=float(value.expected),
        win=float(value.win),
        draw=float(value.draw),
        loss=float(value.loss),
        length=length,
        length_how=how,
    )


def perfect_play_moves(game: Game, solution: Solution, games: int, seed: int) -> tuple[float, int]:
    """The mean number of moves (chance outcomes are not moves) of ``games`` games in which
    both players take a best move, drawn at random among the best (seeded), and chance is
    drawn with its probabilities; and how many were stopped at the game's length cap.

    >>> from flipgames import make
    >>> game = make("checkered-flag", track="short")
    >>> moves, capped = perfect_play_moves(game, catalog.solution(game), games=4, seed=1)
    >>> (moves, capped) == perfect_play_moves(game, catalog.solution(game), 4, 1), capped
    (True, 0)
    """
    rng = Random(f"{seed}:perfect-play")
    moves = capped = 0
    for _ in range(games):
        state = game.new_initial_state()
        plies = 0
        while not state.is_terminal() and plies < game.max_game_length:
            if state.is_chance_node():
                state = state.apply(sample_chance(state, rng))
            else:
                state = state.apply(rng.choice(solution.best_actions(state)))
                moves += 1
            plies += 1
        capped += not state.is_terminal()
    return moves / games, capped


def table(variants: list[Variant]) -> list[list[str]]:
    """The comparison as rows of text: a header, then one row per variant. Draws by the
    rules and games stopped at the length cap are separate columns."""
    names = list(variants[0].varied) if variants else []
    header = [*names, "method", "first-player score", "draws", "stopped at cap", "mean length"]
    rows = [header]
    for v in variants:
        cells = [str(v.varied[name]) for name in names]
        if v.simulation is not None:
            t = v.simulation.tally
            low, high = _score_interval(v)
            cells += [
                f"self-play {v.simulation.agents[0]},{v.simulation.agents[1]} x{t.games}",
                f"{v.first_player_score():.3f} (95% CI {low:.3f}-{high:.3f})",
                f"{100 * t.natural_draws / t.games:.1f}%",
                f"{100 * t.capped / t.games:.1f}%",
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
                f"{v.length:.1f} moves (perfect play, {v.length_how})",
            ]
        rows.append(cells)
    return rows


def _score_interval(v: Variant) -> tuple[float, float]:
    """The first-player score's 95% interval: the games' where simulated, the exact value
    itself where solved."""
    if v.simulation is None:
        score = v.first_player_score()
        return score, score
    return wilson_interval(v.simulation.first_player_score(), v.simulation.games)


@dataclass(frozen=True)
class Setup:
    """What a comparison ran, for its report: the fixed ``-o`` options, the agents, the seed
    and the games per simulated variant."""

    game: str
    fixed: dict[str, str]
    agents: tuple[str, str]
    seed: int
    games: int

    def title(self) -> str:
        """The game and its fixed options, as every heading of the report names them.

        >>> Setup("flip-switch", {"size": "4", "line": "4"}, ("easy", "easy"), 1, 200).title()
        'flip-switch (size=4, line=4)'
        """
        options = ", ".join(f"{k}={v}" for k, v in self.fixed.items())
        return f"{self.game} ({options})" if options else self.game

    def lines(self) -> list[str]:
        """Markdown list items: the options, the agents in full, the seed and game count."""
        fixed = ", ".join(f"{k}={v}" for k, v in self.fixed.items()) or "none"
        game = make(self.game, self.fixed)
        a, b = self.agents
        return [
            f"- **Fixed options** (`-o`): {fixed}; every other option not varied is at its "
            "default (each variant's full options are in results.json)",
            f"- **Agents** for the variants not solved: A = {a} "
            f"({_describe(game, a)}), B = {b} ({_describe(game, b)}); seats alternate",
            f"- **Seed** {self.seed}; {self.games:,} games per simulated variant",
        ]


def _describe(game: Game, level: str) -> str:
    try:
        return describe_level(game, level)
    except FlipgamesError as exc:  # a level the fixed options lack (perfect, say)
        return str(exc)


def warnings(variants: list[Variant]) -> list[str]:
    """Every variant's warnings, each naming its variant."""
    found = []
    for v in variants:
        label = ", ".join(f"{k}={val}" for k, val in v.varied.items()) or "default"
        found += [f"{label}: {warning}" for warning in v.warnings()]
    return found


def markdown(setup: Setup, variants: list[Variant]) -> str:
    """The comparison's report text: what ran, the table, how to read it, the chart."""
    rows = table(variants)
    flagged = warnings(variants)
    lines = [
        f"# {setup.title()}: options compared",
        "",
        *setup.lines(),
        "",
        "| " + " | ".join(rows[0]) + " |",
        "|" + "---|" * len(rows[0]),
        *("| " + " | ".join(row) + " |" for row in rows[1:]),
        "",
        "The first-player score counts a win 1 and a draw 1/2. Solved variants show the "
        "exact value under perfect play from the start and how many moves perfect play "
        "lasts; the others the self-play result with its 95% Wilson interval (seats "
        "alternating, so neither agent's strength favours a seat). Draws are the rules' "
        "draws; games still running at the length cap are counted apart.",
        "",
    ]
    if flagged:
        lines += [
            "## Warnings: the agents contradict a solved value",
            "",
            "The agents played the solved variants too; where their games contradict the "
            "exact value, their figures on the other variants say how these agents play, "
            "not how the game plays.",
            "",
            *(f"- {warning}" for warning in flagged),
            "",
        ]
    lines += ["![First-player score by variant](comparison.png)", ""]
    return "\n".join(lines)


def figures(setup: Setup, variants: list[Variant]) -> dict[str, Figure]:
    """The option comparison chart: each variant's first-player score with its interval,
    on an axis scaled to the data."""
    from flipgames.lab.report import score_chart

    labels = []
    for v in variants:
        label = ", ".join(f"{k}={val}" for k, val in v.varied.items()) or "default"
        labels.append(f"{label} ({'solved' if v.simulation is None else 'self-play'})")
    return {
        "comparison": score_chart(
            labels,
            [v.first_player_score() for v in variants],
            [_score_interval(v) for v in variants],
            f"{setup.title()}: first-player score by variant",
        )
    }
