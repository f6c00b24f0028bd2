"""A conformance kit: random-simulation invariants every game must satisfy.

Tests run it over the whole registry; a new game gets the same checks for free.

>>> from flipgames import make
>>> stats = check_random_games(make("flipflop-3x3"), games=5, seed=1)
>>> stats.games
5
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError
from flipgames.core.game import (
    CHANCE,
    OBSERVATION_KEYS,
    STATUS_CODES,
    TERMINAL,
    Game,
    State,
    random_action,
)
from flipgames.core.record import dumps_record, make_record, replay_record, state_from_json


class ConformanceError(AssertionError):
    """An invariant of the game protocol does not hold."""


@dataclass
class SimulationStats:
    """What a batch of random games did, for tests to assert on."""

    games: int = 0
    plies: int = 0
    results: dict[str, int] = field(default_factory=dict)
    max_length: int = 0


def _check(condition: bool, message: str, state: State) -> None:
    if not condition:
        raise ConformanceError(
            f"{state.game!r} after {state.history_notation()}: {message}\n{state.render()}"
        )


def check_state(state: State) -> None:
    """Check the per-state invariants of the protocol on one state."""
    game = state.game
    player = state.current_player
    legal = state.legal_actions()
    _check(player in (CHANCE, TERMINAL) or 0 <= player < game.num_players, "bad player", state)
    _check(list(legal) == sorted(set(legal)), "legal actions not sorted and unique", state)
    _check((len(legal) == 0) == state.is_terminal(), "no legal action iff terminal", state)
    reason = state.end_reason()
    ended = isinstance(reason, Termination) if state.is_terminal() else reason is None
    _check(ended, f"end_reason is a Termination iff terminal (got {reason!r})", state)
    returns = state.returns()
    _check(len(returns) == game.num_players, "returns has one entry per player", state)
    _check(sum(returns) == 0, "returns are zero-sum", state)
    _check(all(r in (-1, 0, 1) for r in returns), "returns are +1/0/-1", state)
    if not state.is_terminal():
        _check(all(r == 0 for r in returns), "returns are zero before the end", state)
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        _check(all(p > 0 for _, p in outcomes), "chance probabilities positive", state)
        _check(sum((p for _, p in outcomes), Fraction(0)) == 1, "probabilities sum to 1", state)
        _check(tuple(a for a, _ in outcomes) == legal, "outcomes are the legal actions", state)
    if state.is_chance_node():
        _check(len(legal) <= game.max_chance_outcomes, "at most max_chance_outcomes", state)
    _check(all(0 <= a < game.num_distinct_actions for a in legal), "ids in range", state)
    for action in legal:
        text = state.action_to_string(action)
        _check(state.parse_action(text) == action, f"notation {text!r} round-trips", state)
        info = state.action_info(action)
        _check(info["id"] == action and info["text"] == text, "action_info names the action", state)
        _check(info["chance"] == state.is_chance_node(), "action_info says chance", state)
        _check(isinstance(info.get("kind"), str), "action_info has a kind", state)
        json.dumps(info)
    clone = state.clone()
    _check(clone == state and clone.key() == state.key(), "clone equals original", state)
    for viewer in (*range(game.num_players), None):
        check_observation(state, viewer)
    check_tensors(state)
    before = (state.key(), state.history)
    illegal = max(legal, default=0) + 1000
    try:
        state.apply(illegal)
    except IllegalActionError:
        pass
    else:
        _check(False, f"illegal action id {illegal} was accepted", state)
    _check((state.key(), state.history) == before, "rejected action changed nothing", state)


def check_observation(state: State, viewer: int | None) -> None:
    """Check the observation envelope: the same keys for every game, consistent with the
    state, and JSON-able."""
    obs = state.observation(viewer)
    json.dumps(obs)
    _check(tuple(obs) == OBSERVATION_KEYS, f"envelope keys are {OBSERVATION_KEYS}", state)
    _check(obs["game"] == state.game.name and obs["viewer"] == viewer, "game and viewer", state)
    player = state.current_player
    _check(obs["to_move"] == (player if player >= 0 else None), "to_move", state)
    _check(obs["status"] in STATUS_CODES, "status is a code", state)
    expected = {CHANCE: "chance", TERMINAL: "won" if any(state.returns()) else "drawn"}
    _check(obs["status"] == expected.get(player, "playing"), "status code fits", state)
    _check(isinstance(obs["status_text"], str) and obs["status_text"] != "", "status_text", state)
    _check(obs["result"] == state.result(), "result", state)
    legal_text = [state.action_to_string(a) for a in state.legal_actions()]
    _check(obs["legal"] == legal_text, "legal is the legal actions in notation", state)
    _check(isinstance(obs["board"], dict), "board is an object", state)


def check_tensors(state: State) -> None:
    """Check the observation tensor's shape and dtype for every player and that the legal
    action mask is exactly the legal set."""
    game = state.game
    for player in range(game.num_players):
        tensor = state.observation_tensor(player)
        _check(tensor.shape == game.observation_tensor_shape, "tensor shape", state)
        _check(tensor.dtype == np.float32, "tensor dtype float32", state)
        _check(bool(np.isfinite(tensor).all()), "tensor finite", state)
    mask = state.legal_action_mask()
    _check(mask.shape == (game.num_distinct_actions,), "mask length", state)
    _check(
        tuple(int(a) for a in np.flatnonzero(mask)) == state.legal_actions(),
        "mask is the legal set",
        state,
    )


def random_game(game: Game, rng: random.Random, max_plies: int = 20_000) -> State:
    """Play one uniformly random game to the end and return the final state."""
    state = game.new_initial_state()
    for _ in range(max_plies):
        if state.is_terminal():
            return state
        state = state.apply(random_action(state, rng))
    raise ConformanceError(f"{game!r}: a random game did not end within {max_plies} plies")


def check_random_games(game: Game, games: int, seed: int, deep_checks: int = 20) -> SimulationStats:
    """Play ``games`` random games checking the invariants.

    Every state of the first ``deep_checks`` games gets :func:`check_state`; their first 40
    states and every 40th after that also a JSON round-trip (which replays the whole game, so
    doing it at every state of a long game would cost its length squared). Every game's final
    state is round-tripped as a state and as a record.
    """
    rng = random.Random(seed)
    stats = SimulationStats()
    for index in range(games):
        deep = index < deep_checks
        state = game.new_initial_state()
        ply = 0
        while True:
            if deep:
                check_state(state)
                if ply < 40 or ply % 40 == 0:
                    restored = state_from_json(json.dumps(state.to_json()))
                    _check(restored == state, "serialisation round-trips", state)
            if state.is_terminal():
                break
            action = random_action(state, rng)
            state = state.apply(action)
            ply += 1
        stats.plies += ply
        check_state(state)
        replayed = replay_record(dumps_record(make_record(state, seed=seed)))
        _check(replayed == state, "record replays to the same final state", state)
        stats.games += 1
        if not game.game_length_capped:
            _check(len(state.history) <= game.max_game_length, "max_game_length bounds", state)
        stats.max_length = max(stats.max_length, len(state.history))
        stats.results[state.result()] = stats.results.get(state.result(), 0) + 1
    return stats
