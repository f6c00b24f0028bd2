"""Seeded self-play for designers: many games of two levels, seats alternating, measured.

``simulate(game, ("easy", "easy"), games=10_000, seed=1)`` plays game ``i`` (from 0) with
agent A in the first seat when ``i`` is even and in the second when it is odd; the agents'
and the chance generators are seeded from ``(seed, i)`` alone (as in
:func:`flipgames.agents.arena.play_match`), and the games' measurements are added up in a
:class:`~flipgames.lab.stats.Tally`, whose totals do not depend on the order games finish.
So the same seed gives the same games, and the same result, whether the games run in this
process, in ``workers`` local processes or as Ray tasks on a cluster (``ray="auto"`` starts
a local Ray, any other value is the address of a running cluster). Levels with a time
budget (``hard``) choose by the clock and are reproducible only as far as the clock allows;
timing (seconds per move, wall-clock seconds) is never part of the comparison.

What a game measures (see :class:`~flipgames.lab.stats.GameStats`):

* the winner, or a draw; a draw by a third repetition where the rules have repetition draws
  (the final position occurs for the third time, :func:`flipgames.core.game.repetition_count`);
* a game still running after the game's ``max_game_length`` actions is stopped there and
  counted as a capped draw (only games whose length is a cap, not a bound, can get there);
* its length in moves (the players' decisions; chance outcomes are not moves) and the number
  of legal actions at each move (the branching factor by ply);
* lead changes, where the game has an evaluation (``State.evaluate``): the sign of the
  evaluation for the first player before each of the first player's moves (so the side to
  move is the same at every comparison), and the final result; a lead change is a change
  from one side ahead to the other, a level position in between not counting as one;
* Ludii's game metrics (:mod:`flipgames.lab.metrics`): the first player's evaluation before
  every move (drama, stability, uncertainty, decisiveness, state evaluation difference), the
  legal actions (decision moves and factor, game-tree complexity), the squares holding a
  piece (board coverage, piece number) and the squares a move went from and to (move
  distance); with ``metric_set="all"`` also the evaluation after every legal action of
  every move (clarity), which costs a search-free evaluation per legal action;
* the seconds each agent spent choosing.

Ctrl-C (``KeyboardInterrupt``) during a simulation stops it and returns the games finished
so far, with ``interrupted`` set.

>>> from flipgames import make
>>> result = simulate(make("flipflop-3x3"), ("random", "random"), games=6, seed=3)
>>> result.tally.games, sum(result.tally.wins) + result.tally.draws
(6, 6)
>>> result == simulate(make("flipflop-3x3"), ("random", "random"), games=6, seed=3)
True
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from random import Random
from typing import Any

from flipgames.agents.arena import wilson_interval
from flipgames.agents.levels import describe_level, make_level_agent
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State, repetition_count, sample_chance
from flipgames.core.progress import Progress, silent
from flipgames.lab import metrics
from flipgames.lab.stats import DRAW, GameStats, Tally, rate, rate_interval
from flipgames.solvers import catalog

#: ``--metrics``: ``default`` computes every metric but clarity, which evaluates every legal
#: action of every move (``all``).
METRIC_SETS = ("default", "all")

#: At most this many games in one batch of work (a worker's or a Ray task's): small enough
#: that the progress bar moves and Ctrl-C loses little, large enough that shipping a batch
#: costs nothing next to playing it.
MAX_BATCH = 250


class SimulationError(FlipgamesError, ValueError):
    """A simulation asked with arguments that cannot work (the message says which)."""


def has_evaluation(game: Game) -> bool:
    """True when ``game``'s states have an evaluation of their own (``State.evaluate``
    overridden), so lead changes can be measured."""
    return type(game.new_initial_state()).evaluate is not State.evaluate


def _sign(value: float) -> int:
    return (value > 1e-9) - (value < -1e-9)


class _Recorder:
    """What one game records for Ludii's metrics (:mod:`flipgames.lab.metrics`), move by
    move, through the game protocol alone."""

    def __init__(self, game: Game, start: State, *, evaluation: bool, clarity: bool) -> None:
        self.evaluation = evaluation
        self.clarity = clarity and evaluation
        self.evaluations: list[float] = []
        self.values: list[tuple[float, ...]] = []
        self.distances: list[int] = []
        self.sites = metrics.board_sites(game)
        first = metrics.occupied_sites(start) if self.sites is not None else None
        self.occupied: list[frozenset[str]] | None = None if first is None else [first]

    def before_move(self, state: State, player: int) -> float | None:
        """Record the position before ``player``'s move; its evaluation for the first player."""
        value = state.evaluate(0) if self.evaluation else None
        if value is not None:
            self.evaluations.append(value)
        if self.clarity:
            self.values.append(
                tuple(state.apply(a).evaluate(player) for a in state.legal_actions())
            )
        return value

    def after_move(self, before: State, action: int, after: State) -> None:
        distance = metrics.action_distance(before, action)
        if distance is not None:
            self.distances.append(distance)
        if self.occupied is not None:
            self.occupied.append(metrics.occupied_sites(after) or frozenset())

    def results(self, winner: int, branching: tuple[int, ...]) -> dict[str, float]:
        record = metrics.GameRecord(
            winner=winner,
            branching=branching,
            evaluations=tuple(self.evaluations) if self.evaluation else None,
            values=tuple(self.values) if self.clarity else None,
            occupied=None if self.occupied is None else tuple(self.occupied),
            sites=self.sites,
            distances=tuple(self.distances),
        )
        found = metrics.game_metrics(record)
        return {name: value for name, value in found.items() if value is not None}


def play_game(
    game: Game,
    agents: tuple[str, str],
    seed: int,
    index: int,
    *,
    leads: bool,
    clarity: bool = False,
) -> GameStats:
    """Play game ``index`` of a simulation with seed ``seed`` and measure it (module doc).

    ``leads``: measure lead changes and the metrics that read the evaluation (only for a
    game with an evaluation); ``clarity``: evaluate every legal action of every move too.
    """
    a_seat = index % 2
    seats = {
        a_seat: make_level_agent(game, agents[0], Random(f"{seed}:{index}:a")),
        1 - a_seat: make_level_agent(game, agents[1], Random(f"{seed}:{index}:b")),
    }
    chance = Random(f"{seed}:{index}:chance")
    think = [0.0, 0.0]
    chosen = [0, 0]
    branching: list[int] = []
    lead, changes = 0, 0
    state = game.new_initial_state()
    recorder = _Recorder(game, state, evaluation=leads, clarity=clarity)
    plies = 0
    cap = game.max_game_length
    clock = time.perf_counter
    while not state.is_terminal() and plies < cap:
        if state.is_chance_node():
            state = state.apply(sample_chance(state, chance))
        else:
            player = state.current_player
            value = recorder.before_move(state, player)
            if value is not None and player == 0:
                now = _sign(value)
                if now and lead and now != lead:
                    changes += 1
                lead = now or lead
            branching.append(len(state.legal_actions()))
            side = 0 if player == a_seat else 1
            started = clock()
            action = seats[player].choose(state)
            think[side] += clock() - started
            chosen[side] += 1
            before, state = state, state.apply(action)
            recorder.after_move(before, action, state)
        plies += 1
    capped = not state.is_terminal()
    returns = (0, 0) if capped else state.returns()
    winner = DRAW if returns[0] == 0 else 0 if returns[0] > 0 else 1
    if leads:
        final = _sign(returns[0])
        changes += bool(final and lead and final != lead)
    repetition = (
        winner == DRAW and not capped and game.repetition_draws and repetition_count(state) >= 3
    )
    return GameStats(
        index=index,
        a_seat=a_seat,
        winner=winner,
        moves=len(branching),
        plies=plies,
        branching=tuple(branching),
        repetition=repetition,
        capped=capped,
        lead_changes=changes if leads else None,
        think_seconds=(think[0], think[1]),
        agent_moves=(chosen[0], chosen[1]),
        metrics=recorder.results(winner, tuple(branching)),
    )


@dataclass(frozen=True)
class Job:
    """What every batch needs to know: sent to worker processes and Ray tasks (picklable)."""

    game: Game
    agents: tuple[str, str]
    seed: int
    leads: bool
    clarity: bool = False


def run_batch(job: Job, start: int, stop: int) -> Tally:
    """Play games ``start .. stop - 1`` of ``job`` and add them up."""
    tally = Tally()
    for index in range(start, stop):
        stats = play_game(
            job.game, job.agents, job.seed, index, leads=job.leads, clarity=job.clarity
        )
        tally.add(stats)
    return tally


@dataclass
class SimulationResult:
    """A simulation's totals and what it was asked; ``==`` compares the games, not timing."""

    game: str
    options: dict[str, Any]
    agents: tuple[str, str]
    seed: int
    #: Games asked for (``tally.games`` is fewer after an interruption).
    requested: int
    tally: Tally
    #: The rules draw on a third repetition / the game has an evaluation / its length cap.
    repetition_rule: bool
    evaluation: bool
    cap: int
    interrupted: bool = False
    #: Which metrics were computed (:data:`METRIC_SETS`), the number of board sites (None
    #: without a board) and whether the board view lists pieces by square.
    metric_set: str = "default"
    sites: int | None = None
    board: bool = False
    #: The first player's exact value from the start where the game is solved here
    #: (``expected``, ``win``, ``draw``, ``loss``, ``remoteness``), else None; and the
    #: warnings where the games contradict it (:func:`solved_warnings`).
    solved: dict[str, float | int | None] | None = None
    warnings: list[str] = field(default_factory=list)
    #: Wall-clock seconds of the whole simulation (timing: not compared).
    seconds: float = field(default=0.0, compare=False)

    @property
    def games(self) -> int:
        """Games finished."""
        return self.tally.games

    def first_player_score(self) -> float:
        """The first seat's score: (wins + draws / 2) / games."""
        t = self.tally
        return rate(2 * t.wins[0] + t.draws, 2 * t.games)

    def to_json(self) -> dict[str, object]:
        """The JSON of ``flipgames simulate --json`` (docs/lab.md describes every field)."""
        t = self.tally
        n = t.games
        score = self.first_player_score()
        low, high = wilson_interval(score, n)
        lead: dict[str, object] | None = None
        if self.evaluation:
            lead = {
                "mean": rate(t.lead_changes, t.lead_games),
                "games_with_change": t.lead_changed_games,
                "share": rate(t.lead_changed_games, t.lead_games),
            }
        return {
            "game": self.game,
            "options": dict(self.options),
            "agents": list(self.agents),
            "seed": self.seed,
            "games": n,
            "requested": self.requested,
            "interrupted": self.interrupted,
            "wins": list(t.wins),
            "win_rates": [rate(w, n) for w in t.wins],
            "win_cis": [list(rate_interval(w, n)) for w in t.wins],
            "agent_wins": list(t.agent_wins),
            "agent_win_rates": [rate(w, n) for w in t.agent_wins],
            "agent_win_cis": [list(rate_interval(w, n)) for w in t.agent_wins],
            "draws": t.draws,
            "draw_rate": rate(t.draws, n),
            "draw_ci": list(rate_interval(t.draws, n)),
            "first_player_win_rate": rate(t.wins[0], n),
            "first_player_win_ci": list(rate_interval(t.wins[0], n)),
            "first_player_score": score,
            "first_player_advantage": score - 0.5,
            "first_player_advantage_ci": [low - 0.5, high - 0.5],
            "decided": rate(t.decided, n),
            "decided_ci": list(rate_interval(t.decided, n)),
            "completion": rate(t.decided, n),
            "natural_draws": t.natural_draws,
            "drawishness": rate(t.natural_draws, n),
            "drawishness_ci": list(rate_interval(t.natural_draws, n)),
            "outcome_uniformity": metrics.outcome_uniformity(t.wins[0], t.wins[1], n),
            "length": {
                "unit": "moves",
                "mean": t.length_mean(),
                "median": t.length_median(),
                "p90": t.length_quantile(0.9),
                "min": min(t.lengths, default=0),
                "max": max(t.lengths, default=0),
                "histogram": [[length, t.lengths[length]] for length in sorted(t.lengths)],
            },
            "plies_mean": rate(t.plies, n),
            "branching": {
                "mean": t.branching_mean(),
                "by_ply": t.branching_by_ply(),
                "games_by_ply": list(t.branching_count),
            },
            "repetition_draws": t.repetition_draws if self.repetition_rule else None,
            "capped": t.capped,
            "cap": self.cap,
            "lead_changes": lead,
            "solved": self.solved,
            "warnings": list(self.warnings),
            "metrics_computed": self.metric_set,
            "metrics": self.metrics_json(),
            "seconds_per_move": [t.seconds_per_move(0), t.seconds_per_move(1)],
            "seconds": self.seconds,
        }

    def metrics_json(self) -> dict[str, dict[str, object]]:
        """Per Ludii metric: its mean over the games that had a value (``value``), how many
        did (``games``), and ``not_applicable``, the reason when there is no value."""
        t = self.tally
        found: dict[str, dict[str, object]] = {}
        for name in metrics.GAME_METRICS:
            value = t.metric_mean(name)
            reason = metrics.not_applicable(
                name,
                evaluation=self.evaluation,
                clarity=self.metric_set == "all",
                sites=self.sites,
                board=self.board,
            )
            if reason is None and value is None:
                reason = metrics.empty_reason(name)
            found[name] = {"value": value, "games": t.metric_games[name], "not_applicable": reason}
        return found


def check_agents(game: Game, agents: tuple[str, str]) -> None:
    """Raise a one-line error naming the levels if either agent is no level of ``game``."""
    for agent in agents:
        describe_level(game, agent)


def simulate(
    game: Game,
    agents: tuple[str, str],
    games: int,
    seed: int,
    *,
    workers: int = 1,
    ray: str | None = None,
    progress: Progress = silent,
    metric_set: str = "default",
) -> SimulationResult:
    """Play ``games`` seeded games of ``agents[0]`` (A) against ``agents[1]`` (B) and measure
    them (module docstring); ``progress`` hears of every finished game or batch;
    ``metric_set`` is one of :data:`METRIC_SETS`."""
    if metric_set not in METRIC_SETS:
        raise SimulationError(f"--metrics {metric_set!r}: choose {' or '.join(METRIC_SETS)}")
    if games < 1:
        raise SimulationError(f"a simulation needs at least one game, got {games}")
    if workers < 1:
        raise SimulationError(f"--workers must be at least 1, got {workers}")
    if ray is not None and workers > 1:
        raise SimulationError("choose --workers or --ray, not both")
    if game.num_players != 2:
        raise SimulationError(
            f"simulate plays two-player games; {game.name} has {game.num_players}"
        )
    check_agents(game, agents)
    evaluation = has_evaluation(game)
    job = Job(game, agents, seed, evaluation, clarity=metric_set == "all")
    sites = metrics.board_sites(game)
    tally = Tally()
    result = SimulationResult(
        game.name,
        dict(game.options),
        agents,
        seed,
        games,
        tally,
        repetition_rule=game.repetition_draws,
        evaluation=evaluation,
        cap=game.max_game_length,
        metric_set=metric_set,
        sites=sites,
        board=sites is not None and metrics.occupied_sites(game.new_initial_state()) is not None,
    )
    message = f"{game.name}: {agents[0]} against {agents[1]}"
    started = time.perf_counter()
    if ray is not None:
        from flipgames.lab import cluster  # Ray loads only when asked for

        parts: Iterator[Tally] = cluster.run(job, games, ray)
    elif workers > 1:
        parts = _local_processes(job, games, workers)
    else:
        parts = (run_batch(job, index, index + 1) for index in range(games))
    try:
        for part in parts:
            with _interrupt_after():
                tally.merge(part)
            progress(message, done=tally.games, total=games)
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        close = getattr(parts, "close", None)
        if close is not None:
            close()
    result.seconds = time.perf_counter() - started
    if catalog.is_solved(game) and result.games and not result.interrupted:
        _add_solved(result, game, progress)
    return result


def _add_solved(result: SimulationResult, game: Game, progress: Progress) -> None:
    """Put the solved value from the start and :func:`solved_warnings` in ``result``. The
    solve reports its progress only where it has work to do (a solution not cached yet);
    Ctrl-C during it keeps the games and leaves the value out."""
    try:
        quiet = catalog.solution_ready(game)
        solution = catalog.solution(game, silent if quiet else progress)
    except KeyboardInterrupt:
        result.interrupted = True
        return
    value = solution.value(game.new_initial_state(), 0)
    result.solved = {
        "expected": float(value.expected),
        "win": float(value.win),
        "draw": float(value.draw),
        "loss": float(value.loss),
        "remoteness": value.remoteness,
    }
    result.warnings = solved_warnings(result, float(value.expected), float(value.draw))


def solved_warnings(result: SimulationResult, expected: float, draw: float) -> list[str]:
    """Where the games contradict the solved value from the start (the first player's
    ``expected`` return and ``draw`` probability under perfect play): one warning per
    contradicted figure, when the exact figure lies outside the games' 95% interval. The
    agents' figures then say how these agents play, not how the game plays.

    >>> result = SimulationResult("g", {}, ("easy", "easy"), 1, 200, Tally(games=200,
    ...     wins=[110, 90]), repetition_rule=False, evaluation=False, cap=10)
    >>> (warning,) = solved_warnings(result, expected=0.0, draw=1.0)
    >>> warning[:52], "perfect play draws 100.0%" in warning
    ('easy against easy drew 0.0% of games (95% CI 0.0% to', True)
    >>> solved_warnings(result, expected=0.0, draw=0.0)
    []
    """
    t = result.tally
    n = t.games
    a, b = result.agents
    found = []
    low, high = rate_interval(t.natural_draws, n)
    if not low <= draw <= high:
        found.append(
            f"{a} against {b} drew {100 * rate(t.natural_draws, n):.1f}% of games (95% CI "
            f"{100 * low:.1f}% to {100 * high:.1f}%, stops at the length cap left out) where "
            f"perfect play draws {100 * draw:.1f}%: do not read these agents' draws and "
            "decided games as the game's"
        )
    score = result.first_player_score()
    low, high = wilson_interval(score, n)
    exact = (expected + 1) / 2
    if not low <= exact <= high:
        found.append(
            f"{a} against {b} gives the first player a score of {score:.3f} (95% CI "
            f"{low:.3f} to {high:.3f}) where perfect play gives {exact:.3f}: do not read "
            "these agents' first-player advantage as the game's"
        )
    return found


@contextmanager
def _interrupt_after() -> Iterator[None]:
    """Hold a Ctrl-C back until the block is done, so that a merge is never half done."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives signals
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: received.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def batches(games: int, parallel: int) -> list[tuple[int, int]]:
    """Split games ``0 .. games - 1`` into ranges: about 64 per worker (so the workers
    finish close together: the last batch is short), at most :data:`MAX_BATCH` games each.

    >>> batches(10, 1)
    [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]
    >>> len(batches(10_000, 2)), batches(10_000, 2)[-1]
    (129, (9984, 10000))
    """
    size = max(1, min(MAX_BATCH, games // (64 * parallel)))
    return [(start, min(games, start + size)) for start in range(0, games, size)]


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: only the parent handles it (it stops the pool
    # and keeps the batches already finished), so the workers stay quiet.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _local_processes(job: Job, games: int, workers: int) -> Iterator[Tally]:
    """Run the batches on ``workers`` fresh processes, yielding each finished batch."""
    # Fresh interpreters (spawn), not forks: the parent may run threads (the progress bar).
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(workers, initializer=_ignore_interrupts)
    try:
        work = [(job, start, stop) for start, stop in batches(games, workers)]
        yield from pool.imap_unordered(_run_range, work)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _run_range(work: tuple[Job, int, int]) -> Tally:
    return run_batch(*work)
