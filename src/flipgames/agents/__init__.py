"""Agents: choose actions through the game protocol only. Every agent takes an injected
random generator so games are reproducible."""

from flipgames.agents.base import Agent, RandomAgent, make_agent

__all__ = ["Agent", "RandomAgent", "make_agent"]
