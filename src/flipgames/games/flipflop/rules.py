"""FlipFlop (5x5) and FlipFlop 3x3: the games, the state and the move generator.

One implementation serves both sizes; see ``docs/games/flipflop.md`` for the rules as played.

Squares are numbered rank-major from ``a1 = 0`` (5x5: ``b1 = 1``, ``a2 = 5``, ``e5 = 24``).
An action id is ``origin * N*N + target`` for an N x N board: on 5x5 ``a1-a2`` is ``5`` and
``b1xb5`` is ``1 * 25 + 21 = 46``; ids run from 0 to N**4 - 1, and ids with origin == target
are never legal. Legal ids come out ascending because the generator walks origins in
ascending order and each table entry lists its targets ascending.

A position is three bitboards (bit ``sq`` set: a White piece, a Black piece, a piece showing
its ``x``/bishop face) and the side to move. Moves come from tables built once per board size:
for each square and face, the ray mask, and for every occupancy of that mask (plus which of its
goal squares hold a capturable enemy) the action ids the piece has. Generating the moves of a
piece is one mask and one dictionary lookup.

>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> state = state.apply(state.parse_action("b1xb3"))
>>> state.in_check, [state.action_to_string(a) for a in state.legal_actions()]
(True, ['a3xb3', 'c3xb3'])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final, cast

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError, quote
from flipgames.core.game import JSON, TERMINAL, Game, State
from flipgames.games.flipflop import heuristics
from flipgames.games.flipflop.board import BLACK, COLOUR_NAMES, WHITE, Board, board_of
from flipgames.games.flipflop.notation import (
    BISHOP,
    FACE_LETTERS,
    FACE_NAMES,
    ROOK,
    format_long,
    format_move,
    notation_help,
    parse_move,
    square_name,
)
from flipgames.games.flipflop.render import draw_board

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.endgame import EndgameTable
    from flipgames.core.kernel import GraphBuilder, Kernel
    from flipgames.games.flipflop.dfpn_kernel import FlipFlopProofSearch
    from flipgames.games.flipflop.endgame import FlipFlopEndgameTable

# Repetition filter: every state carries a bit set of the positions (hashed into this many
# buckets) seen since the last capture, so the ancestors are walked only when the bucket of
# the new position is already marked. A prime spreads the packed keys evenly.
_BUCKETS: Final = 1021


class FlipFlop(Game):
    """FlipFlop on 5x5, Masahiro Nakajima's two-faced rook/bishop game (2009)."""

    name = "flipflop"
    title = "FlipFlop"
    player_names = COLOUR_NAMES
    repetition_draws = True
    game_length_capped = True
    position_notation = "flipgames.games.flipflop.position:CODEC"
    size: ClassVar[int] = 5

    @property
    def num_distinct_actions(self) -> int:
        """``origin * N*N + target`` for every pair of squares: 625 on 5x5, 81 on 3x3."""
        return self.board.area**2

    @property
    def max_game_length(self) -> int:
        """A cap (third repetitions make games finite but astronomically long at worst):
        1,000 plies, far beyond any game played; random games on 5x5 end within about 300."""
        return 1000

    @property
    def observation_tensor_shape(self) -> tuple[int, ...]:
        """``(8, N, N)``: see :mod:`flipgames.games.flipflop.tensor`."""
        # numpy loads on first use, not with the rules.
        from flipgames.games.flipflop import tensor

        return tensor.shape(self.board.size)

    @property
    def board(self) -> Board:
        """The board geometry and move tables of this size."""
        return board_of(self.size)

    def new_initial_state(self) -> FlipFlopState:
        """White to move, both sides on their home rank, every piece ``+`` up.

        >>> print(FlipFlop().new_initial_state().render().splitlines()[2])
        5 │ ●+ │ ●+ │[●+]│ ●+ │ ●+ │ 5
        """
        board = self.board
        white, black = board.start
        key = white | black << board.area
        return FlipFlopState(self, board, white, black, 0, WHITE, key, 0, 1 << key % _BUCKETS, 1)

    def state_at(self, white: int, black: int, bishops: int, side: int) -> FlipFlopState:
        """A game at a position, no history: White's, Black's and the ``x``-showing pieces as
        bitboards (bit ``sq`` for square ``sq``), the side to move (endgame studies start here).

        >>> from flipgames import make
        >>> state = make("flipflop").state_at(1 << 2, 1 << 22, 0, 1)
        >>> state.side, state.in_check, len(state.legal_actions())
        (1, False, 8)
        """
        board = self.board
        full = (1 << board.area) - 1
        if white & black or (white | black) & ~full or bishops & ~(white | black):
            raise ValueError(
                "a position needs White's and Black's pieces on distinct squares of the board "
                "and x faces only where pieces stand"
            )
        if side not in (WHITE, BLACK):
            raise ValueError(f"the side to move is 0 (White) or 1 (Black), not {side}")
        key = white | black << board.area | bishops << 2 * board.area | side << 3 * board.area
        buckets = 1 << key % _BUCKETS
        return FlipFlopState(self, board, white, black, bishops, side, key, 0, buckets, 1)

    def rules_summary(self) -> str:
        """The rules as flipgames plays them (rulebook, rulings, options)."""
        return rules_text(self.board)

    def kernel(self) -> Kernel:
        """The compiled kernel of this size (numba loads here, on first use)."""
        from flipgames.games.flipflop.kernel import kernel_for_game

        return kernel_for_game(self)

    def notation_help(self) -> str:
        return notation_help(self.board.size)

    def proof_search(self, table: EndgameTable | None = None) -> FlipFlopProofSearch:
        """The df-pn search (:mod:`.dfpn_kernel`; numba loads here), answering what the
        endgame ``table`` holds from it (``solve`` passes *hard*'s; None: no table)."""
        from flipgames.games.flipflop.dfpn_kernel import FlipFlopProofSearch

        return FlipFlopProofSearch(self, cast("FlipFlopEndgameTable | None", table))


class FlipFlop3x3(FlipFlop):
    """FlipFlop on 3x3 with three pieces a side, the designer's small variant."""

    name = "flipflop-3x3"
    title = "FlipFlop 3x3"
    size = 3

    def graph_builder(self) -> GraphBuilder:
        """The numpy builder of the whole position graph (numba stays unloaded)."""
        from flipgames.games.flipflop.batch_graph import builder_for_game

        return builder_for_game(self)


class FlipFlopState(State):
    """A FlipFlop position with its history: ``key()`` is one int, ``white | black << A |
    bishops << 2A | side << 3A`` for ``A = N*N``."""

    __slots__ = (
        "_black",
        "_bishops",
        "_board",
        "_key",
        "_occurrences",
        "_quiet",
        "_seen",
        "_side",
        "_white",
    )

    def __init__(
        self,
        game: Game,
        board: Board,
        white: int,
        black: int,
        bishops: int,
        side: int,
        key: int,
        quiet: int,
        seen: int,
        occurrences: int,
        parent: FlipFlopState | None = None,
        action: int | None = None,
    ) -> None:
        super().__init__(game, parent, action)
        self._board = board
        self._white = white
        self._black = black
        self._bishops = bishops
        self._side = side
        self._key = key
        #: Plies since the last capture: no earlier position can ever come back.
        self._quiet = quiet
        #: Buckets of the positions since the last capture (see ``_BUCKETS``).
        self._seen = seen
        #: How many times this position has occurred since the last capture, itself included.
        self._occurrences = occurrences

    # --- rules ------------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self._side if self.legal_actions() else TERMINAL

    @property
    def white(self) -> int:
        """White's pieces, a bitboard (bit ``sq`` for square ``sq``)."""
        return self._white

    @property
    def black(self) -> int:
        """Black's pieces, a bitboard."""
        return self._black

    @property
    def bishops(self) -> int:
        """The pieces showing their ``x`` (bishop) face, a bitboard."""
        return self._bishops

    @property
    def side(self) -> int:
        """The colour to move (or that would move: also set once the game is over)."""
        return self._side

    @property
    def board(self) -> Board:
        """The geometry and move tables of this board size."""
        return self._board

    @property
    def quiet(self) -> int:
        """Plies since the last capture (no earlier position can occur again)."""
        return self._quiet

    @property
    def in_check(self) -> bool:
        """True when an enemy piece stands on the goal of the side to move."""
        enemy = self._black if self._side == WHITE else self._white
        return bool(enemy >> self._board.goal[self._side] & 1)

    @property
    def occurrences(self) -> int:
        """How many times this position (pieces, faces, side to move) has occurred."""
        return self._occurrences

    def _moves(self) -> tuple[int, ...]:
        """Legal actions ignoring repetition: empty for checkmate or no legal move."""
        board = self._board
        if self._side == WHITE:
            mine, enemy = self._white, self._black
        else:
            mine, enemy = self._black, self._white
        occupancy_key = self._white | self._black | (enemy & board.goals) << board.area
        rook, bishop = board.tables
        bishops = self._bishops
        moves: tuple[int, ...] = ()
        while mine:
            bit = mine & -mine
            mask, table = (bishop if bishops & bit else rook)[bit]
            moves += table[occupancy_key & mask]
            mine ^= bit
        goal = board.goal[self._side]
        if enemy >> goal & 1:
            # In check: only captures of the piece on our goal.
            area = board.area
            return tuple(a for a in moves if a % area == goal)
        return moves

    def _legal_actions(self) -> tuple[int, ...]:
        if self._occurrences >= 3:
            return ()
        return self._moves()

    def perft_actions(self) -> tuple[int, ...]:
        """Legal actions as if the third repetition did not end the game."""
        if self._occurrences >= 3:
            return self._moves()
        return self.legal_actions()

    def _apply(self, action: int) -> FlipFlopState:
        board = self._board
        area = board.area
        origin, target = divmod(action, area)
        origin_bit, target_bit = 1 << origin, 1 << target
        moved = origin_bit | target_bit
        white, black = self._white, self._black
        if self._side == WHITE:
            captured = black & target_bit
            white ^= moved
            black ^= captured
        else:
            captured = white & target_bit
            black ^= moved
            white ^= captured
        # The moved piece lands showing its other face; a captured piece's face goes with it.
        bishops = self._bishops & ~moved | (0 if self._bishops & origin_bit else target_bit)
        side = 1 - self._side
        key = white | black << area | bishops << 2 * area | side << 3 * area
        bucket = 1 << key % _BUCKETS
        if captured:
            # A capture is irreversible: no earlier position can occur again.
            quiet, seen, occurrences = 0, bucket, 1
        else:
            quiet, seen = self._quiet + 1, self._seen | bucket
            occurrences = 1 + self._count_back(key, quiet) if self._seen & bucket else 1
        return FlipFlopState(
            self.game,
            board,
            white,
            black,
            bishops,
            side,
            key,
            quiet,
            seen,
            occurrences,
            self,
            action,
        )

    def _count_back(self, key: int, quiet: int) -> int:
        """Occurrences of ``key`` among the positions ``quiet`` plies back from a child (only
        every second ancestor can match: the side to move is part of the key)."""
        count = 0
        node = self._parent
        for _ in range(quiet // 2):
            ancestor = cast(FlipFlopState, node)
            count += ancestor._key == key
            grandparent = ancestor._parent
            node = grandparent._parent if grandparent is not None else None
        return count

    def returns(self) -> tuple[int, ...]:
        if self.legal_actions() or self._occurrences >= 3:
            return (0, 0)
        # No legal move (checkmate, blocked, or no pieces left): the side to move loses.
        return (-1, 1) if self._side == WHITE else (1, -1)

    def key(self) -> int:
        return self._key

    def evaluate(self, player: int) -> float:
        """Material, mobility, attackers and guards of the goals: see :mod:`.heuristics`."""
        return heuristics.evaluate(self, player)

    # --- notation ---------------------------------------------------------------------------

    def _owner(self, square: int) -> int | None:
        if self._white >> square & 1:
            return WHITE
        if self._black >> square & 1:
            return BLACK
        return None

    def _face(self, square: int) -> int:
        return BISHOP if self._bishops >> square & 1 else ROOK

    def _is_capture(self, origin: int, target: int) -> bool:
        owner = self._owner(origin)
        return owner is not None and self._owner(target) == 1 - owner

    def action_to_string(self, action: int) -> str:
        """``from-to``, or ``fromxto`` when an enemy piece stands on the target."""
        origin, target = self._squares_of(action)
        return format_move(origin, target, self._is_capture(origin, target), self._board.size)

    def action_to_long(self, action: int) -> str:
        """The designer's long form, e.g. ``Rb1xb3=B``.

        >>> from flipgames import make
        >>> state = make("flipflop-3x3").new_initial_state()
        >>> state.action_to_long(state.parse_action("b1xb3"))
        'Rb1xb3=B'
        """
        origin, target = self._squares_of(action)
        capture = self._is_capture(origin, target)
        return format_long(origin, target, capture, self._face(origin), self._board.size)

    def _squares_of(self, action: int) -> tuple[int, int]:
        area = self._board.area
        if not 0 <= action < area * area:
            raise IllegalActionError(f"action id {action} is outside 0..{area * area - 1}")
        return divmod(action, area)

    def parse_action(self, text: str) -> int:
        """Parse ``a1-a2``, ``b1xb3`` or the long form ``Rb1xb3=B`` into a legal action id.

        The separator and the faces must fit the position: writing ``-`` for a capture (or
        ``x`` for a plain move) is an :class:`IllegalActionError` that shows the right form.

        >>> from flipgames import make
        >>> state = make("flipflop-3x3").new_initial_state()
        >>> state.parse_action("b1-b3")
        Traceback (most recent call last):
        ...
        flipgames.core.errors.IllegalActionError: 'b1-b3' is a capture here: write b1xb3
        """
        size = self._board.size
        move = parse_move(text, size)
        action = move.origin * self._board.area + move.target
        if action not in self.legal_actions():
            legal = " ".join(self.action_to_string(a) for a in self.legal_actions())
            raise IllegalActionError(
                f"{quote(text)} is not legal: {self._why_illegal(move.origin, move.target)}"
                + (f"; legal: {legal}" if legal else "")
            )
        if move.capture != self._is_capture(move.origin, move.target):
            kind = "not a capture" if move.capture else "a capture"
            raise IllegalActionError(
                f"{quote(text)} is {kind} here: write {self.action_to_string(action)}"
            )
        face = self._face(move.origin)
        if move.face_before is not None and move.face_before != face:
            raise IllegalActionError(
                f"{quote(text)}: the piece on {square_name(move.origin, size)} shows its "
                f"{FACE_LETTERS[face]} ({FACE_NAMES[face]}) face: write "
                + self.action_to_long(action)
            )
        if move.face_after is not None and move.face_after == face:
            raise IllegalActionError(
                f"{quote(text)}: the moved piece flips to {FACE_LETTERS[1 - face]}: write "
                + self.action_to_long(action)
            )
        return action

    def _why_illegal(self, origin: int, target: int) -> str:
        """Why moving ``origin`` to ``target`` is not legal here, in words."""
        board, side = self._board, self._side
        size, name = board.size, COLOUR_NAMES[side]
        if self.is_terminal():
            return f"the game is over ({self.result()})"
        if self._owner(origin) != side:
            return f"{name} has no piece on {square_name(origin, size)}"
        if origin == target:
            return "a piece must move to another square"
        goal = board.goal[side]
        if self.in_check and target != goal:
            return f"{name} is in check and must capture the piece on {square_name(goal, size)}"
        occupant = self._owner(target)
        if occupant == side:
            return f"{square_name(target, size)} holds {name}'s own piece"
        if occupant is not None and not board.goals >> target & 1:
            return (
                f"pieces can be captured only on a goal, and {square_name(target, size)} is not one"
            )
        face = self._face(origin)
        df, dr = target % size - origin % size, target // size - origin // size
        on_line = (df == 0 or dr == 0) if face == ROOK else abs(df) == abs(dr)
        if not on_line:
            return (
                f"the piece on {square_name(origin, size)} shows "
                f"{'+ and moves like a rook' if face == ROOK else 'x and moves like a bishop'}"
            )
        return "the way is blocked: pieces cannot leap"

    # --- views ------------------------------------------------------------------------------

    def _pieces(self) -> dict[int, tuple[int, int]]:
        return {
            sq: (owner, self._face(sq))
            for sq in range(self._board.area)
            if (owner := self._owner(sq)) is not None
        }

    def end_reason(self) -> Termination | None:
        """``REPETITION`` (a draw), or why the side to move lost: ``NO_PIECES``,
        ``CHECKMATE`` or ``NO_LEGAL_MOVE``; None while the game goes on."""
        if self.legal_actions():
            return None
        if self._occurrences >= 3:
            return Termination.REPETITION
        if not (self._white if self._side == WHITE else self._black):
            return Termination.NO_PIECES
        return Termination.CHECKMATE if self.in_check else Termination.NO_LEGAL_MOVE

    def status_text(self) -> str:
        """The state of play in words: whose turn and check, or how the game ended."""
        size, side = self._board.size, self._side
        name, goal = COLOUR_NAMES[side], square_name(self._board.goal[side], size)
        reason = self.end_reason()
        if reason is not None:
            winner = COLOUR_NAMES[1 - side]
            if reason == Termination.REPETITION:
                return "Draw: the same position occurred for the third time"
            if reason == Termination.NO_PIECES:
                return f"{winner} wins: {name} has no pieces left"
            if reason == Termination.CHECKMATE:
                return f"{winner} wins: {name} is checkmated (cannot capture on {goal})"
            return f"{winner} wins: {name} has no legal move"
        text = f"{name} to move"
        if self.in_check:
            text += f", in check: capture the piece on {goal}"
        if self._occurrences == 2:
            text += " (this position has occurred twice: a third time draws)"
        return text

    def board_view(self, player: int | None) -> JSON:
        """Everything is public in FlipFlop: the pieces (with ``mine`` for a player), the
        goals, check and how often this position has occurred.

        >>> from flipgames import make
        >>> obs = make("flipflop-3x3").new_initial_state().observation(1)
        >>> obs["viewer"], obs["to_move"], obs["status"], obs["board"]["goals"]
        (1, 0, 'playing', {'White': 'b1', 'Black': 'b3'})
        >>> obs["board"]["pieces"]["b3"]
        {'owner': 1, 'colour': 'Black', 'face': 'rook', 'mine': True}
        """
        size = self._board.size
        pieces = {
            square_name(sq, size): {
                "owner": owner,
                "colour": COLOUR_NAMES[owner],
                "face": FACE_NAMES[face],
                **({} if player is None else {"mine": owner == player}),
            }
            for sq, (owner, face) in self._pieces().items()
        }
        return {
            "size": size,
            "pieces": pieces,
            "goals": {COLOUR_NAMES[c]: square_name(self._board.goal[c], size) for c in (0, 1)},
            "in_check": self.in_check,
            "occurrences": self._occurrences,
        }

    def _action_details(self, action: int) -> JSON:
        """``move`` or ``capture``, ``from``, ``to`` and the ``face`` the piece shows before
        it moves (it lands showing the other one).

        >>> from flipgames import make
        >>> make("flipflop-3x3").new_initial_state().action_info(16)
        {'id': 16, 'text': 'b1xb3', 'chance': False, 'kind': 'capture', 'from': 'b1', \
'to': 'b3', 'face': 'rook'}
        """
        origin, target = self._squares_of(action)
        size = self._board.size
        return {
            "kind": "capture" if self._is_capture(origin, target) else "move",
            "from": square_name(origin, size),
            "to": square_name(target, size),
            "face": FACE_NAMES[self._face(origin)],
        }

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        # numpy loads on first use, not with the rules.
        from flipgames.games.flipflop import tensor

        return tensor.encode(
            self._board.size,
            (self._white, self._black),
            self._bishops,
            self._board.goal,
            self._side,
            self._occurrences,
            self.is_terminal(),
            player,
        )

    def render(self) -> str:
        board = self._board
        return draw_board(board.size, self._pieces(), board.goal, [self.status_text()])


def rules_text(board: Board) -> str:
    """The rules as played on ``board``: rulebook clauses, rulings and options."""
    size = board.size
    white_goal, black_goal = (square_name(g, size) for g in board.goal)
    last = square_name(board.area - 1, size)
    return f"""\
FlipFlop {size}x{size} (Masahiro Nakajima, 2009)

Setup: {size}x{size} board. White has {size} pieces on rank 1, Black {size} on rank {size},
all with the + (rook) face up. {white_goal} is White's goal and {black_goal} is Black's; each
side's centre piece starts on its own goal. White moves first; no passing.

Moving: a piece showing + slides like a chess rook, a piece showing x like a chess bishop, any
distance, never leaping over a piece. After moving, the piece is flipped to its other face.
A piece ends on an empty square, or on an enemy piece that stands on either goal square,
which it captures. No other captures. Moving onto your own goal is allowed.

Check: your piece on the opponent's goal puts the opponent in check. In check, the only legal
moves are captures of that piece; with none, the side in check is checkmated and loses.

End: a side with no legal move loses (checkmate, or blocked, or no pieces left). The same
position (pieces, faces, side to move) occurring for the third time is a draw.

Notation: a1-a2 (move), {white_goal}x{black_goal} (capture), squares a1..{last}; the designer's
long form R{white_goal}x{black_goal}=B (face before: R = +, B = x; = the face after) is accepted.

Options: none."""
