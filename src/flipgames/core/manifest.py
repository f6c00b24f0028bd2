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

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from flipgames.core.game import Game
from flipgames.core.options import OptionValue
from flipgames.core.registry import game_class, game_names

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


@dataclass(frozen=True)
class Manifest:
    """What one registered game is, besides its rules.

    ``board``: the web board module (``web/static/boards/<board>.js``); ``docs``: the page
    ``docs/games/<docs>.md``; ``pitch``: the lobby's one-paragraph pitch; ``levels``: the
    ``easy``, ``medium`` and ``hard`` budgets; ``solved``: the option sets an exact solver
    finishes here, each a partial mapping that a game's options must match (``{}`` matches
    every option set), so ``perfect`` play and per-move analysis exist for them.
    """

    board: str
    docs: str
    pitch: str
    levels: Mapping[str, LevelSpec]
    solved: tuple[Mapping[str, OptionValue], ...] = ()

    def __post_init__(self) -> None:
        # Read-only views of the mappings, so no caller can edit a game's facts.
        if tuple(self.levels) != SEARCH_LEVELS:
            raise ValueError(f"a manifest sets levels {SEARCH_LEVELS}, in that order")
        object.__setattr__(self, "levels", MappingProxyType(dict(self.levels)))
        object.__setattr__(self, "solved", tuple(MappingProxyType(dict(s)) for s in self.solved))


def manifest_for(name: str) -> Manifest:
    """The manifest of the registered game ``name`` (read from its package's ``MANIFESTS``)."""
    cls = game_class(name)
    package = cls.__module__.rpartition(".")[0]
    manifests: Mapping[str, Manifest] = importlib.import_module(package).MANIFESTS
    return manifests[name]


def manifest_of(game: Game) -> Manifest:
    """The manifest of ``game``'s registered name."""
    return manifest_for(game.name)


def has_manifest(game: Game) -> bool:
    """True when ``game`` is a registered game (every registered game has a manifest)."""
    return game.name in game_names() and type(game) is game_class(game.name)


def is_listed_solved(game: Game) -> bool:
    """True when ``game``'s options match one of its manifest's solved option sets (a game
    without a manifest is solved nowhere)."""
    if not has_manifest(game):
        return False
    return any(
        all(game.options.get(key) == value for key, value in option_set.items())
        for option_set in manifest_of(game).solved
    )
