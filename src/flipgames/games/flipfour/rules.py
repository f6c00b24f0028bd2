"""FlipFour: four in a row with FlipFlop pieces that flip between rook and bishop.

A 5x5 board starts empty; each side has four pieces in hand and White (player 0) begins. A turn
is a drop (a piece from hand onto any empty square, either face up, no flip) or a move (one of
your pieces on the board goes along its lines, rook face orthogonally and bishop face
diagonally, to any empty square at any distance, leaping over pieces; then it flips). No
captures, no passing. Four of your pieces in an unbroken straight line win; a side with no
legal move loses; a position seen for the third time is a draw.

The position is four small integers: bitboards of White's pieces, Black's pieces and the
pieces showing the bishop face, plus the pieces in hand and the side to move (see
:mod:`~flipgames.games.flipfour.board` for square numbering and
:mod:`~flipgames.games.flipfour.notation` for action ids).

>>> from flipgames import make
>>> state = make("flipfour").new_initial_state()
>>> for text in "R@a1 B@e5 R@a2 B@e4 R@a3 B@e3 a3-c3".split():
...     state = state.apply(state.parse_action(text))
>>> state.piece_at(12), state.pieces_in_hand(0), state.current_player
((0, 1), 1, 1)
>>> state = state.apply(state.parse_action("B@e2"))
>>> state.result(), state.status_text()
('0-1', 'Black wins: four in a row e2 e3 e4 e5')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, cast

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError, quote
from flipgames.core.game import JSON, TERMINAL, Game, State
from flipgames.games.flipfour import heuristics
from flipgames.games.flipfour.board import (
    ALL_SQUARES,
    BISHOP,
    FACE_LETTERS,
    FACE_NAMES,
    NUM_SQUARES,
    PIECES_IN_HAND,
    ROOK,
    SQUARE_NAMES,
    WINDOWS,
    WINDOWS_THROUGH,
    squares,
)
from flipgames.games.flipfour.notation import (
    DROP_BISHOP,
    MOVE_BASE,
    MOVES,
    MOVES_FROM,
    NUM_ACTIONS,
    Drop,
    Move,
    action_text,
    notation_help,
    parse_text,
)
from flipgames.games.flipfour.render import render_state

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.kernel import Kernel
    from flipgames.games.flipfour.dfpn_kernel import FlipFourProofSearch

PLAYER_NAMES: Final = ("White", "Black")

RULES: Final = """\
FlipFour (Masahiro Nakajima; rules as flipgames plays them)

Rulebook
- The 5x5 board starts empty. Each player has four FlipFlop pieces in hand, each with a +
  (rook) face and an x (bishop) face. White moves first; players alternate, no passing.
- On your turn, drop a piece (either side up) or move one of your pieces.
- Movement is as in FlipFlop: the + face moves like a chess rook, the x face like a bishop,
  and the moved piece is flipped over afterwards; but pieces may freely be leapt over and
  there is no capturing.
- The first player to arrange their pieces in an unbroken horizontal, vertical or diagonal
  line wins.

Our rulings (docs/rulings.md)
- A drop goes on any empty square with the face of the player's choice up; it does not flip.
- A move goes along the piece's lines to any empty square at any distance, leaping over any
  pieces of either colour; the moved piece flips. No captures, no passing.
- The line is four of your pieces in a row, column or diagonal, whatever faces they show;
  it is checked after every action (drop or move). Four that mix colours do not count.
- Draw: the same position (pieces, faces, pieces in hand, side to move) for the third time.
- A side with no legal move loses. (It can happen: with all pieces on the board, four bishop
  faces on b1, a2, e4, d5 are shut in by enemy pieces on c2, b3, d3, c4.)

Notation
- Drop: R@c3 (rook face up) or B@c3 (bishop face up). Move: c3-e5. A move may also be
  written with the face the piece shows before moving, Rc3-c5 or Bc3-e5.

Options
- none (the rulings name no FlipFour option).
"""


class FlipFour(Game):
    """FlipFour: the rules as a :class:`~flipgames.core.game.Game`.

    >>> FlipFour().new_initial_state().legal_actions()[:3]
    (0, 1, 2)
    """

    name = "flipfour"
    title = "FlipFour"
    player_names = PLAYER_NAMES
    repetition_draws = True
    game_length_capped = True
    position_notation = "flipgames.games.flipfour.position:CODEC"

    @property
    def num_distinct_actions(self) -> int:
        """370: 50 drops and 320 moves (see :mod:`~flipgames.games.flipfour.notation`)."""
        return NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        """A cap (moves can repeat positions for a very long time before a third
        occurrence): 5,000 plies; random games mostly end within a few hundred."""
        return 5000

    @property
    def observation_tensor_shape(self) -> tuple[int, ...]:
        """``(8, 5, 5)``: see :mod:`flipgames.games.flipfour.tensor`."""
        # numpy loads on first use, not with the rules.
        from flipgames.games.flipfour import tensor

        return tensor.SHAPE

    def new_initial_state(self) -> FlipFourState:
        return FlipFourState(self)

    def state_at(
        self, white: int, black: int, bishops: int, hands: tuple[int, int], player: int
    ) -> FlipFourState:
        """A game set up at a position, with no history (bitboards of each side's pieces and
        of the ``x`` faces, the pieces in hand, the side to move): a four of the side not to
        move makes it a finished game, as when that side made it. Checks nothing: the
        position notation (:mod:`.position`) checks what it reads."""
        last = black if player == 0 else white
        four = any(window & last == window for window in WINDOWS)
        return FlipFourState(
            self, white=white, black=black, bishops=bishops, hands=hands, player=player, four=four
        )

    def notation_help(self) -> str:
        return notation_help()

    def rules_summary(self) -> str:
        return RULES

    def kernel(self) -> Kernel:
        """The compiled kernel (numba loads here, on first use)."""
        from flipgames.games.flipfour.kernel import kernel_for_game

        return kernel_for_game(self)

    def proof_search(self) -> FlipFourProofSearch:
        """The df-pn proof search (:mod:`.dfpn_kernel`; numba loads here, on first use) that
        ``flipgames solve flipfour`` drives through :mod:`flipgames.solvers.dfpn`."""
        from flipgames.games.flipfour.dfpn_kernel import FlipFourProofSearch

        return FlipFourProofSearch()


class FlipFourState(State):
    """A FlipFour position and how it was reached.

    Build states from :meth:`FlipFour.new_initial_state` and :meth:`apply`; the keyword
    fields are the rules' own way of making a child.
    """

    __slots__ = (
        "_white",
        "_black",
        "_bishops",
        "_hands",
        "_player",
        "_four",
        "_key",
        "_moves",
        "_occurrences",
        "_seen",
    )

    def __init__(
        self,
        game: Game,
        parent: FlipFourState | None = None,
        action: int | None = None,
        *,
        white: int = 0,
        black: int = 0,
        bishops: int = 0,
        hands: tuple[int, int] = (PIECES_IN_HAND, PIECES_IN_HAND),
        player: int = 0,
        four: bool = False,
    ) -> None:
        super().__init__(game, parent, action)
        self._white = white
        self._black = black
        self._bishops = bishops
        self._hands = hands
        self._player = player
        #: The action that made this position completed a four for the side that played it.
        self._four = four
        self._key = (
            white
            | black << NUM_SQUARES
            | bishops << 2 * NUM_SQUARES
            | hands[0] << 3 * NUM_SQUARES
            | hands[1] << 3 * NUM_SQUARES + 3
            | player << 3 * NUM_SQUARES + 6
        )
        self._moves: tuple[int, ...] | None = None
        self._occurrences: int | None = None
        self._seen: dict[int, int] | None = None

    # --- whose turn and the outcome ---------------------------------------------------------

    @property
    def current_player(self) -> int:
        if self._four or not self._actions() or self.occurrences() >= 3:
            return TERMINAL
        return self._player

    def returns(self) -> tuple[int, ...]:
        winner = self.winner
        if winner is None:
            return (0, 0)
        return (1, -1) if winner == 0 else (-1, 1)

    def evaluate(self, player: int) -> float:
        """Windows of four free of enemy pieces and threats to complete one: see
        :mod:`.heuristics`."""
        return heuristics.evaluate(self, player)

    @property
    def winner(self) -> int | None:
        """The player who has won, or None while the game goes on or when it is drawn.

        A four is made by the side that just acted and a side with no legal move is the side
        to move, so either way the winner is the side not to move.
        """
        if self._four or not self._actions():
            return 1 - self._player
        return None

    def end_reason(self) -> Termination | None:
        """``FOUR_IN_A_ROW``, ``NO_LEGAL_MOVE``, ``REPETITION``, or None while the game goes
        on."""
        if self._four:
            return Termination.FOUR_IN_A_ROW
        if not self._actions():
            return Termination.NO_LEGAL_MOVE
        if self.occurrences() >= 3:
            return Termination.REPETITION
        return None

    def occurrences(self) -> int:
        """How many times this position has occurred in the game so far (this one included).

        Drops are irreversible (pieces in hand only go down), so only positions since the last
        drop can recur. Each line of play keeps one count of those: the newest state that was
        asked holds it and hands it on to its child, so playing a game costs one dictionary
        update per ply. A state whose parent no longer holds the count (a second child, a
        clone) rebuilds it by walking back to the last drop.
        """
        if self._occurrences is None:
            parent = cast("FlipFourState | None", self._parent)
            if parent is not None and parent._seen is not None and parent._hands == self._hands:
                seen, parent._seen = parent._seen, None
            else:
                seen = self._counts_since_drop()
            seen[self._key] = count = seen.get(self._key, 0) + 1
            self._seen = seen
            self._occurrences = count
        return self._occurrences

    def _counts_since_drop(self) -> dict[int, int]:
        """How often each position occurred before this one, back to the last drop."""
        counts: dict[int, int] = {}
        node = cast("FlipFourState | None", self._parent)
        while node is not None and node._hands == self._hands:
            counts[node._key] = counts.get(node._key, 0) + 1
            node = cast("FlipFourState | None", node._parent)
        return counts

    def __copy__(self) -> FlipFourState:
        """An equal state that does not share the line's repetition count (see
        :meth:`occurrences`), so the copy and the original can both have children."""
        return FlipFourState(
            self.game,
            cast("FlipFourState | None", self._parent),
            self._action,
            white=self._white,
            black=self._black,
            bishops=self._bishops,
            hands=self._hands,
            player=self._player,
            four=self._four,
        )

    # --- actions ----------------------------------------------------------------------------

    def _actions(self) -> tuple[int, ...]:
        """Every drop and move of the side to move, ignoring repetition draws (cached)."""
        if self._moves is None:
            self._moves = () if self._four else self._generate()
        return self._moves

    def _generate(self) -> tuple[int, ...]:
        occupied = self._white | self._black
        actions: list[int] = []
        if self._hands[self._player]:
            # Rook-face drop ids are the square numbers themselves.
            empty = [s for s in ALL_SQUARES if not occupied >> s & 1]
            actions = empty + [DROP_BISHOP + s for s in empty]
        bishops = self._bishops
        for frm in squares(self._black if self._player else self._white):
            targets = MOVES_FROM[bishops >> frm & 1][frm]
            actions += [move for bit, move in targets if not occupied & bit]
        return tuple(actions)

    def _legal_actions(self) -> tuple[int, ...]:
        return () if self.current_player == TERMINAL else self._actions()

    def perft_actions(self) -> tuple[int, ...]:
        return self._actions()

    def _apply(self, action: int) -> FlipFourState:
        white, black, bishops, hands = self._white, self._black, self._bishops, self._hands
        player = self._player
        if action < MOVE_BASE:
            face, to = divmod(action, NUM_SQUARES)
            changed = 1 << to
            if face == BISHOP:
                bishops |= changed
            hands = (hands[0] - 1, hands[1]) if player == 0 else (hands[0], hands[1] - 1)
        else:
            frm, to = MOVES[action - MOVE_BASE]
            start, arrival = 1 << frm, 1 << to
            # The moved piece flips: a bishop face arrives as a rook face and vice versa.
            bishops = bishops & ~start if bishops & start else bishops | arrival
            changed = start | arrival
        if player == 0:
            white ^= changed
            mine = white
        else:
            black ^= changed
            mine = black
        four = any(window & mine == window for window in WINDOWS_THROUGH[to])
        return FlipFourState(
            self.game,
            self,
            action,
            white=white,
            black=black,
            bishops=bishops,
            hands=hands,
            player=1 - player,
            four=four,
        )

    # --- notation ---------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        return action_text(action)

    def parse_action(self, text: str) -> int:
        parsed = parse_text(text)
        if self.is_terminal():
            raise IllegalActionError(
                f"{quote(text)}: the game is over ({self.status_text()}); no action is legal"
            )
        action = parsed.action
        if action in self.legal_actions() and not self._wrong_face(parsed):
            return action
        legal = " ".join(action_text(a) for a in self.legal_actions())
        raise IllegalActionError(
            f"{quote(text)} is not legal here: {self._why_illegal(parsed)}; legal: {legal}"
        )

    def _wrong_face(self, parsed: Drop | Move) -> bool:
        """True when a move names a face (``Rc3-c5``) that its piece does not show."""
        return (
            isinstance(parsed, Move)
            and parsed.face is not None
            and parsed.face != (self._bishops >> parsed.frm & 1)
        )

    def _why_illegal(self, parsed: Drop | Move) -> str:
        """Why a well-formed action that is not among the legal actions cannot be played."""
        name = PLAYER_NAMES[self._player]
        if isinstance(parsed, Drop):
            if not self._hands[self._player]:
                return f"{name} has no pieces left in hand"
            return f"{SQUARE_NAMES[parsed.square]} is occupied"
        frm, to = SQUARE_NAMES[parsed.frm], SQUARE_NAMES[parsed.to]
        piece = self.piece_at(parsed.frm)
        if piece is None:
            return f"there is no piece on {frm}"
        owner, face = piece
        if owner != self._player:
            return f"the piece on {frm} is {PLAYER_NAMES[owner]}'s"
        if self._wrong_face(parsed):
            return (
                f"the piece on {frm} shows its {FACE_NAMES[face]} face ({FACE_LETTERS[face]}),"
                f" not {FACE_LETTERS[1 - face]}"
            )
        if parsed.frm == parsed.to:
            return "a piece must move to another square"
        if self.piece_at(parsed.to) is not None:
            return f"{to} is occupied and FlipFour has no captures"
        lines = "its rank or file" if face == ROOK else "its diagonals"
        return f"the piece on {frm} shows its {FACE_NAMES[face]} face and moves along {lines}"

    # --- views ------------------------------------------------------------------------------

    def key(self) -> int:
        return self._key

    def piece_at(self, square: int) -> tuple[int, int] | None:
        """(owner, face) of the piece on ``square`` (0..24), or None if it is empty."""
        bit = 1 << square
        if self._white & bit:
            owner = 0
        elif self._black & bit:
            owner = 1
        else:
            return None
        return owner, BISHOP if self._bishops & bit else ROOK

    def pieces_in_hand(self, player: int) -> int:
        """How many pieces ``player`` still has to drop."""
        return self._hands[player]

    @property
    def to_move(self) -> int:
        """The side whose turn it is (or would be, once the game is over)."""
        return self._player

    @property
    def white(self) -> int:
        """White's pieces on the board, a bitboard (bit ``s`` for square ``s``)."""
        return self._white

    @property
    def black(self) -> int:
        """Black's pieces on the board, a bitboard."""
        return self._black

    @property
    def bishops(self) -> int:
        """The pieces showing their ``x`` (bishop) face, a bitboard."""
        return self._bishops

    @property
    def hands(self) -> tuple[int, int]:
        """The pieces each side still has in hand."""
        return self._hands

    def winning_line(self) -> tuple[int, ...]:
        """The squares of the winning four, or () if nobody has four in a row."""
        if not self._four:
            return ()
        mine = self._black if self._player == 0 else self._white
        return next(tuple(squares(w)) for w in WINDOWS if w & mine == w)

    def status_text(self) -> str:
        """One line for people: whose turn it is, or how the game ended."""
        reason = self.end_reason()
        mover = PLAYER_NAMES[self._player]
        if reason is None:
            return f"{mover} to move"
        if reason == Termination.REPETITION:
            return "Draw: the same position for the third time"
        winner = PLAYER_NAMES[1 - self._player]
        if reason == Termination.NO_LEGAL_MOVE:
            return f"{winner} wins: {mover} has no legal move"
        line = " ".join(SQUARE_NAMES[s] for s in self.winning_line())
        return f"{winner} wins: four in a row {line}"

    def board_view(self, player: int | None) -> JSON:
        """Everything on the board and in hand (FlipFour hides nothing): ``pieces`` by
        square, pieces ``in_hand`` per player, the winner, why the game ended, the winning
        line and how often this position has occurred; ``mine`` and ``theirs`` when a player
        views, omitted for a spectator.

        >>> from flipgames import make
        >>> state = make("flipfour").new_initial_state()
        >>> state = state.apply(state.parse_action("B@c3"))
        >>> board = state.observation(1)["board"]
        >>> board["pieces"], board["mine"], board["theirs"]
        ({'c3': {'owner': 0, 'face': 'bishop'}}, {'player': 1, 'in_hand': 4}, \
{'player': 0, 'in_hand': 3})
        """
        pieces = {}
        for square in range(NUM_SQUARES):
            piece = self.piece_at(square)
            if piece is not None:
                pieces[SQUARE_NAMES[square]] = {"owner": piece[0], "face": FACE_NAMES[piece[1]]}
        view: JSON = {
            "pieces": pieces,
            "in_hand": list(self._hands),
            "winner": self.winner,
            "end_reason": self.end_reason(),
            "winning_line": [SQUARE_NAMES[s] for s in self.winning_line()],
            "occurrences": self.occurrences(),
        }
        if player is not None:
            view["mine"] = {"player": player, "in_hand": self._hands[player]}
            view["theirs"] = {"player": 1 - player, "in_hand": self._hands[1 - player]}
        return view

    def _action_details(self, action: int) -> JSON:
        """``drop`` (``to`` and the ``face`` put up) or ``move`` (``from``, ``to`` and the
        ``face`` shown before the move; the piece lands showing the other).

        >>> from flipgames import make
        >>> make("flipfour").new_initial_state().action_info(37)
        {'id': 37, 'text': 'B@c3', 'chance': False, 'kind': 'drop', 'to': 'c3', 'face': 'bishop'}
        """
        if action < MOVE_BASE:
            face, to = divmod(action, NUM_SQUARES)
            return {"kind": "drop", "to": SQUARE_NAMES[to], "face": FACE_NAMES[face]}
        frm, to = MOVES[action - MOVE_BASE]
        return {
            "kind": "move",
            "from": SQUARE_NAMES[frm],
            "to": SQUARE_NAMES[to],
            "face": FACE_NAMES[self._bishops >> frm & 1],
        }

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        # numpy loads on first use, not with the rules.
        from flipgames.games.flipfour import tensor

        return tensor.encode(
            (self._white, self._black),
            self._bishops,
            self._hands,
            self._player,
            self.occurrences(),
            self.is_terminal(),
            player,
        )

    def render(self) -> str:
        return render_state(self)
