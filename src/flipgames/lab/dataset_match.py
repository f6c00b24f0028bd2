"""The rows of a match of rounds for :mod:`flipgames.lab.dataset`: every round position in
every match situation, valued by adding the rounds (:class:`~flipgames.solvers.ground_truth.
MatchOracle`).

A match position looks like a round position plus the match so far: which round it is and the
rounds each player has won (Flip Switch shows those on two planes). The rows come situation by
situation in match order (round 1; round 2 after each result of round 1; round 3 after each
pair of rounds won, ...), one row of each in turn, so a limit keeps the positions nearest the
round's start in every situation. A situation is reached by playing earlier rounds to the
wanted results, then every position of the round is walked breadth first from its start, in
step on the one-round game (whose solution answers it) and on the match (whose observation
is shown).
Earlier rounds are played to their results by action sequences found in the one-round game
from ``seed`` (random play, and random choices among the solver's best actions, which draw).

>>> from flipgames import make
>>> from flipgames.solvers.ground_truth import oracle
>>> found = oracle(make("flip-switch", rounds=2))
>>> situations(2)
[(0, 0, 0), (1, 0, 0), (1, 0, 1), (1, 1, 0)]
>>> sorted(round_endings(found.round, seed=0))
[-1, 0, 1]
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Hashable, Iterator
from dataclasses import replace

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import State, sample_chance
from flipgames.core.match import MatchPosition
from flipgames.solvers.ground_truth import Answer, MatchOracle, Oracle

#: Plays tried to find a round ending of each kind before giving up.
_TRIES = 2_000
#: Plies after which a try is abandoned (a round that cycles is drawn well before).
_LONGEST = 5_000


def situations(rounds: int) -> list[tuple[int, int, int]]:
    """``(round index, rounds won by player 0, by player 1)`` of every situation a match of
    ``rounds`` rounds can be in, in match order."""
    return [(r, a, b) for r in range(rounds) for a in range(r + 1) for b in range(r + 1 - a)]


def round_endings(single: Oracle, seed: int) -> dict[int, tuple[int, ...]]:
    """Per result of one round for its first player (+1, 0, -1), actions from the round's
    start that end it so, found by seeded play (uniformly random, or random among the
    solver's best actions)."""
    rng = random.Random(seed)
    found: dict[int, tuple[int, ...]] = {}
    for attempt in range(_TRIES):
        state = single.game.new_initial_state()
        while not state.is_terminal() and len(state.history) < _LONGEST:
            if state.is_chance_node():
                state = state.apply(sample_chance(state, rng))
                continue
            answer = single.answer(state) if attempt % 2 else None
            choices = answer.best if answer is not None else state.legal_actions()
            state = state.apply(rng.choice(choices))
        if state.is_terminal():
            found.setdefault(state.returns()[0], state.history)
        if len(found) == 3:
            return found
    raise FlipgamesError(
        f"{single.game.name}: no round ending in each result was found in {_TRIES} plays"
    )


def rows(found: MatchOracle, seed: int) -> Iterator[tuple[State, Answer]]:
    """Every situation's round positions with their match ground truth (module docstring)."""
    start = found.game.new_initial_state()
    total = len(found.split(start).later) + 1
    endings = round_endings(found.round, seed)
    cache: dict[Hashable, Answer] = {}
    walks = [_situation(found, start, total, endings, cache, *s) for s in situations(total)]
    # One row of each situation in turn, so a limit keeps the nearest each round's start in
    # every situation.
    while walks:
        for walk in list(walks):
            row = next(walk, None)
            if row is None:
                walks.remove(walk)
            else:
                yield row


def _situation(
    found: MatchOracle,
    start: State,
    total: int,
    endings: dict[int, tuple[int, ...]],
    cache: dict[Hashable, Answer],
    index: int,
    won: int,
    lost: int,
) -> Iterator[tuple[State, Answer]]:
    """The rows of round ``index`` after ``won`` and ``lost`` rounds of player 0's."""
    # Earlier rounds: player 0 wins the first `won`, player 1 the next `lost`, the rest are
    # drawn. Round k's first player is match player k % 2.
    state = start
    for k in range(index):
        result = 1 if k < won else -1 if k < won + lost else 0
        for action in endings[result if k % 2 == 0 else -result]:
            state = state.apply(action)
    seen = found.split(state)
    if seen.score != won - lost or len(seen.later) != total - index - 1:
        raise FlipgamesError(f"{found.game.name}: round {index + 1} was not reached as planned")
    yield from _walk_round(found, seen.round_state, state, cache, seen)


def _walk_round(
    found: MatchOracle,
    single: State | None,
    match: State,
    cache: dict[Hashable, Answer],
    context: MatchPosition,
) -> Iterator[tuple[State, Answer]]:
    """Breadth first through one round, in step on the one-round game and the match."""
    assert single is not None
    keys = {found.round.key(single)}
    queue = deque([(single, match)])
    while queue:
        single, match = queue.popleft()
        if single.is_terminal():
            continue  # the match has gone on to its next round (or ended)
        if not single.is_chance_node():
            key = found.round.key(single)
            inner = cache.get(key) or found.round.answer(single)
            if inner is None:
                raise FlipgamesError(f"{found.game.name}: the round's solution lacks a position")
            cache[key] = inner
            position = replace(context, round_state=single)
            yield match, found.compose(position, match.current_player, inner)
        for action in single.legal_actions():
            child = single.apply(action)
            key = found.round.key(child)
            if key not in keys:
                keys.add(key)
                queue.append((child, match.apply(action)))
