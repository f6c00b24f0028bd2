"""What the Rubik's Flip trap studies share: the searcher model's figure of each action."""

from __future__ import annotations

from flipgames.agents.exact import ExactSearchAgent
from flipgames.agents.opponent_models import LureProbe
from flipgames.core.game import State


def modelled(state: State, hard: ExactSearchAgent, actions: list[int]) -> dict[int, float]:
    """Each action's searcher-model figure, measured to the end."""
    figures = {}
    for action in actions:
        child = state.apply(action)
        probe = LureProbe(hard, child, hard.kernel.position(child))
        figures[action] = probe.searched()
        while not probe.searched_exactly:
            figures[action] = probe.searched()
    return figures
