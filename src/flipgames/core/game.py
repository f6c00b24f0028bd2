"""The game protocol every flipgames game implements and every algorithm is written against.

A :class:`Game` is a rule set with chosen options; it makes initial :class:`State` objects.
States are values: :meth:`State.apply` returns a new state and never changes the old one.

Actions are dense integers per game (for solvers and learning code) with a text notation per
action (for people); at a chance node the legal actions are the chance outcomes. A typical
loop, written once for every game::

    import random
    from flipgames import make, sample_chance
    game = make("flipflop-3x3")
    state = game.new_initial_state()
    rng = random.Random(7)
    while not state.is_terminal():
        if state.is_chance_node():
            action = sample_chance(state, rng)  # exact probabilities
        else:
            action = rng.choice(state.legal_actions())
        state = state.apply(action)
    print(state.returns())

(:func:`random_action` is that choice in one call.)

Research code also needs the shape of the game as data: every game declares
:attr:`Game.num_distinct_actions` (ids run ``0 .. num_distinct_actions - 1``, chance outcomes
included), :attr:`Game.max_chance_outcomes`, :attr:`Game.max_game_length` (a bound, or for
games that can repeat a documented cap, :attr:`Game.game_length_capped`),
:attr:`Game.rules_version` and :attr:`Game.observation_tensor_shape`. Every state gives the
same JSON observation envelope (:meth:`State.observation`), structured actions
(:meth:`State.action_info`), a numpy tensor (:meth:`State.observation_tensor`) and a legal
action mask (:meth:`State.legal_action_mask`).
"""

from __future__ import annotations

import copy
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Final

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError, NotationError, RecordError, quote
from flipgames.core.options import FrozenOptions, Option, resolve_options

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.kernel import GraphBuilder, Kernel
    from flipgames.core.position import PositionCodec

#: ``State.current_player`` at a chance node (the next action is a chance outcome).
CHANCE: Final = -1
#: ``State.current_player`` once the game is over.
TERMINAL: Final = -2

JSON = dict[str, Any]

#: The observation envelope's ``status`` codes: a player is to act, a chance outcome is next,
#: the game is over and someone won, the game is over and drawn.
STATUS_CODES: Final = ("playing", "chance", "won", "drawn")
#: The top-level keys of every observation, for every game (game-specific data is under
#: ``board``).
OBSERVATION_KEYS: Final = (
    "game",
    "viewer",
    "to_move",
    "status",
    "status_text",
    "result",
    "legal",
    "board",
)


class Game(ABC):
    """A game with its rule options fixed.

    Subclasses declare the class attributes and implement :meth:`new_initial_state` and
    :meth:`rules_summary`. Capabilities are data, so an algorithm can refuse a game by name.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    option_spec: ClassVar[tuple[Option, ...]] = ()
    num_players: ClassVar[int] = 2
    #: What players are called in this game, by player number (e.g. White and Black).
    player_names: ClassVar[tuple[str, ...]] = ("first player", "second player")
    #: True when some states are chance nodes.
    has_chance: ClassVar[bool] = False
    #: True when some player may not see part of the state (Flip Switch before a flip is
    #: modelled as chance, so this stays False there: nothing hidden exists to see).
    hidden_information: ClassVar[bool] = False
    #: True when the game can repeat positions and draws on the third occurrence.
    repetition_draws: ClassVar[bool] = False
    #: Bumped whenever a change to the rules can change a legal action, an outcome or a
    #: probability, so stored solutions and trained models can tell they are stale.
    rules_version: ClassVar[int] = 1
    #: True when :attr:`max_game_length` is a cap rather than a bound: the game can repeat
    #: positions (or has no small proven bound), and research wrappers (``flipgames.envs``)
    #: end a game that reaches the cap as a draw, reporting it as truncated.
    game_length_capped: ClassVar[bool] = False
    #: This game's position notation (:mod:`flipgames.core.position`): its codec as a
    #: ``module:NAME`` string imported on first use, or None when the game has none.
    position_notation: ClassVar[str | PositionCodec | None] = None

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        #: The complete, validated options: read-only, so a game is a safe dictionary key.
        self.options: FrozenOptions = resolve_options(self.option_spec, options)

    @property
    def num_distinct_actions(self) -> int:
        """How many action ids exist: ids run ``0 .. num_distinct_actions - 1``, player
        actions and chance outcomes alike (what a policy's output layer or a mask covers)."""
        raise _missing(self, "num_distinct_actions")

    @property
    def max_chance_outcomes(self) -> int:
        """The most outcomes any chance node of this game has (0 without chance)."""
        return 0

    @property
    def max_game_length(self) -> int:
        """The most actions (chance outcomes included) a game can take; a cap when
        :attr:`game_length_capped` is true."""
        raise _missing(self, "max_game_length")

    @property
    def observation_tensor_shape(self) -> tuple[int, ...]:
        """The shape of :meth:`State.observation_tensor` for these options."""
        raise _missing(self, "observation_tensor_shape")

    @property
    def deterministic(self) -> bool:
        """True for games without chance nodes (the ones perft is defined for)."""
        return not self.has_chance

    @abstractmethod
    def new_initial_state(self) -> State:
        """Return the state before the first action."""

    @abstractmethod
    def rules_summary(self) -> str:
        """Return the rules as flipgames plays them, rulings included, as plain text."""

    def notation_help(self) -> str:
        """How to write an action in this game, with two examples (the terminal's ``help``).

        Every game overrides it; this fallback points at the rules.
        """
        return f"Type an action in {self.title}'s notation (flipgames rules {self.name})."

    def kernel(self) -> Kernel | None:
        """This game's compiled kernel, or None when it has none. Algorithms ask
        :func:`flipgames.core.kernel.kernel_for` instead, which honours ``FLIPGAMES_KERNEL``;
        games import their kernel module here, lazily, so numba loads only when needed."""
        return None

    def graph_builder(self) -> GraphBuilder | None:
        """A builder of this game's whole position graph that loads no compiled code, keyed
        and numbered exactly as its kernel's ``graph()``, or None when the game has none.
        The exact solvers prefer it to the kernel (see
        :func:`flipgames.solvers.graph.builder_for`, which honours ``FLIPGAMES_KERNEL``):
        loading numba and a kernel's machine code can cost more than enumerating a small
        game."""
        return None

    def from_position(self, text: str) -> State:
        """A state with no history at the position ``text`` (:meth:`State.position`);
        :class:`PositionError` naming what is wrong, or saying the game has no notation."""
        from flipgames.core.position import parse_position

        return parse_position(self, text)

    def state_from_actions(self, actions: Sequence[str], start: State | None = None) -> State:
        """Replay actions in notation from ``start`` (by default the initial state).

        Raises :class:`RecordError` naming the first action that is malformed or illegal.
        """
        state = self.new_initial_state() if start is None else start
        for index, text in enumerate(actions):
            if not isinstance(text, str):
                raise RecordError(
                    f"action {index + 1} is {quote(text)}, not a string in notation",
                    index=index,
                    action=repr(text),
                )
            try:
                state = state.apply(state.parse_action(text))
            except (NotationError, IllegalActionError) as exc:
                raise RecordError(
                    f"action {index + 1} ({quote(text)}) does not replay: {exc}",
                    index=index,
                    action=text,
                ) from exc
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.name == self.name and other.options == self.options

    def __hash__(self) -> int:
        return hash((self.name, self.options))

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"make({self.name!r}{', ' if opts else ''}{opts})"


class State(ABC):
    """One position of a game, plus how it was reached.

    Subclasses implement the abstract methods; they build children through
    ``type(self)(...)`` with ``parent=self`` and the action so that :attr:`history` works.
    ``_legal_actions`` is called at most once per state: its result is cached.
    """

    __slots__ = ("game", "_parent", "_action", "_legal")

    def __init__(self, game: Game, parent: State | None = None, action: int | None = None):
        self.game = game
        self._parent = parent
        self._action = action
        self._legal: tuple[int, ...] | None = None

    # --- whose turn -------------------------------------------------------------------------

    @property
    @abstractmethod
    def current_player(self) -> int:
        """0 or 1 for a player to act, :data:`CHANCE` at a chance node, :data:`TERMINAL`."""

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    # --- actions ----------------------------------------------------------------------------

    @abstractmethod
    def _legal_actions(self) -> tuple[int, ...]:
        """Legal actions in ascending order (chance outcomes at a chance node); () if over."""

    def legal_actions(self) -> tuple[int, ...]:
        """Legal actions in ascending order; the chance outcomes at a chance node."""
        if self._legal is None:
            self._legal = self._legal_actions()
        return self._legal

    def perft_actions(self) -> tuple[int, ...]:
        """Legal actions as if repetition draws did not exist (what perft counts)."""
        return self.legal_actions()

    def chance_outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        """(outcome, exact probability) pairs at a chance node; the probabilities sum to 1."""
        raise IllegalActionError("this state is not a chance node; it has no chance outcomes")

    def apply(self, action: int) -> State:
        """Return the state after ``action``; raise :class:`IllegalActionError` if illegal."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(f"action must be an integer id, got {quote(action)}")
        if action not in self.legal_actions():
            if self.is_terminal():
                raise IllegalActionError("the game is over: no action is legal")
            raise IllegalActionError(
                f"action {self._describe(action)} is not legal here; legal: "
                + " ".join(self.action_to_string(a) for a in self.legal_actions())
            )
        return self._apply(action)

    def apply_perft(self, action: int) -> State:
        """Apply an action from :meth:`perft_actions` (which may ignore repetition draws)."""
        if action not in self.perft_actions():
            raise IllegalActionError(f"action {self._describe(action)} is not legal here")
        return self._apply(action)

    def _describe(self, action: int) -> str:
        try:
            return f"{self.action_to_string(action)!r} (id {action})"
        except (NotationError, IllegalActionError, IndexError, ValueError):
            return f"id {action}"

    @abstractmethod
    def _apply(self, action: int) -> State:
        """Return the child for a legal ``action`` (already checked)."""

    # --- notation ---------------------------------------------------------------------------

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """The canonical notation of ``action`` in this state."""

    @abstractmethod
    def parse_action(self, text: str) -> int:
        """Parse notation into a legal action id.

        Raises :class:`NotationError` for malformed text and :class:`IllegalActionError` for
        a well-formed action that is not legal here.
        """

    # --- outcome ----------------------------------------------------------------------------

    @abstractmethod
    def returns(self) -> tuple[int, ...]:
        """Per player: +1 win, -1 loss, 0 draw or not over. Always sums to zero."""

    def end_reason(self) -> Termination | None:
        """Why the rules ended the game (a :class:`Termination`); None while it goes on."""
        raise _missing(self, "end_reason")

    def evaluate(self, player: int) -> float:
        """A heuristic estimate in [-1, 1] of ``returns()[player]`` for search at a depth
        limit. The default knows nothing (0); games override it with their own knowledge."""
        return float(self.returns()[player]) if self.is_terminal() else 0.0

    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` once over, ``"*"`` while in progress."""
        if not self.is_terminal():
            return "*"
        r = self.returns()
        return "1-0" if r[0] > 0 else "0-1" if r[0] < 0 else "1/2-1/2"

    # --- views ------------------------------------------------------------------------------

    @abstractmethod
    def key(self) -> Hashable:
        """A canonical, hashable key of the position (everything future play depends on,
        except repetition counts). Equal keys mean the same position."""

    def observation(self, player: int | None) -> JSON:
        """A JSON-able view for ``player`` (``None``: a spectator) revealing nothing that
        viewer may not know.

        Every game returns the same top-level keys (:data:`OBSERVATION_KEYS`): ``game``;
        ``viewer`` (the player number or None); ``to_move`` (the player to act, None at a
        chance node or once over); ``status`` (a code from :data:`STATUS_CODES`);
        ``status_text`` (one line for people); ``result`` (``"1-0"``, ``"0-1"``,
        ``"1/2-1/2"`` or ``"*"``); ``legal`` (the legal actions in notation, the chance
        outcomes at a chance node); and ``board``, the game's own data (documented on each
        game's :meth:`board_view`).
        """
        self._check_viewer(player)
        current = self.current_player
        return {
            "game": self.game.name,
            "viewer": player,
            "to_move": current if current >= 0 else None,
            "status": self.status_code(),
            "status_text": self.status_text(),
            "result": self.result(),
            "legal": [self.action_to_string(a) for a in self.legal_actions()],
            "board": self.board_view(player),
        }

    def _check_viewer(self, player: int | None) -> None:
        if player is not None and (
            isinstance(player, bool)
            or not isinstance(player, int)
            or not 0 <= player < self.game.num_players
        ):
            raise ValueError(
                f"a viewer is a player 0 to {self.game.num_players - 1} or None (a spectator), "
                f"not {quote(player)}"
            )

    def status_code(self) -> str:
        """``playing``, ``chance``, ``won`` or ``drawn`` (see :data:`STATUS_CODES`)."""
        current = self.current_player
        if current == CHANCE:
            return "chance"
        if current == TERMINAL:
            return "won" if any(self.returns()) else "drawn"
        return "playing"

    def status_text(self) -> str:
        """One line for people: whose turn and what to do, or how the game ended."""
        raise _missing(self, "status_text")

    def board_view(self, player: int | None) -> JSON:
        """The game-specific part of :meth:`observation` (its ``board`` key), for ``player``
        (``None``: a spectator), revealing nothing that viewer may not know."""
        raise _missing(self, "board_view")

    def action_info(self, action: int) -> JSON:
        """A legal ``action`` described as data, for pages and learning code.

        Always ``id``, ``text`` (the notation), ``kind`` (a word per game, e.g. ``move``,
        ``capture``, ``drop``, ``flip``, ``spin``) and ``chance`` (True for a chance
        outcome); then what the kind needs, among ``from`` and ``to`` (square names),
        ``face``, ``shape``, ``gear`` and ``values``. Raises :class:`IllegalActionError` for
        an action that is not legal here.
        """
        if action not in self.legal_actions():
            raise IllegalActionError(f"action {self._describe(action)} is not legal here")
        info: JSON = {
            "id": action,
            "text": self.action_to_string(action),
            "chance": self.is_chance_node(),
        }
        info.update(self._action_details(action))
        return info

    def _action_details(self, action: int) -> JSON:
        """``kind`` and the kind's fields for a legal ``action`` (see :meth:`action_info`)."""
        raise _missing(self, "_action_details")

    def legal_actions_info(self) -> list[JSON]:
        """:meth:`action_info` of every legal action, in id order."""
        return [self.action_info(a) for a in self.legal_actions()]

    def observation_tensor(self, player: int) -> npt.NDArray[np.float32]:
        """The position as a float32 array of :attr:`Game.observation_tensor_shape`, seen by
        ``player`` (planes say "mine" and "theirs"). Hidden information stays hidden."""
        self._check_viewer(player)
        if player is None:
            raise ValueError("an observation tensor is seen by a player, not a spectator")
        tensor = self._tensor(player)
        assert tensor.shape == self.game.observation_tensor_shape
        return tensor

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        """The observation tensor for a valid ``player``."""
        raise _missing(self, "_tensor")

    def legal_action_mask(self) -> npt.NDArray[np.int8]:
        """1 at every legal action id (chance outcomes at a chance node), 0 elsewhere; length
        :attr:`Game.num_distinct_actions`."""
        import numpy as np  # loaded on first use: the CLI's startup never needs numpy

        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        mask[list(self.legal_actions())] = 1
        return mask

    @abstractmethod
    def render(self) -> str:
        """A Unicode text picture of the position for terminals."""

    def position(self) -> str:
        """The position as one line of text that :meth:`Game.from_position` reads back
        (:mod:`flipgames.core.position`; repetition history is not part of it);
        :class:`PositionError` for a game without a position notation."""
        from flipgames.core.position import require_codec

        return require_codec(self.game).format(self)

    @property
    def history(self) -> tuple[int, ...]:
        """Every action (chance outcomes included) applied since the initial state."""
        actions: list[int] = []
        node: State | None = self
        while node is not None and node._action is not None:
            actions.append(node._action)
            node = node._parent
        return tuple(reversed(actions))

    def history_notation(self) -> list[str]:
        """:attr:`history` in notation, each action printed in the state it was played in."""
        lines: list[tuple[State, int]] = []
        node: State = self
        while node._parent is not None and node._action is not None:
            lines.append((node._parent, node._action))
            node = node._parent
        return [parent.action_to_string(a) for parent, a in reversed(lines)]

    @property
    def parent(self) -> State | None:
        """The state this one was reached from, or None for an initial state."""
        return self._parent

    @property
    def action(self) -> int | None:
        """The action that led from :attr:`parent` to this state, or None for an initial
        state."""
        return self._action

    def clone(self) -> State:
        """An independent, equal copy (states are immutable; this exists for the protocol)."""
        return copy.copy(self)

    def to_json(self) -> JSON:
        """Serialise as game, options, the start ``position`` when the game did not begin at
        the initial state, and actions; :func:`state_from_json` restores it."""
        from flipgames.core.position import start_position

        start = start_position(self)
        return {
            "game": self.game.name,
            "options": dict(self.game.options),
            **({} if start is None else {"position": start}),
            "actions": self.history_notation(),
        }

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and other.game == self.game
            and other.key() == self.key()
            and other.history == self.history
        )

    def __hash__(self) -> int:
        return hash((self.game, self.key()))

    def __str__(self) -> str:
        return self.render()


def _missing(where: Game | State, what: str) -> NotImplementedError:
    # The research members are not abstract so that small games written for tests need only
    # the rules; every registered game implements them (the conformance kit checks).
    return NotImplementedError(f"{type(where).__name__} does not implement {what}")


def sample_chance(state: State, rng: random.Random) -> int:
    """Draw a chance outcome of ``state`` with its exact probability, using ``rng``."""
    outcomes = state.chance_outcomes()
    # Exact integer arithmetic over a common denominator, so a seeded draw is reproducible
    # and unbiased however the probabilities are written.
    denominator = math.lcm(*(p.denominator for _, p in outcomes))
    point = rng.randrange(denominator)
    for outcome, p in outcomes:
        point -= p.numerator * (denominator // p.denominator)
        if point < 0:
            return outcome
    raise AssertionError("chance probabilities do not sum to one")


def random_action(state: State, rng: random.Random) -> int:
    """A uniformly random legal action, or at a chance node an outcome drawn with its exact
    probability: one step of a random playout."""
    if state.is_chance_node():
        return sample_chance(state, rng)
    return rng.choice(state.legal_actions())


def random_choices(game: Game, rng: random.Random) -> Iterator[State]:
    """The positions of one random playout of ``game`` (each action uniformly random, each
    chance outcome drawn with its exact probability, using ``rng``) where the player to move
    has more than one legal action.

    >>> from flipgames import make
    >>> positions = list(random_choices(make("checkered-flag"), random.Random(3)))
    >>> len(positions) > 0 and all(len(s.legal_actions()) > 1 for s in positions)
    True
    """
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state = state.apply(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            yield state
        state = state.apply(rng.choice(legal))


def repetition_count(state: State, step: int = 1) -> int:
    """How many times ``state.key()`` has occurred on the path to ``state`` (itself included).

    ``step`` lets a game skip ancestors that cannot match (2 when the side to move is part of
    the key and alternates every ply).
    """
    key = state.key()
    count = 1
    node = state._parent
    for _ in range(step - 1):
        node = node._parent if node is not None else None
    while node is not None:
        if node.key() == key:
            count += 1
        node = node._parent
        for _ in range(step - 1):
            node = node._parent if node is not None else None
    return count
