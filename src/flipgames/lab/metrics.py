"""Ludii's game metrics, computed on one self-play game at a time from what the game records.

The definitions follow Ludii's evaluation metrics (the Ludii portal's concept list and the
papers of Browne and Maire, "Evolutionary Game Design", and Piette et al., "Ludii - The
Ludemic General Game System"); docs/lab-metrics.md maps every metric here to Ludii's name
and definition. Each function takes plain numbers, so every one can be checked by hand:

* ``evaluations``: the first player's evaluation (``State.evaluate(0)``, in [-1, 1], what the
  game's alpha-beta searches with) before each move; the second player's is its negation
  (every game here is two-player zero-sum);
* ``winner``: the winning seat, or ``DRAW`` (-1);
* ``branching``: the number of legal actions before each move;
* ``values``: for one move, the mover's evaluation after each of its legal actions;
* ``occupied``: the board sites holding a piece, at the start and after each move.

A game without what a metric needs (no evaluation, no board sites, no move from one square
to another) gets None from :func:`game_metrics` for it, never a made-up number, and
:func:`not_applicable` says why.

>>> record = GameRecord(winner=0, evaluations=(0.5, -0.5), branching=(2, 1))
>>> metrics = game_metrics(record)
>>> metrics["drama"], metrics["decisiveness"], metrics["decision_factor"], metrics["move_distance"]
(0.5, 1.0, 2.0, None)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from flipgames.core.game import Game, State

#: ``winner`` of a drawn game (the same value as :data:`flipgames.lab.stats.DRAW`).
DRAW: Final = -1

#: Ludii's clarity (narrowness) counts the moves valued above the mean by more than this
#: share of the way to the best move's value.
NARROWNESS_SHARE: Final = 0.75

#: The per-game metrics, in the order reports list them.
GAME_METRICS: Final = (
    "drama",
    "stability",
    "uncertainty",
    "decisiveness",
    "state_evaluation_difference",
    "clarity_narrowness",
    "clarity_variance",
    "decision_moves",
    "decision_factor",
    "game_tree_complexity",
    "board_coverage",
    "piece_number",
    "move_distance",
)

#: The metrics that need ``State.evaluate``.
EVALUATION_METRICS: Final = frozenset(
    {"drama", "stability", "uncertainty", "decisiveness", "state_evaluation_difference"}
)
#: The metrics that evaluate every legal action of every move (``--metrics all`` only).
CLARITY_METRICS: Final = frozenset({"clarity_narrowness", "clarity_variance"})
#: The metrics that need board sites.
BOARD_METRICS: Final = frozenset({"board_coverage", "piece_number"})

#: A square name: file letters then a rank number (``c3``, ``aa12``).
_SQUARE: Final = re.compile(r"([a-z]+)([0-9]+)")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _variance(values: Sequence[float]) -> float:
    """The population variance (divided by n, as Ludii's)."""
    mean = _mean(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def _winner_view(evaluation: float, winner: int) -> float:
    return evaluation if winner == 0 else -evaluation


def drama(evaluations: Sequence[float], winner: int) -> float | None:
    """How far the eventual winner was behind: the mean over moves of the best evaluation
    any player had minus the winner's (0 while the winner leads). In a draw both players
    count as winners, so a move counts the absolute evaluation. None for a game of no moves.

    >>> drama([0.5, -0.25, 0.0], winner=0)  # behind by 0.25 + 0.25 at the second move
    0.16666666666666666
    >>> drama([0.5, -0.25], winner=DRAW)
    0.375
    """
    if not evaluations:
        return None
    if winner == DRAW:
        return _mean([abs(e) for e in evaluations])
    return _mean([abs(e) - _winner_view(e, winner) for e in evaluations])


def stability(evaluations: Sequence[float]) -> float | None:
    """The variance of each player's evaluation over the game, added over the players (the
    second player's evaluation is the first's negation, so twice the first's variance).
    0 for a game whose evaluation never moves.

    >>> stability([0.5, -0.5])  # each player's variance is 0.25
    0.5
    """
    if not evaluations:
        return None
    return 2 * _variance(evaluations)


def uncertainty(evaluations: Sequence[float]) -> float | None:
    """How open the outcome stays (Browne and Maire's uncertainty criterion): the mean over
    moves of 1 - |evaluation|: 1 when every position looks level, 0 when one side looks
    certain to win from the first move.

    >>> uncertainty([0.0, 0.5, -1.0])
    0.5
    """
    if not evaluations:
        return None
    return _mean([1 - abs(e) for e in evaluations])


def state_evaluation_difference(evaluations: Sequence[float]) -> float | None:
    """The mean over moves of the gap between the two players' evaluations (``|e - (-e)|``).

    >>> state_evaluation_difference([0.25, -0.5])
    0.75
    """
    if not evaluations:
        return None
    return _mean([2 * abs(e) for e in evaluations])


def decisiveness(evaluations: Sequence[float], winner: int) -> float | None:
    """Ludii's decisiveness: the share of the game played before the eventual winner's
    evaluation first rises above the decisiveness threshold, the best evaluation the loser
    ever had. 1 when that never happens; None for a draw (no winner) or a game of no moves.

    >>> decisiveness([0.0, -0.25, 0.5, 0.75], winner=0)  # the loser's best: 0.25; move 2
    0.5
    >>> decisiveness([0.5, 0.5], winner=1) is None, decisiveness([0.1], winner=DRAW) is None
    (False, True)
    """
    if winner == DRAW or not evaluations:
        return None
    mine = [_winner_view(e, winner) for e in evaluations]
    threshold = max(-value for value in mine)
    first = next((i for i, value in enumerate(mine) if value > threshold), len(mine))
    return first / len(mine)


def clarity_narrowness(values: Sequence[Sequence[float]]) -> float | None:
    """The mean over moves of the share of legal actions valued above
    ``mean + 0.75 * (best - mean)``: how few actions stand out (none when they are all
    alike). None without moves.

    >>> clarity_narrowness([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5]])  # 1 of 4 stands out; none
    0.125
    """
    shares = []
    for move in values:
        if not move:
            continue
        mean = _mean(move)
        threshold = mean + NARROWNESS_SHARE * (max(move) - mean)
        shares.append(sum(v > threshold for v in move) / len(move))
    return _mean(shares) if shares else None


def clarity_variance(values: Sequence[Sequence[float]]) -> float | None:
    """The mean over moves of the variance of the legal actions' values.

    >>> clarity_variance([[1.0, 0.0], [0.5, 0.5]])
    0.125
    """
    variances = [_variance(move) for move in values if move]
    return _mean(variances) if variances else None


def decision_moves(branching: Sequence[int]) -> float | None:
    """The share of moves with more than one legal action.

    >>> decision_moves([1, 3, 2, 1])
    0.5
    """
    if not branching:
        return None
    return sum(b > 1 for b in branching) / len(branching)


def decision_factor(branching: Sequence[int]) -> float | None:
    """The mean number of legal actions over the moves with more than one (None if none).

    >>> decision_factor([1, 3, 2, 1])
    2.5
    """
    choices = [b for b in branching if b > 1]
    return _mean(choices) if choices else None


def game_tree_complexity(branching: Sequence[int]) -> float | None:
    """Ludii's game-tree complexity estimate: ``moves * log10(mean legal actions)``, the
    number of decimal digits of the size of a tree as long and as wide as this game.

    >>> game_tree_complexity([10, 10, 10])
    3.0
    """
    if not branching:
        return None
    return len(branching) * math.log10(_mean(branching))


def board_coverage(occupied: Sequence[frozenset[str]], sites: int) -> float | None:
    """The share of the board's sites that held a piece at some point of the game.

    >>> board_coverage([frozenset({"a1"}), frozenset({"a2"}), frozenset({"a2", "b2"})], 4)
    0.75
    """
    if not occupied or sites < 1:
        return None
    return len(frozenset().union(*occupied)) / sites


def piece_number(occupied: Sequence[frozenset[str]]) -> float | None:
    """The mean number of pieces on the board, over the start and every position after.

    >>> piece_number([frozenset({"a1"}), frozenset({"a1", "b1"}), frozenset({"b1"})])
    1.3333333333333333
    """
    if not occupied:
        return None
    return _mean([len(sites) for sites in occupied])


def square_distance(origin: str, target: str) -> int | None:
    """King steps between two square names (file letters, rank number); None if either
    name is no square name.

    >>> square_distance("a1", "c2"), square_distance("b3", "b3"), square_distance("x", "a1")
    (2, 0, None)
    """
    a, b = _SQUARE.fullmatch(origin), _SQUARE.fullmatch(target)
    if a is None or b is None:
        return None
    return max(abs(_file(a[1]) - _file(b[1])), abs(int(a[2]) - int(b[2])))


def _file(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("a") + 1
    return number


def move_distance(distances: Sequence[int]) -> float | None:
    """The mean distance (king steps) of the moves that took a piece from one square to
    another; None when no move did.

    >>> move_distance([1, 2, 3])
    2.0
    """
    return _mean(distances) if distances else None


@dataclass(frozen=True)
class GameRecord:
    """What one game recorded for the metrics (the module docstring says what each is);
    None where the game could not record it (no evaluation, no board, not asked)."""

    winner: int
    branching: tuple[int, ...]
    evaluations: tuple[float, ...] | None = None
    values: tuple[tuple[float, ...], ...] | None = None
    occupied: tuple[frozenset[str], ...] | None = None
    sites: int | None = None
    distances: tuple[int, ...] = ()


def game_metrics(record: GameRecord) -> dict[str, float | None]:
    """Every metric of :data:`GAME_METRICS` for one game (None where it does not apply).

    >>> metrics = game_metrics(GameRecord(winner=0, evaluations=(0.5, -0.5), branching=(2, 1)))
    >>> metrics["drama"], metrics["decision_moves"], metrics["board_coverage"]
    (0.5, 0.5, None)
    """
    evaluations = record.evaluations
    occupied, sites = record.occupied, record.sites
    on_board = occupied is not None and sites is not None
    return {
        "drama": None if evaluations is None else drama(evaluations, record.winner),
        "stability": None if evaluations is None else stability(evaluations),
        "uncertainty": None if evaluations is None else uncertainty(evaluations),
        "decisiveness": None if evaluations is None else decisiveness(evaluations, record.winner),
        "state_evaluation_difference": (
            None if evaluations is None else state_evaluation_difference(evaluations)
        ),
        "clarity_narrowness": None if record.values is None else clarity_narrowness(record.values),
        "clarity_variance": None if record.values is None else clarity_variance(record.values),
        "decision_moves": decision_moves(record.branching),
        "decision_factor": decision_factor(record.branching),
        "game_tree_complexity": game_tree_complexity(record.branching),
        "board_coverage": (
            board_coverage(occupied, sites) if on_board and occupied and sites else None
        ),
        "piece_number": piece_number(occupied) if on_board and occupied else None,
        "move_distance": move_distance(record.distances),
    }


def outcome_uniformity(first_wins: int, second_wins: int, games: int) -> float | None:
    """Ludii's outcome uniformity: 1 minus the variance of a seat's result (+1 a win, -1 a
    loss, 0 a draw or a game stopped at the cap) over the games, averaged over the seats
    (in a two-player zero-sum game both seats' variances are the same).

    >>> outcome_uniformity(5, 5, 10)  # +1 and -1 equally often: variance 1
    0.0
    >>> outcome_uniformity(0, 0, 4)  # every game drawn
    1.0
    """
    if games < 1:
        return None
    mean = (first_wins - second_wins) / games
    return 1 - ((first_wins + second_wins) / games - mean * mean)


def not_applicable(
    metric: str, *, evaluation: bool, clarity: bool, sites: int | None, board: bool
) -> str | None:
    """Why ``metric`` has no value for a game, or None when it has one: the game has no
    evaluation, clarity was not asked for (``--metrics all``), the game has no board sites
    or its board view lists no pieces by square.

    >>> not_applicable("drama", evaluation=False, clarity=False, sites=9, board=True)
    'the game has no evaluation (State.evaluate)'
    >>> not_applicable("decision_moves", evaluation=False, clarity=False, sites=None, board=False)
    """
    if metric in EVALUATION_METRICS and not evaluation:
        return "the game has no evaluation (State.evaluate)"
    if metric in CLARITY_METRICS:
        if not clarity:
            return "not computed: it evaluates every legal action; ask with --metrics all"
        if not evaluation:
            return "the game has no evaluation (State.evaluate)"
    if metric in BOARD_METRICS:
        if sites is None:
            return "the game has no board sites (its observation tensor is not a grid)"
        if not board:
            return "the game's board view lists no pieces by square"
    return None


# --- what a game records, read through the game protocol -----------------------------------


def board_sites(game: Game) -> int | None:
    """The number of board sites: ranks x files of an observation tensor laid out as planes
    of the board (``[plane, rank, file]``); None for a game whose tensor is a flat vector
    or that has no tensor.

    >>> from flipgames import make
    >>> board_sites(make("flipflop-3x3")), board_sites(make("checkered-flag"))
    (9, None)
    """
    try:
        shape = game.observation_tensor_shape
    except NotImplementedError:  # a game without a tensor says nothing of a board
        return None
    return shape[1] * shape[2] if len(shape) == 3 else None


def occupied_sites(state: State) -> frozenset[str] | None:
    """The squares holding a piece, from the spectator's board view (nothing hidden): its
    ``pieces`` (square -> piece, empty squares left out) or ``squares`` (square -> piece or
    None); None when the board view lists neither (or the game has none).

    >>> from flipgames import make
    >>> sorted(occupied_sites(make("flipflop-3x3").new_initial_state()) or ())
    ['a1', 'a3', 'b1', 'b3', 'c1', 'c3']
    """
    try:
        view = state.board_view(None)
    except NotImplementedError:
        return None
    pieces = view.get("pieces")
    if isinstance(pieces, dict):
        return frozenset(str(square) for square in pieces)
    squares = view.get("squares")
    if isinstance(squares, dict):
        return frozenset(str(square) for square, piece in squares.items() if piece is not None)
    return None


def action_distance(state: State, action: int) -> int | None:
    """King steps of a legal ``action`` that takes a piece ``from`` one square ``to``
    another (its :meth:`State.action_info`); None for any other action, and in a game that
    does not describe its actions.

    >>> from flipgames import make
    >>> state = make("flipflop-3x3").new_initial_state()
    >>> action_distance(state, state.parse_action("b1-b2"))
    1
    """
    try:
        info = state.action_info(action)
    except NotImplementedError:  # a game that describes no action as data
        return None
    origin, target = info.get("from"), info.get("to")
    if isinstance(origin, str) and isinstance(target, str):
        return square_distance(origin, target)
    return None


#: Why a metric that applies to the game still has no value when no game gave one.
_EMPTY_REASONS: Final = {
    "decisiveness": "no game was decided",
    "decision_factor": "no move had more than one legal action",
    "move_distance": "no move took a piece from one square to another",
}


def empty_reason(metric: str) -> str:
    """Why ``metric`` applies to the game but no game gave it a value.

    >>> empty_reason("move_distance"), empty_reason("drama")
    ('no move took a piece from one square to another', 'no game had a move')
    """
    return _EMPTY_REASONS.get(metric, "no game had a move")


#: Per metric: how reports name it, Ludii's name for it, and one line on what it says.
LABELS: Final = {
    "drama": ("Drama", "Drama (average)", "how far the eventual winner was behind"),
    "stability": ("Stability", "Stability", "variance of the evaluation over a game"),
    "uncertainty": ("Uncertainty", "Uncertainty", "1 level all game, 0 one side sure"),
    "decisiveness": (
        "Decisiveness",
        "Decisiveness Moves",
        "share of a decided game before the winner passes the loser's best evaluation",
    ),
    "state_evaluation_difference": (
        "State evaluation difference",
        "State Evaluation Difference (average)",
        "gap between the players' evaluations",
    ),
    "clarity_narrowness": (
        "Clarity (narrowness)",
        "Clarity Narrowness",
        "share of actions that stand out from the rest",
    ),
    "clarity_variance": (
        "Clarity (variance)",
        "Clarity Variance",
        "variance of the actions' values at a move",
    ),
    "decision_moves": ("Decision moves", "Decision Moves", "share of moves with a choice"),
    "decision_factor": (
        "Decision factor",
        "Decision Factor (average)",
        "legal actions at the moves with a choice",
    ),
    "game_tree_complexity": (
        "Game-tree complexity",
        "Game Tree Complexity",
        "moves x log10(mean legal actions)",
    ),
    "board_coverage": (
        "Board coverage",
        "Board Coverage Default",
        "share of sites that held a piece at some point",
    ),
    "piece_number": ("Piece number", "Piece Number (average)", "pieces on the board"),
    "move_distance": (
        "Move distance",
        "Move Distance (average)",
        "king steps of a move from one square to another",
    ),
}
