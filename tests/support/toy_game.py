"""A seventh game that exists only in the tests: Turning Turtles, with its manifest.

A row of coins, all heads up. A move turns one head to tails, and may also turn over the coin to
its right (whichever face it shows). Whoever cannot move loses. Every move lowers the row read
as a binary number (heads 1, leftmost first), so a game ends within 2**n - 1 moves.

``tests/core/test_toy_game.py`` registers it through the registry's API and runs it through the
registry-wide tests; ``toy_plugin`` registers it for a whole pytest run.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt

from flipgames.core.errors import IllegalActionError, NotationError, PositionError, quote
from flipgames.core.game import TERMINAL, Game, State
from flipgames.core.manifest import Manifest, mcts
from flipgames.core.options import Option

NAME = "turning-turtles"


class TurningTurtles(Game):
    name = NAME
    title = "Turning Turtles"
    option_spec = (Option("coins", 8, minimum=2, maximum=10, help="coins in the row"),)

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
        return (
            "a coin alone: its number, e.g. 3 (coins count from 1); a coin and its right "
            "neighbour: the number and +, e.g. 3+"
        )


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


class TurtlePosition:
    """The toy's position notation, given as the codec itself (a game defined at run time has
    no module path to name): the coins left to right, ``H`` or ``T``, then the player to move,
    ``1`` or ``2``; e.g. ``HHTH 2``."""

    def format(self, state: State) -> str:
        assert isinstance(state, TurtleState)
        coins = "".join("H" if state._head(c) else "T" for c in range(state.coins))
        return f"{coins} {state.player + 1}"

    def parse(self, game: Game, text: str) -> State:
        assert isinstance(game, TurningTurtles)
        coins, player = ([*text.split(), "", ""])[:2]
        if len(coins) != game.coins or set(coins) - {"H", "T"}:
            raise PositionError(f"{quote(coins)} is not {game.coins} coins written H or T")
        if player not in ("1", "2"):
            raise PositionError(f"player to move must be 1 or 2, not {quote(player)}")
        heads = int(coins.replace("H", "1").replace("T", "0"), 2)
        return TurtleState(game, heads=heads, player=int(player) - 1)


TurningTurtles.position_notation = TurtlePosition()

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
