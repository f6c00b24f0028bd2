"""Why a game ended, as data: :meth:`State.end_reason <flipgames.core.game.State.end_reason>`.

As python-chess's ``Termination``, one small enum names every way the rules end a game, so
code that needs to know (the lab's audit, the web, research wrappers) compares members instead
of reading a game's words. The values are short words (a :class:`~enum.StrEnum`, so they
compare equal to them and go into JSON as they are); the game's own sentence, with names and
squares, stays :meth:`~flipgames.core.game.State.status_text`.

Endings outside the rules (a resignation, a draw by agreement, a loss on time, a forfeit) are
the web's, not the engine's: they belong to a match, not to a position.

>>> Termination.REPETITION == "third repetition"
True
"""

from __future__ import annotations

from enum import StrEnum, unique


@unique
class Termination(StrEnum):
    """How the rules ended a game (one member per way; each game uses some of them)."""

    #: The player to move has no legal action, and the rules decide the result from that.
    NO_LEGAL_MOVE = "no legal move"
    #: The player to move is in check and cannot answer it (FlipFlop: cannot capture on its
    #: goal).
    CHECKMATE = "checkmate"
    #: The player to move has no pieces left.
    NO_PIECES = "no pieces left"
    #: The same position occurred for the third time (a draw).
    REPETITION = "third repetition"
    #: A limit on turns without progress was reached (Flip Switch's ``switch_limit``, as
    #: chess's fifty-move rule).
    MOVE_LIMIT = "move limit"
    #: Four of a player's pieces in a row.
    FOUR_IN_A_ROW = "four in a row"
    #: A row locked in one colour.
    LOCKED_ROW = "locked row"
    #: The board filled up without a winning row (a draw).
    BOARD_FULL = "board full"
    #: A player lined up enough shapes to win.
    LINES_MADE = "lines made"
    #: A car crossed the finish line.
    FINISH_LINE = "finish line"
    #: The last round of a match of several was played: the rounds won decide it.
    ROUNDS_PLAYED = "rounds played"
