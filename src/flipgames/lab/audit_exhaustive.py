"""The exhaustive audit: the findings read off the walk of every reachable position
(:mod:`flipgames.lab.audit_walk`) and its exact solution."""

from __future__ import annotations

from fractions import Fraction

from flipgames.core.ending import Termination
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game
from flipgames.core.progress import Progress
from flipgames.lab.audit_findings import Finding, optimal_line, percent, value_details
from flipgames.lab.audit_walk import Walk, can_force_endless, cycle_from_start, on_cycles
from flipgames.solvers import catalog


def exhaustive(game: Game, progress: Progress, max_positions: int) -> list[Finding]:
    """Every finding of an exhaustive audit, walking at most ``max_positions`` positions."""
    walk = Walk(game, progress, max_positions)
    progress("audit: looking for holes")
    findings = [_solved_value(walk)]
    findings += _no_legal_action(walk)
    findings += _endless_play(walk)
    findings += _never_optimal(walk)
    findings += _option_flips(game, walk, progress)
    return findings


def _solved_value(walk: Walk) -> Finding:
    value = walk.solution.value(walk.root, 0)
    first = walk.game.player_names[0]
    summary = (
        f"With perfect play by both, {first} wins {percent(value.win)}, draws "
        f"{percent(value.draw)} and loses {percent(value.loss)}: the first-player advantage "
        f"(expected result, +1 a sure win, -1 a sure loss) is {float(value.expected):+.4f}. "
        f"{walk.nodes:,} positions were walked ({walk.counted})."
    )
    details = value_details(value.expected, value.win, value.draw, value.loss)
    details["positions"] = walk.nodes
    details["symmetries_folded"] = walk.symmetries
    return Finding("solved-value", summary, optimal_line(walk.game, walk.solution), details)


def _no_legal_action(walk: Walk) -> list[Finding]:
    stuck = [n for n in range(walk.nodes) if walk.reason[n] == Termination.NO_LEGAL_MOVE]
    if stuck:
        ways = sorted({walk.ending[n] for n in stuck})
        node = min(stuck, key=lambda n: walk.depth[n])
        results = sorted({str(walk.value[n]) for n in stuck})
        return [
            Finding(
                "no-legal-action",
                f"{len(stuck):,} reachable endings ({walk.counted}) leave the player to move "
                f"with no legal action; the rules resolve them as: {'; '.join(ways[:3])}",
                walk.line(node),
                {"positions": len(stuck), "resolutions": ways[:10], "results": results},
            )
        ]
    playing = [n for n in range(walk.nodes) if walk.to_move[n] >= 0]
    fewest = min(
        playing,
        key=lambda n: (walk.edge_start[n + 1] - walk.edge_start[n], walk.depth[n]),
    )
    count = walk.edge_start[fewest + 1] - walk.edge_start[fewest]
    return [
        Finding(
            "dead-clause",
            "No reachable position leaves the player to move without a legal action, so the "
            "rule for that case (and any option about it) never changes an outcome. The "
            f"fewest legal actions anywhere is {count}; the example reaches such a position.",
            walk.line(fewest),
            {"clause": "no legal action", "fewest_legal_actions": count},
        )
    ]


def _endless_play(walk: Walk) -> list[Finding]:
    everything = [True] * len(walk.edge_child)
    cyclic = on_cycles(walk, everything)
    if not cyclic.any():
        return []
    findings: list[Finding] = []
    names = walk.game.player_names
    forcing = [p for p in (0, 1) if can_force_endless(walk, p)[0]]
    who = (
        " and ".join(names[p] for p in forcing) + " can force it never to end from the start"
        if forcing
        else "neither player can force it never to end from the start"
    )
    example = cycle_from_start(walk, everything)
    if example is not None:
        findings.append(
            Finding(
                "endless-play",
                f"{int(cyclic.sum()):,} of {walk.nodes:,} positions lie on cycles: play can "
                f"return to an earlier position, so only the repetition rule ends it; {who} "
                "(repetition rule aside). The example returns to a position it passed.",
                example,
                {"positions_on_cycles": int(cyclic.sum()), "forced_by": forcing},
            )
        )
    optimal = _optimal_edges(walk)
    # Only a drawn position can be gone round for ever with best play: a player who is ahead
    # must make progress, since going round ends in a draw by repetition.
    drawn = [keep and walk.value[walk.edge_child[e]] == 0 for e, keep in enumerate(optimal)]
    example = cycle_from_start(walk, optimal, drawn)
    if example is not None:
        findings.append(
            Finding(
                "optimal-cycle",
                "Perfect play by both can go round a cycle: every move of the example keeps "
                "the solved value, and it returns to a position it passed, so with best play "
                "the game is decided by the repetition rule rather than by its goal.",
                example,
                {},
            )
        )
    return findings


def _optimal_edges(walk: Walk) -> list[bool]:
    """Per edge, whether it keeps the solved value (every chance edge does)."""
    keep = [True] * len(walk.edge_child)
    for node in range(walk.nodes):
        player = walk.to_move[node]
        if player < 0:
            continue
        for e in walk.edges(node):
            keep[e] = walk.value[walk.edge_child[e]] == walk.value[node]
    return keep


def _never_optimal(walk: Walk) -> list[Finding]:
    legal: dict[str, int] = {}
    best_somewhere: set[str] = set()
    worst: dict[str, tuple[Fraction, int, int]] = {}  # label -> (cost, depth, node)
    for node in range(walk.nodes):
        player = walk.to_move[node]
        if player < 0 or walk.edge_start[node + 1] - walk.edge_start[node] < 2:
            continue
        sign = 1 if player == 0 else -1
        values = {e: sign * walk.value[walk.edge_child[e]] for e in walk.edges(node)}
        best = max(values.values())
        for e, v in values.items():
            label = walk.edge_label[e]
            legal[label] = legal.get(label, 0) + 1
            if v == best:
                best_somewhere.add(label)
            else:
                cost = best - v
                known = worst.get(label)
                if known is None or (cost, -walk.depth[node]) > (known[0], -known[1]):
                    worst[label] = (cost, walk.depth[node], node)
    findings = []
    for label in sorted(set(legal) - best_somewhere, key=lambda x: (-legal[x], x)):
        cost, _, node = worst[label]
        findings.append(
            Finding(
                "never-optimal",
                f"The choice {label!r} is legal in {legal[label]:,} positions with a choice "
                "but never among the best moves. The example ends with it where it costs "
                f"the most ({float(cost):.4f} of expected result).",
                [*walk.line(node), label],
                {"choice": label, "positions": legal[label], "largest_cost": round(float(cost), 6)},
            )
        )
    return findings


def _variants(game: Game) -> list[tuple[str, object]]:
    """Every other value of each choice option that the solvers still finish here (every one
    when the audited game itself is not listed as solved: the caller asked for exhaustive)."""
    listed = catalog.is_solved(game)
    found: list[tuple[str, object]] = []
    for option in type(game).option_spec:
        for choice in option.choices or ():
            if choice == game.options[option.name]:
                continue
            try:
                variant = type(game)({**game.options, option.name: choice})
            except FlipgamesError:
                continue
            if catalog.is_solved(variant) or not listed:
                found.append((option.name, choice))
    return found


def _option_flips(game: Game, walk: Walk, progress: Progress) -> list[Finding]:
    base = walk.solution.value(walk.root, 0)
    findings = []
    for name, choice in _variants(game):
        variant = type(game)({**game.options, name: choice})
        progress(f"audit: solving {name}={choice}")
        solution = catalog.solve(variant, progress)
        value = solution.value(variant.new_initial_state(), 0)
        if value.expected == base.expected:
            continue
        flipped = (value.expected > 0) != (base.expected > 0) or (value.expected < 0) != (
            base.expected < 0
        )
        how = "flips" if flipped else "changes"
        findings.append(
            Finding(
                "option-flip",
                f"Option {name}={choice} {how} the solved value: the first player's expected "
                f"result goes from {float(base.expected):+.4f} to {float(value.expected):+.4f}.",
                optimal_line(variant, solution),
                {
                    "option": name,
                    "choice": choice,
                    "flips": flipped,
                    **value_details(value.expected, value.win, value.draw, value.loss),
                },
            )
        )
    return findings
