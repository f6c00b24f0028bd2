"""The opponent models of Rubik's Flip ``hard`` (:mod:`flipgames.agents.exact`): how likely a
fallible opponent is to answer a drawing action with a losing reply.

Two kinds of opponent are modelled, each reply's value checked exactly by the agent's exact
search: a Monte Carlo tree search with random rollouts (the kernel's compiled MCTS) and a
searcher with a short horizon (what a shallow alpha-beta with the game's evaluation ranks
first, deepening by odd depths, each search from an empty table as an opponent's own starts).
:class:`LureProbe` measures both for one action; :func:`searcher_choices` is what the agent's
watch compares the opponent's moves with.

The constants below were measured against OpenSpiel's MCTSBot and the frozen old *hard*; how,
and on which machine, is in studies/rubiks-flip-traps/README.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import random

    from flipgames.agents.exact import ExactSearchAgent
    from flipgames.core.game import State
    from flipgames.kernels.search import KernelSearchResult, Searcher

#: The searcher model's horizons (odd, as the game's own search deepens).
LURE_DEPTHS = (1, 3, 5)
#: A search of at most LURE_SURE nodes (all depths) finishes, of more than LURE_NODES does not,
#: in between with a chance falling evenly (``finish_chance``; measured on the old *hard*).
LURE_SURE = 45_000
LURE_NODES = 70_000
#: How many of the searcher's tied first choices are checked exactly at a time (a sample).
SEARCHER_CHECKED = 4
#: The MCTS model: iterations (a cheaper model predicted MCTSBot as well as a dearer one),
#: UCT constant (MCTSBot's) and how many of the most visited replies are checked exactly.
MCTS_ITERATIONS = 2000
MCTS_EXPLORATION = 2.0
MCTS_CHECKED = 3


class LureProbe:
    """How likely a fallible opponent is to answer ``child`` (the packed ``position``, after
    one drawing action) with a losing reply, by two kinds of opponent (replies checked
    exactly, each at most once; ``agent`` gives the searches, its transposition table and its
    random generator, so the figures are reproducible with the agent's seed):

    * :meth:`sampled`, a Monte Carlo tree search with random rollouts: the share of the
      visits of a compiled UCT search of :data:`MCTS_ITERATIONS` iterations that went to
      losing replies among its :data:`MCTS_CHECKED` most visited. (Against OpenSpiel's
      MCTSBot this share predicts its real mistakes better than weighting replies by random
      playouts, which the first version did: correlation 0.69 against 0.54 over 72 measured
      actions.) A search is random: averaging a few sharpens the figure.
    * :meth:`searched`, a searcher with a short horizon that deepens through
      :data:`LURE_DEPTHS` with the game's evaluation, each search from an empty table, and
      plays what its deepest finished depth ranks first: the share of losing replies among
      those first choices (estimated from :data:`SEARCHER_CHECKED` more of them at random
      each call where more tie), weighted by the chance it finishes the last depth
      (``finish_chance``; see :func:`shallow_choices` and :func:`deeper_choices`). (Near the
      end a deep search is cheap and sees the loss, so a lure there counts for nothing.
      Depths are odd, as the game's own search deepens: an even horizon ends on the
      opponent's placement.)
    """

    def __init__(self, agent: ExactSearchAgent, child: State, position: int) -> None:
        self.agent, self.child = agent, child
        self.replies = {
            reply: (after, end) for reply, after, end in agent.kernel.children(position)
        }
        self.lost: dict[int, bool] = {}
        #: The searcher model's horizons (None: not searched yet): the shallower one's first
        #: choices, then the last depth's if it may finish, each with its weight.
        self.horizons: list[Horizon] | None = None
        self.deepened = False

    def loses(self, reply: int) -> bool:
        """Whether ``reply`` loses for the opponent (the agent's exact search; remembered)."""
        if reply not in self.lost:
            self.lost[reply] = self.agent._loses(*self.replies[reply])
        return self.lost[reply]

    def sampled(self, iterations: int = MCTS_ITERATIONS) -> float:
        """One MCTS search's figure (a new search each call: average a few for precision)."""
        agent = self.agent
        tree = agent.mcts.search(self.child, agent.rng, iterations, None, MCTS_EXPLORATION)
        visits = {reply: n for reply, (n, _) in tree.actions.items()}
        likely = sorted(visits, key=visits.__getitem__, reverse=True)[:MCTS_CHECKED]
        return sum(visits[reply] for reply in likely if self.loses(reply)) / sum(visits.values())

    def searched(self) -> float:
        """The short-horizon searcher's figure from the replies checked so far: the first call
        searches the shallower depths and checks up to :data:`SEARCHER_CHECKED` of their
        first choices at random, each later one that many more (see
        :attr:`searched_exactly`). The last depth is searched by the first call after one of
        those choices has been found to lose: until then the figure is nought either way (a
        deeper search that does not see the end is too dear to finish; one that does never
        chooses a loss), and an action that cannot be a trap costs no deep search."""
        agent = self.agent
        if self.horizons is None:
            choices = shallow_choices(agent.model, self.child, agent.rng)
            self.horizons = [Horizon(1.0, agent.rng.sample(choices, len(choices)))]
            self.horizons[0].check(self.loses)
            return self.horizons[0].share(self.loses)
        for horizon in self.horizons:
            horizon.check(self.loses)
        shallow = self.horizons[0]
        if self._deepens:
            self.deepened = True
            deeper = deeper_choices(agent.model, self.child, agent.rng)
            if deeper is not None:
                chance, choices = deeper
                shallow.weight = 1.0 - chance
                self.horizons.append(Horizon(chance, agent.rng.sample(choices, len(choices))))
                self.horizons[-1].check(self.loses)
        return sum(horizon.weight * horizon.share(self.loses) for horizon in self.horizons)

    @property
    def _deepens(self) -> bool:
        """Whether the last depth is still to be searched (a shallower choice loses)."""
        assert self.horizons is not None  # searched once
        return not self.deepened and any(map(self.loses, self.horizons[0].checked))

    @property
    def searched_exactly(self) -> bool:
        """Whether :meth:`searched` has checked every one of the searcher's first choices, at
        every depth it needs."""
        return (
            self.horizons is not None
            and all(not h.unchecked for h in self.horizons)
            and not self._deepens
        )


@dataclass
class Horizon:
    """One depth of the searcher model in :class:`LureProbe`: the chance it is the one the
    opponent plays from, and its first choices, checked and not yet."""

    weight: float
    unchecked: list[int]
    checked: list[int] = field(default_factory=list)

    def check(self, loses: Callable[[int], bool]) -> None:
        """Check :data:`SEARCHER_CHECKED` more of the choices with ``loses``."""
        batch = self.unchecked[:SEARCHER_CHECKED]
        del self.unchecked[:SEARCHER_CHECKED]
        for reply in batch:
            loses(reply)
        self.checked += batch

    def share(self, loses: Callable[[int], bool]) -> float:
        """The share of the checked choices that lose."""
        return sum(map(loses, self.checked)) / len(self.checked)


def finish_chance(nodes: int) -> float:
    """The chance that an opponent finishes a search of ``nodes`` nodes: one up to
    :data:`LURE_SURE`, falling evenly to none at :data:`LURE_NODES`.

    >>> middle = (LURE_SURE + LURE_NODES) // 2
    >>> finish_chance(LURE_SURE), finish_chance(middle), finish_chance(LURE_NODES)
    (1.0, 0.5, 0.0)
    """
    if nodes <= LURE_SURE:
        return 1.0
    return max(0.0, (LURE_NODES - nodes) / (LURE_NODES - LURE_SURE))


def _new_search(
    searcher: Searcher, state: State, rng: random.Random, depth: int, max_nodes: int
) -> KernelSearchResult:
    """The searcher model's search of ``state`` to ``depth`` (odd depths), from an empty table
    as an opponent's own search would start (its nodes and choices do not depend on earlier
    searches)."""
    from flipgames.kernels.search import iterative_deepening

    searcher.forget()
    return iterative_deepening(searcher, state, rng, depth, max_nodes=max_nodes, depth_step=2)


def _first(result: KernelSearchResult, state: State) -> list[int]:
    """The actions ``result`` ranks first (every legal one if no depth finished)."""
    if not result.scores:
        return list(state.legal_actions())
    top = max(result.scores.values())
    return [action for action, score in result.scores.items() if score == top]


def shallow_choices(searcher: Searcher, state: State, rng: random.Random) -> list[int]:
    """The searcher model's first choices at the deepest of :data:`LURE_DEPTHS` but the last
    that it surely finishes (within :data:`LURE_SURE` nodes)."""
    return _first(_new_search(searcher, state, rng, LURE_DEPTHS[-2], LURE_SURE), state)


def deeper_choices(
    searcher: Searcher, state: State, rng: random.Random
) -> tuple[float, list[int]] | None:
    """The chance that the searcher model finishes the last of :data:`LURE_DEPTHS` in
    ``state`` (``finish_chance`` of that search's nodes), and its first choices there; None
    if it does not finish within :data:`LURE_NODES` or a shallower depth proved the result
    (an opponent stops deepening there)."""
    depth = LURE_DEPTHS[-1]
    result = _new_search(searcher, state, rng, depth, LURE_NODES)
    if result.depth < depth:
        return None
    return finish_chance(result.nodes), _first(result, state)


def searcher_choices(searcher: Searcher, state: State, rng: random.Random) -> list[int]:
    """The actions the searcher model most likely plays in ``state``: the first choices of
    the last of :data:`LURE_DEPTHS` if it finishes there at least half the time, else of the
    one before (what the watch compares an opponent's moves with)."""
    deeper = deeper_choices(searcher, state, rng)
    if deeper is not None and deeper[0] >= 0.5:
        return deeper[1]
    return shallow_choices(searcher, state, rng)
