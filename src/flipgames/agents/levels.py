"""Named playing levels per game, and building agents by name.

Every game has ``easy``, ``medium`` and ``hard``; ``perfect`` exists only where a solver has
solved the game: FlipFlop 3x3 by retrograde analysis, one-round Flip Switch on 3x3 and
Checkered Flag by the stochastic solver (seconds on the compiled kernels; solutions are cached
on disk and loaded once per process). Flip Switch's default, a match of 3 rounds, has no
perfect level. Rubik's Flip's ``perfect`` is exact wherever the kernel's proof search answers
within its budget (agents.proof), else ``hard``. ``random`` is accepted too, as the baseline
below every level. What each level is for each game, and the arena results that show the
levels are ordered, are in ``docs/ai.md``.

Easy and medium budget iterations and nodes, not seconds, so a seeded game at those levels is
reproducible on any machine; they take well under a second a move. ``hard`` thinks at most
:data:`~flipgames.core.manifest.HARD_SECONDS` CPU seconds a move, on any machine and under
any load (:class:`~flipgames.agents.budget.MoveClock`: CPU time of the thinking thread, with a
wall-clock cap): on the compiled alpha-beta where its manifest asks for it and the game has a
kernel (FlipFlop of both sizes, FlipFour, Rubik's Flip; Rubik's Flip, proved by search, first
asks its exact search: agents.exact; FlipFlop 5x5 plays positions with at most 4 pieces
perfectly from endgame tables once they are built: agents.endgame), else on the reference
agents with their node budgets and that deadline, whichever runs out first. A controller may
give a move another budget (:class:`Budget`: the engine protocol's ``go movetime`` and ``go
nodes``); the level keeps its algorithm. Tests that need reproducible strong play build the
agents with node budgets (:class:`~flipgames.agents.kernel_search.KernelAlphaBetaAgent`,
:class:`~flipgames.agents.search.AlphaBetaAgent`).

>>> import random
>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> levels_for(game)
['easy', 'medium', 'hard', 'perfect']
>>> levels_for(make("flipflop"))
['easy', 'medium', 'hard']
>>> agent = make_level_agent(game, "medium", random.Random(1))
>>> agent.choose(game.new_initial_state()) in game.new_initial_state().legal_actions()
True
>>> make_level_agent(make("flipflop"), "perfect", random.Random(1))
Traceback (most recent call last):
...
flipgames.agents.levels.LevelUnavailableError: level 'perfect' needs a solved game and \
flipflop is not solved; its levels are easy, medium, hard
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from flipgames.agents.base import Agent, RandomAgent
from flipgames.agents.budget import MoveClock, wall_cap
from flipgames.agents.endgame import EndgameAgent, endgame_note, has_endgame_tables
from flipgames.agents.exact import ExactSearchAgent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent, has_kernel_search
from flipgames.agents.mcts import MCTSAgent
from flipgames.agents.perfect import PerfectAgent, SometimesBestAgent
from flipgames.agents.proof import MAX_NODES, ProofAgent
from flipgames.agents.search import AlphaBetaAgent
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game
from flipgames.core.manifest import LevelSpec, has_manifest, manifest_of, mcts
from flipgames.core.progress import Progress, silent
from flipgames.solvers import alphabeta, catalog
from flipgames.solvers.catalog import is_solved
from flipgames.solvers.solution import Solution, SolverError

#: Every level name, weakest first.
LEVELS: Final = ("easy", "medium", "hard", "perfect")


class UnknownAgentError(FlipgamesError, ValueError):
    """An agent or level name that does not exist (for this game)."""


class LevelUnavailableError(FlipgamesError, ValueError):
    """The ``perfect`` level asked of a game (with these options) that is not solved."""


@dataclass(frozen=True)
class Level:
    """How one level of one game plays: a description and a factory taking the generator and
    where to report work done on first use (a solved level's first solve)."""

    description: str
    build: Callable[[random.Random, Progress], Agent]


def _budget(spec: LevelSpec) -> str:
    nodes = f", at most {spec.max_nodes:,} nodes" if spec.max_nodes is not None else ""
    return nodes + (f" and {spec.seconds:g} CPU s a move" if spec.seconds is not None else "")


@dataclass(frozen=True)
class Budget:
    """A budget a controller gives one move in place of the level's own (the engine
    protocol's ``go movetime`` and ``go nodes``): ``seconds`` by ``clock`` (wall-clock by
    default, as a controller times its engine) or ``nodes`` (MCTS iterations for an MCTS
    level, nodes for a search). The level keeps its algorithm, evaluation and depth cap; a
    level that plays from an exact solution ignores the budget (it needs none)."""

    seconds: float | None = None
    nodes: int | None = None
    clock: Callable[[], float] = time.perf_counter

    def __post_init__(self) -> None:
        if (self.seconds is None) == (self.nodes is None):
            raise ValueError("a budget is seconds or nodes, one of them")


def _level(spec: LevelSpec, game: Game, budget: Budget | None = None) -> Level:
    """A manifest's level spec as a description and a factory (with ``budget`` in place of
    the spec's own where given)."""
    if spec.agent == "solved":
        return _solved_level(spec, game, budget)
    if spec.agent == "mcts":
        return _mcts_level(spec, budget)
    step = ", deepening two plies at a time (odd horizons)" if spec.depth_step == 2 else ""
    if spec.compiled and spec.seconds is not None and has_kernel_search(game):
        return _compiled_level(spec, game, step, budget)
    if game.has_chance:
        what = f"expectiminimax to depth {spec.depth} (a chance outcome is a ply){_budget(spec)}"
    else:
        what = f"alpha-beta to depth {spec.depth}{_budget(spec)}{step}"

    def build(rng: random.Random, _: Progress) -> Agent:
        if budget is not None:
            return AlphaBetaAgent(
                rng,
                depth=spec.depth,
                max_nodes=budget.nodes,
                depth_step=spec.depth_step,
                seconds=budget.seconds,
                clock=budget.clock,
            )
        return AlphaBetaAgent(
            rng,
            depth=spec.depth,
            max_nodes=spec.max_nodes,
            depth_step=spec.depth_step,
            seconds=spec.seconds,
            clock=time.perf_counter if spec.seconds is None else MoveClock(spec.seconds),
        )

    return Level(f"{what}, with the game's evaluation", build)


def _mcts_level(spec: LevelSpec, budget: Budget | None) -> Level:
    def build(rng: random.Random, _: Progress) -> Agent:
        if budget is None:
            return MCTSAgent(rng, iterations=spec.iterations, rollout_limit=spec.rollout_limit)
        # MCTSAgent times its seconds by the wall clock, as a controller's movetime is.
        return MCTSAgent(
            rng, iterations=budget.nodes, seconds=budget.seconds, rollout_limit=spec.rollout_limit
        )

    return Level(
        f"MCTS (UCT), {spec.iterations:,} iterations, random rollouts cut at "
        f"{spec.rollout_limit} plies",
        build,
    )


def _compiled_level(spec: LevelSpec, game: Game, step: str, budget: Budget | None) -> Level:
    assert spec.seconds is not None  # _level checks it
    seconds = spec.seconds
    exact = (
        "exact search wherever it answers in time, preferring among the drawing moves "
        "the trap a Monte Carlo or a shallow searcher is likeliest to fall into, else "
        if alphabeta.is_provable(game)
        else ""
    )

    def build(rng: random.Random, _: Progress) -> Agent:
        if budget is None:
            return compiled_hard(game, rng, seconds, depth_step=spec.depth_step)
        return compiled_hard(
            game,
            rng,
            budget.seconds,
            clock=budget.clock,
            depth_step=spec.depth_step,
            max_nodes=budget.nodes,
        )

    return Level(
        f"{exact}compiled alpha-beta (iterative deepening, transposition table, the "
        f"game's evaluation), {seconds:g} CPU s a move (at most {wall_cap(seconds):g} s by "
        f"the wall clock){step}{endgame_note(game)}",
        build,
    )


#: (game, budget) pairs whose solve ran past the budget: a solved level plays its fallback
#: there at once instead of trying again on every move.
_too_large: set[tuple[Game, int]] = set()


def _solution_within(game: Game, max_positions: int, progress: Progress) -> Solution | None:
    """``game``'s exact solution (loaded once per process) when it is solved here and has at
    most ``max_positions`` positions (or is loaded or cached on disk already), else None."""
    if not is_solved(game) or (game, max_positions) in _too_large:
        return None
    try:
        return catalog.solution(game, progress, max_positions)
    except SolverError:
        _too_large.add((game, max_positions))
        return None


def _solved_level(spec: LevelSpec, game: Game, budget: Budget | None) -> Level:
    """A level playing from the exact solution where it is small enough, else its fallback
    (which gets ``budget``; the solution needs none)."""
    assert spec.fallback is not None  # LevelSpec checks it
    fallback = _level(spec.fallback, game, budget)
    share = spec.best_share

    def build(rng: random.Random, progress: Progress) -> Agent:
        solution = _solution_within(game, spec.max_positions, progress)
        if solution is None:
            return fallback.build(rng, progress)
        if share >= 1:
            return PerfectAgent(rng, solution)
        return SometimesBestAgent(rng, solution, share)

    if share >= 1:
        what = "perfect play from the exact solution (a random choice among the best actions)"
    else:
        what = (
            f"one of the exact solution's best actions {share:.0%} of the time, else a "
            "uniformly random legal action"
        )
    return Level(
        f"{what}, where the solution has at most {spec.max_positions:,} positions (solved on "
        f"first use); otherwise {fallback.description}",
        build,
    )


def compiled_hard(
    game: Game,
    rng: random.Random,
    seconds: float | None,
    clock: Callable[[], float] | None = None,
    depth_step: int = 1,
    max_nodes: int | None = None,
) -> Agent:
    """``hard`` on the compiled kernel with ``seconds`` a move by ``clock`` (by default a
    :class:`~flipgames.agents.budget.MoveClock`: CPU seconds of the thinking thread, capped
    by the wall clock; a match at equal CPU time may pass ``time.process_time``) or, with
    ``seconds`` None, ``max_nodes`` a move: the exact search with traps where the game is
    proved by search (:class:`~flipgames.agents.exact.ExactSearchAgent`), else the compiled
    alpha-beta, playing from endgame tables where the game has them
    (:class:`~flipgames.agents.endgame.EndgameAgent`: FlipFlop 5x5 with at most 4 pieces,
    once ``flipgames warmup`` has built them)."""
    if clock is None:
        clock = time.perf_counter if seconds is None else MoveClock(seconds)
    if alphabeta.is_provable(game):
        return ExactSearchAgent(
            rng, game, seconds, clock=clock, depth_step=depth_step, max_nodes=max_nodes
        )
    search = KernelAlphaBetaAgent(
        rng, game, seconds=seconds, max_nodes=max_nodes, clock=clock, depth_step=depth_step
    )
    if has_endgame_tables(game):
        return EndgameAgent(rng, game, search)
    return search


# A game with no manifest (one not registered yet, still being written) gets MCTS levels.
_FALLBACK: Final = {"easy": mcts(100), "medium": mcts(1_000), "hard": mcts(10_000)}


def _levels(game: Game, budget: Budget | None = None) -> dict[str, Level]:
    """The easy, medium and hard levels of ``game``, from its manifest (with ``budget`` in
    place of their own where given)."""
    specs = manifest_of(game).levels if has_manifest(game) else _FALLBACK
    return {name: _level(spec, game, budget) for name, spec in specs.items()}


def levels_for(game: Game) -> list[str]:
    """The level names ``game`` offers, weakest first (``perfect`` only if it is solved)."""
    # A game too big to enumerate may still have a perfect level: the kernel's exact search
    # where it answers within its budget, else hard (its manifest's proved_by_search).
    perfect = is_solved(game) or (has_manifest(game) and manifest_of(game).proved_by_search)
    return list(LEVELS) if perfect else list(LEVELS[:-1])


def describe_level(game: Game, level: str) -> str:
    """What ``level`` plays like in ``game``, in words.

    >>> from flipgames import make
    >>> describe_level(make("flipflop-3x3"), "perfect")
    'perfect play from the retrograde solution (a random choice among the best actions)'
    """
    _check_level(game, level)
    if level == "random":
        return "a uniformly random legal action"
    if level == "perfect" and not is_solved(game):
        return (
            f"exact alpha-beta search (the cached proof at the first turn) wherever it answers "
            f"within {MAX_NODES:,} nodes (about 1.5 s), else hard"
        )
    if level == "perfect":
        solver = "retrograde" if game.deterministic else "stochastic"
        return f"perfect play from the {solver} solution (a random choice among the best actions)"
    return _levels(game)[level].description


def make_level_agent(
    game: Game,
    level: str,
    rng: random.Random,
    progress: Progress = silent,
    budget: Budget | None = None,
) -> Agent:
    """An agent playing ``game`` at ``level`` (or ``random``), using ``rng`` for its choices,
    with ``budget`` a move in place of the level's own where given (:class:`Budget`).

    Raises :class:`UnknownAgentError` for a name that is no level and
    :class:`LevelUnavailableError` for ``perfect`` on a game that is not solved; both name the
    levels that exist. ``perfect`` solves the game first if no solution is cached, reporting
    to ``progress``, as does a level playing from a solution (Checkered Flag's ``hard``).
    """
    _check_level(game, level)
    if level == "random":
        return RandomAgent(rng)
    if level == "perfect" and not is_solved(game):
        return ProofAgent(rng, game, _levels(game, budget)["hard"].build(rng, progress))
    if level == "perfect":
        return PerfectAgent(rng, catalog.solution(game, progress))
    return _levels(game, budget)[level].build(rng, progress)


def _check_level(game: Game, level: str) -> None:
    valid = levels_for(game)
    if level == "random" or level in valid:
        return
    listed = ", ".join(valid)
    if level == "perfect":
        raise LevelUnavailableError(
            f"level 'perfect' needs a solved game and {_describe(game)} is not solved; "
            f"its levels are {listed}"
        )
    raise UnknownAgentError(f"unknown level {level!r} for {game.name}: choose random, {listed}")


def _describe(game: Game) -> str:
    options = ", ".join(f"{k}={v}" for k, v in game.options.items())
    return f"{game.name} ({options})" if options else game.name


def make_agent(name: str, rng: random.Random) -> Agent:
    """An agent by kind with default budgets: ``random``, ``mcts`` or ``alphabeta``.

    For levels tuned per game use :func:`make_level_agent`.

    >>> make_agent("mcts", random.Random(1)).name
    'mcts'
    >>> make_agent("minimax", random.Random(1))
    Traceback (most recent call last):
    ...
    flipgames.agents.levels.UnknownAgentError: unknown agent 'minimax': known agents are \
random, mcts, alphabeta
    """
    kinds: dict[str, Callable[[random.Random], Agent]] = {
        "random": RandomAgent,
        "mcts": MCTSAgent,
        "alphabeta": AlphaBetaAgent,
    }
    try:
        factory = kinds[name]
    except KeyError:
        raise UnknownAgentError(
            f"unknown agent {name!r}: known agents are {', '.join(kinds)}"
        ) from None
    return factory(rng)
