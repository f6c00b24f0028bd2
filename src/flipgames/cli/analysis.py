"""``flipgames solve`` and ``flipgames analyze``: exact values where solved, search elsewhere."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from fractions import Fraction
from typing import Any

from flipgames.agents.search import AlphaBetaAgent
from flipgames.cli import prove
from flipgames.cli.estimates import check_budget, check_search, solve_cost
from flipgames.cli.progress import TerminalProgress
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State
from flipgames.core.manifest import has_manifest, manifest_of
from flipgames.core.position import has_position_notation
from flipgames.core.progress import Progress
from flipgames.solvers import alphabeta, catalog
from flipgames.solvers.solution import SolverError

#: ``analyze --depth`` when none is given (games without an exact solution).
DEFAULT_DEPTH = 6


def _note(quiet: bool, text: str) -> None:
    """A remark on stderr, so --json output stays clean (none with --json or --quiet)."""
    if not quiet:
        print(text, file=sys.stderr, flush=True)


def _one_round_note(game: Game, quiet: bool) -> None:
    """Say so when a match game is studied as its single round (see ``main._game``)."""
    defaults = {o.name: o.default for o in game.option_spec}
    if game.options.get("rounds") == 1 and defaults.get("rounds", 1) != 1:
        _note(quiet, f"{game.title}: one round (rounds=1), the game the solver studies")


def _warn_first_solve(game: Game) -> None:
    """Before a long first solve, say on stderr what it costs (it is cached afterwards).
    Always, --json and --quiet included: minutes and gigabytes should never come unannounced."""
    cost = solve_cost(game)
    if cost is not None and not catalog.solution_ready(game):
        print(f"first exact solve of {game.name}: {cost}", file=sys.stderr, flush=True)


def _exact(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


def _short_fraction(value: Fraction) -> str:
    """`` (n/d)`` when ``value`` is a short fraction, `` (≈ n/d)`` with a near one of at most
    three-digit denominator when it is not, or nothing for a whole number: the terminal's
    companion to a percentage (the exact fraction, 50 digits long, is in ``--json``).

    >>> _short_fraction(Fraction(1, 2)), _short_fraction(Fraction(99, 140))
    (' (1/2)', ' (99/140)')
    >>> _short_fraction(Fraction(8005045104027818393, 14740220052353657390))
    ' (≈ 498/917)'
    >>> _short_fraction(Fraction(0)), _short_fraction(Fraction(1, 10**40))
    ('', '')
    """
    if value.denominator == 1:
        return ""
    if value.denominator <= 10_000:
        return f" ({value.numerator}/{value.denominator})"
    near = value.limit_denominator(1000)
    return f" (≈ {near.numerator}/{near.denominator})" if near.denominator != 1 else ""


def _share(exact: str) -> str:
    """A probability (an exact ``"n/d"``) as a percentage with a short fraction."""
    value = Fraction(exact)
    return f"{float(value) * 100:.2f}%{_short_fraction(value)}"


#: A proof's values (+1, 0, -1 for the player to move) in words.
_WORDS = {1: "win", 0: "draw", -1: "loss"}


def prove_report(game: Game, memory: str | None, progress: Progress) -> dict[str, Any]:
    """Prove ``game``'s value by alpha-beta on its kernel (cached) and describe it."""
    started = time.perf_counter()
    budget = None if memory is None else alphabeta.parse_memory(memory)
    proof = alphabeta.cached_prove(game, budget, progress)
    return {
        "game": game.name,
        "options": dict(game.options),
        "solver": "alphabeta",
        "value": _WORDS[proof.value],
        "first_turns": {turn: _WORDS[value] for turn, value in proof.first_turns.items()},
        "nodes": proof.nodes,
        "symmetries": proof.symmetries,
        "table_bytes": proof.table_bytes,
        "seconds": proof.seconds,
        "wall_seconds": round(time.perf_counter() - started, 3),
    }


def solve_report(game: Game, max_positions: int, progress: Progress) -> dict[str, Any]:
    """Solve ``game`` from the start and describe the result as JSON-able data."""
    started = time.perf_counter()
    root = game.new_initial_state()
    report: dict[str, Any] = {"game": game.name, "options": dict(game.options)}
    solution = catalog.solve(game, progress, max_positions)
    value = solution.value(root, player=0)
    best = [] if root.current_player < 0 else solution.best_actions(root)
    report |= {
        "solver": "retrograde" if game.deterministic else "stochastic",
        "positions": solution.positions,
        "best_actions": [root.action_to_string(a) for a in best],
        "seconds": round(solution.seconds, 3),
    }
    if game.deterministic:
        report |= {"value": value.outcome, "remoteness": value.remoteness}
    else:
        win, draw, loss = value.win, value.draw, value.loss
        report |= {
            "value": {"win": float(win), "draw": float(draw), "loss": float(loss)},
            "exact": {"win": _exact(win), "draw": _exact(draw), "loss": _exact(loss)},
            "expected_return": _exact(value.expected),
            "remoteness": None,
        }
    # "seconds" is the solve itself (also when read from the cache); this is the call's time.
    report["wall_seconds"] = round(time.perf_counter() - started, 3)
    return report


def policy_table(game: Game, progress: Progress) -> list[dict[str, Any]]:
    """Exact results of the simple fixed gear policies against each other and optimal play.

    ``progress`` gets one report per pair evaluated (each pair is a solve of its own).
    """
    from flipgames.solvers import policies  # numpy and the solver: only when asked

    rows = []
    choices: list[policies.GearUpTo | None] = [*policies.GEAR_POLICIES, None]
    pairs = [(a, b) for a in choices for b in choices if a is not None or b is not None]
    for done, (first, second) in enumerate(pairs):
        names = [p.name if p is not None else "optimal" for p in (first, second)]
        progress(f"policies: {names[0]} vs {names[1]}", done=done, total=len(pairs))
        result = policies.evaluate_policy(game, first, second)
        rows.append(
            {
                "first": result.players[0],
                "second": result.players[1],
                "first_wins": float(result.win),
                "draw": float(result.draw),
                "second_wins": float(result.loss),
                "exact_first_wins": _exact(result.win),
            }
        )
    progress("policies evaluated", done=len(pairs), total=len(pairs))
    return rows


def _print_proof(game: Game, report: dict[str, Any]) -> None:
    print(" ".join([game.title, *(f"{k}={v}" for k, v in game.options.items())]))
    verdict = {"win": "wins", "loss": "loses", "draw": "draws"}[report["value"]]
    print(f"  {game.player_names[0]}, to move first, {verdict} with perfect play")
    for word, verb in (("win", "win"), ("draw", "draw"), ("loss", "lose")):
        turns = [turn for turn, value in report["first_turns"].items() if value == word]
        if turns:
            print(f"  first turns that {verb} ({len(turns)}): {' '.join(turns)}")
    print(
        f"  {report['nodes']:,} nodes ({report['symmetries']} symmetries folded, "
        f"{report['table_bytes'] / 2**30:g} GiB table), solved in {report['seconds']:.1f} s"
    )


def _check_solvable(game: Game) -> None:
    """Refuse at once (:class:`SolverError`) a game of which no option set is solved here and
    that no proof search takes: FlipFlop 5x5 and FlipFour would run their budget out after a
    minute and gigabytes, and only then say so."""
    solvable = has_manifest(game) and bool(manifest_of(game).solved)
    if not solvable and not alphabeta.is_provable(game):
        raise SolverError(
            f"{game.name} cannot be solved here: no exact solver finishes it on this machine "
            f"(docs/solvers.md); 'flipgames analyze {game.name} --depth N' searches it instead, "
            "and --max-positions N tries a solve anyway, stopping after N positions"
        )


def cmd_solve(args: argparse.Namespace, game: Game) -> int:
    if prove.wants_proof_search(args, game):  # FlipFour: df-pn, not enumeration
        return prove.cmd_prove(args, game)
    quiet = args.quiet or args.json
    budget = args.max_positions or catalog.DEFAULT_MAX_POSITIONS
    if game.deterministic:
        check_budget(budget, args.force)
    _one_round_note(game, quiet)
    _warn_first_solve(game)
    if game.deterministic and not catalog.is_solved(game) and alphabeta.is_provable(game):
        with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
            proof = prove_report(game, args.memory, progress)
        if args.json:
            print(json.dumps(proof))
        else:
            _print_proof(game, proof)
        return 0
    try:
        if args.max_positions is None:  # no budget of the user's: only what finishes here
            _check_solvable(game)
        with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
            report = solve_report(game, budget, progress)
    except SolverError as exc:
        if args.json:
            print(
                json.dumps(
                    {
                        "game": game.name,
                        "options": game.options,
                        "solved": False,
                        "reason": str(exc),
                    }
                )
            )
            return 1
        raise
    if args.policies:
        with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
            report["policies"] = policy_table(game, progress)
    if args.json:
        print(json.dumps(report))
        return 0
    names = game.player_names
    print(" ".join([game.title, *(f"{k}={v}" for k, v in game.options.items())]))
    if report["solver"] == "retrograde":
        value, rem = report["value"], report["remoteness"]
        ending = f" in {rem} plies" if rem is not None else ""
        verdict = {"win": "wins", "loss": "loses", "draw": "draws"}[value]
        print(f"  {names[0]}, to move first, {verdict}{ending} with perfect play")
    else:
        exact = report["exact"]
        print(
            f"  {names[0]} wins {_share(exact['win'])}, draws {_share(exact['draw'])}, loses "
            f"{_share(exact['loss'])} with perfect play by both"
        )
        expected = Fraction(report["expected_return"])
        shown = f"{float(expected):+.4f}{_short_fraction(expected)}" if expected else "0"
        print(f"  expected return for {names[0]}: {shown}")
        values = (*exact.values(), report["expected_return"])
        if any("≈" in _short_fraction(Fraction(v)) for v in values):
            print("  (≈: a near fraction; --json gives the exact ones)")
    if report["best_actions"]:
        print(f"  best first actions: {' '.join(report['best_actions'])}")
    print(f"  {report['positions']:,} positions, solved in {report['seconds']:.1f} s")
    if "policies" in report:
        print(
            f"\n  {'first player':<14} {'second player':<14} {'first wins':>11} {'second wins':>12}"
        )
        for row in report["policies"]:
            print(
                f"  {row['first']:<14} {row['second']:<14} {row['first_wins'] * 100:>10.2f}% "
                f"{row['second_wins'] * 100:>11.2f}%"
            )
    return 0


def analyze_rows(
    state: State,
    depth: int | None,
    seed: int,
    progress: TerminalProgress,
    force: bool = False,
) -> tuple[str, list[dict[str, Any]]]:
    """Per legal action of ``state``: exact values where solved (unless a ``depth`` is asked
    for), else a search score and line. A search estimated to take too long is refused unless
    ``force`` (:func:`flipgames.cli.estimates.check_search`)."""
    game = state.game
    if state.is_terminal():
        raise FlipgamesError(f"the game is over ({state.result()}): nothing to analyse")
    if state.is_chance_node():
        return "chance", [
            {"action": state.action_to_string(a), "probability": _exact(p)}
            for a, p in state.chance_outcomes()
        ]
    if catalog.is_solved(game) and depth is None:
        # The terminal may wait for a first solve (announced, with progress); the disk cache
        # makes every later call quick.
        with progress.thinking(f"loading the solution of {game.name}"):
            solved = catalog.solution(game, progress)
        values = solved.action_values(state)
        rows: list[dict[str, Any]]
        if game.deterministic:
            order = {"win": 0, "draw": 1, "loss": 2}
            rows = [
                {
                    "action": state.action_to_string(a),
                    "value": v.outcome,
                    "remoteness": v.remoteness,
                }
                for a, v in values.items()
            ]
            return "exact", sorted(
                rows,
                key=lambda r: (
                    order[r["value"]],
                    r["remoteness"] if r["value"] == "win" else -(r["remoteness"] or 0),
                ),
            )
        rows = [
            {
                "action": state.action_to_string(a),
                "value": float(v),
                "exact": _exact(v.expected),
                "win": float(v.win),
                "draw": float(v.draw),
                "loss": float(v.loss),
            }
            for a, v in values.items()
        ]
        return "exact", sorted(rows, key=lambda r: -r["value"])
    depth = DEFAULT_DEPTH if depth is None else depth
    estimate = check_search(state, depth, seed, force)
    if estimate is not None:
        progress(f"searching to depth {depth}: {estimate.words()}")
    agent = AlphaBetaAgent(random.Random(seed), depth=depth, exact_scores=True)
    with progress.thinking(f"searching to depth {depth}"):
        result = agent.search(state)
    searched: list[dict[str, Any]] = [
        {
            "action": state.action_to_string(a),
            "score": round(score, 2),
            "pv": _notation(state, [a, *agent.principal_variation(state.apply(a))]),
        }
        for a, score in result.scores.items()
    ]
    return f"alpha-beta depth {result.depth}", sorted(searched, key=lambda r: -r["score"])


def _notation(state: State, line: list[int]) -> list[str]:
    """A line of action ids in notation, each printed in the state it is played in."""
    texts = []
    for action in line:
        texts.append(state.action_to_string(action))
        state = state.apply(action)
    return texts


def cmd_analyze(args: argparse.Namespace, state: State) -> int:
    game = state.game
    _one_round_note(game, args.json)
    if args.depth is None and catalog.is_solved(game) and state.current_player >= 0:
        _warn_first_solve(game)
    with TerminalProgress.for_command(json=args.json) as progress:
        kind, rows = analyze_rows(state, args.depth, args.seed, progress, args.force)
    if args.json:
        print(
            json.dumps(
                {
                    "game": game.name,
                    "options": game.options,
                    "moves": state.history_notation(),
                    **({"position": state.position()} if has_position_notation(game) else {}),
                    "kind": kind,
                    "actions": rows,
                }
            )
        )
        return 0
    print(state.render())
    if kind == "chance":
        print("\nchance node: the outcomes and their probabilities")
        for row in rows:
            print(f"  {row['action']:<10} {row['probability']}")
        return 0
    mover = game.player_names[state.current_player]
    print(f"\n{mover} to move; {kind} values for {mover}:")
    for row in rows:
        if "remoteness" in row:
            rem = "" if row["remoteness"] is None else f" in {row['remoteness']}"
            print(f"  {row['action']:<12} {row['value']}{rem}")
        elif "win" in row:
            print(
                f"  {row['action']:<12} {row['value']:+.4f}  (win {row['win'] * 100:.1f}%, "
                f"draw {row['draw'] * 100:.1f}%, loss {row['loss'] * 100:.1f}%)"
            )
        else:
            print(f"  {row['action']:<12} {row['score']:+9.2f}  {' '.join(row['pv'])}")
    return 0
