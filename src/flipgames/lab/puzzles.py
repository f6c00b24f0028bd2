"""Puzzles from solved positions: "win in N" with a unique winning move, and "best gear".

A game has puzzles when its manifest says how to find them
(:class:`~flipgames.core.manifest.PuzzleSpec`), each checked by an exact solver:

* ``solved-win`` (FlipFlop 3x3): the retrograde solution knows every position's value and
  remoteness. A puzzle is a position where exactly one move wins; "win in N" counts the
  mover's own moves (a win in ``r`` plies is a win in ``N = (r + 1) / 2`` moves).
* ``search-endings`` (Rubik's Flip): endings (the manifest's ``moves_left`` from
  ``min_moves`` to ``max_moves``) searched exactly by the compiled alpha-beta search
  (:mod:`flipgames.solvers.alphabeta`). Exactly one move (a Rubik's Flip turn: flip and
  place) wins; N, the fewest of the mover's moves that force the win, comes from a
  depth-limited exhaustive search of the same kernel.
* ``best-choice`` (Checkered Flag): the stochastic solver gives the exact probability of
  winning after each choice. A puzzle asks which choice (a gear) gives the best chance; the
  best is unique and at least :data:`MIN_MARGIN` ahead of the next.

Each puzzle is reproducible from its seed: :func:`make_puzzles` with ``count`` and ``seed``
gives the same puzzles every time (puzzle ``i`` of a batch comes from seed ``seed + i``, so
``--seed 7 --count 1`` is the second puzzle of ``--seed 6 --count 2``, unless it would repeat
the first: then the search goes on from seed 7 for a new position). Positions are found by
random play from the start, so a puzzle's position is an action list in notation that
replays from the start (chance outcomes included).

>>> from flipgames import make
>>> puzzle = make_puzzles(make("flipflop-3x3"), 1, seed=3)[0]
>>> puzzle.kind, puzzle.moves is not None, [v.best for v in puzzle.values].count(True)
('win-in-n', True, 1)
>>> make_puzzles(make("flipfour"), 1, seed=0)
Traceback (most recent call last):
...
flipgames.lab.puzzles.PuzzleError: flipfour has no puzzles: puzzles exist for flipflop-3x3, \
rubiks-flip, checkered-flag
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State, random_choices
from flipgames.core.manifest import PuzzleSpec, has_manifest, manifest_for, manifest_of
from flipgames.core.position import has_position_notation
from flipgames.core.progress import Progress, silent
from flipgames.core.registry import game_names
from flipgames.solvers import alphabeta, catalog

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: The games with puzzles (their manifest says how to find them), in the order they are listed.
PUZZLE_GAMES: Final = tuple(name for name in game_names() if manifest_for(name).puzzles)
#: The most puzzles one call makes.
MAX_COUNT: Final = 100
#: Random games tried per puzzle before giving up (each tests many positions).
MAX_ATTEMPTS: Final = 400
#: A best-choice puzzle's best choice beats the next by at least this win probability.
MIN_MARGIN: Final = Fraction(1, 100)
#: Transposition table of the endings searches (entries are int64; a power of two).
_TABLE_ENTRIES: Final = 1 << 18


class PuzzleError(FlipgamesError, ValueError):
    """A game without puzzles, a bad count, or no puzzle found within the attempts."""


@dataclass(frozen=True)
class MoveValue:
    """One first move of a puzzle and what it is worth to the player to move.

    ``outcome`` is ``win``, ``draw`` or ``loss`` under perfect play (deterministic games);
    ``plies`` the plies to the end where the solver knows them (the winner hurrying, the loser
    delaying); ``win`` the exact probability of winning (chance games); ``best`` marks the
    answer.
    """

    action: str
    best: bool
    outcome: str | None = None
    plies: int | None = None
    win: Fraction | None = None

    def describe(self) -> str:
        """One line for people, e.g. ``b1xb3: wins in 2 (3 plies)``."""
        if self.win is not None:
            return (
                f"{self.action}: wins with probability {self.win} "
                f"(about {float(self.win):.2%})" + ("  <- best" if self.best else "")
            )
        text = {"win": "wins", "draw": "draws", "loss": "loses"}.get(self.outcome or "", "?")
        if self.plies is not None and self.outcome in ("win", "loss"):
            # Plies from the puzzle's position: the mover's win ends on the mover's move.
            text += f" in {self.plies} {'ply' if self.plies == 1 else 'plies'}"
            if self.outcome == "win":
                text += f" ({(self.plies + 1) // 2} of the mover's)"
        return f"{self.action}: {text}" + ("  <- the answer" if self.best else "")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "best": self.best}
        if self.outcome is not None:
            data["outcome"] = self.outcome
            data["plies"] = self.plies
        if self.win is not None:
            data["win"] = str(self.win)
            data["win_float"] = float(self.win)
        return data


@dataclass(frozen=True)
class Puzzle:
    """A position (actions in notation from the start), a question and its checked answer."""

    game: str
    options: dict[str, Any]
    seed: int
    actions: tuple[str, ...]
    to_move: int
    player: str
    #: The manifest's puzzle kind: ``win-in-n`` (FlipFlop 3x3, Rubik's Flip) or ``best-gear``
    #: (Checkered Flag, a best-choice puzzle).
    kind: str
    #: N of "win in N" (the mover's own moves; a Rubik's Flip move is a whole turn); None for
    #: best-gear puzzles.
    moves: int | None
    question: str
    answer: str
    values: tuple[MoveValue, ...]
    board: str
    #: The position in the game's position notation (None for a game without one), the same
    #: position as ``actions`` reach: ``flipgames analyze GAME --position TEXT`` studies it.
    position: str | None = None

    def explanation(self) -> str:
        """Why the answer is right: the value of every first move, best first."""
        if self.moves is None:
            choice = _spec_named(self.game).choice.capitalize()
            head = f"{choice} {self.answer} gives {self.player} the best exact chance to win:"
        else:
            head = (
                f"{self.answer} is the only move that wins; it wins in {self.moves} "
                f"(of {self.player}'s moves) "
                "against any defence. Every move's value under perfect play:"
            )
        return "\n".join([head, *(f"  {v.describe()}" for v in self.values)])

    def public_json(self) -> dict[str, Any]:
        """Everything but the answer and the values: what a player sees before answering."""
        return {
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "actions": list(self.actions),
            "to_move": self.to_move,
            "player": self.player,
            "kind": self.kind,
            "moves": self.moves,
            "question": self.question,
            "board": self.board,
            "position": self.position,
        }

    def to_json(self) -> dict[str, Any]:
        """The whole puzzle, answer and explanation included (``flipgames puzzle --json``)."""
        return {
            **self.public_json(),
            "answer": self.answer,
            "values": [v.to_json() for v in self.values],
            "explanation": self.explanation(),
        }

    def state(self, game: Game) -> State:
        """The puzzle's position, replayed from the start in ``game``."""
        return game.state_from_actions(self.actions)


def make_puzzles(game: Game, count: int, seed: int, progress: Progress = silent) -> list[Puzzle]:
    """``count`` puzzles of ``game``, puzzle ``i`` found from seed ``seed + i``.

    Raises :class:`PuzzleError` for a game without puzzles, a count outside 1 to
    :data:`MAX_COUNT`, or when no puzzle turns up within :data:`MAX_ATTEMPTS` random games.
    """
    finder = _finder(game)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise PuzzleError(f"--count must be 1 to {MAX_COUNT}, got {count!r}")
    puzzles: list[Puzzle] = []
    seen: set[object] = set()
    for index in range(count):
        progress("making puzzles", done=index, total=count)
        puzzles.append(_one(game, finder, seed + index, seen))
    progress("making puzzles", done=count, total=count)
    return puzzles


_Found = tuple[State, list[MoveValue], int | None] | None
_Finder = Callable[[Game, PuzzleSpec, random.Random], _Found]


def _spec_named(name: str) -> PuzzleSpec:
    spec = manifest_for(name).puzzles
    assert spec is not None  # a puzzle is only made for a game with puzzles
    return spec


def _finder(game: Game) -> _Finder:
    spec = manifest_of(game).puzzles if has_manifest(game) else None
    if spec is None:
        raise PuzzleError(
            f"{game.name} has no puzzles: puzzles exist for {', '.join(PUZZLE_GAMES)}"
        )
    if spec.method == "search-endings":
        if alphabeta.searchable(game) is None:
            raise PuzzleError(
                f"{game.title} puzzles need the compiled search kernel (FLIPGAMES_KERNEL=python "
                "forbids it, or these options have none)"
            )
    elif not catalog.is_solved(game):
        raise PuzzleError(f"{game.name} with these options is not solved here: no puzzles")
    finders: dict[str, _Finder] = {
        "solved-win": _solved_win,
        "search-endings": _search_endings,
        "best-choice": _best_choice,
    }
    return finders[spec.method]


def _one(game: Game, finder: _Finder, seed: int, seen: set[object]) -> Puzzle:
    """The puzzle of ``seed``: the first one found whose position is not in ``seen`` (the
    batch's earlier puzzles), which it joins."""
    rng = random.Random(seed)
    spec = _spec_named(game.name)
    for _ in range(MAX_ATTEMPTS):
        found = finder(game, spec, rng)
        if found is None or found[0].key() in seen:
            continue
        state, values, moves = found
        seen.add(state.key())
        player = game.player_names[state.current_player]
        answer = next(v.action for v in values if v.best)
        if moves is None:
            question = (
                f"{player.capitalize()} to choose a {spec.choice}: which {spec.choice} gives the "
                "best chance to win?"
            )
        else:
            # One word for players in every game: a Rubik's Flip turn (flip and place) is
            # one move, as one action.
            question = (
                f"{player} to play and win in {moves} move{'s' if moves > 1 else ''}: "
                "find the only winning move."
            )
        return Puzzle(
            game=game.name,
            options=dict(game.options),
            seed=seed,
            actions=tuple(state.history_notation()),
            to_move=state.current_player,
            player=player,
            kind=spec.kind,
            moves=moves,
            question=question,
            answer=answer,
            values=tuple(values),
            board=state.render(),
            position=state.position() if has_position_notation(game) else None,
        )
    raise PuzzleError(f"no {game.name} puzzle found from seed {seed} in {MAX_ATTEMPTS} games")


def _ordered(values: list[MoveValue]) -> list[MoveValue]:
    """Best first: wins (fastest first), draws, losses (slowest first); chance by odds."""
    rank = {"win": 0, "draw": 1, "loss": 2}

    def key(v: MoveValue) -> tuple[Any, ...]:
        if v.win is not None:
            return (-v.win, v.action)
        plies = v.plies if v.plies is not None else 10**6
        return (rank.get(v.outcome or "", 3), plies if v.outcome == "win" else -plies, v.action)

    return sorted(values, key=key)


# --- solved-win: the retrograde solution (FlipFlop 3x3) ---------------------------------------


def _solved_win(game: Game, spec: PuzzleSpec, rng: random.Random) -> _Found:
    """A random game without repeated positions; a random one of its positions where exactly
    one move wins within ``spec.max_moves`` moves."""
    solution = catalog.solution(game)
    state = game.new_initial_state()
    seen = {state.key()}
    candidates: list[tuple[State, list[MoveValue], int]] = []
    while not state.is_terminal():
        value = solution.value(state)
        if (
            value.outcome == "win"
            and value.remoteness is not None
            and value.remoteness <= 2 * spec.max_moves - 1
            and state.history
        ):
            scored = solution.action_values(state)
            winners = [a for a, v in scored.items() if v.outcome == "win"]
            # A forced move is no puzzle: there must be a choice, and only one that wins.
            if len(winners) == 1 and len(scored) > 1:
                values = [
                    MoveValue(
                        state.action_to_string(a),
                        best=a == winners[0],
                        outcome=v.outcome,
                        plies=v.remoteness,
                    )
                    for a, v in scored.items()
                ]
                candidates.append((state, _ordered(values), (value.remoteness + 1) // 2))
        # A game that never repeats a position: the solved values hold for any history then.
        fresh = [a for a in state.legal_actions() if state.apply(a).key() not in seen]
        if not fresh:
            break
        state = state.apply(rng.choice(fresh))
        seen.add(state.key())
    return rng.choice(candidates) if candidates else None


# --- search-endings: the compiled exact search (Rubik's Flip) --------------------------------


class _Endings:
    """A game kernel's exact search with one transposition table per process."""

    def __init__(self, game: Game) -> None:
        import numpy as np  # only when puzzles are made: the CLI's startup never loads numpy

        kernel = alphabeta.searchable(game)
        assert kernel is not None  # _finder checked
        self.kernel = kernel
        self.table: npt.NDArray[np.int64] = np.zeros(_TABLE_ENTRIES, dtype=np.int64)
        self.stats: npt.NDArray[np.int64] = np.zeros(3, dtype=np.int64)

    def turn_values(self, state: State) -> dict[int, int]:
        """Each legal turn's exact value for the mover: +1 win, 0 draw, -1 loss."""
        values = {}
        for action, child, terminal in self.kernel.children(self.kernel.position(state)):
            if terminal is not None:
                values[action] = -terminal
            else:
                values[action] = -self.kernel.search(child, -1, 1, self.table, self.stats)
        return values

    def wins_within(self, position: int, turns: int) -> bool:
        """True when the side to move at ``position`` can force a win within ``turns`` of its
        own turns, whatever the opponent does (exhaustive, depth-limited)."""
        for _, child, terminal in self.kernel.children(position):
            if terminal is not None:
                if terminal == -1:  # the opponent, to move at the end, has lost
                    return True
            elif turns > 1 and self._all_replies_lose(child, turns - 1):
                return True
        return False

    def _all_replies_lose(self, position: int, turns: int) -> bool:
        for _, child, terminal in self.kernel.children(position):
            if terminal is not None:
                if terminal != 1:  # the original mover, to move at the end, has not won
                    return False
            elif not self.wins_within(child, turns):
                return False
        return True


_endings: dict[Game, _Endings] = {}


def _search_endings(game: Game, spec: PuzzleSpec, rng: random.Random) -> _Found:
    """A random game; a random one of its endings (``spec.moves_left`` from
    ``spec.min_moves`` to ``spec.max_moves``) where exactly one move wins."""
    moves_left = spec.moves_left
    assert moves_left is not None  # PuzzleSpec checked
    endings = _endings.get(game)
    if endings is None:
        endings = _endings[game] = _Endings(game)
    state = game.new_initial_state()
    tested: list[State] = []
    while not state.is_terminal():
        if spec.min_moves <= moves_left(state) <= spec.max_moves:
            tested.append(state)
        state = state.apply(rng.choice(state.legal_actions()))
    rng.shuffle(tested)
    for position in tested:
        values = endings.turn_values(position)
        winners = [a for a, v in values.items() if v == 1]
        if len(winners) != 1:
            continue
        packed = endings.kernel.position(position)
        moves = next(n for n in range(1, spec.max_moves + 1) if endings.wins_within(packed, n))
        outcome = {1: "win", 0: "draw", -1: "loss"}
        return (
            position,
            _ordered(
                [
                    MoveValue(
                        position.action_to_string(a),
                        best=a == winners[0],
                        outcome=outcome[v],
                        plies=2 * moves - 1 if a == winners[0] else None,
                    )
                    for a, v in values.items()
                ]
            ),
            moves,
        )
    return None


# --- best-choice: the stochastic solution (Checkered Flag) -----------------------------------


def _best_choice(game: Game, spec: PuzzleSpec, rng: random.Random) -> _Found:
    """A random game (random choices, chance outcomes drawn with their odds); a random one of
    its choices where one action's exact chance to win beats every other by
    :data:`MIN_MARGIN`."""
    solution = catalog.solution(game)
    candidates: list[tuple[State, list[MoveValue], None]] = []
    for state in random_choices(game, rng):
        odds = {a: v.win for a, v in solution.action_values(state).items()}
        ranked = sorted(odds.values(), reverse=True)
        if ranked[0] - ranked[1] >= MIN_MARGIN:
            best = max(odds, key=lambda a: odds[a])
            values = [
                MoveValue(state.action_to_string(a), best=a == best, win=w) for a, w in odds.items()
            ]
            candidates.append((state, _ordered(values), None))
    return rng.choice(candidates) if candidates else None
