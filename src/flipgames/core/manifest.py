"""Per-game facts as plain data: what the web, the agents and the solver catalogue need to know
about a game besides its rules.

Each game package declares ``MANIFESTS`` in its ``__init__.py``: one :class:`Manifest` per
registered game name it provides. Adding a game then touches its own package, the registry
line, its web board module and its tests; nothing else switches on game names.

>>> from flipgames import make
>>> manifest_of(make("flipflop-3x3")).board, is_listed_solved(make("flipflop-3x3"))
('flipflop', True)
>>> is_listed_solved(make("flip-switch", rounds=3))
False
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from flipgames.core import registry
from flipgames.core.game import Game, State
from flipgames.core.options import OptionValue
from flipgames.core.registry import game_class, game_names

if TYPE_CHECKING:
    from flipgames.core.lessons import Lesson

#: The level names a manifest sets budgets for (``perfect`` comes from a solver instead).
SEARCH_LEVELS: Final = ("easy", "medium", "hard")
#: Seconds a move for ``hard``: under one second, with room for the clock being read only
#: between search iterations and for Python around the search.
HARD_SECONDS: Final = 0.9

#: The agent kinds a level can name.
AGENT_KINDS: Final = ("mcts", "alphabeta", "solved")


@dataclass(frozen=True)
class LevelSpec:
    """How one playing level searches: an agent kind and its budget.

    ``mcts``: ``iterations`` and ``rollout_limit``. ``alphabeta`` (expectiminimax in games with
    chance): ``depth``, ``max_nodes`` (None: no cap), ``depth_step`` (2: deepen two plies at
    a time, odd horizons only), ``seconds`` (a deadline a move; None: none) and ``compiled``
    (True: play the game kernel's compiled alpha-beta for ``seconds`` a move where the game has
    one, the budgets above being the fallback on the reference engine). ``solved``: play from
    the game's exact solution, one of the best actions with probability ``best_share`` and
    else a uniformly random legal action, where the solution has at most ``max_positions``
    positions; ``fallback`` plays otherwise.
    """

    agent: str
    iterations: int = 0
    rollout_limit: int = 200
    depth: int = 0
    max_nodes: int | None = None
    depth_step: int = 1
    seconds: float | None = None
    compiled: bool = False
    best_share: float = 1.0
    max_positions: int = 0
    fallback: LevelSpec | None = None
    #: Why the level is set this way, when it is not obvious (shown nowhere; for maintainers).
    note: str = ""

    def __post_init__(self) -> None:
        if self.agent not in AGENT_KINDS:
            raise ValueError(f"unknown agent kind {self.agent!r}: choose {AGENT_KINDS}")
        if self.agent == "mcts" and self.iterations < 1:
            raise ValueError("an mcts level needs iterations >= 1")
        if self.agent == "alphabeta" and self.depth < 1:
            raise ValueError("an alphabeta level needs depth >= 1")
        if self.agent == "solved" and not (
            0 < self.best_share <= 1 and self.max_positions > 0 and self.fallback is not None
        ):
            raise ValueError(
                "a solved level needs 0 < best_share <= 1, max_positions >= 1 and a fallback"
            )


def mcts(iterations: int, rollout_limit: int = 200) -> LevelSpec:
    """An MCTS (UCT) level: ``iterations`` per move, random rollouts cut at ``rollout_limit``."""
    return LevelSpec("mcts", iterations=iterations, rollout_limit=rollout_limit)


def alphabeta(
    depth: int,
    max_nodes: int | None = None,
    depth_step: int = 1,
    note: str = "",
    seconds: float | None = None,
    compiled: bool = False,
) -> LevelSpec:
    """An alpha-beta (expectiminimax with chance) level to ``depth`` plies."""
    return LevelSpec(
        "alphabeta",
        depth=depth,
        max_nodes=max_nodes,
        depth_step=depth_step,
        seconds=seconds,
        compiled=compiled,
        note=note,
    )


def solved(
    fallback: LevelSpec, max_positions: int, best_share: float = 1.0, note: str = ""
) -> LevelSpec:
    """A level playing from the exact solution (the best action with probability
    ``best_share``, else a random legal one) where it has at most ``max_positions``
    positions, else ``fallback``."""
    return LevelSpec(
        "solved", best_share=best_share, max_positions=max_positions, fallback=fallback, note=note
    )


#: The ways :mod:`flipgames.lab.puzzles` finds puzzles (see :class:`PuzzleSpec`).
PUZZLE_METHODS: Final = ("solved-win", "search-endings", "best-choice")


@dataclass(frozen=True)
class PuzzleSpec:
    """How :mod:`flipgames.lab.puzzles` finds this game's puzzles, checked by a solver.

    ``method``: ``solved-win`` (a position of the retrograde solution where exactly one move
    wins within ``max_moves`` of the mover's moves), ``search-endings`` (an ending, a position
    where ``moves_left`` is ``min_moves`` to ``max_moves``, in which exactly one move wins by
    the compiled exact search) or ``best-choice`` (a choice of the stochastic solution where one
    action's exact chance to win is clearly the best). ``kind`` names the puzzle in JSON
    (``win-in-n``, ``best-gear``), ``label`` in the arcade's list; ``choice`` is what a
    ``best-choice`` puzzle chooses (``gear``: "which gear gives the best chance").
    """

    method: str
    kind: str
    label: str
    max_moves: int = 0
    min_moves: int = 0
    moves_left: Callable[[State], int] | None = None
    choice: str = ""

    def __post_init__(self) -> None:
        if self.method not in PUZZLE_METHODS:
            raise ValueError(f"unknown puzzle method {self.method!r}: choose {PUZZLE_METHODS}")
        if self.method == "search-endings" and self.moves_left is None:
            raise ValueError("a search-endings puzzle needs moves_left")
        if self.method == "best-choice" and not self.choice:
            raise ValueError("a best-choice puzzle names its choice")


@dataclass(frozen=True)
class SolveCost:
    """A slow first solve worth a warning: for the game's options matching ``options``, the
    reference walk (no compiled kernel) meets ``positions`` positions and takes about
    ``duration`` and ``memory`` (as measured; docs/solvers.md)."""

    options: Mapping[str, OptionValue]
    positions: int
    duration: str
    memory: str


@dataclass(frozen=True)
class BenchFacts:
    """What the benchmarks in ``bench/`` need to know of a game (bench/README.md).

    ``perft_depth``: the deepest reference perft ``bench/bench_engines.py`` counts from the
    start (a deterministic game; None: no perft figure); ``arena_games``: games per match of
    ``bench/arena_levels.py`` by the stronger level (a level not listed gets the script's
    default), sized so the match fits its share of the arena's time and its interval can
    separate the levels; ``baseline_hard``: the frozen old ``hard`` that ``bench/bench_ai.py
    --opponents baseline`` and the studies play, an ``alphabeta`` level on the reference
    engine with node budgets only (so a seeded baseline replays exactly). Never tune the
    baseline: its point is to stay what it was, so later versions of ``hard`` can be measured
    against it (None: the game has none).
    """

    perft_depth: int | None = None
    arena_games: Mapping[str, int] = field(default_factory=dict)
    baseline_hard: LevelSpec | None = None

    def __post_init__(self) -> None:
        if self.baseline_hard is not None and self.baseline_hard.agent != "alphabeta":
            raise ValueError("a baseline hard is an alphabeta level")
        object.__setattr__(self, "arena_games", MappingProxyType(dict(self.arena_games)))


@dataclass(frozen=True)
class ReviewFacts:
    """How a game review (:mod:`flipgames.lab.review`) reads the engine where no exact value
    is known: ``nodes``, the compiled alpha-beta's node budget per position (a few hundredths
    of a CPU second each, so a whole game's review costs seconds); ``scale``, the evaluation
    (in the game's own units: ``State.evaluate``) worth odds of e to 1, so an evaluation ``x``
    for the side to move is a winning chance of ``1 / (1 + exp(-x / scale))``. The scale is
    chosen by judgement, not fitted to results: every game's evaluation estimates the return
    in (-1, 1), and the default 1.0 keeps an unproven estimate between 27% and 73% (a search
    of a few plies is a guess, never a near-certain result; a proven win or loss is 1 or 0).
    A match of rounds (the manifest's ``rounds``) is valued round by round where its single
    round is solved."""

    nodes: int = 40_000
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.nodes < 1 or self.scale <= 0:
            raise ValueError("a review needs nodes >= 1 and a positive scale")


#: What ``proof_symmetry`` may say: none; the left-right mirror (the files reversed); the
#: square board's 8 (rotations and reflections: rules with no direction or goal).
PROOF_SYMMETRIES = ("none", "mirror", "square")


@dataclass(frozen=True)
class Manifest:
    """What one registered game is, besides its rules.

    ``game``: the game's class, as a lazily imported ``module:Class`` string (a class itself
    for a game defined at run time, as the tests' toy game); ``board``: the web board module
    (``web/static/boards/<board>.js``); ``docs``: the page ``docs/games/<docs>.md``;
    ``pitch``: the lobby's one-paragraph pitch; ``art``: the lobby's
    small picture (static SVG markup styled by the page's ``art-*`` classes); ``levels``: the
    ``easy``, ``medium`` and ``hard`` budgets; ``action_kinds``: every ``kind`` that
    ``action_info`` gives its actions; ``solved``: the option sets an exact solver finishes
    here, each a partial mapping that a game's options must match (``{}`` matches every
    option set), so ``perfect`` play and per-move analysis exist for them;
    ``rounds``: for a game played as a match of independent rounds, a lazily imported
    ``module:NAME`` of the function that sees a match position as its current round
    (:mod:`flipgames.core.match`; None: not a match of rounds);
    ``proved_by_search``: too big to enumerate, its ``perfect`` level is the kernel's exact
    search where that answers in its budget (:mod:`flipgames.agents.proof`); ``puzzles``: how
    its puzzles are found (None: it has none); ``candidate_fixes``: per hole an audit reports
    (a finding kind), rule option sets the audit solves and compares as fixes;
    ``solve_costs``: slow first solves the command line warns about; ``bench``: what the
    benchmarks need to know of it (:class:`BenchFacts`); ``lesson``: its lesson of guided
    positions (:mod:`flipgames.core.lessons`), a lazily imported ``module:NAME`` string (a
    :class:`~flipgames.core.lessons.Lesson` itself for a game defined at run time; None: none);
    ``review``: how a game review reads the engine where no exact value is known
    (:class:`ReviewFacts`); ``proof_symmetry``: the board symmetries of the rules that a
    proof file may store a position under (:data:`PROOF_SYMMETRIES`).
    """

    game: str | type[Game]
    board: str
    docs: str
    pitch: str
    art: str
    levels: Mapping[str, LevelSpec]
    action_kinds: tuple[str, ...]
    solved: tuple[Mapping[str, OptionValue], ...] = ()
    proved_by_search: bool = False
    rounds: str | None = None
    puzzles: PuzzleSpec | None = None
    candidate_fixes: Mapping[str, tuple[Mapping[str, OptionValue], ...]] = field(
        default_factory=dict
    )
    solve_costs: tuple[SolveCost, ...] = ()
    bench: BenchFacts = field(default_factory=BenchFacts)
    lesson: str | Lesson | None = None
    review: ReviewFacts = field(default_factory=ReviewFacts)
    proof_symmetry: str = "none"

    def __post_init__(self) -> None:
        if self.proof_symmetry not in PROOF_SYMMETRIES:
            raise ValueError(f"proof_symmetry is one of {', '.join(PROOF_SYMMETRIES)}")
        # Read-only views of the mappings, so no caller can edit a game's facts.
        if tuple(self.levels) != SEARCH_LEVELS:
            raise ValueError(f"a manifest sets levels {SEARCH_LEVELS}, in that order")
        if not self.action_kinds:
            raise ValueError("a manifest names the kinds of its actions")
        object.__setattr__(self, "levels", MappingProxyType(dict(self.levels)))
        object.__setattr__(self, "solved", tuple(MappingProxyType(dict(s)) for s in self.solved))
        object.__setattr__(self, "candidate_fixes", MappingProxyType(dict(self.candidate_fixes)))


def manifest_for(name: str) -> Manifest:
    """The manifest of the registered game ``name`` (its package's ``MANIFESTS`` entry)."""
    return registry.manifest_for(name)


def manifest_of(game: Game) -> Manifest:
    """The manifest of ``game``'s registered name."""
    return manifest_for(game.name)


def has_manifest(game: Game) -> bool:
    """True when ``game`` is a registered game (every registered game has a manifest)."""
    return game.name in game_names() and type(game) is game_class(game.name)


def matches(game: Game, option_set: Mapping[str, OptionValue]) -> bool:
    """True when ``game``'s options include every entry of ``option_set``."""
    return all(game.options.get(key) == value for key, value in option_set.items())


def is_listed_solved(game: Game) -> bool:
    """True when ``game``'s options match one of its manifest's solved option sets (a game
    without a manifest is solved nowhere)."""
    if not has_manifest(game):
        return False
    return any(matches(game, option_set) for option_set in manifest_of(game).solved)
