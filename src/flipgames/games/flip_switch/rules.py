"""Flip Switch: flip face-down tiles and switch neighbours to line up three of a shape.

The rules are in ``seeds/flip-switch.txt`` and RULINGS.md; :meth:`FlipSwitch.rules_summary`
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
from functools import cache
from typing import TYPE_CHECKING, ClassVar, Final, cast

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError, OptionError, quote
from flipgames.core.game import CHANCE, JSON, TERMINAL, Game, State
from flipgames.core.options import Option, options_for_players
from flipgames.games.flip_switch import heuristics
from flipgames.games.flip_switch.notation import (
    DRAWN,
    FACE_DOWN,
    NO_SWITCH,
    SHAPE_NAMES,
    UNCLAIMED,
    ActionLayout,
    action_layout,
)
from flipgames.games.flip_switch.render import render_state

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.kernel import Kernel

#: The squares of one scoring line (three of them unless the option ``line`` says more).
Line = tuple[int, ...]

_DIRECTIONS: Final = ((0, 1), (1, 0), (1, 1), (1, -1))  # (rank step, file step)


@cache
def lines_through(size: int, edges_only: bool, length: int = 3) -> tuple[tuple[Line, ...], ...]:
    """Per square, the scoring lines (``length`` squares in a straight row) that contain it.

    A line is any ``length`` consecutive squares of a row, column or diagonal (``lines=all``);
    with ``lines=edges`` only those on the four edges and the two corner-to-corner diagonals.
    On 3x3 that is 8 and 6 lines; on 4x4, 24 and 12 lines of three, 10 and 6 of four.

    >>> [len(set(sum(lines_through(3, e), ()))) for e in (False, True)]
    [8, 6]
    >>> lines_through(3, True)[4]  # the centre: only the two diagonals
    ((0, 4, 8), (2, 4, 6))
    >>> [len(set(sum(lines_through(4, e, 4), ()))) for e in (False, True)]
    [10, 6]
    """
    last = size - 1
    found: list[Line] = []
    for rank in range(size):
        for file in range(size):
            for dr, df in _DIRECTIONS:
                end_rank, end_file = rank + (length - 1) * dr, file + (length - 1) * df
                if not (0 <= end_rank <= last and 0 <= end_file <= last):
                    continue
                cells = [(rank + i * dr, file + i * df) for i in range(length)]
                if edges_only and not _on_edge_line(cells, dr, df, last):
                    continue
                found.append(cast(Line, tuple(r * size + f for r, f in cells)))
    return tuple(tuple(line for line in found if square in line) for square in range(size * size))


def _on_edge_line(cells: list[tuple[int, int]], dr: int, df: int, last: int) -> bool:
    rank, file = cells[0]
    if dr == 0:
        return rank in (0, last)
    if df == 0:
        return file in (0, last)
    if df == 1:
        return all(r == f for r, f in cells)
    return all(r + f == last for r, f in cells)


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
    option_spec: ClassVar[tuple[Option, ...]] = (
        Option(
            "lines",
            "all",
            choices=("all", "edges"),
            help="all rows, columns and diagonals score, or only the four edges and the two "
            "corner-to-corner diagonals (the rulebook's literal 'entire side').",
            label="Lines that score",
            choice_words=("all lines", "edges only"),
        ),
        Option(
            "no_move",
            "draw",
            choices=("draw", "pass"),
            help="what happens when the player to move has no legal action.",
            label="No legal action",
            choice_words=("the round is drawn", "the player passes"),
        ),
        # The rulebook: "Winner is determined by number of rounds won", so play is a match.
        # One round (rounds=1) is the game the solver and the perfect level study.
        Option(
            "rounds",
            3,
            minimum=1,
            maximum=99,
            help="rounds in the match; 1 is a single round (the game the solver studies).",
            label="Number of rounds",
        ),
        Option(
            "size",
            3,
            minimum=3,
            maximum=6,
            help="squares along each side of the board.",
            label="Board size",
        ),
        Option(
            "shapes",
            3,
            minimum=2,
            maximum=len(SHAPE_NAMES),
            help=f"how many shapes ({', '.join(SHAPE_NAMES)}, in that order).",
            label="Number of shapes",
        ),
        Option(
            "copies", 3, minimum=3, maximum=18, help="tiles per shape.", label="Tiles of each shape"
        ),
        Option(
            "line",
            3,
            minimum=3,
            maximum=6,
            help="tiles in a scoring line (the rulebook: three; at most the board size).",
            label="Scoring line length",
        ),
        # Candidate fixes for the hole the audit finds (docs/lab/flip-switch.md): with best
        # play every round goes round in switches until the repetition rule draws it.
        Option(
            "must_flip",
            "no",
            choices=("no", "yes"),
            help="with yes, a player must flip while any tile is face down (no switch until "
            "all are up).",
            label="Flip first",
        ),
        Option(
            "switch_limit",
            0,
            minimum=0,
            maximum=99,
            help="0 means no limit; otherwise after that many turns in a row without a flip or "
            "a score the round ends, won by the player credited with more shapes (equal: drawn).",
            label="Turn limit",
        ),
    )

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
        layout = self.layout
        names = ", ".join(layout.shapes)
        size = layout.size
        options = options_for_players(self.option_spec, self.options)
        return f"""\
Flip Switch (rulebook: the designer's Thingiverse page; rulings: flipgames RULINGS.md)

Setup: {size * size} tiles, {self.copies} each of {names}, face down on a {size}x{size} grid.
  Nobody knows a face-down tile: a flip's shape is a chance outcome, each shape with
  probability proportional to how many of it are still unrevealed (the same as shuffling).
Turn: either
  1. flip a face-down tile (notation: its square, e.g. b2), or
  2. switch two orthogonally adjacent face-up tiles (e.g. a1-a2). A switch may not swap
     two tiles of the same shape, two nullified shapes (a nullified shape may switch with
     one that is not), a face-down tile, or the exact switch (same two squares) the opponent
     made in the immediately preceding turn (your own earlier switches are not restricted).
Lines: {self.line} tiles in a straight row: {self._lines_text()}.{self._fixes_text()}
Scoring: when an action makes a line of face-up tiles of one shape that is not yet
  nullified, the player who acted (for a flip, the flipper) is credited with that shape and
  it is nullified for both players for the rest of the round. One action can credit two
  shapes; a flip can score; a nullified shape never scores again that round.
Round: the first player credited with {self.target} shapes (a majority of {len(layout.shapes)}) \
wins the round.
  The round is drawn if the player to move has no legal action (unless the option below
  says such a player passes) or if a position (tiles, nullified shapes and their owners,
  last switch, side to move) occurs for the third time. Where the option says so, a player
  with no legal action must pass (notation: pass); if both players can only pass, the third
  repetition draws the round.
Match: {self.rounds} round(s); player 1 starts odd rounds, player 2 even rounds; each round is
  a fresh face-down grid. Most rounds won wins the match; equal is a draw.

{options}
"""

    def _fixes_text(self) -> str:
        """The candidate fixes in force, in words (empty for the published rules)."""
        text = ""
        if self.must_flip:
            text += "\nDuty to flip (must_flip=yes): while any tile is face down, a turn is a flip."
        if self.switch_limit:
            text += (
                f"\nSwitch limit (switch_limit={self.switch_limit}): after "
                f"{self.switch_limit} turns in a row without a flip or a score the round ends;"
                "\n  the player credited with more shapes wins it, equal is a draw."
            )
        return text

    def _lines_text(self) -> str:
        if self.options["lines"] == "edges":
            return "only along the four edges and the two corner-to-corner diagonals"
        return "any three consecutive squares of a row, column or diagonal"


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
            f"{quote(text)} is not legal here: {self._why_illegal(action)}; "
            f"legal: {self._legal_text()}"
        )

    def _legal_text(self) -> str:
        return " ".join(self.action_to_string(a) for a in self.legal_actions()) or "none"

    def _why_illegal(self, action: int) -> str:
        layout = self.game.layout
        if self.is_terminal():
            return "the match is over"
        if self._pending >= 0:
            if action < layout.outcome_base:
                return (
                    f"the flip of {layout.squares[self._pending]} is being revealed: name the "
                    "shape it shows"
                )
            shape = layout.shapes[action - layout.outcome_base]
            return f"no face-down {shape} is left"
        if action >= layout.outcome_base:
            return "no flip is being revealed, so no shape can be named"
        if action < layout.switch_base:
            return f"{layout.squares[action]} is already face up"
        if action == layout.pass_id:
            if not self.game.passing:
                return "passing needs the option no_move=pass"
            return "a player may pass only when no other action is legal"
        pair = action - layout.switch_base
        i, j = layout.pairs[pair]
        a, b = self._tiles[i], self._tiles[j]
        if a == FACE_DOWN or b == FACE_DOWN:
            return f"{layout.squares[i if a == FACE_DOWN else j]} is face down"
        if a == b:
            return f"both tiles are {layout.shapes[a]}s"
        if pair == self._last:
            return "the opponent made this exact switch in the immediately preceding turn"
        return f"{layout.shapes[a]} and {layout.shapes[b]} are both nullified"

    # --- outcome ----------------------------------------------------------------------------

    def returns(self) -> tuple[int, ...]:
        if not self.is_terminal():
            return (0, 0)
        wins = self._round_wins()
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

    def _round_wins(self) -> tuple[int, int]:
        return self._results.count(0), self._results.count(1)

    # --- views ------------------------------------------------------------------------------

    def _round_number(self) -> int:
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
            self._round_wins(),
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
        game = self.game
        layout = game.layout
        size = layout.size
        shapes = layout.shapes
        names: list[str | None] = [None if t == FACE_DOWN else shapes[t] for t in self._tiles]
        credited = [[shapes[k] for k, o in enumerate(self._owners) if o == p] for p in (0, 1)]
        wins = self._round_wins()
        view: JSON = {
            "size": size,
            "grid": [names[r * size : (r + 1) * size] for r in range(size)],
            "shapes": list(shapes),
            "unrevealed": dict(zip(shapes, self.unrevealed(), strict=True)),
            "nullified": {shapes[k]: o for k, o in enumerate(self._owners) if o != UNCLAIMED},
            "credited": credited,
            "target": game.target,
            "flipping": None,
            "banned_switch": None,
            "round": self._round_number(),
            "rounds": game.rounds,
            "round_results": [None if r == DRAWN else r for r in self._results],
            "round_wins": list(wins),
            "last_round": self._reason or None,
            "scoring": self._scoring_lines(),
            "rounds_played": self._rounds_played(),
        }
        if self._pending >= 0:
            view["flipping"] = {"square": layout.squares[self._pending], "player": self._mover}
        if self._last != NO_SWITCH and self.current_player >= 0:
            view["banned_switch"] = layout.to_string(layout.switch_base + self._last)
        if player is not None:
            for label, who in (("mine", player), ("theirs", 1 - player)):
                view[label] = {"player": who, "shapes": credited[who], "round_wins": wins[who]}
        return view

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
        layout = self.game.layout
        details: JSON
        if action >= layout.outcome_base:
            details = {
                "kind": "reveal",
                "square": layout.squares[self._pending],
                "shape": layout.shapes[action - layout.outcome_base],
            }
        elif action < layout.switch_base:
            details = {"kind": "flip", "square": layout.squares[action]}
        elif action == layout.pass_id:
            details = {"kind": "pass"}
        else:
            low, high = layout.pairs[action - layout.switch_base]
            details = {"kind": "switch", "from": layout.squares[low], "to": layout.squares[high]}
        return {**details, "round": self._round_number()}

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        # numpy loads on first use, not with the rules.
        from flipgames.games.flip_switch import tensor

        game = self.game
        banned = () if self._last == NO_SWITCH else game.layout.pairs[self._last]
        return tensor.encode(
            game.layout.size,
            self._tiles,
            self._owners,
            self._pending,
            banned,
            self._round_wins(),
            game.rounds,
            self.current_player,
            player,
        )

    def _scoring_lines(self) -> list[JSON]:
        """The lines that credited a shape this round (the last round, once it is over), in
        the order they scored: ``{"player", "shape", "squares"}``. Read back from the history,
        so a line later broken up by a switch is still the one that scored.

        >>> from flipgames import make
        >>> state = make("flip-switch").state_from_actions(
        ...     ["a1", "heart", "b1", "star", "b2", "heart", "c2", "star", "c3", "heart"]
        ... )
        >>> state.observation(None)["board"]["scoring"]
        [{'player': 0, 'shape': 'heart', 'squares': ['a1', 'b2', 'c3']}]
        """
        game = self.game
        layout = game.layout
        found: list[JSON] = []
        node: FlipSwitchState = self
        # Owners only grow within a round; a round's first state has none.
        while node._parent is not None and any(o != UNCLAIMED for o in node._owners):
            parent = cast(FlipSwitchState, node._parent)
            tiles = node._tiles
            for shape, owner in enumerate(node._owners):
                if owner == UNCLAIMED or parent._owners[shape] != UNCLAIMED:
                    continue
                lines = {line for per_square in game.lines for line in per_square}
                for line in sorted(lines):
                    if all(tiles[square] == shape for square in line):
                        squares = [layout.squares[square] for square in line]
                        entry = {"player": owner, "shape": layout.shapes[shape], "squares": squares}
                        found.append(entry)
            node = parent
        found.reverse()
        return found

    def _turn_tiles(self, action: int) -> tuple[int, ...]:
        """The tiles right after ``action`` (a reveal, a switch or a pass), before a round it
        ends gives way to the next round's face-down grid."""
        layout = self.game.layout
        tiles = list(self._tiles)
        if self._pending >= 0:
            tiles[self._pending] = action - layout.outcome_base
        elif layout.switch_base <= action < layout.pass_id:
            i, j = layout.pairs[action - layout.switch_base]
            tiles[i], tiles[j] = tiles[j], tiles[i]
        return tuple(tiles)

    def _rounds_played(self) -> list[JSON]:
        """Each finished round: its number, ``winner`` (None for a draw), ``how`` it ended in
        words (``last_round`` after its "round 1: player 1"), its ``grid`` when it ended (rows
        as in ``grid``) and the ``scoring`` lines of the shapes credited in it (as
        :meth:`_scoring_lines`), each ``standing`` if its tiles still show its shape on that
        grid (a later switch can break up a line that scored).

        >>> from flipgames import make
        >>> game = make("flip-switch", rounds=2)
        >>> moves = "c1 heart b2 square a2 star c2 heart c3 heart b1 square b3 square"
        >>> [first] = game.state_from_actions(moves.split()).observation(None)["board"][
        ...     "rounds_played"
        ... ]
        >>> first["winner"], first["how"]
        (0, 'won with heart and square')
        >>> [(line["shape"], line["squares"], line["standing"]) for line in first["scoring"]]
        [('heart', ['c1', 'c2', 'c3'], True), ('square', ['b1', 'b2', 'b3'], True)]
        """
        game = self.game
        layout = game.layout
        size = layout.size
        shapes = layout.shapes
        lines = sorted({line for per_square in game.lines for line in per_square})
        rounds: list[JSON] = []
        scored: list[JSON] = []  # the lines of the round being walked back through, latest first
        node: FlipSwitchState = self
        while node._parent is not None:
            parent = cast(FlipSwitchState, node._parent)
            action = cast(int, node._action)
            ended = len(node._results) > len(parent._results)
            tiles = parent._turn_tiles(action) if ended else node._tiles
            owners = node._owners
            if ended:
                # The round's last action: its credits are on no state (the next round starts
                # clean), so they are read off the tiles it left, for the player who acted.
                owners = tuple(
                    parent._mover
                    if owner == UNCLAIMED
                    and any(all(tiles[s] == k for s in line) for line in lines)
                    else owner
                    for k, owner in enumerate(parent._owners)
                )
                final = tiles
                scored = []
            for shape, owner in enumerate(owners):
                if owner == UNCLAIMED or parent._owners[shape] != UNCLAIMED:
                    continue
                for line in lines:
                    if all(tiles[square] == shape for square in line):
                        scored.append(
                            {
                                "player": owner,
                                "shape": shapes[shape],
                                "squares": [layout.squares[square] for square in line],
                                "line": line,
                            }
                        )
            if ended:
                winner = node._results[-1]
                number = len(node._results)
                who = "" if winner == DRAWN else f": {game.player_names[winner]}"
                rounds.append(
                    {
                        "round": number,
                        "winner": None if winner == DRAWN else winner,
                        # As _end_round words it, after the round and the winner.
                        "how": node._reason.removeprefix(f"round {number}{who} "),
                        "grid": [
                            [None if t == FACE_DOWN else shapes[t] for t in row]
                            for row in (final[r * size : (r + 1) * size] for r in range(size))
                        ],
                        "scoring": scored,
                    }
                )
            node = parent
        for summary in rounds:
            final_names = summary["grid"]
            summary["scoring"] = [
                {
                    "player": line["player"],
                    "shape": line["shape"],
                    "squares": line["squares"],
                    "standing": all(
                        final_names[s // size][s % size] == line["shape"] for s in line["line"]
                    ),
                }
                for line in reversed(summary["scoring"])
            ]
        rounds.reverse()
        return rounds

    def status_text(self) -> str:
        """Whose turn, the flip being revealed, or how the match ended: a sentence, so the
        player's name opens it capitalised ("Player 1 to move")."""
        game = self.game
        names = [name.capitalize() for name in game.player_names]
        if self.is_terminal():
            wins = self._round_wins()
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
        game = self.game
        layout = game.layout
        return render_state(
            title=f"{game.title} · round {self._round_number()} of {game.rounds} · "
            f"{self.status_text()}",
            size=layout.size,
            tiles=self._tiles,
            owners=self._owners,
            shapes=layout.shapes,
            pending=self._pending,
            unrevealed=self.unrevealed(),
            player_names=game.player_names,
            target=game.target,
            banned=(
                layout.to_string(layout.switch_base + self._last)
                if self._last != NO_SWITCH and not self.is_terminal()
                else None
            ),
            round_wins=self._round_wins(),
            last_round=self._reason,
        )
