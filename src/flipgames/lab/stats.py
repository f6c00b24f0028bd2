"""What one self-play game measured, and the totals of many games, mergeable in any order.

A :class:`GameStats` is one finished game; a :class:`Tally` adds games up with integer counts
only (wins, draws, a histogram of lengths, sums of legal actions per ply), so tallies from
worker processes or Ray tasks merge to exactly the same totals whatever order they arrive in.
Timing (seconds per move) is measured too but is no part of a tally's equality: the same
games take different times on every run.

Rates are true divisions (``1 / 3`` is 0.333, never 0) and every rate has the 95% Wilson
score interval of :func:`flipgames.agents.arena.wilson_interval`.

>>> tally = Tally()
>>> for winner, moves in ((0, 5), (1, 7), (-1, 9)):
...     tally.add(GameStats(index=0, a_seat=0, winner=winner, moves=moves, plies=moves,
...                         branching=(2,) * moves))
>>> tally.games, tally.wins, tally.draws, tally.length_median(), tally.length_quantile(0.9)
(3, [1, 1], 1, 7.0, 9)
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from flipgames.agents.arena import wilson_interval

#: ``GameStats.winner`` of a drawn game (a capped game counts as a draw).
DRAW = -1

#: Per-game metric values are added up in units of 1e-9, as integers: a sum of integers is
#: the same in any order, a sum of floats is not, and tallies merge in any order.
METRIC_UNIT = 10**9


@dataclass(frozen=True)
class GameStats:
    """One self-play game, as :func:`flipgames.lab.simulate.play_game` measured it.

    ``a_seat`` is the seat (0: first player) agent A had; ``winner`` the winning seat or
    :data:`DRAW`. ``moves`` counts the players' decisions, ``plies`` every action (chance
    outcomes included). ``branching[k]`` is how many legal actions the player to move had at
    decision ``k``. ``lead_changes`` is None where the game has no evaluation.
    """

    index: int
    a_seat: int
    winner: int
    moves: int
    plies: int
    branching: tuple[int, ...]
    repetition: bool = False
    capped: bool = False
    lead_changes: int | None = None
    #: Seconds agents A and B spent choosing, and how many moves each chose.
    think_seconds: tuple[float, float] = (0.0, 0.0)
    agent_moves: tuple[int, int] = (0, 0)
    #: The game's Ludii metrics (:func:`flipgames.lab.metrics.game_metrics`) that apply.
    metrics: dict[str, float] = field(default_factory=dict)


def rate(count: int, total: int) -> float:
    """``count / total`` as a float (0.0 for no games).

    >>> rate(1, 3), rate(0, 0)
    (0.3333333333333333, 0.0)
    """
    return count / total if total else 0.0


def rate_interval(count: int, total: int) -> tuple[float, float]:
    """The 95% Wilson interval of the rate ``count / total`` (true division).

    >>> [round(x, 4) for x in rate_interval(3, 10)]
    [0.1078, 0.6032]
    """
    return wilson_interval(rate(count, total), total)


@dataclass
class Tally:
    """Totals of many games (see the module docstring); :meth:`merge` is order-independent."""

    games: int = 0
    #: Games won by the first seat and by the second.
    wins: list[int] = field(default_factory=lambda: [0, 0])
    #: Games won by agent A and by agent B (whatever seat each had).
    agent_wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    #: Draws by a third repetition (only counted where the rules have repetition draws).
    repetition_draws: int = 0
    #: Games stopped at the game's length cap (counted as draws).
    capped: int = 0
    #: How many games lasted each number of moves.
    lengths: Counter[int] = field(default_factory=Counter)
    plies: int = 0
    #: Per decision number: legal actions summed over the games that got there, and how many.
    branching_sum: list[int] = field(default_factory=list)
    branching_count: list[int] = field(default_factory=list)
    #: Games with a measured evaluation; lead changes in all; games with at least one.
    lead_games: int = 0
    lead_changes: int = 0
    lead_changed_games: int = 0
    #: Moves chosen by A and by B.
    agent_moves: list[int] = field(default_factory=lambda: [0, 0])
    #: Thinking seconds of A and B: measured, not compared (see the module docstring).
    think_seconds: list[float] = field(default_factory=lambda: [0.0, 0.0], compare=False)
    #: Per metric: the sum of the games' values in :data:`METRIC_UNIT` units, and how many
    #: games had a value.
    metric_sums: Counter[str] = field(default_factory=Counter)
    metric_games: Counter[str] = field(default_factory=Counter)

    def add(self, game: GameStats) -> None:
        """Count one finished game."""
        self.games += 1
        if game.winner == DRAW:
            self.draws += 1
        else:
            self.wins[game.winner] += 1
            self.agent_wins[0 if game.winner == game.a_seat else 1] += 1
        self.repetition_draws += game.repetition
        self.capped += game.capped
        self.lengths[game.moves] += 1
        self.plies += game.plies
        missing = len(game.branching) - len(self.branching_sum)
        if missing > 0:
            self.branching_sum.extend([0] * missing)
            self.branching_count.extend([0] * missing)
        for ply, count in enumerate(game.branching):
            self.branching_sum[ply] += count
            self.branching_count[ply] += 1
        if game.lead_changes is not None:
            self.lead_games += 1
            self.lead_changes += game.lead_changes
            self.lead_changed_games += game.lead_changes > 0
        for agent in (0, 1):
            self.agent_moves[agent] += game.agent_moves[agent]
            self.think_seconds[agent] += game.think_seconds[agent]
        for name, value in game.metrics.items():
            self.metric_sums[name] += round(value * METRIC_UNIT)
            self.metric_games[name] += 1

    def merge(self, other: Tally) -> None:
        """Add another tally's games to this one."""
        self.games += other.games
        self.draws += other.draws
        self.repetition_draws += other.repetition_draws
        self.capped += other.capped
        self.lengths.update(other.lengths)
        self.plies += other.plies
        missing = len(other.branching_sum) - len(self.branching_sum)
        if missing > 0:
            self.branching_sum.extend([0] * missing)
            self.branching_count.extend([0] * missing)
        for ply, (total, count) in enumerate(
            zip(other.branching_sum, other.branching_count, strict=True)
        ):
            self.branching_sum[ply] += total
            self.branching_count[ply] += count
        self.lead_games += other.lead_games
        self.lead_changes += other.lead_changes
        self.lead_changed_games += other.lead_changed_games
        self.metric_sums.update(other.metric_sums)
        self.metric_games.update(other.metric_games)
        for side in (0, 1):
            self.wins[side] += other.wins[side]
            self.agent_wins[side] += other.agent_wins[side]
            self.agent_moves[side] += other.agent_moves[side]
            self.think_seconds[side] += other.think_seconds[side]

    # --- lengths -----------------------------------------------------------------------------

    def length_mean(self) -> float:
        """Mean game length in moves."""
        return rate(sum(n * c for n, c in self.lengths.items()), self.games)

    def length_quantile(self, q: float) -> int:
        """The nearest-rank ``q`` quantile of the lengths: the smallest length such that at
        least ``q`` of the games are that long or shorter (0 without games).

        >>> tally = Tally(games=10, lengths=Counter({3: 8, 20: 2}))
        >>> tally.length_quantile(0.8), tally.length_quantile(0.9)
        (3, 20)
        """
        if not self.games:
            return 0
        return self._kth(max(1, math.ceil(q * self.games)) - 1)

    def length_median(self) -> float:
        """The median length: the middle game's, or the mean of the two middle ones.

        >>> Tally(games=4, lengths=Counter({3: 2, 6: 2})).length_median()
        4.5
        """
        if not self.games:
            return 0.0
        middle = self.games // 2
        if self.games % 2:
            return float(self._kth(middle))
        return (self._kth(middle - 1) + self._kth(middle)) / 2

    def _kth(self, k: int) -> int:
        """The length of game ``k`` (from 0) in order of length."""
        seen = 0
        for length in sorted(self.lengths):
            seen += self.lengths[length]
            if seen > k:
                return length
        raise AssertionError("the histogram does not add up to the number of games")

    # --- branching -----------------------------------------------------------------------------

    def branching_by_ply(self) -> list[float]:
        """Mean legal actions at each decision number, over the games that reached it."""
        return [rate(s, c) for s, c in zip(self.branching_sum, self.branching_count, strict=True)]

    def branching_mean(self) -> float:
        """Mean legal actions over every decision of every game."""
        return rate(sum(self.branching_sum), sum(self.branching_count))

    # --- metrics -------------------------------------------------------------------------------

    @property
    def natural_draws(self) -> int:
        """Draws the rules gave (games stopped at the length cap left out)."""
        return self.draws - self.capped

    @property
    def decided(self) -> int:
        """Games with a winner."""
        return self.games - self.draws

    def metric_mean(self, name: str) -> float | None:
        """The mean of metric ``name`` over the games that had a value (None if none did).

        >>> tally = Tally()
        >>> tally.add(GameStats(0, 0, 0, 1, 1, (2,), metrics={"drama": 0.25}))
        >>> tally.add(GameStats(1, 1, 0, 1, 1, (2,), metrics={"drama": 0.5}))
        >>> tally.metric_mean("drama"), tally.metric_mean("stability")
        (0.375, None)
        """
        count = self.metric_games[name]
        return self.metric_sums[name] / METRIC_UNIT / count if count else None

    # --- time ----------------------------------------------------------------------------------

    def seconds_per_move(self, agent: int) -> float:
        """Mean thinking seconds per move of A (0) or B (1)."""
        return (
            self.think_seconds[agent] / self.agent_moves[agent] if self.agent_moves[agent] else 0.0
        )
