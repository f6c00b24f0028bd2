"""Monte Carlo tree search (UCT) over any game, chance nodes included.

Chance nodes sample an outcome with its exact probability on every visit, so the tree's
statistics converge to expectations. Budgets are iterations or seconds; with an iteration
budget and a seeded generator a search is reproducible.

>>> import random
>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> agent = MCTSAgent(random.Random(1), iterations=200)
>>> state.action_to_string(agent.choose(state)) in ("a1-a2", "b1-b2", "b1xb3", "c1-c2")
True
"""

from __future__ import annotations

import math
import random
import time

from flipgames.agents.base import Agent
from flipgames.core.game import State, sample_chance


class _Node:
    __slots__ = ("state", "children", "untried", "visits", "totals")

    def __init__(self, state: State) -> None:
        self.state = state
        self.children: dict[int, _Node] = {}
        # Chance nodes are never "fully expanded": their children come from sampling.
        self.untried = [] if state.is_chance_node() else list(state.legal_actions())
        self.visits = 0
        self.totals = [0.0] * state.game.num_players


class MCTSAgent(Agent):
    """UCT with random rollouts; rollouts longer than ``rollout_limit`` end in ``evaluate``."""

    name = "mcts"

    def __init__(
        self,
        rng: random.Random,
        iterations: int = 1000,
        seconds: float | None = None,
        exploration: float = 1.4,
        rollout_limit: int = 200,
    ) -> None:
        super().__init__(rng)
        if iterations < 1:
            raise ValueError("MCTS needs at least one iteration")
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout_limit = rollout_limit

    def choose(self, state: State) -> int:
        root = self.search(state)
        best = max(root.children.items(), key=lambda item: (item[1].visits, -item[0]))
        return best[0]

    def action_values(self, state: State) -> dict[int, tuple[int, float]]:
        """Search, then per root action: (visits, mean return for the player to move)."""
        root = self.search(state)
        player = state.current_player
        return {
            a: (n.visits, n.totals[player] / n.visits if n.visits else 0.0)
            for a, n in root.children.items()
        }

    def search(self, state: State) -> _Node:
        root = _Node(state)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        iteration = 0
        while iteration < self.iterations or deadline is not None:
            if deadline is not None and time.perf_counter() >= deadline and iteration:
                break
            self._iterate(root)
            iteration += 1
        return root

    def _iterate(self, root: _Node) -> None:
        node = root
        path = [node]
        while not node.state.is_terminal():
            if node.state.is_chance_node():
                outcome = sample_chance(node.state, self.rng)
                child = node.children.get(outcome)
                if child is None:
                    child = _Node(node.state.apply(outcome))
                    node.children[outcome] = child
                    path.append(child)
                    node = child
                    break
                node = child
            elif node.untried:
                action = node.untried.pop(self.rng.randrange(len(node.untried)))
                child = _Node(node.state.apply(action))
                node.children[action] = child
                path.append(child)
                node = child
                break
            else:
                node = self._select(node)
            path.append(node)
        returns = self._rollout(node.state)
        for visited in path:
            visited.visits += 1
            for p, r in enumerate(returns):
                visited.totals[p] += r

    def _select(self, node: _Node) -> _Node:
        player = node.state.current_player
        log_n = math.log(node.visits)
        best_score = -math.inf
        best: list[_Node] = []
        for child in node.children.values():
            score = child.totals[player] / child.visits + self.exploration * math.sqrt(
                log_n / child.visits
            )
            if score > best_score:
                best_score, best = score, [child]
            elif score == best_score:
                best.append(child)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _rollout(self, state: State) -> list[float]:
        for _ in range(self.rollout_limit):
            if state.is_terminal():
                return [float(r) for r in state.returns()]
            if state.is_chance_node():
                state = state.apply(sample_chance(state, self.rng))
            else:
                state = state.apply(self.rng.choice(state.legal_actions()))
        if state.is_terminal():
            return [float(r) for r in state.returns()]
        return [state.evaluate(p) for p in range(state.game.num_players)]
