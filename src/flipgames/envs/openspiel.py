"""OpenSpiel games: every flipgames game registered as a pyspiel Python game.

Importing this module registers ``python_flipgames_<name>`` for every registered game, with
``-`` written ``_`` (``python_flipgames_flipflop_3x3``, ``python_flipgames_checkered_flag``);
rule options are game parameters (``python_flipgames_flip_switch(rounds=3)``). Chance is
explicit (OpenSpiel's chance nodes are flipgames' chance nodes, with their exact
probabilities as floats; OpenSpiel numbers a node's outcomes from 0, so outcome ``i`` is
flipgames' ``i``-th outcome there, in id order), the observation tensor is
``State.observation_tensor`` through an observer, and ``GameInfo`` carries the action-space
size, the largest chance node and the maximum game length of the chosen options. A game with
a length cap (``Game.game_length_capped``) ends there as a draw.

flipgames states are immutable, so a clone shares the flipgames state instead of
deep-copying it and its history (OpenSpiel deep-copies a Python state's attributes on every
clone, which for a long FlipFlop game cost about 145 ms).

Games and states pickle (a game as its class and options, a state as its game and action
ids), so they can be sent to ``multiprocessing`` workers and Ray actors.

>>> import pyspiel
>>> game = pyspiel.load_game("python_flipgames_flipflop_3x3")
>>> state = game.new_initial_state()
>>> [state.action_to_string(a) for a in state.legal_actions()]
['a1-a2', 'b1-b2', 'b1xb3', 'c1-c2']
>>> game.num_distinct_actions(), game.max_game_length()
(81, 1000)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from flipgames.core.game import Game, State
from flipgames.core.options import OptionValue
from flipgames.core.registry import game_class, game_names, make


def short_name(name: str) -> str:
    """The pyspiel name of registered game ``name``."""
    return "python_flipgames_" + name.replace("-", "_")


def _game_type(name: str) -> Any:
    cls = game_class(name)
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"flipgames {cls.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if cls.has_chance
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        # Flip Switch's face-down tiles are chance nodes, not hidden state: nothing is hidden.
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.num_players,
        min_num_players=cls.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={o.name: o.default for o in cls.option_spec},
    )


def _game_info(game: Game) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_distinct_actions,
        max_chance_outcomes=game.max_chance_outcomes,
        num_players=game.num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=game.max_game_length,
    )


class FlipgamesGame(pyspiel.Game):  # type: ignore[misc]
    """A flipgames game with options, as a pyspiel game (one subclass per registered name)."""

    flipgames_name: str = ""

    def __init__(self, params: dict[str, OptionValue] | None = None) -> None:
        self.game = make(self.flipgames_name, dict(params or {}))
        super().__init__(
            _game_type(self.flipgames_name), _game_info(self.game), dict(self.game.options)
        )

    def __reduce__(self) -> tuple[type[FlipgamesGame], tuple[dict[str, OptionValue]]]:
        # OpenSpiel's own pickling makes the object without calling __init__, which would
        # leave it without its flipgames game: rebuild it from the class and options instead
        # (unpickling imports this module, which registers the games).
        return type(self), (dict(self.game.options),)

    def new_initial_state(self) -> FlipgamesState:
        return FlipgamesState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return TensorObserver(self.game, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class FlipgamesState(pyspiel.State):  # type: ignore[misc]
    """A pyspiel state holding an immutable flipgames state (``flipgames_state``)."""

    def __init__(self, game: FlipgamesGame) -> None:
        super().__init__(game)
        self._game = game.game
        self._shared = _Shared(game.game.new_initial_state())
        self._plies = 0

    @property
    def flipgames_state(self) -> State:
        """The flipgames state this pyspiel state stands for."""
        return self._shared.state

    def _capped(self) -> bool:
        game = self._game
        return game.game_length_capped and self._plies >= game.max_game_length

    def current_player(self) -> int:
        if self.flipgames_state.is_terminal() or self._capped():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.flipgames_state.is_chance_node():
            return int(pyspiel.PlayerId.CHANCE)
        return self.flipgames_state.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.flipgames_state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        # OpenSpiel numbers a chance node's outcomes below max_chance_outcomes: outcome i is
        # the i-th of flipgames' outcomes here (in id order).
        return [(i, float(p)) for i, (_, p) in enumerate(self.flipgames_state.chance_outcomes())]

    def flipgames_action(self, action: int) -> int:
        """The flipgames action id of an OpenSpiel ``action`` in this state (at a chance
        node OpenSpiel's action is the outcome's index)."""
        state = self.flipgames_state
        if state.is_chance_node():
            outcomes = state.legal_actions()
            if not 0 <= action < len(outcomes):
                raise pyspiel.SpielError(f"chance outcome {action} does not exist here")
            return outcomes[action]
        return int(action)

    def _apply_action(self, action: int) -> None:
        # A new holder, never a changed one: clones may share the old holder.
        self._shared = _Shared(self.flipgames_state.apply(self.flipgames_action(action)))
        self._plies += 1

    def _action_to_string(self, player: int, action: int) -> str:
        state = self.flipgames_state
        if state.is_chance_node() and 0 <= action < len(state.legal_actions()):
            return state.action_to_string(state.legal_actions()[action])
        if not state.is_chance_node() and action in state.legal_actions():
            return state.action_to_string(action)
        return f"action id {action}"

    def is_terminal(self) -> bool:
        return self.flipgames_state.is_terminal() or self._capped()

    def returns(self) -> list[float]:
        if self._capped() and not self.flipgames_state.is_terminal():
            return [0.0] * self._game.num_players
        return [float(r) for r in self.flipgames_state.returns()]

    def __str__(self) -> str:
        return self.flipgames_state.render()


class _Shared:
    """Holds a flipgames state for a pyspiel state.

    OpenSpiel clones a Python state by deep-copying its attributes and serialises it by
    pickling them. flipgames states are immutable, so a deep copy shares the holder, and a
    pickle is the game and the action ids, replayed through the rules when loaded (never
    the chain of parent states, which for a long game is deep and slow to copy).
    """

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, OptionValue], tuple[int, ...]]]:
        game = self.state.game
        return _replay, (game.name, dict(game.options), self.state.history)


def _replay(name: str, options: dict[str, OptionValue], actions: tuple[int, ...]) -> _Shared:
    state = make(name, options).new_initial_state()
    for action in actions:
        state = state.apply(action)
    return _Shared(state)


class TensorObserver:
    """OpenSpiel's observer interface over ``observation_tensor`` and ``render``."""

    def __init__(self, game: Game, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        shape = game.observation_tensor_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": np.reshape(self.tensor, shape)}

    def set_from(self, state: FlipgamesState, player: int) -> None:
        self.dict["observation"][...] = state.flipgames_state.observation_tensor(player)

    def string_from(self, state: FlipgamesState, player: int) -> str:
        return state.flipgames_state.render()


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for name in game_names():
        if short_name(name) in registered:
            continue
        class_name = f"Flipgames_{name.replace('-', '_')}"
        cls = type(class_name, (FlipgamesGame,), {"flipgames_name": name})
        # pickle finds a class by module and name: each game's class is a module attribute,
        # so a game object (and a state, which pickles its game) crosses process boundaries
        # (multiprocessing pools, Ray actors).
        globals()[class_name] = cls
        pyspiel.register_game(_game_type(name), cls)


_register()
