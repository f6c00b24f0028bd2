"""Flip Switch: flip face-down tiles and switch neighbours to line up three of a shape.

The rules are the designer's Flip Switch page and docs/rulings.md; :meth:`FlipSwitch.rules_summary`
states them as played here, and ``docs/games/flip-switch.md`` explains every decision.

Nothing hidden exists in a state: a face-down tile is unknown to everyone, so each flip is a
player action (which square) followed by a chance node (which shape it shows, with probability
proportional to the shapes not yet revealed). That is the same distribution as a shuffled grid,
and there is no shuffled grid anywhere to leak.

Action ids and notation are documented in :mod:`flipgames.games.flip_switch.notation`.

>>> from flipgames import make
>>> state = make("flip-switch").new_initial_state()
>>> state = state.apply(state.parse_action("b2"))
>>> state.is_chance_node(), [(state.action_to_string(a), p) for a, p in state.chance_outcomes()]
(True, [('heart', Fraction(1, 3)), ('square', Fraction(1, 3)), ('star', Fraction(1, 3))])
>>> state = state.apply(state.parse_action("heart"))
>>> state.current_player, state.observation(None)["board"]["grid"][1]
(1, [None, 'heart', None])
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar, cast

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError, OptionError, quote
from flipgames.core.game import CHANCE, JSON, TERMINAL, Game, State
from flipgames.core.options import Option
from flipgames.games.flip_switch import heuristics, views
from flipgames.games.flip_switch.board import lines_through
from flipgames.games.flip_switch.notation import (
    DRAWN,
    FACE_DOWN,
    NO_SWITCH,
    UNCLAIMED,
    ActionLayout,
    action_layout,
)
from flipgames.games.flip_switch.options import OPTION_SPEC, rules_text

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.kernel import Kernel


class FlipSwitch(Game):
    """Flip Switch by its designer on Thingiverse, with the flipgames rulings.

    >>> FlipSwitch({"size": 4, "shapes": 4, "copies": 4}).target
    3
    >>> FlipSwitch({"size": 4})
    Traceback (most recent call last):
    ...
    flipgames.core.errors.OptionError: options size, shapes and copies do not fit: the \
4x4 board has 16 squares but shapes x copies = 3 x 3 = 9 tiles; e.g. size=4 shapes=4 copies=4
    """

    name: ClassVar[str] = "flip-switch"
    title: ClassVar[str] = "Flip Switch"
    player_names: ClassVar[tuple[str, ...]] = ("player 1", "player 2")
    has_chance: ClassVar[bool] = True
    repetition_draws: ClassVar[bool] = True
    game_length_capped: ClassVar[bool] = True
    option_spec: ClassVar[tuple[Option, ...]] = OPTION_SPEC

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        super().__init__(options)
        size = int(self.options["size"])
        shapes = int(self.options["shapes"])
        copies = int(self.options["copies"])
        if size * size != shapes * copies:
            raise OptionError(
                "options size, shapes and copies do not fit: the "
                f"{size}x{size} board has {size * size} squares but shapes x copies = "
                f"{shapes} x {copies} = {shapes * copies} tiles; e.g. size=4 shapes=4 copies=4"
            )
        length = int(self.options["line"])
        # Within the other options' bounds copies >= size, so a line that fits the board
        # always has enough tiles of a shape to fill it.
        if length > size:
            raise OptionError(
                f"option line={length} does not fit: a line is at most the board size ({size}) long"
            )
        self.layout: ActionLayout = action_layout(size, shapes)
        self.copies = copies
        self.rounds = int(self.options["rounds"])
        #: Shapes a player needs to win a round: a majority (2 of the standard 3).
        self.target = shapes // 2 + 1
        self.passing = self.options["no_move"] == "pass"
        self.lines = lines_through(size, self.options["lines"] == "edges", length)
        self.line = length
        self.must_flip = self.options["must_flip"] == "yes"
        self.switch_limit = int(self.options["switch_limit"])

    @property
    def num_distinct_actions(self) -> int:
        """Flips, switches, the pass and the shape outcomes (25 on the standard 3x3)."""
        return self.layout.num_actions

    @property
    def max_chance_outcomes(self) -> int:
        """One outcome per shape."""
        return len(self.layout.shapes)

    @property
    def max_game_length(self) -> int:
        """A cap (switches can repeat positions): 500 plies a round; rounds of uniformly
        drawn moves on 3x3 end within about 150."""
        return 500 * self.rounds

    @property
    def observation_tensor_shape(self) -> tuple[int, ...]:
        """``(3 * shapes + 6, size, size)``: see :mod:`flipgames.games.flip_switch.tensor`."""
        # numpy loads on first use, not with the rules.
        from flipgames.games.flip_switch import tensor

        return tensor.shape(self.layout.size, len(self.layout.shapes))

    def kernel(self) -> Kernel | None:
        """The compiled kernel of the published 3x3 game (3 shapes x 3 copies, lines of 3),
        any lines, no_move and rounds. Other sizes run on this reference engine: the kernel
        packs a position into 64 bits with 2 bits per square and 3 shapes, which they do not
        fit. So do the candidate fixes (must_flip, switch_limit): the kernel has no duty to
        flip and no count of turns without progress."""
        if (self.layout.size, len(self.layout.shapes), self.copies, self.line) != (3, 3, 3, 3):
            return None
        if self.must_flip or self.switch_limit:
            return None
        from flipgames.games.flip_switch.kernel import FlipSwitchKernel  # numba loads lazily

        return FlipSwitchKernel(self)

    def new_initial_state(self) -> FlipSwitchState:
        return FlipSwitchState.round_start(self, results=(), reason="", parent=None, action=None)

    def notation_help(self) -> str:
        return self.layout.notation_help()

    def rules_summary(self) -> str:
        return rules_text(self)


class FlipSwitchState(State):
    """A Flip Switch position: revealed tiles only, plus the round and match so far.

    Fields are compact tuples and ints: ``tiles`` holds a shape index per square or
    :data:`FACE_DOWN`; ``owners`` a player per nullified shape or :data:`UNCLAIMED`.
    """

    __slots__ = (
        "_tiles",
        "_owners",
        "_last",
        "_mover",
        "_pending",
        "_results",
        "_reason",
        "_rev",
        "_ending",
    )

    game: FlipSwitch

    def __init__(
        self,
        game: FlipSwitch,
        tiles: tuple[int, ...],
        owners: tuple[int, ...],
        last: int,
        mover: int,
        pending: int,
        results: tuple[int, ...],
        reason: str,
        rev: int,
        parent: State | None,
        action: int | None,
    ) -> None:
        super().__init__(game, parent, action)
        self._tiles = tiles
        #: Per shape, the player credited with it (it is nullified) or UNCLAIMED.
        self._owners = owners
        #: The pair index of the switch made in the immediately preceding turn, or NO_SWITCH.
        self._last = last
        #: The player to move, or at a chance node the player whose flip is being revealed.
        self._mover = mover
        #: The square being flipped at a chance node, else -1.
        self._pending = pending
        #: Per finished round, the winner or DRAWN.
        self._results = results
        #: How the last finished round ended, in words ("" before any has).
        self._reason = reason
        #: Reversible plies (switches, passes) since the last flip, score or round start: only
        #: positions that far back can repeat this one.
        self._rev = rev
        #: How the rules ended the last round, set on the state that ends the match (the
        #: words above stay for people; this is for code).
        self._ending: Termination | None = None

    @classmethod
    def round_start(
        cls,
        game: FlipSwitch,
        results: tuple[int, ...],
        reason: str,
        parent: State | None,
        action: int | None,
    ) -> FlipSwitchState:
        """A fresh face-down grid; player 1 starts odd rounds and player 2 even ones."""
        layout = game.layout
        return cls(
            game,
            (FACE_DOWN,) * len(layout.squares),
            (UNCLAIMED,) * len(layout.shapes),
            NO_SWITCH,
            len(results) % 2,
            -1,
            results,
            reason,
            0,
            parent,
            action,
        )

    # --- whose turn -------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        if len(self._results) == self.game.rounds:
            return TERMINAL
        return CHANCE if self._pending >= 0 else self._mover

    # --- reading the position (what evaluation and the kernel read) -------------------------

    @property
    def tiles(self) -> tuple[int, ...]:
        """Per square, the revealed shape or FACE_DOWN (a face-down tile has no shape yet)."""
        return self._tiles

    @property
    def owners(self) -> tuple[int, ...]:
        """Per shape, the player credited with it this round, or UNCLAIMED."""
        return self._owners

    @property
    def last(self) -> int:
        """The pair index of the switch made in the preceding turn, or NO_SWITCH."""
        return self._last

    @property
    def mover(self) -> int:
        """The player to move, or at a chance node the player whose flip is being revealed."""
        return self._mover

    @property
    def pending(self) -> int:
        """The square being flipped at a chance node, else -1."""
        return self._pending

    @property
    def results(self) -> tuple[int, ...]:
        """Per finished round, the winner or DRAWN."""
        return self._results

    @property
    def reason(self) -> str:
        """How the last finished round ended, in words ("" before any has)."""
        return self._reason

    # --- actions ----------------------------------------------------------------------------

    def _legal_actions(self) -> tuple[int, ...]:
        if self.is_terminal():
            return ()
        game = self.game
        tiles = self._tiles
        if self._pending >= 0:
            base = game.layout.outcome_base
            remaining = self.unrevealed()
            return tuple(base + k for k, left in enumerate(remaining) if left)
        actions = [s for s, shape in enumerate(tiles) if shape == FACE_DOWN]
        if actions and game.must_flip:
            return tuple(actions)
        owners, last, base = self._owners, self._last, game.layout.switch_base
        for p, (i, j) in enumerate(game.layout.pairs):
            a, b = tiles[i], tiles[j]
            if (
                a != b
                and a != FACE_DOWN
                and b != FACE_DOWN
                and (owners[a] == UNCLAIMED or owners[b] == UNCLAIMED)
                and p != last
            ):
                actions.append(base + p)
        if not actions and game.passing:
            actions.append(game.layout.pass_id)
        return tuple(actions)

    def unrevealed(self) -> list[int]:
        """Per shape, how many of its tiles are still face down."""
        remaining = [self.game.copies] * len(self._owners)
        for shape in self._tiles:
            if shape != FACE_DOWN:
                remaining[shape] -= 1
        return remaining

    def chance_outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        if self._pending < 0:
            return super().chance_outcomes()
        remaining = self.unrevealed()
        total = sum(remaining)
        base = self.game.layout.outcome_base
        return tuple((base + k, Fraction(left, total)) for k, left in enumerate(remaining) if left)

    def _apply(self, action: int) -> FlipSwitchState:
        game = self.game
        layout = game.layout
        if self._pending >= 0:
            tiles = list(self._tiles)
            tiles[self._pending] = action - layout.outcome_base
            return self._after_turn(tuple(tiles), (self._pending,), NO_SWITCH, action)
        if action < layout.switch_base:
            return FlipSwitchState(
                game,
                self._tiles,
                self._owners,
                NO_SWITCH,
                self._mover,
                action,
                self._results,
                self._reason,
                0,
                self,
                action,
            )
        if action == layout.pass_id:
            return self._after_turn(self._tiles, (), NO_SWITCH, action)
        pair = action - layout.switch_base
        i, j = layout.pairs[pair]
        tiles = list(self._tiles)
        tiles[i], tiles[j] = tiles[j], tiles[i]
        return self._after_turn(tuple(tiles), (i, j), pair, action)

    def _after_turn(
        self, tiles: tuple[int, ...], changed: tuple[int, ...], last: int, action: int
    ) -> FlipSwitchState:
        """Score the lines the turn made, then end the round or pass the turn on."""
        game = self.game
        mover = self._mover
        owners = self._owners
        scored: list[int] = []
        for square in changed:
            for line in game.lines[square]:
                shape = tiles[line[0]]
                if (
                    shape != FACE_DOWN
                    and all(tiles[s] == shape for s in line)
                    and owners[shape] == UNCLAIMED
                    and shape not in scored
                ):
                    scored.append(shape)
        if scored:
            owners = tuple(mover if k in scored else o for k, o in enumerate(owners))
            if owners.count(mover) >= game.target:
                won = " and ".join(
                    game.layout.shapes[k] for k, o in enumerate(owners) if o == mover
                )
                return self._end_round(
                    tiles, owners, mover, (Termination.LINES_MADE, f"won with {won}"), action
                )
        # A flip or a score can never be undone, so only switches and passes since the last
        # one can lead back to this position.
        reversible = self._pending < 0 and not scored
        child = FlipSwitchState(
            game,
            tiles,
            owners,
            last,
            1 - mover,
            -1,
            self._results,
            self._reason,
            self._rev + 1 if reversible else 0,
            self,
            action,
        )
        if reversible and game.switch_limit and child._rev >= game.switch_limit:
            return self._limit_reached(tiles, owners, action)
        legal = child._legal_actions()
        child._legal = legal
        if not legal:
            name = game.player_names[1 - mover]
            how = f"drawn: {name} had no legal action"
            return self._end_round(tiles, owners, DRAWN, (Termination.NO_LEGAL_MOVE, how), action)
        if reversible and child._occurs_three_times():
            how = "drawn: a position occurred for the third time"
            return self._end_round(tiles, owners, DRAWN, (Termination.REPETITION, how), action)
        return child

    def _limit_reached(
        self, tiles: tuple[int, ...], owners: tuple[int, ...], action: int
    ) -> FlipSwitchState:
        """The switch limit ends the round: more shapes credited wins, equal draws."""
        mine, theirs = owners.count(0), owners.count(1)
        limit = self.game.switch_limit
        if mine == theirs:
            how = f"drawn: {limit} turns in a row without a flip or a score, shapes level"
            return self._end_round(tiles, owners, DRAWN, (Termination.MOVE_LIMIT, how), action)
        winner = 0 if mine > theirs else 1
        how = f"won on the switch limit ({limit} turns without a flip or a score) with more shapes"
        return self._end_round(tiles, owners, winner, (Termination.MOVE_LIMIT, how), action)

    def _occurs_three_times(self) -> bool:
        # Within the reversible stretch the side to move alternates every ply, so only every
        # second ancestor can match; owners and round cannot differ inside it.
        count = 1
        node = self
        for _ in range(self._rev // 2):
            node = cast(FlipSwitchState, cast(FlipSwitchState, node._parent)._parent)
            if node._tiles == self._tiles and node._last == self._last:
                count += 1
                if count == 3:
                    return True
        return False

    def _end_round(
        self,
        tiles: tuple[int, ...],
        owners: tuple[int, ...],
        winner: int,
        ending: tuple[Termination, str],
        action: int,
    ) -> FlipSwitchState:
        """The round is over, ``ending`` says how (as data, and in words for people)."""
        game = self.game
        termination, how = ending
        results = (*self._results, winner)
        who = "" if winner == DRAWN else f": {game.player_names[winner]}"
        reason = f"round {len(results)}{who} {how}"
        if len(results) < game.rounds:
            return FlipSwitchState.round_start(game, results, reason, self, action)
        # The match is over: keep the final board on show.
        final = FlipSwitchState(
            game, tiles, owners, NO_SWITCH, self._mover, -1, results, reason, 0, self, action
        )
        final._ending = termination
        return final

    # --- notation ---------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        return self.game.layout.to_string(action)

    def parse_action(self, text: str) -> int:
        """Parse notation into a legal action id.

        >>> from flipgames import make
        >>> state = make("flip-switch").new_initial_state()
        >>> state.parse_action(" B2 ")
        4
        >>> state.parse_action("a1-a2")
        Traceback (most recent call last):
        ...
        flipgames.core.errors.IllegalActionError: 'a1-a2' is not legal here: a1 is face down; \
legal: a1 b1 c1 a2 b2 c2 a3 b3 c3
        """
        try:
            action = self.game.layout.parse(text)
        except IllegalActionError as exc:
            raise IllegalActionError(f"{exc}; legal: {self._legal_text()}") from None
        if action in self.legal_actions():
            return action
        raise IllegalActionError(
            f"{quote(text)} is not legal here: {views.why_illegal(self, action)}; "
            f"legal: {self._legal_text()}"
        )

    def _legal_text(self) -> str:
        return " ".join(self.action_to_string(a) for a in self.legal_actions()) or "none"

    # --- outcome ----------------------------------------------------------------------------

    def returns(self) -> tuple[int, ...]:
        if not self.is_terminal():
            return (0, 0)
        wins = self.round_wins()
        lead = wins[0] - wins[1]
        return (1, -1) if lead > 0 else (-1, 1) if lead < 0 else (0, 0)

    def evaluate(self, player: int) -> float:
        """Shapes credited, the acting player's scoring chance and rounds won: see
        :mod:`.heuristics`."""
        return heuristics.evaluate(self, player)

    def end_reason(self) -> Termination | None:
        """How the match ended: a match of several rounds is decided by the rounds won
        (``ROUNDS_PLAYED``); a single round says how it ended (``LINES_MADE``,
        ``NO_LEGAL_MOVE``, ``REPETITION`` or ``MOVE_LIMIT``). None while it goes on."""
        if not self.is_terminal():
            return None
        return Termination.ROUNDS_PLAYED if self.game.rounds > 1 else self._ending

    def round_wins(self) -> tuple[int, int]:
        """Rounds won so far by each player."""
        return self._results.count(0), self._results.count(1)

    # --- views ------------------------------------------------------------------------------

    def as_round(self, single: FlipSwitch, swapped: bool) -> FlipSwitchState:
        """This position as one of ``single`` (one round of these rules), seats swapped if
        ``swapped``, with no history (review.py: the game review values each round so)."""
        owners = tuple(1 - o if swapped and o != UNCLAIMED else o for o in self._owners)
        mover = 1 - self._mover if swapped else self._mover
        tiles, last, pending = self._tiles, self._last, self._pending
        return FlipSwitchState(single, tiles, owners, last, mover, pending, (), "", 0, None, None)

    def round_number(self) -> int:
        """The round being played, or the last one once the match is over (from 1)."""
        return min(len(self._results) + 1, self.game.rounds)

    def key(self) -> Hashable:
        return (
            self._tiles,
            self._owners,
            self._last,
            self._mover,
            self._pending,
            len(self._results),
            self.round_wins(),
            # Turns since the last flip or score matter only where a limit counts them.
            self._rev if self.game.switch_limit else 0,
        )

    def board_view(self, player: int | None) -> JSON:
        """Everything a player or spectator sees. Nothing is hidden because nothing hidden
        exists: a face-down tile is ``None`` in ``grid`` and its shape is not decided until
        the chance node of its flip.

        ``grid[r][f]`` is rank ``r + 1``, file ``f`` (``grid[0][0]`` is a1). ``mine`` and
        ``theirs`` appear when the viewer is a player.

        >>> from flipgames import make
        >>> board = make("flip-switch").new_initial_state().observation(0)["board"]
        >>> board["grid"][0], board["unrevealed"], board["mine"]["shapes"]
        ([None, None, None], {'heart': 3, 'square': 3, 'star': 3}, [])
        """
        return views.board_view(self, player)

    def _action_details(self, action: int) -> JSON:
        """``flip`` (the ``square`` turned over), ``switch`` (``from`` and ``to``, the two
        squares), ``pass``, or at a chance node ``reveal`` (the ``shape`` the flipped tile
        shows, on ``square``); each with the ``round`` it is played in (from 1), so a match's
        record shows where each round starts.

        >>> from flipgames import make
        >>> state = make("flip-switch").new_initial_state().apply(4)
        >>> state.action_info(state.legal_actions()[0])
        {'id': 22, 'text': 'heart', 'chance': True, 'kind': 'reveal', 'square': 'b2', \
'shape': 'heart', 'round': 1}
        """
        return views.action_details(self, action)

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        return views.tensor(self, player)

    def status_text(self) -> str:
        """Whose turn, the flip being revealed, or how the match ended: a sentence, so the
        player's name opens it capitalised ("Player 1 to move")."""
        game = self.game
        names = [name.capitalize() for name in game.player_names]
        if self.is_terminal():
            wins = self.round_wins()
            score = f"{wins[0]}-{wins[1]} in rounds" if game.rounds > 1 else self._reason
            lead = self.returns()[0]
            if lead == 0:
                return f"Match drawn ({score})"
            return f"{names[0 if lead > 0 else 1]} wins the match ({score})"
        if self._pending >= 0:
            square = game.layout.squares[self._pending]
            return f"{names[self._mover]} flips {square}: chance reveals its shape"
        return f"{names[self._mover]} to move"

    def render(self) -> str:
        """The board in Unicode with status, scores and what is still face down.

        >>> from flipgames import make
        >>> print(make("flip-switch").new_initial_state().render())  # doctest: +ELLIPSIS
        Flip Switch · round 1 of 3 · Player 1 to move
        ...
          3 │ ░ │ ░ │ ░ │ 3
        ...
        """
        return views.render_text(self)
