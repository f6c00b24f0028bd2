"""Rubik's Flip: place double-sided tiles, flip the opponent's, make a locked row of three.

The state is three 16-bit boards (bit ``file + 4 * rank``, ``a1`` = bit 0): each player's
tiles and the squares showing a tile's second face (``B`` / ``W``; ``R`` / ``Y`` is the first
face). The side to move follows from the tile count (the first player moves when it is even).
Action ids are laid out in :mod:`flipgames.games.rubiks_flip.notation`.

>>> from flipgames import make
>>> state = make("rubiks-flip").new_initial_state()
>>> len(state.legal_actions())  # turn 1: any square, either colour, no flip
32
>>> state = state.apply(state.parse_action("b2R"))
>>> state.parse_action("c3Y")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
flipgames.core.errors.IllegalActionError: 'c3Y' is not legal: a flip is mandatory: ...
>>> state = state.apply(state.parse_action("b2/c3Y"))
>>> state.tile("b2"), state.tile("c3"), state.in_hand(0), state.in_hand(1)
('B', 'Y', 7, 7)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError, quote
from flipgames.core.game import JSON, TERMINAL, Game, State
from flipgames.core.options import Option, options_for_players
from flipgames.games.rubiks_flip import heuristics
from flipgames.games.rubiks_flip.board import FULL, LINES, spread_king, spread_orthogonal
from flipgames.games.rubiks_flip.notation import (
    COLOUR_LETTERS,
    FLAP_TARGET,
    FLIP_PARTS,
    LETTER_OWNER,
    NO_FLIP,
    NUM_SQUARES,
    PLACEMENTS,
    SQUARE_NAMES,
    decode_flip,
    encode,
    flap_direction_part,
    flap_part,
    format_action,
    format_flip,
    inplace_part,
    notation_help,
    parse_square,
    parse_turn,
)
from flipgames.games.rubiks_flip.render import render_state

#: The tile colours in words, by letter.
COLOUR_WORDS: Final = {"R": "red", "B": "blue", "Y": "yellow", "W": "white"}

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.games.rubiks_flip.kernel import RubiksFlipKernel

TILES_PER_PLAYER: Final = 8
NO_WINNER: Final = -1


def _squares_table(offset: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(offset + s for s in range(8) if byte >> s & 1) for byte in range(256))


# Squares of a 16-bit mask, looked up a byte at a time (much faster than testing 16 bits).
_LOW_SQUARES: Final = _squares_table(0)
_HIGH_SQUARES: Final = _squares_table(8)
_LOW_PLACEMENTS: Final = tuple(tuple(2 * s + c for s in sq for c in (0, 1)) for sq in _LOW_SQUARES)
_HIGH_PLACEMENTS: Final = tuple(
    tuple(2 * s + c for s in sq for c in (0, 1)) for sq in _HIGH_SQUARES
)


def squares_of(mask: int) -> tuple[int, ...]:
    """The squares set in a 16-bit mask, ascending.

    >>> squares_of(0b1000_0000_0000_0101)
    (0, 2, 15)
    """
    return _LOW_SQUARES[mask & 0xFF] + _HIGH_SQUARES[mask >> 8]


def _placements(empty: int) -> tuple[int, ...]:
    """``place * 2 + colour`` for every empty square and colour, ascending."""
    return _LOW_PLACEMENTS[empty & 0xFF] + _HIGH_PLACEMENTS[empty >> 8]


class RubiksFlip(Game):
    """Rubik's Flip on a 4x4 board, 8 tiles each.

    >>> RubiksFlip({"flip": "flap"}).options
    {'flip': 'flap', 'lock': 'king', 'both': 'mover'}
    >>> RubiksFlip({"lock": "rook"})
    Traceback (most recent call last):
    ...
    flipgames.core.errors.OptionError: bad value 'rook' for option 'lock': allowed king | orthogonal
    """

    name = "rubiks-flip"
    title = "Rubik's Flip"
    position_notation = "flipgames.games.rubiks_flip.position:CODEC"
    player_names = ("Red/Blue", "Yellow/White")
    option_spec = (
        Option(
            "flip",
            "inplace",
            choices=("inplace", "flap"),
            help="where it stands is the seed rulebook's rule; onto an orthogonally adjacent "
            "empty square (flapped) the printed editions'",
            label="A flipped tile turns over",
            choice_words=("where it stands", "onto an adjacent empty square"),
        ),
        Option(
            "lock",
            "king",
            choices=("king", "orthogonal"),
            help="which neighbours (inside the board) must all be occupied to lock a tile: "
            "orthogonal and diagonal ones (the seed rulebook's rule), or the orthogonal ones",
            label="A tile is locked when these neighbours are occupied",
            choice_words=("all around it", "the four beside it"),
        ),
        Option(
            "both",
            "mover",
            choices=("mover", "opponent"),
            help="who wins when, after a placement, both players have a locked row",
            label="When both have a locked row",
            choice_words=("the player who placed wins", "the other player wins"),
        ),
    )

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        super().__init__(options)
        self.flap: bool = self.options["flip"] == "flap"
        self.spread: Callable[[int], int] = (
            spread_king if self.options["lock"] == "king" else spread_orthogonal
        )
        self.mover_first: bool = self.options["both"] == "mover"

    @property
    def num_distinct_actions(self) -> int:
        """544 with ``flip=inplace``, 2,080 with ``flip=flap`` (flip parts x 32 placements)."""
        return FLIP_PARTS[self.flap] * PLACEMENTS

    @property
    def max_game_length(self) -> int:
        """16: every turn places a tile and the board has 16 squares."""
        return NUM_SQUARES

    @property
    def observation_tensor_shape(self) -> tuple[int, ...]:
        """``(8, 4, 4)``: see :mod:`flipgames.games.rubiks_flip.tensor`."""
        # numpy loads on first use, not with the rules.
        from flipgames.games.rubiks_flip import tensor

        return tensor.SHAPE

    def new_initial_state(self) -> RubiksFlipState:
        return RubiksFlipState(self)

    def state_at(self, tiles: tuple[int, int], faces: int) -> RubiksFlipState:
        """A game set up at a position, with no history: each player's tiles and the
        squares showing a second face, as 16-bit masks; the winner is judged as after the
        last placement. Checks nothing: the position notation (:mod:`.position`) does."""
        state = RubiksFlipState(self, tiles, faces)
        placed = (tiles[0] | tiles[1]).bit_count()
        if not placed:
            return state
        winner, line = state._judge(tiles[0], tiles[1], faces, (placed - 1) & 1)
        return RubiksFlipState(self, tiles, faces, winner, line)

    def notation_help(self) -> str:
        return notation_help(self.flap)

    def kernel(self) -> RubiksFlipKernel:
        # Imported here so that numba loads only when a kernel is first asked for.
        from flipgames.games.rubiks_flip.kernel import RubiksFlipKernel

        return RubiksFlipKernel(self)

    def rules_summary(self) -> str:
        lines = [
            f"{self.title} (options: "
            + ", ".join(f"{k}={v}" for k, v in self.options.items())
            + ")",
            "",
            "Board 4x4 (files a-d, ranks 1-4), empty at the start. The first player has 8",
            "red/blue tiles (R, B), the second 8 yellow/white tiles (Y, W); who starts is a coin",
            "toss in play. A turn is one action: an optional flip, then a placement.",
            "- Turn 1: place only. Later turns: flip, then place.",
            "- Place (mandatory): one of your tiles on any empty square, either colour up.",
            "- Flip: turn over one unlocked opponent tile on the board (its colour changes).",
            "  Mandatory when some opponent tile can be flipped; skipped otherwise. You may flip",
            "  any such tile, not only the last one placed.",
            "- Locked: every square adjacent to the tile, inside the board, is occupied (edge and",
            "  corner tiles have fewer neighbours, so they lock sooner). Locked tiles cannot be",
            "  flipped by either player.",
            "- Row: 3 consecutive squares in a row, column or diagonal (24 on the board).",
            "- Win, checked after each placement: if the mover has 3 of their own tiles showing",
            "  one colour (all R or all B; all Y or all W) in a row whose 3 tiles are all locked,",
            "  the mover wins; otherwise, if the opponent has one (a placement can lock it), the",
            "  opponent wins. An option below decides when both have one.",
            "- Draw: all 16 tiles placed (8 turns each) with no winning row.",
            "",
            options_for_players(self.option_spec, self.options),
            "",
            "Decisions where the rules are silent:",
            "- Flapped tiles: a tile with no orthogonally adjacent empty square cannot be flapped;",
            "  the flip is mandatory only if some opponent tile can be flapped. The square a",
            "  flapped tile leaves is empty, so the same turn may place a tile there.",
            "- The win is checked once per turn, after the placement (a turn is one action).",
            "- A row of four of one colour contains a row of three: it wins if three of its",
            "  consecutive tiles are locked.",
            "",
            "Notation: [flip/]SQUARE+COLOUR, e.g. c3R (no flip possible), b2/c3W;",
            "with flapped tiles the flip names where the tile lands: b2-b3/c3W.",
        ]
        return "\n".join(lines) + "\n"


class RubiksFlipState(State):
    """A Rubik's Flip position: both players' tiles, the faces shown, and any winner."""

    __slots__ = ("_faces", "_player", "_rules", "_tiles", "_win_line", "_winner")

    def __init__(
        self,
        game: RubiksFlip,
        tiles: tuple[int, int] = (0, 0),
        faces: int = 0,
        winner: int = NO_WINNER,
        win_line: int = 0,
        parent: RubiksFlipState | None = None,
        action: int | None = None,
    ) -> None:
        super().__init__(game, parent, action)
        self._rules = game
        self._tiles = tiles
        self._faces = faces
        self._winner = winner
        self._win_line = win_line
        occupied = tiles[0] | tiles[1]
        over = winner != NO_WINNER or occupied == FULL
        self._player: int = TERMINAL if over else occupied.bit_count() & 1

    # --- reading the position ---------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self._player

    @property
    def to_move(self) -> int:
        """The player whose turn it is, or would be if the game were not over."""
        return (self._tiles[0] | self._tiles[1]).bit_count() & 1

    @property
    def winner(self) -> int | None:
        """The winning player, or None (game in progress or drawn)."""
        return None if self._winner == NO_WINNER else self._winner

    @property
    def winning_squares(self) -> tuple[str, ...]:
        """The squares of the winning row (empty unless someone has won)."""
        return tuple(SQUARE_NAMES[s] for s in squares_of(self._win_line))

    def owner(self, square: str | int) -> int | None:
        """The player whose tile stands on ``square`` (name or index), or None if empty."""
        bit = 1 << _index(square)
        return 0 if self._tiles[0] & bit else 1 if self._tiles[1] & bit else None

    def tile(self, square: str | int) -> str | None:
        """The colour letter showing on ``square`` (``R``, ``B``, ``Y`` or ``W``), or None."""
        player = self.owner(square)
        if player is None:
            return None
        return COLOUR_LETTERS[player][self._faces >> _index(square) & 1]

    @property
    def tiles(self) -> tuple[int, int]:
        """Each player's tiles, a 16-bit mask each (bit ``file + 4 * rank``)."""
        return self._tiles

    @property
    def faces(self) -> int:
        """The squares whose tile shows its second face (``B`` / ``W``), a 16-bit mask."""
        return self._faces

    def spread(self, mask: int) -> int:
        """``mask`` plus the squares next to it under this game's ``lock`` option (a tile is
        locked when every square so next to it is occupied)."""
        return self._rules.spread(mask)

    def locked_mask(self) -> int:
        """The squares holding a locked tile, as a 16-bit mask."""
        occupied = self._tiles[0] | self._tiles[1]
        return occupied & ~self._rules.spread(FULL ^ occupied)

    def is_locked(self, square: str | int) -> bool:
        """True when ``square`` holds a tile whose neighbours are all occupied."""
        return bool(self.locked_mask() >> _index(square) & 1)

    def in_hand(self, player: int) -> int:
        """How many tiles ``player`` has still to place."""
        return TILES_PER_PLAYER - self._tiles[player].bit_count()

    def flip_choices(self) -> tuple[str, ...]:
        """The flips open to the side to move, in notation (``b2`` or ``b2-b3``); () if none."""
        if self._player == TERMINAL:
            return ()
        flap = self._rules.flap
        return tuple(format_flip(source, target, flap) for _, source, target in self._flips())

    def end_reason(self) -> Termination | None:
        """``LOCKED_ROW`` (a win), ``BOARD_FULL`` (a draw), or None while the game goes on."""
        if self._winner != NO_WINNER:
            return Termination.LOCKED_ROW
        return Termination.BOARD_FULL if self._player == TERMINAL else None

    def status_text(self) -> str:
        """One line saying whose turn it is and what they must do, or how the game ended."""
        names = self._rules.player_names
        # Colours in words, as the web board draws them and the terminal's letters abbreviate
        # them: the letters are notation.
        if self._winner != NO_WINNER:
            row = " ".join(self.winning_squares)
            colour = COLOUR_WORDS[str(self.tile(self.winning_squares[0]))]
            return f"{names[self._winner]} wins: locked row {row}, all {colour}"
        if self._player == TERMINAL:
            return "Draw: all 16 tiles placed with no locked row of one colour"
        me = self._player
        colours = " or ".join(COLOUR_WORDS[letter] for letter in COLOUR_LETTERS[me])
        choices = self.flip_choices()
        if choices:
            verb = "flap" if self._rules.flap else "flip"
            what = f"{verb} one of {', '.join(choices)}, then place"
        else:
            what = "no flip possible, place"
        return f"{names[me]} to move: {what} a tile, {colours} side up"

    # --- actions ----------------------------------------------------------------------------

    def _flips(self) -> list[tuple[int, int, int]]:
        """``(flip part, from, to)`` for each flip open to the side to move; [] if none."""
        me = self._player
        opponent = self._tiles[1 - me]
        empty = FULL ^ self._tiles[0] ^ self._tiles[1]
        if not self._rules.flap:
            unlocked = opponent & self._rules.spread(empty)
            return [(inplace_part(s), s, s) for s in squares_of(unlocked)]
        # An orthogonal empty neighbour also makes the tile unlocked under either lock rule,
        # so "can be flapped" needs no separate lock test.
        return [
            (flap_direction_part(source, direction), source, target)
            for source in squares_of(opponent)
            for direction, target in enumerate(FLAP_TARGET[source])
            if target >= 0 and empty >> target & 1
        ]

    def _legal_actions(self) -> tuple[int, ...]:
        if self._player == TERMINAL:
            return ()
        empty = FULL ^ self._tiles[0] ^ self._tiles[1]
        flips = self._flips()
        if not flips:
            return _placements(empty)
        if not self._rules.flap:
            placements = _placements(empty)
            return tuple(part * PLACEMENTS + p for part, _, _ in flips for p in placements)
        actions: list[int] = []
        for part, source, target in flips:
            after = empty ^ (1 << source) ^ (1 << target)
            actions.extend(part * PLACEMENTS + p for p in _placements(after))
        return tuple(actions)

    def _apply(self, action: int) -> RubiksFlipState:
        part, rest = divmod(action, PLACEMENTS)
        me = self._player
        tiles = [self._tiles[0], self._tiles[1]]
        faces = self._faces
        flip = decode_flip(part, self._rules.flap)
        if flip is not None:
            source, target = flip
            source_bit = 1 << source
            # Turning a tile over shows its other face, wherever it lands (target == source
            # for an in-place flip); the vacated square's face bit is cleared so keys stay
            # canonical.
            showed_second = faces & source_bit
            faces &= ~source_bit
            if not showed_second:
                faces |= 1 << target
            tiles[1 - me] = (tiles[1 - me] & ~source_bit) | (1 << target)
        tiles[me] |= 1 << (rest >> 1)
        faces |= (rest & 1) << (rest >> 1)
        winner, line = self._judge(tiles[0], tiles[1], faces, me)
        return RubiksFlipState(
            self._rules, (tiles[0], tiles[1]), faces, winner, line, parent=self, action=action
        )

    def _judge(self, first: int, second: int, faces: int, mover: int) -> tuple[int, int]:
        """(winner, winning row) after ``mover``'s placement; (NO_WINNER, 0) if none."""
        occupied = first | second
        locked = occupied & ~self._rules.spread(FULL ^ occupied)
        if locked.bit_count() < 3:
            return NO_WINNER, 0
        rows = [0, 0]
        for line in LINES:
            if locked & line != line:
                continue
            shown = faces & line
            if shown and shown != line:
                continue
            if first & line == line:
                rows[0] = rows[0] or line
            elif second & line == line:
                rows[1] = rows[1] or line
        order = (mover, 1 - mover) if self._rules.mover_first else (1 - mover, mover)
        for player in order:
            if rows[player]:
                return player, rows[player]
        return NO_WINNER, 0

    # --- notation ---------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        return format_action(action, self.to_move, self._rules.flap)

    def parse_action(self, text: str) -> int:
        turn = parse_turn(text, self._rules.flap)
        if self._player == TERMINAL:
            raise IllegalActionError(f"{quote(text)}: the game is over ({self.status_text()})")
        me = self._player
        owner, face = LETTER_OWNER[turn.letter]
        if owner != me:
            names = self._rules.player_names
            raise IllegalActionError(
                f"{quote(text)}: {turn.letter} is a colour of {names[owner]}'s tiles; "
                f"{names[me]} places {' or '.join(COLOUR_LETTERS[me])}"
            )
        if turn.flip is None:
            part: int | None = NO_FLIP
        elif self._rules.flap:
            part = flap_part(*turn.flip)
        else:
            part = inplace_part(turn.flip[0])
        if part is not None:
            action = encode(part, turn.place, face)
            if action in self.legal_actions():
                return action
        legal = " ".join(self.action_to_string(a) for a in self.legal_actions())
        raise IllegalActionError(
            f"{quote(text)} is not legal: {self._why_illegal(turn.flip, turn.place)}; "
            f"legal: {legal}"
        )

    def _why_illegal(self, flip: tuple[int, int] | None, place: int) -> str:
        """Say why a well-formed turn by the side to move, in its own colours, is illegal."""
        me = self._player
        empty = FULL ^ self._tiles[0] ^ self._tiles[1]
        choices = self.flip_choices()
        if flip is None and choices:
            return f"a flip is mandatory: first flip one of {', '.join(choices)}"
        if flip is not None:
            source, target = flip
            name = SQUARE_NAMES[source]
            if not choices:
                return f"no flip is possible ({self._why_no_flip()}); place only"
            if self._tiles[me] >> source & 1:
                return f"{name} holds your own tile; flip one of {', '.join(choices)}"
            if empty >> source & 1:
                return f"{name} is empty; flip one of {', '.join(choices)}"
            if not self._rules.flap:
                if name not in choices:
                    return f"{name} is locked (every square around it is occupied)"
            elif target not in FLAP_TARGET[source]:
                return f"{SQUARE_NAMES[target]} is not orthogonally next to {name}"
            elif not empty >> target & 1:
                return f"{SQUARE_NAMES[target]} is occupied; a flap needs an empty square"
            elif place == target:
                return f"{SQUARE_NAMES[place]} is where the flapped tile lands"
        # Everything else is legal, so the placement square must be the problem.
        return f"{SQUARE_NAMES[place]} is occupied"

    def _why_no_flip(self) -> str:
        if not self._tiles[1 - self._player]:
            return "no opponent tile is on the board"
        if self._rules.flap:
            return "no opponent tile has an empty square orthogonally next to it"
        return "every opponent tile is locked"

    # --- outcome and views ------------------------------------------------------------------

    def returns(self) -> tuple[int, ...]:
        if self._winner == NO_WINNER:
            return (0, 0)
        return (1, -1) if self._winner == 0 else (-1, 1)

    def evaluate(self, player: int) -> float:
        """Live rows of one colour, locked tiles and closeness to locking: see
        :mod:`.heuristics`."""
        return heuristics.evaluate(self, player)

    def key(self) -> tuple[int, int, int]:
        # The side to move follows from the tile count and the winner from the position and
        # the last mover, so the three boards are the whole position.
        return (self._tiles[0], self._tiles[1], self._faces)

    def board_view(self, player: int | None) -> JSON:
        """Everything is public in Rubik's Flip: every square (empty: None), the flips open
        to the side to move, tiles in hand, each player's colours, the winner and the winning
        row; ``my_colours`` and ``their_colours`` when a player views.

        >>> from flipgames import make
        >>> state = make("rubiks-flip").new_initial_state()
        >>> obs = state.apply(state.parse_action("a1B")).observation(1)
        >>> board = obs["board"]
        >>> board["squares"]["a1"], obs["to_move"], board["flip_choices"], board["my_colours"]
        ({'owner': 0, 'colour': 'B', 'locked': False}, 1, ['a1'], ['Y', 'W'])
        """
        locked = self.locked_mask()
        squares: dict[str, JSON | None] = {}
        for index, name in enumerate(SQUARE_NAMES):
            owner = self.owner(index)
            squares[name] = (
                None
                if owner is None
                else {
                    "owner": owner,
                    "colour": self.tile(index),
                    "locked": bool(locked >> index & 1),
                }
            )
        view: JSON = {
            "flip": self._rules.options["flip"],
            "squares": squares,
            "flip_choices": list(self.flip_choices()),
            "tiles_in_hand": [self.in_hand(0), self.in_hand(1)],
            "colours": [list(COLOUR_LETTERS[0]), list(COLOUR_LETTERS[1])],
            "winner": self.winner,
            "winning_squares": list(self.winning_squares),
        }
        if player is not None:
            view["my_colours"] = list(COLOUR_LETTERS[player])
            view["their_colours"] = list(COLOUR_LETTERS[1 - player])
        return view

    def _action_details(self, action: int) -> JSON:
        """``place``: the square placed on (``to``) and the ``colour`` put face up, after the
        ``flip`` (``{"from", "to"}``: where the flipped tile stood and where it ends, the same
        square unless ``flip=flap``; None for a turn without a flip).

        >>> from flipgames import make
        >>> state = make("rubiks-flip").new_initial_state()
        >>> state = state.apply(state.parse_action("b2R"))
        >>> state.action_info(state.parse_action("b2/c3Y"))["flip"]
        {'from': 'b2', 'to': 'b2'}
        """
        part, rest = divmod(action, PLACEMENTS)
        flip = decode_flip(part, self._rules.flap)
        return {
            "kind": "place",
            "to": SQUARE_NAMES[rest >> 1],
            "colour": COLOUR_LETTERS[self.to_move][rest & 1],
            "flip": None
            if flip is None
            else {"from": SQUARE_NAMES[flip[0]], "to": SQUARE_NAMES[flip[1]]},
        }

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        # numpy loads on first use, not with the rules.
        from flipgames.games.rubiks_flip import tensor

        return tensor.encode(
            self._tiles,
            self._faces,
            self.locked_mask(),
            (self.in_hand(0), self.in_hand(1)),
            self._player,
            player,
        )

    def render(self) -> str:
        return render_state(self)


def _index(square: str | int) -> int:
    return parse_square(square) if isinstance(square, str) else square
