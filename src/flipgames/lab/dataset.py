"""``flipgames dataset``: solved positions as numpy arrays in one ``.npz`` file.

Every row is one position where a player is to move (chance nodes and finished positions
are left out: an environment never shows them to an agent), with the observation tensor of
the player to move (``State.observation_tensor(player)``, what the environments give that
seat), the legal-action mask, and the solver's value, probabilities, remoteness, best-action
mask and per-action values for that player (:mod:`flipgames.solvers.ground_truth`).

Which positions:

* a game with a whole solution (FlipFlop 3x3, a Flip Switch round, Checkered Flag): every
  position of the solution, one row per solver position, in breadth-first order from the
  start, so ``limit`` keeps the shallowest. Where the solver folds symmetric images into one
  position (FlipFlop 3x3's mirror, Flip Switch's 48 symmetries) the row is the image met
  first, reached along a shortest path (so the path repeats no position);
* a match of rounds whose single round is solved (Flip Switch with ``rounds`` > 1): every
  round position in every situation of the match (which round, rounds won so far), valued by
  adding the rounds (:mod:`flipgames.lab.dataset_match`), at most :data:`MATCH_ROWS` unless
  ``limit`` says otherwise;
* a game proved by search (Rubik's Flip by alpha-beta; FlipFour and FlipFlop 5x5 by the
  df-pn prover, :mod:`flipgames.solvers.ground_truth_dfpn`): positions of seeded random games
  whose every action the exact search values within ``max_nodes`` nodes, found from each
  game's end backwards (earlier positions cost more to search; the first that fails ends that
  game's walk; a position the solver never takes, one after a repetition for df-pn, is
  passed over), one row per position up to symmetry, until ``limit`` rows (Rubik's Flip's
  start too, from the cached proof, when ``flipgames solve`` has made it).

Each row also has ``history``: the action ids from the start that reach it (chance outcomes
included), padded with -1, so ``game.new_initial_state()`` and ``apply`` rebuild its state.

>>> import tempfile, pathlib
>>> import numpy as np
>>> from flipgames import make
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> summary = export(make("checkered-flag", track="short", start="first"), folder / "cf.npz")
>>> summary.rows, summary.complete
(3597, True)
>>> data = np.load(folder / "cf.npz")
>>> data["observation"].shape, str(data["solver"]), round(float(data["value"][0]), 4)
((3597, 51), 'stochastic', 0.1912)
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
from collections import deque
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgames import __version__
from flipgames.core.errors import FlipgamesError, quote_path
from flipgames.core.game import Game, State
from flipgames.core.manifest import manifest_of
from flipgames.core.progress import Progress, silent

if TYPE_CHECKING:
    import numpy.typing as npt

    from flipgames.solvers.ground_truth import Answer, Oracle

#: Bump when the arrays or their meaning change (the file's ``format`` entry).
FORMAT = 1
#: Rows of a game proved by search when no ``limit`` is given.
SAMPLED_ROWS = 1_000
#: Rows of a match of rounds when no ``limit`` is given (a Flip Switch match of 3 rounds has
#: 10 situations of 95,628 round positions each; this is round 1 and some of round 2).
MATCH_ROWS = 100_000
#: Nodes the exact search may spend on one position of a dataset (about 0.2 s).
DATASET_NODES = 250_000

#: What each array holds, stored in the file as ``arrays`` (JSON).
ARRAYS = {
    "observation": "float32 (N, *observation_shape): the observation tensor of the player to "
    "move, State.observation_tensor(player); the layout is observation_layout",
    "legal_mask": "int8 (N, num_distinct_actions): 1 at the legal action ids",
    "best_mask": "int8 (N, num_distinct_actions): 1 at the solver's best actions",
    "action_value": "float32 (N, num_distinct_actions): each legal action's value for the "
    "player to move (exact expected return, as float), NaN at illegal ids",
    "value": "float64 (N,): the position's exact expected return for the player to move "
    "(+1 win, 0 draw, -1 loss in a deterministic game)",
    "value_fraction": "str (N,): the same value exactly, as 'numerator/denominator'",
    "win": "float64 (N,): the probability that the player to move wins under the solver's "
    "canonical optimal strategies",
    "draw": "float64 (N,): the same for a draw",
    "loss": "float64 (N,): the same for a loss",
    "remoteness": "int32 (N,): plies to the end under perfect play (winner hurrying, loser "
    "delaying) where the solver knows it, else -1",
    "player": "int8 (N,): the player to move (0 or 1), whose view the row is",
    "history": "int16 (N, L): the action ids from the start that reach the row's position "
    "(chance outcomes included), padded with -1",
}


class DatasetError(FlipgamesError, ValueError):
    """A dataset that cannot be written as asked (the message says why)."""


@dataclass(frozen=True)
class Summary:
    """What :func:`export` wrote."""

    path: Path
    rows: int
    solver: str
    #: True when the rows are every position of the solution where a player is to move.
    complete: bool
    #: True when the rows are positions of seeded random games (a game proved by search).
    sampled: bool
    #: Positions the search tried and could not finish (a game proved by search).
    unanswered: int


def _walk(found: Oracle, start: State) -> Iterator[tuple[State, Answer]]:
    """Breadth first from ``start``, each solver position once: its first image met."""
    seen: set[Hashable] = {found.key(start)}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            answer = found.answer(state)
            if answer is None:
                raise DatasetError(f"{found.game.name}: the solution lacks a reachable position")
            yield state, answer
        for action in state.legal_actions():
            child = state.apply(action)
            key = found.key(child)
            if key not in seen:
                seen.add(key)
                queue.append(child)


class _Sampler:
    """Positions of seeded random games answered by a search, from each game's end back."""

    #: Games in a row that add no row before the sampler gives up (every position seen).
    PATIENCE = 1_000

    def __init__(self, found: Oracle, seed: int) -> None:
        self.found = found
        self.rng = random.Random(seed)
        self.seen: set[Hashable] = set()
        self.unanswered = 0

    def rows(self) -> Iterator[tuple[State, Answer]]:
        idle = 0
        while idle < self.PATIENCE:
            line = [self.found.game.new_initial_state()]
            while not line[-1].is_terminal():
                state = line[-1]
                line.append(state.apply(self.rng.choice(state.legal_actions())))
            idle += 1
            for state in reversed(line[:-1]):
                key = self.found.key(state)
                if key in self.seen or state.is_chance_node() or self.found.cannot_answer(state):
                    continue
                answer = self.found.answer(state)
                if answer is None:
                    self.unanswered += 1
                    break  # earlier positions cost more still
                self.seen.add(key)
                idle = 0
                yield state, answer


def commit() -> str:
    """The git commit of the flipgames source, or "" when it is not a git checkout."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def observation_layout(game: Game) -> str:
    """The observation tensor's layout: the docstring of the game's ``tensor`` module (each
    game package has one), else where its rules page is."""
    package = type(game).__module__.rpartition(".")[0]
    try:
        doc = importlib.import_module(f"{package}.tensor").__doc__
    except ImportError:
        doc = None
    shape = f"shape {game.observation_tensor_shape}, float32"
    if not doc:
        return f"{shape}; see docs/games/{manifest_of(game).docs}.md"
    return f"{shape}\n\n{doc.split('>>>')[0].strip()}"


def _check_target(path: Path) -> None:
    if path.suffix != ".npz":
        raise DatasetError(f"{quote_path(path)}: name a .npz file (numpy's archive)")
    if path.is_dir():
        raise DatasetError(f"{quote_path(path)} is a folder: name a .npz file in it")
    if not path.parent.is_dir():
        raise DatasetError(
            f"{quote_path(path)}: the folder {quote_path(path.parent)} does not exist"
        )
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise DatasetError(f"{quote_path(path)}: no permission to write in that folder")


def export(
    game: Game,
    path: str | Path,
    *,
    limit: int | None = None,
    seed: int = 0,
    max_nodes: int = DATASET_NODES,
    progress: Progress = silent,
) -> Summary:
    """Write ``game``'s dataset to ``path`` (see the module docstring): at most ``limit``
    rows (default: every position of a solution, :data:`MATCH_ROWS` for a match,
    :data:`SAMPLED_ROWS` for a game proved by search, whose positions come from games seeded
    by ``seed``; a match's earlier rounds are played by endings found from ``seed``). The
    path is checked and the game's solver found before anything is computed; the file
    appears only when complete."""
    target = Path(path)
    _check_target(target)
    if limit is not None and limit < 1:
        raise DatasetError(f"limit must be at least 1, got {limit}")
    # Imported here: the command line's startup (``flipgames --help``) loads no numpy.
    from flipgames.lab import dataset_match
    from flipgames.solvers.ground_truth import MatchOracle, oracle

    found = oracle(game, progress, max_nodes)
    sampler = None if found.exhaustive else _Sampler(found, seed)
    source = _walk(found, game.new_initial_state()) if sampler is None else sampler.rows()
    wanted = limit if limit is not None or sampler is None else SAMPLED_ROWS
    if isinstance(found, MatchOracle):
        source = dataset_match.rows(found, seed)
        wanted = MATCH_ROWS if limit is None else limit
    states: list[State] = []
    rows: list[Answer] = []
    complete = True
    # A sampled row costs a search (up to a second), a solution's row almost nothing.
    every = 1 if sampler is not None else 1_000
    for state, answer in source:
        if wanted is not None and len(rows) == wanted:
            complete = False
            break
        states.append(state)
        rows.append(answer)
        if len(rows) % every == 0:
            progress("positions", done=len(rows), total=wanted)
    progress("positions", done=len(rows), total=len(rows))
    complete = sampler is None and complete
    _write(target, game, found.solver, states, rows, complete, None if sampler is None else seed)
    unanswered = 0 if sampler is None else sampler.unanswered
    return Summary(target, len(rows), found.solver, complete, sampler is not None, unanswered)


def _write(
    target: Path,
    game: Game,
    solver: str,
    states: list[State],
    rows: list[Answer],
    complete: bool,
    seed: int | None,
) -> None:
    import numpy as np

    from flipgames.solvers.ground_truth import to_arrays

    truth = to_arrays(game, solver, rows)
    length = max((len(s.history) for s in states), default=0)
    history = np.full((len(states), length), -1, dtype=np.int16)
    for i, state in enumerate(states):
        history[i, : len(state.history)] = state.history
    shape = (len(states), *game.observation_tensor_shape)
    observation = np.zeros(shape, dtype=np.float32)
    for i, (state, row) in enumerate(zip(states, rows, strict=True)):
        observation[i] = state.observation_tensor(row.player)
    arrays: dict[str, npt.NDArray[Any]] = {
        "observation": observation,
        "legal_mask": truth.legal,
        "best_mask": truth.best,
        "action_value": truth.action_value,
        "value": truth.value,
        "value_fraction": np.array([f"{v.numerator}/{v.denominator}" for v in truth.expected]),
        "win": truth.win,
        "draw": truth.draw,
        "loss": truth.loss,
        "remoteness": truth.remoteness,
        "player": truth.player,
        "history": history,
    }
    meta = {
        "format": str(FORMAT),
        "game": game.name,
        "title": game.title,
        "options": json.dumps(dict(game.options), sort_keys=True),
        "solver": solver,
        "complete": str(complete).lower(),
        # The seed of the random games a sampled dataset's positions come from.
        "seed": "" if seed is None else str(seed),
        "flipgames_version": __version__,
        "commit": commit(),
        "observation_layout": observation_layout(game),
        "arrays": json.dumps(ARRAYS),
    }
    partial = target.with_name(target.name + ".partial")
    try:
        with partial.open("wb") as out:
            arrays.update((name, np.array(text)) for name, text in meta.items())
            np.savez_compressed(out, allow_pickle=False, **arrays)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
