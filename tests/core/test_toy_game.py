"""A seventh game that exists only here proves that a game needs no line outside its own code:
Turning Turtles, registered at run time through the registry's API with a manifest, goes
through the registry-wide machinery (conformance, playthroughs, the action kinds its manifest
declares, levels and perfect play from its manifest, the solver catalogue, the web lobby and a
match against the computer) without anything in flipgames knowing its name.

The game: a row of coins, all heads up. A move turns one head to tails, and may also turn over
the coin to its right (whichever face it shows). Whoever cannot move loses. Every move lowers
the row read as a binary number (heads 1, leftmost first), so a game ends within 2**n - 1 moves.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from flipgames import make
from flipgames.agents.levels import levels_for, make_level_agent
from flipgames.core import registry
from flipgames.core.conformance import check_random_games
from flipgames.core.errors import IllegalActionError, NotationError, quote
from flipgames.core.game import TERMINAL, Game, State
from flipgames.core.manifest import Manifest, is_listed_solved, manifest_for, mcts
from flipgames.core.options import Option
from flipgames.core.playthrough import playthrough
from flipgames.solvers import catalog

NAME = "turning-turtles"


class TurningTurtles(Game):
    name = NAME
    title = "Turning Turtles"
    option_spec = (Option("coins", 5, minimum=2, maximum=8, help="coins in the row"),)

    @property
    def coins(self) -> int:
        coins: int = self.options["coins"]  # type: ignore[assignment]
        return coins

    @property
    def num_distinct_actions(self) -> int:
        return 2 * self.coins  # per coin: turn it alone, or it and its right neighbour

    @property
    def max_game_length(self) -> int:
        return 2**self.coins - 1

    @property
    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (2, self.coins)  # plane 0: heads; plane 1: all ones when the viewer moves

    def new_initial_state(self) -> State:
        return TurtleState(self, heads=(1 << self.coins) - 1, player=0)

    def rules_summary(self) -> str:
        return (
            "Turning Turtles: a row of coins, heads up. Turn one head to tails, and if you like "
            "the coin to its right too. Whoever cannot move loses."
        )

    def notation_help(self) -> str:
        return "3 turns coin 3 alone; 3+ turns coin 3 and coin 4 (coins count from 1)"


class TurtleState(State):
    __slots__ = ("heads", "player")

    def __init__(
        self,
        game: TurningTurtles,
        heads: int,
        player: int,
        parent: State | None = None,
        action: int | None = None,
    ) -> None:
        super().__init__(game, parent, action)
        self.heads = heads
        self.player = player

    @property
    def coins(self) -> int:
        coins: int = self.game.options["coins"]  # type: ignore[assignment]
        return coins

    def _head(self, coin: int) -> bool:
        return bool(self.heads >> (self.coins - 1 - coin) & 1)

    @property
    def current_player(self) -> int:
        return self.player if self.heads else TERMINAL

    def _legal_actions(self) -> tuple[int, ...]:
        return tuple(
            2 * coin + both
            for coin in range(self.coins)
            if self._head(coin)
            for both in (0, 1)
            if not both or coin + 1 < self.coins
        )

    def _apply(self, action: int) -> State:
        coin, both = divmod(action, 2)
        mask = 1 << (self.coins - 1 - coin)
        if both:
            mask |= mask >> 1
        assert isinstance(self.game, TurningTurtles)
        return TurtleState(self.game, self.heads ^ mask, 1 - self.player, self, action)

    def action_to_string(self, action: int) -> str:
        coin, both = divmod(action, 2)
        return f"{coin + 1}{'+' if both else ''}"

    def parse_action(self, text: str) -> int:
        word = text.strip()
        digits = word.removesuffix("+")
        if not digits.isdigit() or not 1 <= int(digits) <= self.coins:
            raise NotationError(f"{quote(text)} is not a move: {self.game.notation_help()}")
        action = 2 * (int(digits) - 1) + (word != digits)
        if action not in self.legal_actions():
            raise IllegalActionError(f"{quote(text)} is not legal here: coin must show heads")
        return action

    def returns(self) -> tuple[int, ...]:
        if self.heads:
            return (0, 0)
        return (-1, 1) if self.player == 0 else (1, -1)  # the player to move cannot and loses

    def end_reason(self) -> Any:
        from flipgames.core.ending import Termination  # the typed endings

        return Termination.NO_LEGAL_MOVE if self.is_terminal() else None

    def key(self) -> Hashable:
        return (self.heads, self.player)

    def render(self) -> str:
        return " ".join("H" if self._head(c) else "T" for c in range(self.coins))

    def status_text(self) -> str:
        if self.is_terminal():
            return f"{self.game.player_names[self.player]} has no legal move and loses"
        return f"{self.game.player_names[self.player]} to turn a coin"

    def board_view(self, player: int | None) -> dict[str, Any]:
        return {"coins": ["H" if self._head(c) else "T" for c in range(self.coins)]}

    def _action_details(self, action: int) -> dict[str, Any]:
        coin, both = divmod(action, 2)
        return {"kind": "turn-two" if both else "turn", "coin": coin + 1}

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        planes = np.zeros(self.game.observation_tensor_shape, dtype=np.float32)
        planes[0] = [self._head(c) for c in range(self.coins)]
        planes[1] = float(player == self.player)
        return planes


MANIFEST = Manifest(
    game=TurningTurtles,
    board="turning-turtles",
    docs="turning-turtles",
    pitch="Turn heads to tails, one coin or two; the last to move wins.",
    art='<svg viewBox="0 0 120 80"><circle cx="40" cy="40" r="20" class="art-white"/></svg>',
    levels={"easy": mcts(10), "medium": mcts(30), "hard": mcts(100)},
    action_kinds=("turn", "turn-two"),
    solved=({},),
)


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    registry.register({NAME: MANIFEST})
    yield
    registry.unregister(NAME)


def test_the_toy_is_registered_after_the_packaged_games_and_then_removed():
    assert registry.game_names()[-1] == NAME and manifest_for(NAME) is MANIFEST
    assert make(NAME, coins=3).new_initial_state().render() == "H H H"
    with pytest.raises(ValueError, match="already registered"):
        registry.register({NAME: MANIFEST})
    with pytest.raises(ValueError, match="cannot be unregistered"):
        registry.unregister(registry.game_names()[0])


@pytest.mark.parametrize("coins", [2, 5, 8])
def test_conformance(coins):
    check_random_games(make(NAME, coins=coins), games=30, seed=coins)


def test_playthrough_is_reproducible():
    game = make(NAME)
    assert playthrough(game, seed=4) == playthrough(game, seed=4)
    assert f"game: {NAME}" in playthrough(game, seed=4)


def test_action_kinds_are_the_declared_ones():
    state, seen = make(NAME).new_initial_state(), set()
    while not state.is_terminal():
        seen |= {info["kind"] for info in state.legal_actions_info()}
        state = state.apply(state.legal_actions()[-1])
    assert seen == set(MANIFEST.action_kinds)


def test_levels_and_perfect_play_come_from_the_manifest():
    game = make(NAME)
    assert is_listed_solved(game) and catalog.is_solved(game)
    assert levels_for(game) == ["easy", "medium", "hard", "perfect"]
    # Five heads: the first player wins (the solver's value), and perfect play keeps it.
    assert catalog.solution(game).value(game.new_initial_state()).outcome == "win"
    for level in levels_for(game):
        perfect = make_level_agent(game, "perfect", random.Random(1))
        other = make_level_agent(game, level, random.Random(2))
        state = game.new_initial_state()
        while not state.is_terminal():
            agent = perfect if state.current_player == 0 else other
            state = state.apply(agent.choose(state))
        assert state.returns() == (1, -1), level


def test_the_web_lobby_lists_it_and_plays_it(tmp_path: Path):
    from fastapi.testclient import TestClient

    from flipgames.web.app import create_app
    from flipgames.web.settings import Settings

    url = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    with TestClient(create_app(Settings(database_url=url))) as client:
        games = {g["name"]: g for g in client.get("/api/games").json()}
        assert games[NAME]["art"] == MANIFEST.art and games[NAME]["pitch"] == MANIFEST.pitch
        assert games[NAME]["levels"][-1] == "perfect"
        created = client.post("/api/matches", json={"game": NAME, "level": "easy", "seed": 1})
        assert created.status_code == 201, created.text
