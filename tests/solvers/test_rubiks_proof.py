"""The Rubik's Flip proof search, checked against a plain minimax on the reference engine.

The search folds positions by 32 symmetries (8 board symmetries x swapping either player's
faces). The tests re-derive each symmetry from coordinates, check on the *reference* engine
that it maps legal turns to legal turns and outcomes to outcomes for every option set, and
check that the kernel gives every image the same key and the same value. Values of late
positions (a few plies from the end) are compared with a memoised minimax over the engine.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import product

import numpy as np
import pytest

from flipgames import make
from flipgames.agents.base import Agent
from flipgames.agents.levels import make_level_agent
from flipgames.agents.proof import ProofAgent
from flipgames.core.game import State
from flipgames.games.rubiks_flip.kernel import RubiksFlipKernel, pack
from flipgames.games.rubiks_flip.rules import RubiksFlip, RubiksFlipState
from flipgames.solvers import alphabeta, cache

VALUES = (("inplace", "flap"), ("king", "orthogonal"), ("mover", "opponent"))
OPTION_SETS = [{"flip": f, "lock": lock, "both": both} for f, lock, both in product(*VALUES)]
Symmetry = tuple[Callable[[int, int], tuple[int, int]], bool, bool]


def _id(options: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def _symmetries() -> list[Symmetry]:
    """Board maps on (file, rank) x (swap first player's faces, swap second player's)."""
    boards: list[Callable[[int, int], tuple[int, int]]] = [
        lambda f, r: (f, r),
        lambda f, r: (3 - r, f),
        lambda f, r: (3 - f, 3 - r),
        lambda f, r: (r, 3 - f),
        lambda f, r: (3 - f, r),
        lambda f, r: (f, 3 - r),
        lambda f, r: (r, f),
        lambda f, r: (3 - r, 3 - f),
    ]
    return [(b, s0, s1) for b in boards for s0 in (False, True) for s1 in (False, True)]


SYMMETRIES = _symmetries()


def _image(state: State, symmetry: Symmetry) -> RubiksFlipState:
    """The reference state that ``symmetry`` makes of a live ``state``."""
    board, swap_first, swap_second = symmetry
    first, second, faces = pack(state)
    images = [0, 0, 0]
    for square in range(16):
        f, r = board(square % 4, square // 4)
        bit = 1 << (f + 4 * r)
        for i, mask in enumerate((first, second, faces)):
            if mask >> square & 1:
                images[i] |= bit
    new_faces = images[2] ^ (images[0] if swap_first else 0) ^ (images[1] if swap_second else 0)
    game = state.game
    assert isinstance(game, RubiksFlip)
    return RubiksFlipState(game, (images[0], images[1]), new_faces)


def _live_positions(options: dict[str, str], plies: range, count: int, seed: str) -> list[State]:
    game = make("rubiks-flip", options)
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        target = rng.choice(plies)
        for _ in range(target):
            if state.is_terminal():
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal() and len(state.history_notation()) == target:
            found.append(state)
    return found


def _outcomes(state: State) -> set[tuple[tuple[int, ...], int | None, bool]]:
    """Each child of ``state`` as (boards, winner, over), a set: the position's rules."""
    out = set()
    for action in state.legal_actions():
        child = state.apply(action)
        assert isinstance(child, RubiksFlipState)
        out.add((child.key(), child.winner, child.is_terminal()))
    return out


def _minimax(state: State, memo: dict[tuple[int, ...], int]) -> int:
    """The value for the player to move, the slow and obvious way (memoised on the boards)."""
    assert isinstance(state, RubiksFlipState)
    key = state.key()
    if key not in memo:
        best = -1
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                value = 0 if child.winner is None else 1 if child.winner == state.to_move else -1
            else:
                value = -_minimax(child, memo)
            best = max(best, value)
            if best == 1:
                break
        memo[key] = best
    return memo[key]


def _search(kernel: RubiksFlipKernel, state: State, alpha: int = -1, beta: int = 1) -> int:
    table = np.zeros(1 << 16, dtype=np.int64)
    return kernel.search(kernel.position(state), alpha, beta, table, np.zeros(3, np.int64))


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_every_claimed_symmetry_preserves_the_rules(options: dict[str, str]) -> None:
    """On the reference engine: the image of every child is a child of the image, with the
    same winner and end, so the 32 symmetries may be folded for this option set."""
    for state in _live_positions(options, range(3, 13), 6, f"sym-{_id(options)}"):
        children = _outcomes(state)
        for symmetry in SYMMETRIES:
            image = _image(state, symmetry)
            mapped = set()
            for action in state.legal_actions():
                child = state.apply(action)
                over = child.is_terminal()
                mapped.add((_image(child, symmetry).key(), child.winner, over))
            assert mapped == _outcomes(image)
            assert len(mapped) == len(children)


@pytest.mark.parametrize("options", OPTION_SETS[::3], ids=_id)
def test_every_image_gets_the_same_key_and_value(options: dict[str, str]) -> None:
    game = make("rubiks-flip", options)
    kernel = game.kernel()
    assert isinstance(kernel, RubiksFlipKernel)
    seen: list[tuple[int, set[int]]] = []
    for state in _live_positions(options, range(9, 13), 5, f"key-{_id(options)}"):
        key = kernel.canonical(kernel.position(state))
        value = _search(kernel, state)
        images = set()
        for symmetry in SYMMETRIES:
            image = _image(state, symmetry)
            images.add(kernel.position(image))
            assert kernel.canonical(kernel.position(image)) == key
            assert _search(kernel, image) == value
        # The key is the least image, and positions share a key only if they are images.
        assert key == min(images)
        for other_key, other_images in seen:
            assert (other_key == key) == bool(other_images & images)
        seen.append((key, images))


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_search_values_equal_a_plain_minimax(options: dict[str, str]) -> None:
    game = make("rubiks-flip", options)
    kernel = game.kernel()
    assert isinstance(kernel, RubiksFlipKernel)
    memo: dict[tuple[int, ...], int] = {}
    values = []
    for start in _live_positions(options, range(12, 15), 8, f"minimax-{_id(options)}"):
        # The position and its live children: wins, draws and losses all come up.
        children = [start.apply(a) for a in start.legal_actions()]
        for state in [start, *(c for c in children if not c.is_terminal())]:
            expected = _minimax(state, memo)
            values.append(expected)
            assert _search(kernel, state) == expected, state.history_notation()
            # Fail-soft null windows bound the value on the correct side.
            low = _search(kernel, state, -1, 0)
            high = _search(kernel, state, 0, 1)
            assert (low <= -1) == (expected <= -1) and (high >= 1) == (expected >= 1)
    assert len(set(values)) >= 2


@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[5]], ids=_id)
def test_prove_from_a_late_position_matches_minimax(options: dict[str, str]) -> None:
    game = make("rubiks-flip", options)
    state = _live_positions(options, range(12, 13), 1, f"prove-{_id(options)}")[0]
    seen: list[tuple[str, int | None, int | None]] = []

    def record(message: str, *, done: int | None = None, total: int | None = None) -> None:
        seen.append((message, done, total))

    proof = alphabeta.prove(game, alphabeta.parse_memory("1M"), record, state=state)
    memo: dict[tuple[int, ...], int] = {}
    for action in state.legal_actions():
        child = state.apply(action)
        if child.is_terminal():
            expected = 0 if child.winner is None else 1 if child.winner == state.to_move else -1
        else:
            expected = -_minimax(child, memo)
        assert proof.first_turns[state.action_to_string(action)] == expected
    assert proof.value == _minimax(state, memo)
    assert proof.nodes > len(proof.first_turns) and proof.symmetries == 32
    assert proof.table_bytes == 1 << 20
    assert seen and all(done is not None and total for _, done, total in seen)


def test_proof_payload_round_trips_and_rejects_nonsense() -> None:
    game = make("rubiks-flip")
    state = _live_positions({}, range(12, 13), 1, "payload")[0]
    proof = alphabeta.prove(game, alphabeta.parse_memory("1M"), state=state)
    assert alphabeta.Proof.from_payload(game, proof.to_payload()) == proof
    with pytest.raises(ValueError, match="malformed"):
        alphabeta.Proof.from_payload(game, {"value": 0})
    bad = {**proof.to_payload(), "value": 5}
    with pytest.raises(ValueError, match="best first turn"):
        alphabeta.Proof.from_payload(game, bad)


def test_prove_refuses_without_a_kernel_and_over_games(monkeypatch: pytest.MonkeyPatch) -> None:
    game = make("rubiks-flip")
    assert alphabeta.is_provable(game)
    over = _live_positions({}, range(12, 13), 1, "over")[0]
    while not over.is_terminal():
        over = over.apply(over.legal_actions()[0])
    with pytest.raises(alphabeta.ProofError, match="over"):
        alphabeta.prove(game, state=over)
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    assert not alphabeta.is_provable(game)
    with pytest.raises(alphabeta.ProofError, match="FLIPGAMES_KERNEL=python"):
        alphabeta.prove(game)


@pytest.mark.parametrize("text", ["", "4X", "-1G", "0.5K"])
def test_bad_memory_sizes_are_refused(text: str) -> None:
    with pytest.raises(alphabeta.ProofError, match="memory size"):
        alphabeta.parse_memory(text)


@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[6]], ids=_id)
def test_the_perfect_level_keeps_the_minimax_value(options: dict[str, str]) -> None:
    game = make("rubiks-flip", options)
    agent = make_level_agent(game, "perfect", random.Random(3))
    assert isinstance(agent, ProofAgent)
    memo: dict[tuple[int, ...], int] = {}
    for state in _live_positions(options, range(12, 14), 5, f"perfect-{_id(options)}"):
        value = _minimax(state, memo)
        keeping = []
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                child_value = (
                    0 if child.winner is None else -1 if child.winner == state.to_move else 1
                )
            else:
                child_value = _minimax(child, memo)
            if -child_value == value:
                keeping.append(action)
        assert agent.best_actions(state) == keeping
        assert agent.choose(state) in keeping


class _Scripted(Agent):
    """A fallback that records being asked and plays the first legal action."""

    name = "scripted"

    def __init__(self) -> None:
        super().__init__(random.Random(0))
        self.asked = 0

    def choose(self, state: State) -> int:
        self.asked += 1
        return state.legal_actions()[0]


def test_the_perfect_level_falls_back_beyond_its_budget_and_reads_the_proof() -> None:
    game = make("rubiks-flip")
    fallback = _Scripted()
    agent = ProofAgent(random.Random(1), game, fallback, max_nodes=1_000)
    early = _live_positions({}, range(2, 3), 1, "early")[0]
    assert agent.best_actions(early) is None
    assert agent.choose(early) == early.legal_actions()[0] and fallback.asked == 1
    # At the first turn it reads the cached proof (a made-up one here: only b2R draws).
    root = game.new_initial_state()
    assert agent.best_actions(root) is None
    turns = {root.action_to_string(a): -1 for a in root.legal_actions()} | {"b2R": 0}
    proof = alphabeta.Proof(game.name, dict(game.options), 0, turns, 10, 1.0, 1 << 20, 32)
    cache.store("alphabeta", alphabeta.VERSION, game, proof.to_payload())
    try:
        reader = ProofAgent(random.Random(1), game, fallback, max_nodes=1_000)
        assert reader.best_actions(root) == [root.parse_action("b2R")]
    finally:
        cache.cache_path("alphabeta", alphabeta.VERSION, game).unlink()
