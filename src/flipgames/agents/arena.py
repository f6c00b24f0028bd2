"""Play two agents against each other many times: the evidence for playing strength.

Game ``i`` of a match (counting from 0) gives agent A the first seat (player 0) when ``i`` is
even and the second seat when it is odd, so neither agent keeps the first-move advantage.
Each game builds fresh agents from the factories with generators seeded from ``(seed, i)``
and draws its chance outcomes from a third seeded generator, so a match is reproducible game
by game (as long as the agents' budgets are not in seconds).

Results are from A's point of view. The confidence interval is the 95% **Wilson score
interval on the score** (a win counts 1, a draw 1/2, a loss 0, divided by the number of
games). Wilson's formula assumes each game is a win or a loss; a draw has a smaller variance
than that, so with draws the interval is a little wider than it needs to be (conservative).

>>> from flipgames import make
>>> from flipgames.agents.base import RandomAgent
>>> result = play_match(make("flipflop-3x3"), RandomAgent, RandomAgent, games=20, seed=1)
>>> result.wins + result.draws + result.losses, 0 <= result.interval[0] <= result.score
(20, True)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flipgames.agents.base import Agent
from flipgames.core.game import Game, sample_chance
from flipgames.core.progress import Progress

AgentFactory = Callable[[random.Random], Agent]

#: The normal quantile for a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a success fraction ``score`` observed over ``games``.

    >>> [round(x, 3) for x in wilson_interval(0.5, 100)]
    [0.404, 0.596]
    >>> [round(x, 3) for x in wilson_interval(1.0, 10)]
    [0.722, 1.0]
    >>> wilson_interval(0.0, 7)[0], wilson_interval(1.0, 7)[1]
    (0.0, 1.0)
    """
    if games <= 0:
        return 0.0, 1.0
    z2 = z * z
    centre = (score + z2 / (2 * games)) / (1 + z2 / games)
    half = z / (1 + z2 / games) * math.sqrt(score * (1 - score) / games + z2 / (4 * games**2))
    # Clamped to hold the score exactly: at a score of 0 or 1 rounding leaves a bound a hair
    # past it (2.8e-17 above 0 over 7 games), and a chart's error bar would be negative.
    return max(0.0, min(score, centre - half)), min(1.0, max(score, centre + half))


@dataclass
class ArenaResult:
    """Win/draw/loss counts of agent A against agent B, and how the match went."""

    game: str
    options: dict[str, Any]
    seed: int
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: A's [wins, draws, losses] when A had the first seat, and when it had the second.
    as_first: list[int] = field(default_factory=lambda: [0, 0, 0])
    as_second: list[int] = field(default_factory=lambda: [0, 0, 0])
    #: Plies played in all games (chance outcomes included).
    plies: int = 0
    #: Seconds A and B spent choosing moves, and how many moves each chose.
    think_seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: list[int] = field(default_factory=lambda: [0, 0])
    #: Wall-clock seconds for the whole match.
    seconds: float = 0.0

    @property
    def score(self) -> float:
        """A's score: (wins + draws / 2) / games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson score interval of :attr:`score`."""
        return wilson_interval(self.score, self.games)

    def seconds_per_move(self, agent: int) -> float:
        """Mean thinking time per move of A (``agent=0``) or B (``agent=1``)."""
        return self.think_seconds[agent] / self.moves[agent] if self.moves[agent] else 0.0

    def summary(self) -> str:
        """One line: games, W/D/L for A, score and interval.

        >>> ArenaResult("flipflop-3x3", {}, 1, 4, 2, 1, 1).summary()
        '4 games: A won 2, drew 1, lost 1; score 0.625 (95% CI 0.219-0.908)'
        """
        low, high = self.interval
        return (
            f"{self.games} games: A won {self.wins}, drew {self.draws}, lost {self.losses}; "
            f"score {self.score:.3f} (95% CI {low:.3f}-{high:.3f})"
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-able summary (what ``flipgames arena --json`` can print)."""
        low, high = self.interval
        return {
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "as_first": self.as_first,
            "as_second": self.as_second,
            "score": self.score,
            "interval": [low, high],
            "plies": self.plies,
            "seconds_per_move": [self.seconds_per_move(0), self.seconds_per_move(1)],
            "seconds": self.seconds,
        }


def play_match(
    game: Game,
    agent_factory_a: AgentFactory,
    agent_factory_b: AgentFactory,
    games: int,
    seed: int,
    progress: Progress | None = None,
) -> ArenaResult:
    """Play ``games`` games of A against B, alternating seats; results for A.

    ``agent_factory_a`` and ``_b`` make an agent from a seeded generator (an agent class such
    as ``RandomAgent`` is one; ``lambda rng: make_level_agent(game, "hard", rng)`` another).
    ``progress`` receives one report per finished game (games done of ``games``).
    """
    if games < 1:
        raise ValueError(f"a match needs at least one game, got {games}")
    if game.num_players != 2:
        raise ValueError(f"the arena plays two-player games; {game.name} has {game.num_players}")
    result = ArenaResult(game.name, dict(game.options), seed)
    started = time.perf_counter()
    for index in range(games):
        a_seat = index % 2
        agents = {
            a_seat: agent_factory_a(random.Random(f"{seed}:{index}:a")),
            1 - a_seat: agent_factory_b(random.Random(f"{seed}:{index}:b")),
        }
        chance = random.Random(f"{seed}:{index}:chance")
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.apply(sample_chance(state, chance))
            else:
                player = state.current_player
                clock = time.perf_counter()
                action = agents[player].choose(state)
                side = 0 if player == a_seat else 1
                result.think_seconds[side] += time.perf_counter() - clock
                result.moves[side] += 1
                state = state.apply(action)
            result.plies += 1
        outcome = state.returns()[a_seat]
        column = 0 if outcome > 0 else 1 if outcome == 0 else 2
        (result.as_first if a_seat == 0 else result.as_second)[column] += 1
        result.games += 1
        result.wins += outcome > 0
        result.draws += outcome == 0
        result.losses += outcome < 0
        if progress is not None:
            word = ("won", "drew", "lost")[column]
            seat = "first" if a_seat == 0 else "second"
            progress(
                f"game {index + 1}/{games}: A ({seat}) {word}; {result.summary()}",
                done=index + 1,
                total=games,
            )
    result.seconds = time.perf_counter() - started
    return result
