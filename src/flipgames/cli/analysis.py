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
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State
from flipgames.core.progress import silent
from flipgames.solvers import alphabeta, catalog, policies, stochastic
from flipgames.solvers.retrograde import WORDS, Progress, SolverError


def _say(quiet: bool) -> Progress | None:
    """Progress lines for long solves, on stderr so --json output stays clean."""
    if quiet:
        return None
    return lambda message: print(f"  {message}", file=sys.stderr, flush=True)


def _exact(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


def _proof_progress(message: str, *, done: int | None = None, total: int | None = None) -> None:
    # One line per finished first turn; a terminal also sees the count move.
    if sys.stderr.isatty():
        print(f"\r  {message}: {done}/{total}", end="", file=sys.stderr, flush=True)
    if done == total:
        print(f"\r  {message}: done", file=sys.stderr, flush=True)


def prove_report(game: Game, memory: str | None, quiet: bool) -> dict[str, Any]:
    """Prove ``game``'s value by alpha-beta on its kernel (cached) and describe it."""
    started = time.perf_counter()
    budget = None if memory is None else alphabeta.parse_memory(memory)
    proof = alphabeta.cached_prove(game, budget, silent if quiet else _proof_progress)
    return {
        "game": game.name,
        "options": dict(game.options),
        "solver": "alphabeta",
        "value": WORDS[proof.value],
        "first_turns": {turn: WORDS[value] for turn, value in proof.first_turns.items()},
        "nodes": proof.nodes,
        "symmetries": proof.symmetries,
        "table_bytes": proof.table_bytes,
        "seconds": proof.seconds,
        "wall_seconds": round(time.perf_counter() - started, 3),
    }


def solve_report(game: Game, max_positions: int, quiet: bool) -> dict[str, Any]:
    """Solve ``game`` from the start and describe the result as JSON-able data."""
    started = time.perf_counter()
    root = game.new_initial_state()
    report: dict[str, Any] = {"game": game.name, "options": dict(game.options)}
    if game.deterministic:
        solution = catalog.retrograde_solution(game, _say(quiet), max_positions)
        value, remoteness = solution.value(root)
        report |= {
            "solver": "retrograde",
            "positions": len(solution.values),
            "value": value,
            "remoteness": remoteness,
            "best_actions": [root.action_to_string(a) for a in solution.best_actions(root)],
            "seconds": round(solution.seconds, 3),
        }
    else:
        chance = stochastic.cached_solve(game, _say(quiet))
        win, draw, loss = chance.probabilities(root, player=0)
        best = [] if root.current_player < 0 else chance.best_actions(root)
        report |= {
            "solver": "stochastic",
            "positions": chance.positions,
            "value": {"win": float(win), "draw": float(draw), "loss": float(loss)},
            "exact": {"win": _exact(win), "draw": _exact(draw), "loss": _exact(loss)},
            "expected_return": _exact(chance.value(root, player=0)),
            "remoteness": None,
            "best_actions": [root.action_to_string(a) for a in best],
            "seconds": round(chance.seconds, 3),
        }
    # "seconds" is the solve itself (also when read from the cache); this is the call's time.
    report["wall_seconds"] = round(time.perf_counter() - started, 3)
    return report


def policy_table(game: Game, quiet: bool) -> list[dict[str, Any]]:
    """Exact results of the simple fixed gear policies against each other and optimal play."""
    rows = []
    choices: list[policies.GearUpTo | None] = [*policies.GEAR_POLICIES, None]
    for first in choices:
        for second in choices:
            if first is None and second is None:
                continue
            result = policies.evaluate_policy(game, first, second, _say(quiet))
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


def cmd_solve(args: argparse.Namespace, game: Game) -> int:
    if game.deterministic and not catalog.is_solved(game) and alphabeta.is_provable(game):
        proof = prove_report(game, args.memory, args.quiet or args.json)
        if args.json:
            print(json.dumps(proof))
        else:
            _print_proof(game, proof)
        return 0
    try:
        report = solve_report(game, args.max_positions, args.quiet or args.json)
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
        report["policies"] = policy_table(game, args.quiet or args.json)
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
        value = report["value"]
        print(
            f"  {names[0]} wins {value['win'] * 100:.2f}% ({exact['win']}), draws "
            f"{value['draw'] * 100:.2f}% ({exact['draw']}), loses {value['loss'] * 100:.2f}% "
            f"({exact['loss']}) with perfect play by both"
        )
        print(f"  expected return for {names[0]}: {report['expected_return']}")
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


def analyze_rows(state: State, depth: int, seed: int) -> tuple[str, list[dict[str, Any]]]:
    """Per legal action of ``state``: exact values where solved, else a search score and line."""
    game = state.game
    if state.is_terminal():
        raise FlipgamesError(f"the game is over ({state.result()}): nothing to analyse")
    if state.is_chance_node():
        return "chance", [
            {"action": state.action_to_string(a), "probability": _exact(p)}
            for a, p in state.chance_outcomes()
        ]
    if catalog.is_solved(game):
        # The terminal may wait for a first solve (it prints progress); the disk cache makes
        # every later call quick.
        solved = catalog.solution(game, _say(quiet=False))
        if isinstance(solved, stochastic.StochasticSolution):
            rows = []
            for action, value in solved.action_values(state).items():
                child = state.apply(action)
                win, draw, loss = solved.probabilities(child, player=state.current_player)
                rows.append(
                    {
                        "action": state.action_to_string(action),
                        "value": float(value),
                        "exact": _exact(value),
                        "win": float(win),
                        "draw": float(draw),
                        "loss": float(loss),
                    }
                )
            return "exact", sorted(rows, key=lambda r: -r["value"])
        rows = [
            {"action": state.action_to_string(a), "value": WORDS[v], "remoteness": rem}
            for a, (v, rem) in solved.action_values(state).items()
        ]
        order = {"win": 0, "draw": 1, "loss": 2}
        return "exact", sorted(
            rows,
            key=lambda r: (
                order[r["value"]],
                r["remoteness"] if r["value"] == "win" else -(r["remoteness"] or 0),
            ),
        )
    agent = AlphaBetaAgent(random.Random(seed), depth=depth, exact_scores=True)
    result = agent.search(state)
    rows = [
        {
            "action": state.action_to_string(a),
            "score": round(score, 2),
            "pv": _notation(state, [a, *agent.principal_variation(state.apply(a))]),
        }
        for a, score in result.scores.items()
    ]
    return f"alpha-beta depth {result.depth}", sorted(rows, key=lambda r: -r["score"])


def _notation(state: State, line: list[int]) -> list[str]:
    """A line of action ids in notation, each printed in the state it is played in."""
    texts = []
    for action in line:
        texts.append(state.action_to_string(action))
        state = state.apply(action)
    return texts


def cmd_analyze(args: argparse.Namespace, state: State) -> int:
    kind, rows = analyze_rows(state, args.depth, args.seed)
    game = state.game
    if args.json:
        print(
            json.dumps(
                {
                    "game": game.name,
                    "options": game.options,
                    "moves": state.history_notation(),
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
