"""Monte Carlo tree search (UCT) over any game, chance nodes included.

Every iteration walks down the tree (UCT at player nodes; at chance nodes an outcome sampled
with its exact probability, so the statistics converge to expectations), adds one node,
plays a random game from it (cut off after ``rollout_limit`` plies and scored by
``State.evaluate``) and adds the result to every node on the path. The budget is a number of
iterations, a number of seconds, or both (whichever runs out first); with an iteration budget
and a seeded generator a search is reproducible.

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
from flipgames.core.game import State, random_action, sample_chance


class _Node:
    __slots__ = ("state", "children", "untried", "visits", "totals")

    def __init__(self, state: State) -> None:
        self.state = state
        self.children: dict[int, _Node] = {}
        # Chance nodes are never "fully expanded": their children come from sampling.
        self.untried = [] if state.is_chance_node() else list(state.legal_actions())
        self.visits = 0
        #: Sum of the returns seen through this node, per player.
        self.totals = [0.0] * state.game.num_players


class MCTSAgent(Agent):
    """UCT with random rollouts; rollouts longer than ``rollout_limit`` end in ``evaluate``.

    ``iterations`` and ``seconds`` are budgets (give one or both; the search stops when the
    first runs out). ``rollout_limit=0`` scores every new node by ``evaluate`` alone.
    The chosen action is the most visited one.
    """

    name = "mcts"

    def __init__(
        self,
        rng: random.Random,
        iterations: int | None = 1000,
        seconds: float | None = None,
        exploration: float = 1.0,
        rollout_limit: int = 200,
    ) -> None:
        super().__init__(rng)
        if iterations is None and seconds is None:
            raise ValueError("MCTS needs a budget: iterations, seconds or both")
        if iterations is not None and iterations < 1:
            raise ValueError(f"MCTS needs at least one iteration, got {iterations}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"MCTS needs a positive number of seconds, got {seconds}")
        if rollout_limit < 0:
            raise ValueError(f"rollout_limit must be 0 or more, got {rollout_limit}")
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout_limit = rollout_limit
        #: Iterations run by the last search (for benchmarks and analysis).
        self.last_iterations = 0

    def choose(self, state: State) -> int:
        root = self.search(state)
        # Most visits wins; ties go to the lowest id so the choice is reproducible.
        return max(root.children.items(), key=lambda item: (item[1].visits, -item[0]))[0]

    def action_values(self, state: State) -> dict[int, tuple[int, float]]:
        """Search, then per root action: (visits, mean return for the player to move).

        >>> import random
        >>> from flipgames import make
        >>> state = make("flipflop-3x3").new_initial_state()
        >>> values = MCTSAgent(random.Random(2), iterations=100).action_values(state)
        >>> sorted(values) == sorted(state.legal_actions()), sum(v for v, _ in values.values())
        (True, 100)
        """
        root = self.search(state)
        player = state.current_player
        return {
            a: (n.visits, n.totals[player] / n.visits if n.visits else 0.0)
            for a, n in root.children.items()
        }

    def search(self, state: State) -> _Node:
        """Grow a tree from ``state`` (a player node) within the budget; return its root."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("MCTS needs a state where a player is to move")
        root = _Node(state)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        iteration = 0
        while self.iterations is None or iteration < self.iterations:
            # At least one iteration, so even a tiny time budget yields a searched action.
            if deadline is not None and iteration and time.perf_counter() >= deadline:
                break
            self._iterate(root)
            iteration += 1
        self.last_iterations = iteration
        return root

    def _iterate(self, root: _Node) -> None:
        node = root
        path = [root]
        while not node.state.is_terminal():
            if node.state.is_chance_node():
                outcome = sample_chance(node.state, self.rng)
                child = node.children.get(outcome)
                if child is None:
                    child = node.children[outcome] = _Node(node.state.apply(outcome))
                    path.append(child)
                    node = child
                    break
                node = child
            elif node.untried:
                action = node.untried.pop(self.rng.randrange(len(node.untried)))
                child = node.children[action] = _Node(node.state.apply(action))
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
        """The child with the best upper confidence bound for the player to move."""
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
                break
            state = state.apply(random_action(state, self.rng))
        if state.is_terminal():
            return [float(r) for r in state.returns()]
        return [state.evaluate(p) for p in range(state.game.num_players)]
