"""Hidden tiles: "a face-down Flip Switch tile is unknown to everyone until flipped; no API,
log, record or page may reveal it early". The state holds revealed shapes only; the shape a
flip shows is a chance outcome drawn when it is applied, never before.
"""

from __future__ import annotations

import ast
import json
import pickle
import random
from collections.abc import Callable
from pathlib import Path

from flipgames import make
from flipgames.core.game import State, random_action
from flipgames.core.record import make_record
from flipgames.games import flip_switch
from flipgames.games.flip_switch.rules import FlipSwitchState

Play = Callable[..., FlipSwitchState]


def views(state: State) -> tuple[object, ...]:
    """Everything the public API shows about a state, plus its complete pickled bytes."""
    return (
        [state.observation(v) for v in (0, 1, None)],
        json.dumps(state.to_json()),
        json.dumps(make_record(state)),
        state.key(),
        state.render(),
        state.legal_actions(),
        state.legal_actions_info(),
        [state.observation_tensor(p).tobytes() for p in (0, 1)],
        state.legal_action_mask().tobytes(),
        pickle.dumps(state),
    )


def random_game(seed: int, actions: list[int] | None = None) -> list[State]:
    """Every state of a random game; ``actions`` forces its first actions."""
    rng = random.Random(seed)
    state = make("flip-switch", rounds=2).new_initial_state()
    states = [state]
    for forced in actions or []:
        state = state.apply(forced)
        states.append(state)
    while not state.is_terminal():
        state = state.apply(random_action(state, rng))
        states.append(state)
    return states


def test_a_face_down_tile_is_one_tensor_plane_and_never_a_shape() -> None:
    """In the observation tensor a face-down square is marked in plane 0 only: every shape
    plane is empty there, at chance nodes (the flip being revealed) as elsewhere."""
    shapes = len(make("flip-switch").layout.shapes)
    for state in random_game(5):
        grid = state.observation(None)["board"]["grid"]
        for player in (0, 1):
            planes = state.observation_tensor(player)
            for rank, row in enumerate(grid):
                for file, shape in enumerate(row):
                    shown = planes[1 : 1 + shapes, rank, file]
                    if shape is None:
                        assert planes[0, rank, file] == 1 and not shown.any()
                    else:
                        assert planes[0, rank, file] == 0 and shown.sum() == 1


def test_two_random_futures_look_identical_up_to_the_divergence_point() -> None:
    """Two games that share their first actions and then reveal different shapes are
    indistinguishable, through every view and the pickled state, before the reveal."""
    first = random_game(11)
    chance_at = [i for i, s in enumerate(first[:-1]) if s.is_chance_node()][3]
    node = first[chance_at]
    taken = first[chance_at + 1].history[-1]
    other = next(a for a in node.legal_actions() if a != taken)
    second = random_game(12, [*first[chance_at].history, other])
    for one, two in zip(first[: chance_at + 1], second[: chance_at + 1], strict=True):
        assert views(one) == views(two)
    assert views(first[chance_at + 1]) != views(second[chance_at + 1])


def test_observation_shows_face_down_squares_as_null(play: Play) -> None:
    """Observations carry no value for a face-down square, for players and spectators."""
    state = play("a1 heart b2 star c3")
    for viewer in (0, 1, None):
        board = state.observation(viewer)["board"]["grid"]
        assert board == [["heart", None, None], [None, "star", None], [None, None, None]]


def test_state_json_after_a_flip_decision_does_not_contain_the_outcome(play: Play) -> None:
    """Between choosing a square and the reveal, the state names only the square: its JSON
    ends with the flip, b2 is still null, and any outcome leaves every view unchanged."""
    node = play("a1 heart b2")
    assert node.to_json() == {
        "game": "flip-switch",
        "options": dict(node.game.options),
        "actions": ["a1", "heart", "b2"],
    }
    assert node.observation(None)["board"]["grid"][1][1] is None
    before = views(node)
    children = [node.apply(outcome) for outcome in node.legal_actions()]
    assert len({str(views(child)) for child in children}) == 3
    assert views(node) == before == views(play("a1 heart b2"))


def test_every_state_holds_only_tiles_that_were_revealed() -> None:
    """The board shows exactly as many shapes as chance outcomes were applied this round."""
    revealed, round_number = 0, 1
    for state in random_game(3):
        obs = state.observation(None)["board"]
        if obs["round"] != round_number:
            revealed, round_number = 0, obs["round"]
        shown = sum(cell is not None for row in obs["grid"] for cell in row)
        assert shown == revealed
        if state.is_chance_node():
            revealed += 1


def test_nothing_is_shuffled_or_dealt_inside_the_game() -> None:
    """No shuffled grid exists: the game package imports no random generator and never
    shuffles or permutes. (Its compiled kernels draw a flip's shape from the caller's
    generator at that flip's chance node only; tests/kernels and tests/envs/test_vector.py
    check that by behaviour, e.g. test_a_flip_switch_shape_is_drawn_when_the_tile_is_flipped.)"""
    for source in Path(flip_switch.__file__).parent.glob("*.py"):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                names = []
            assert not any(n == "random" or n.startswith("numpy.random") for n in names), (
                source.name
            )
            if isinstance(node, ast.Attribute | ast.Name):
                name = node.attr if isinstance(node, ast.Attribute) else node.id
                assert name not in {"shuffle", "permutation", "default_rng"}, source.name
