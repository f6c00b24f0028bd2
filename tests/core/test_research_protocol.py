"""The protocol as data (action-space size, chance, length, rules version, read-only options),
the per-game manifests, the observation envelope, structured actions, tensors and masks."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from flipgames import IllegalActionError, game_names, make
from flipgames.agents.levels import describe_level, levels_for
from flipgames.core.conformance import random_game
from flipgames.core.game import OBSERVATION_KEYS, State
from flipgames.core.manifest import SEARCH_LEVELS, LevelSpec, Manifest, PuzzleSpec, manifest_for
from flipgames.solvers.catalog import is_solved

ROOT = Path(__file__).resolve().parents[2]

# The figures the issue and the notation modules state, per game and option set.
ACTION_SPACE = [
    ("flipflop", {}, 625),
    ("flipflop-3x3", {}, 81),
    ("flipfour", {}, 370),
    ("rubiks-flip", {}, 544),
    ("rubiks-flip", {"flip": "flap"}, 2080),
    ("flip-switch", {}, 25),
    ("checkered-flag", {}, 68),
]


@pytest.mark.parametrize(("name", "options", "size"), ACTION_SPACE)
def test_every_game_declares_its_action_space_size(name, options, size):
    assert make(name, options).num_distinct_actions == size


def test_chance_games_declare_their_largest_chance_node():
    assert make("flip-switch").max_chance_outcomes == 3
    assert make("flip-switch", size=4, shapes=4, copies=4).max_chance_outcomes == 4
    # 30 ordered start pairs without ties against 18 A+B pairs.
    assert make("checkered-flag").max_chance_outcomes == 30
    assert make("checkered-flag", start="first").max_chance_outcomes == 18
    assert make("flipflop").max_chance_outcomes == 0


def test_game_lengths_are_bounds_or_declared_caps():
    assert make("rubiks-flip").max_game_length == 16
    assert not make("rubiks-flip").game_length_capped
    for name in ("flipflop", "flipflop-3x3", "flipfour", "flip-switch", "checkered-flag"):
        assert make(name).game_length_capped, name
    one_round, one_lap = make("flip-switch", rounds=1), make("checkered-flag", laps=1)
    assert make("flip-switch", rounds=3).max_game_length == 3 * one_round.max_game_length
    assert make("checkered-flag", laps=2).max_game_length == 2 * one_lap.max_game_length


@pytest.mark.parametrize("name", [n for n in game_names() if make(n).game_length_capped])
def test_caps_are_far_beyond_random_games(name):
    """A cap that ordinary games reach would change results: random games stay well below."""
    game = make(name)
    rng = random.Random(5)
    longest = max(len(random_game(game, rng).history) for _ in range(20))
    assert longest * 1.5 < game.max_game_length


@pytest.mark.parametrize("name", game_names())
def test_rules_version_is_a_positive_integer(name):
    version = make(name).rules_version
    assert isinstance(version, int) and version >= 1


def test_options_are_read_only_and_games_stay_hashable():
    game = make("checkered-flag", laps=2)
    with pytest.raises(TypeError, match="read-only"):
        game.options["laps"] = 3  # type: ignore[index]
    with pytest.raises(TypeError, match="read-only"):
        game.options.update(laps=3)
    assert game.options["laps"] == 2
    table = {game: "cached"}
    assert table[make("checkered-flag", laps=2)] == "cached"
    assert json.loads(json.dumps(game.options))["laps"] == 2
    assert pickle.loads(pickle.dumps(game.options)) == game.options


# --- manifests -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", game_names())
def test_every_registered_game_has_a_manifest_board_module_docs_page_and_playthrough(name):
    """Adding a game means its package, its registry line, its board module and its tests:
    this test names whichever of them is missing."""
    manifest = manifest_for(name)
    assert isinstance(manifest, Manifest)
    board = ROOT / "src" / "flipgames" / "web" / "static" / "boards" / f"{manifest.board}.js"
    assert board.is_file(), f"{name}: no board module {board}"
    assert "export function createBoard" in board.read_text()
    docs = ROOT / "docs" / "games" / f"{manifest.docs}.md"
    assert docs.is_file(), f"{name}: no docs page {docs}"
    playthrough = ROOT / "tests" / "playthroughs" / f"{name}.txt"
    assert playthrough.is_file(), f"{name}: no golden playthrough {playthrough}"
    assert manifest.pitch.strip()
    assert tuple(manifest.levels) == SEARCH_LEVELS


def test_manifests_decide_solvability_and_levels(monkeypatch):
    assert is_solved(make("flipflop-3x3")) and is_solved(make("checkered-flag", laps=3))
    assert is_solved(make("flip-switch", rounds=1, lines="edges", no_move="pass"))
    assert not is_solved(make("flip-switch", rounds=2))
    assert not is_solved(make("flipflop")) and not is_solved(make("rubiks-flip"))
    assert levels_for(make("flip-switch", rounds=2)) == ["easy", "medium", "hard"]
    hard = describe_level(make("rubiks-flip"), "hard")
    # Rubik's Flip is proved, so its hard searches exactly where it can, else alpha-beta.
    assert hard.startswith("exact search wherever it answers in time")
    assert "compiled alpha-beta" in hard and "0.9 CPU s a move" in hard
    assert describe_level(make("flipfour"), "hard").startswith("compiled alpha-beta")
    assert describe_level(make("flip-switch"), "hard").startswith("expectiminimax to depth 8")
    # Without kernels the manifest's budgets for the reference search apply.
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    assert describe_level(make("rubiks-flip"), "hard").startswith("alpha-beta to depth 5")
    assert describe_level(make("checkered-flag"), "easy").startswith("MCTS (UCT), 30 iterations")


def test_manifests_are_read_only_and_checked():
    manifest = manifest_for("flipflop-3x3")
    with pytest.raises(TypeError):
        manifest.levels["easy"] = LevelSpec("mcts", iterations=1)  # type: ignore[index]
    with pytest.raises(ValueError, match="unknown agent kind"):
        LevelSpec("minimax", depth=2)
    facts = {"game": "m:C", "board": "b", "docs": "d", "pitch": "p", "art": "<svg/>"}
    with pytest.raises(ValueError, match="sets levels"):
        Manifest(**facts, levels={"easy": LevelSpec("mcts", iterations=1)}, action_kinds=("a",))
    levels = manifest.levels
    with pytest.raises(ValueError, match="names the kinds of its actions"):
        Manifest(**facts, levels=levels, action_kinds=())
    with pytest.raises(ValueError, match="unknown puzzle method"):
        PuzzleSpec("guess", kind="k", label="l")
    with pytest.raises(ValueError, match="needs moves_left"):
        PuzzleSpec("search-endings", kind="win-in-n", label="win in N")


# --- the observation envelope and structured actions ----------------------------------------


def states_of(name: str, seed: int = 3) -> list[State]:
    """Every state of one random game (a chance node included for chance games)."""
    rng = random.Random(seed)
    state = make(name).new_initial_state()
    states = [state]
    while not state.is_terminal() and len(states) < 200:
        legal = state.legal_actions()
        state = state.apply(rng.choice(legal))
        states.append(state)
    return states


@pytest.mark.parametrize("name", game_names())
def test_every_game_returns_the_same_envelope(name):
    for state in states_of(name)[:30] + states_of(name)[-1:]:
        for viewer in (0, 1, None):
            obs = state.observation(viewer)
            assert tuple(obs) == OBSERVATION_KEYS
            assert obs["viewer"] == viewer


@pytest.mark.parametrize("name", game_names())
def test_status_codes_say_playing_chance_won_or_drawn(name):
    seen = {state.observation(None)["status"] for state in states_of(name)}
    assert "playing" in seen
    assert ("chance" in seen) == make(name).has_chance
    final = states_of(name)[-1]
    if final.is_terminal():
        assert final.observation(0)["status"] == ("won" if final.result() != "1/2-1/2" else "drawn")


@pytest.mark.parametrize("name", game_names())
def test_viewers_are_players_or_a_spectator(name):
    state = make(name).new_initial_state()
    for bad in (2, -1, True, "0"):
        with pytest.raises(ValueError, match="a viewer is a player 0 to 1 or None"):
            state.observation(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a spectator"):
        state.observation_tensor(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", game_names())
def test_action_info_describes_every_legal_action(name):
    """Every kind is one the manifest declares (a random game need not meet them all)."""
    declared = set(manifest_for(name).action_kinds)
    kinds = set()
    for state in states_of(name, seed=8):
        for info in state.legal_actions_info():
            assert info["text"] == state.action_to_string(info["id"])
            assert info["chance"] == state.is_chance_node()
            assert info["kind"] in declared
            kinds.add(info["kind"])
    assert kinds <= declared and len(kinds) >= 1


def test_action_info_fields_per_game():
    flipflop = make("flipflop-3x3").new_initial_state()
    assert flipflop.action_info(flipflop.parse_action("a1-a2")) == {
        "id": 3,
        "text": "a1-a2",
        "chance": False,
        "kind": "move",
        "from": "a1",
        "to": "a2",
        "face": "rook",
    }
    flipfour = make("flipfour").state_from_actions(["R@a1", "B@e5"])
    move = flipfour.action_info(flipfour.parse_action("a1-a3"))
    assert (move["kind"], move["from"], move["to"], move["face"]) == ("move", "a1", "a3", "rook")
    switch = make("flip-switch").state_from_actions(["a1", "heart", "b1", "star"])
    info = switch.action_info(switch.parse_action("a1-b1"))
    assert (info["kind"], info["from"], info["to"]) == ("switch", "a1", "b1")
    third = make("checkered-flag", start="first").state_from_actions(
        ["1", "2", "1", "3", "2", "2", "2", "5", "3"]
    )
    spin = third.action_info(third.parse_action("2+6"))
    assert (spin["kind"], spin["spinner"], spin["values"], spin["spaces"]) == (
        "spin",
        "A+B",
        [2, 6],
        8,
    )


def test_action_info_refuses_an_illegal_action():
    state = make("flipflop-3x3").new_initial_state()
    with pytest.raises(IllegalActionError, match="not legal here"):
        state.action_info(0)


# --- tensors and masks -------------------------------------------------------------------------


@pytest.mark.parametrize("name", game_names())
def test_tensors_have_the_declared_shape_and_masks_are_the_legal_set(name):
    game = make(name)
    for state in states_of(name)[:40]:
        for player in (0, 1):
            tensor = state.observation_tensor(player)
            assert tensor.shape == game.observation_tensor_shape
            assert tensor.dtype == np.float32
        mask = state.legal_action_mask()
        assert mask.shape == (game.num_distinct_actions,)
        assert set(np.flatnonzero(mask).tolist()) == set(state.legal_actions())


def test_tensors_are_seen_from_the_viewer():
    state = make("flipflop").new_initial_state()
    white, black = state.observation_tensor(0), state.observation_tensor(1)
    # Each side sees its own pieces in plane 0 and the other's in plane 2.
    assert np.array_equal(white[0], black[2]) and np.array_equal(white[2], black[0])
    assert white[6].all() and not black[6].any()


def test_per_game_facts_come_from_the_manifests(monkeypatch):
    """What once switched on names: the slow-solve warning, candidate fixes, proof by search."""
    from flipgames.cli.estimates import solve_cost
    from flipgames.lab.audit import candidate_fixes

    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    for lines, positions in (("all", "6,443,347"), ("edges", "6,370,099")):
        cost = solve_cost(make("flip-switch", rounds=1, lines=lines))
        assert cost is not None and cost.startswith(f"{positions} positions, about 4 to 6 minutes")
    assert solve_cost(make("flip-switch")) is None  # a match is not solved here
    assert list(candidate_fixes(make("flip-switch"))) == ["optimal-cycle"]
    proved = [name for name in game_names() if manifest_for(name).proved_by_search]
    assert proved == ["rubiks-flip"]
