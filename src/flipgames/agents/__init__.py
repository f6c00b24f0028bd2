"""Agents: choose actions through the game protocol only. Every agent takes an injected
random generator so games are reproducible.

* :mod:`.base`: the :class:`Agent` interface and :class:`RandomAgent`;
* :mod:`.mcts`: Monte Carlo tree search; :mod:`.search`: alpha-beta and expectiminimax;
  :mod:`.perfect`: play from a solver's values;
* :mod:`.levels`: the named levels per game (``levels_for``, ``make_level_agent``);
* :mod:`.arena`: matches between agents with confidence intervals (``play_match``).
"""

from flipgames.agents.arena import ArenaResult, play_match
from flipgames.agents.base import Agent, RandomAgent
from flipgames.agents.levels import (
    LEVELS,
    LevelUnavailableError,
    UnknownAgentError,
    describe_level,
    levels_for,
    make_agent,
    make_level_agent,
)
from flipgames.agents.mcts import MCTSAgent
from flipgames.agents.perfect import PerfectAgent
from flipgames.agents.search import AlphaBetaAgent, SearchResult
from flipgames.solvers.catalog import is_solved

__all__ = [
    "LEVELS",
    "Agent",
    "AlphaBetaAgent",
    "ArenaResult",
    "LevelUnavailableError",
    "MCTSAgent",
    "PerfectAgent",
    "RandomAgent",
    "SearchResult",
    "UnknownAgentError",
    "describe_level",
    "is_solved",
    "levels_for",
    "make_agent",
    "make_level_agent",
    "play_match",
]
