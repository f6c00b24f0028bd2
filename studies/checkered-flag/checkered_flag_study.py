"""The Checkered Flag designer study: the starter's edge, the optimal gear policy along the
track, and what the crash and no-passing spaces change, all from the exact stochastic solver.

For each track (:data:`TRACKS`: the default loop, and the same loop without its crash spaces,
without its no-passing spaces, and without both) :func:`study_track` gives:

* ``starter_win``: the exact probability that the player who moves first wins, both playing
  perfectly (``start=first``; after the start spin of ``start=spin`` the race is the same, so
  this is the edge of whoever wins the spin);
* ``turns``: the expected number of turns in a race (both players' turns, crash recoveries
  included) under the solver's optimal strategies;
* ``gear_share``: per track space, how often each gear is the optimal choice there, weighted
  by how likely optimal play is to face that choice (only choices with two or more gears;
  where gears tie exactly, the highest of them counts);
* ``stake``: the average, over the choices optimal play meets, of the win probability lost
  by the worst gear against the best (what a careless gear costs);
* ``restraint``: the share of those choices where the best gear is lower than the highest
  gear allowed (where "always shift up" is wrong: the decisions that need thought);
* ``against``: the exact probability that a perfect player beats each fixed gear policy
  (always 1st, up to 2nd, up to 3rd) with the fair spin start: the value of skill.

``python studies/checkered-flag/checkered_flag_study.py [DIR]`` prints the table of
docs/lab/checkered-flag.md and writes the policy figure ``checkered-flag-policy.png`` into DIR
(default ``docs/lab``); matplotlib (the ``report`` extra) is imported only for the figure.
``tests/lab/test_checkered_study.py`` checks it against independent computations.

>>> study = study_track("short", fixed_policies=False)
>>> study.track, round(float(study.starter_win), 4), sum(study.gear_share[8]) in (0, 1)
('short', 0.5956, True)
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from flipgames.core.game import State
from flipgames.core.registry import make
from flipgames.solvers import catalog
from flipgames.solvers.policies import GEAR_POLICIES, evaluate_policy
from flipgames.solvers.solution import Solution

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The tracks the designer report compares, standard first.
TRACKS = ("default", "default-no-crash", "default-no-passing", "default-plain")
#: The gears a car can choose to drive in.
GEARS = (1, 2, 3)


@dataclass(frozen=True)
class TrackStudy:
    """What optimal play looks like on one track (see the module docstring)."""

    track: str
    length: int
    crash: tuple[int, ...]
    no_passing: tuple[int, ...]
    starter_win: Fraction
    turns: float
    #: Per space 0 .. length-1: the share of optimal choices of 1st, 2nd, 3rd gear there
    #: ((0, 0, 0) where optimal play never has a choice on that space).
    gear_share: tuple[tuple[float, float, float], ...]
    stake: float
    restraint: float
    #: Fixed policy name -> the perfect player's exact win probability against it.
    against: dict[str, Fraction]


def study_track(track: str, *, laps: int = 1, fixed_policies: bool = True) -> TrackStudy:
    """Solve ``track`` exactly and measure optimal play on it (see the module docstring)."""
    game = make("checkered-flag", track=track, start="first", laps=laps)
    solution = catalog.solution(game)
    start = game.new_initial_state()
    starter_win = solution.value(start, 0).win
    turns, shares, stake, restraint = _optimal_play(start, solution)
    # The track as every observation shows it (the lab reads games through the protocol).
    board = start.observation(None)["board"]["track"]
    length = int(board["length"])
    gear_share: list[tuple[float, float, float]] = []
    for space in range(length):
        total = sum(shares[space].values())
        one, two, three = (shares[space][g] / total if total else 0.0 for g in GEARS)
        gear_share.append((one, two, three))
    against: dict[str, Fraction] = {}
    if fixed_policies:
        fair = make("checkered-flag", track=track, start="spin", laps=laps)
        for policy in GEAR_POLICIES:
            against[policy.name] = evaluate_policy(fair, None, policy).win
    return TrackStudy(
        track=str(board["name"]),
        length=length,
        crash=tuple(board["crash"]),
        no_passing=tuple(board["no_passing"]),
        starter_win=starter_win,
        turns=turns,
        gear_share=tuple(gear_share),
        stake=stake,
        restraint=restraint,
        against=against,
    )


def _optimal_play(
    start: State, solution: Solution
) -> tuple[float, dict[int, dict[int, float]], float, float]:
    """Follow the solver's canonical optimal strategies from ``start`` with every chance
    outcome: expected turns, per space the reach-weighted optimal gear choices, and over the
    real choices the reach-weighted mean stake and share of restraint."""
    # The positions optimal play can reach, and their successors with probabilities.
    edges: dict[object, list[tuple[object, float]]] = {}
    states: dict[object, State] = {start.key(): start}
    stack = [start]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            edges[state.key()] = []
            continue
        if state.is_chance_node():
            moves = [(state.apply(a), float(p)) for a, p in state.chance_outcomes()]
        else:
            moves = [(state.apply(_canonical(solution, state)), 1.0)]
        edges[state.key()] = [(child.key(), p) for child, p in moves]
        for child, _ in moves:
            if child.key() not in states:
                states[child.key()] = child
                stack.append(child)
    # Reach probabilities in topological order (distances only grow, and a position without
    # a move between two others is never met again, so the graph has no cycles).
    incoming: dict[object, int] = defaultdict(int)
    for successors in edges.values():
        for successor, _ in successors:
            incoming[successor] += 1
    reach: dict[object, float] = defaultdict(float)
    reach[start.key()] = 1.0
    ready = [start.key()]
    turns = 0.0
    stake_sum = restraint_sum = weight = 0.0
    shares: dict[int, dict[int, float]] = defaultdict(lambda: dict.fromkeys(GEARS, 0.0))
    done = 0
    while ready:
        key = ready.pop()
        done += 1
        state, mass = states[key], reach[key]
        if state.current_player >= 0:
            turns += mass
            legal = state.legal_actions()
            if len(legal) > 1:
                values = {
                    int(state.action_to_string(a)): v.win
                    for a, v in solution.action_values(state).items()
                }
                best = max(values.values())
                stake_sum += mass * float(best - min(values.values()))
                weight += mass
                # Among equally good gears (near the finish every gear may win for sure) the
                # highest counts: restraint is a lower gear that is strictly better.
                gear = max(g for g, v in values.items() if v == best)
                if gear < max(values):
                    restraint_sum += mass
                mover = state.current_player
                space = state.observation(None)["board"]["cars"][mover]["space"]
                shares[space][gear] += mass
        for successor, p in edges[key]:
            reach[successor] += mass * p
            incoming[successor] -= 1
            if incoming[successor] == 0:
                ready.append(successor)
    if done != len(states):
        raise AssertionError("optimal play has a cycle: reach probabilities need another method")
    if not weight:
        return turns, shares, 0.0, 0.0
    return turns, shares, stake_sum / weight, restraint_sum / weight


def _canonical(solution: Solution, state: State) -> int:
    """The stochastic solution's canonical optimal action (the one its values assume)."""
    choose = getattr(solution, "canonical_action", None)
    if choose is None:
        raise TypeError("the Checkered Flag solution has no canonical strategy")
    action: int = choose(state)
    return action


def table(studies: list[TrackStudy]) -> str:
    """The comparison as a Markdown table (exact values rounded for reading)."""
    policies = [p.name for p in GEAR_POLICIES]
    head = (
        "| track | crash spaces | no-passing spaces | starter wins | expected turns "
        "| mean stake of a choice | choices needing restraint | "
        + " | ".join(f"perfect vs {p}" for p in policies)
        + " |"
    )
    rows = [head, "|" + " --- |" * (7 + len(policies))]
    for s in studies:
        cells = [
            f"`{s.track}`",
            str(len(s.crash)),
            str(len(s.no_passing)),
            f"{float(s.starter_win):.2%}",
            f"{s.turns:.1f}",
            f"{s.stake:.2%}",
            f"{s.restraint:.1%}",
            *(f"{float(s.against[p]):.2%}" if p in s.against else "-" for p in policies),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def policy_figure(studies: list[TrackStudy]) -> Figure:
    """One strip per track: the share of optimal 1st / 2nd / 3rd gear choices on each space,
    with the crash (red X) and no-passing (yellow =) spaces marked under it."""
    from matplotlib.figure import Figure  # the report extra, only when a figure is drawn

    figure = Figure(figsize=(9, 1.6 * len(studies) + 0.6), dpi=80, layout="constrained")
    axes = figure.subplots(len(studies), 1, sharex=True, squeeze=False)[:, 0]
    colours = {1: "#7fb3d5", 2: "#f0b27a", 3: "#c0392b"}
    for ax, study in zip(axes, studies, strict=True):
        spaces = list(range(study.length))
        bottom = [0.0] * study.length
        for index, gear in enumerate(GEARS):
            heights = [share[index] for share in study.gear_share]
            ax.bar(
                spaces, heights, bottom=bottom, width=0.9, color=colours[gear], label=f"gear {gear}"
            )
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        for space in study.crash:
            ax.text(space, -0.18, "X", ha="center", va="center", color="#b03030", fontsize=8)
        for space in study.no_passing:
            ax.text(space, -0.18, "=", ha="center", va="center", color="#9a7d0a", fontsize=9)
        ax.set_ylim(-0.3, 1.0)
        ax.set_yticks([0, 0.5, 1])
        ax.set_ylabel("share")
        ax.set_title(
            f"{study.track}: starter wins {float(study.starter_win):.1%}", fontsize=10, loc="left"
        )
    axes[-1].set_xlabel("track space of the car choosing (X crash, = no passing)")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, ncols=3, loc="outside upper right", fontsize=8, frameon=False)
    return figure


def main(argv: list[str] | None = None) -> int:
    """Print the Markdown table and write the policy figure (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default="docs/lab", help="where the figure goes")
    folder = Path(parser.parse_args(argv).folder)
    studies = [study_track(track) for track in TRACKS]
    print(table(studies))
    for study in studies:
        print(f"\n{study.track}: starter wins exactly {study.starter_win}")
    laps2 = study_track("default", laps=2, fixed_policies=False)
    print(
        f"\ndefault, 2 laps: starter wins {float(laps2.starter_win):.2%} ({laps2.turns:.1f} turns)"
    )
    folder.mkdir(parents=True, exist_ok=True)
    policy_figure(studies).savefig(folder / "checkered-flag-policy.png")
    print(f"wrote {folder / 'checkered-flag-policy.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
