"""``flipgames solve flipfour`` and ``solve flipflop``: the df-pn proof search with
checkpoints, proofs and Ray.

The search (:mod:`flipgames.solvers.dfpn`) prints a line on stderr after each chunk of nodes
(the root's proof and disproof numbers, nodes, rate, how full the table is) unless
``--quiet`` or ``--json``; ``--checkpoint DIR`` resumes from and saves to DIR;
``--max-time`` stops it (an open question is a result too: it says how far it got);
``--proof FILE`` writes a proven value's proof (a draw's holds both sides' non-losing
strategies) and checks it with the independent checker (:mod:`flipgames.solvers.proof`);
``--check FILE`` only checks a proof file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import Game
from flipgames.core.manifest import is_listed_solved
from flipgames.solvers import alphabeta, dfpn
from flipgames.solvers.proof import check_file

#: Memory of the table when --memory is not given.
DEFAULT_MEMORY = "1G"
#: The options only a df-pn search takes.
PROOF_OPTIONS = (
    "checkpoint", "resume", "proof", "check", "max_time", "max_nodes", "ray", "every", "position"
)  # fmt: skip


def wants_proof_search(args: argparse.Namespace, game: Game) -> bool:
    """True when ``solve`` runs the df-pn search: the game has one, is not solved exactly
    here (FlipFlop 3x3 has a search, for tests, and its exact solution) and no enumeration
    budget (``--max-positions``) was asked for. The df-pn options with another game (or with
    ``--max-positions``) are an error."""
    given = [name for name in PROOF_OPTIONS if getattr(args, name, None) not in (None, False)]
    if args.max_positions is None and dfpn.is_provable(game) and not is_listed_solved(game):
        return True
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise FlipgamesError(
            f"{flags}: only for a df-pn proof search (flipfour, flipflop), without --max-positions"
        )
    return False


def _memory(text: str | None) -> int:
    budget = alphabeta.parse_memory(DEFAULT_MEMORY if text is None else text)
    ram = alphabeta.physical_memory()
    if ram is not None and budget > ram:
        raise FlipgamesError(
            f"--memory {text}: more than this machine's {ram / 2**30:.1f} GiB: lower it"
        )
    return budget


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def cmd_prove(args: argparse.Namespace, game: Game) -> int:
    """Run (or resume) the search, print the result, write and check the proof."""
    if args.check:
        checked = check_file(game, Path(args.check))
        found = {"checked": True, **checked.__dict__}
        print(json.dumps(found) if args.json else _checked_text(game, checked.__dict__))
        return 0
    memory = _memory(args.memory)
    folder = None if args.checkpoint is None else Path(args.checkpoint)
    if args.resume and (folder is None or not (folder / dfpn.STATE_FILE).exists()):
        raise FlipgamesError(
            "--resume needs --checkpoint DIR holding a checkpoint"
            + ("" if folder is None else f" ({quote(str(folder))} has none)")
        )
    say = (lambda line: None) if args.quiet or args.json else _say
    try:
        state = None if args.position is None else game.from_position(args.position)
    except FlipgamesError as exc:
        raise FlipgamesError(f"--position {quote(args.position)}: {exc}") from None
    if args.ray:
        if folder is not None or args.max_nodes is not None:
            raise FlipgamesError("--ray takes --max-time, not --checkpoint or --max-nodes")
        from flipgames.solvers.dfpn_ray import solve_on_ray

        report, lines = solve_on_ray(game, args.ray, memory, args.max_time, say, state)
    else:
        solver = dfpn.Solver(
            game, state, memory=memory, checkpoint=folder,
            every=args.every or dfpn.DEFAULT_EVERY, report=say,
        )  # fmt: skip
        report = solver.solve(max_time=args.max_time, max_nodes=args.max_nodes)
        lines = None
    result: dict[str, Any] = report.to_json()
    if args.proof and report.value is not None:
        path = Path(args.proof)
        if lines is None:
            result["proof_positions"] = dfpn.write_proof(solver, path)
        else:
            result["proof_positions"] = dfpn.write_lines(lines, path)
        result["proof_checked"] = check_file(game, path).value == report.value
    elif args.proof:
        result["proof_positions"] = None
    print(json.dumps(result) if args.json else _text(game, result, args.proof))
    return 0


def _text(game: Game, result: dict[str, Any], proof: str | None) -> str:
    names = game.player_names
    mover = names[0] if result["start"].split()[1] == "w" else names[1]
    value = result["value"]
    lines = [f"{game.title} from {result['start']}"]
    if value is None:
        lines.append("  not decided yet:")
    else:
        verdict = {"win": "wins", "loss": "loses", "draw": "draws"}[value]
        lines.append(f"  {mover}, to move, {verdict} with perfect play")
    for phase in result["phases"]:
        if phase["status"] == "open" and not phase["nodes"]:
            continue  # not asked (yet)
        plies = f", in at most {phase['plies']} plies" if phase["status"] == "proven" else ""
        lines.append(
            f"  {names[phase['attacker']]} forces a win? {phase['status']}{plies} (pn "
            f"{dfpn.number(phase['pn'])}, dn {dfpn.number(phase['dn'])}; {phase['nodes']:,} nodes, "
            f"{phase['seconds']:,.1f} s)"
        )
    if value is None and result["first_moves"]:
        lines.append("  first moves (one per symmetry class):")
        lines += [f"    {move}: {what}" for move, what in result["first_moves"].items()]
    if proof is not None:
        if result.get("proof_positions") is None:
            lines.append(f"  no proof written to {proof}: the value is not proven")
        else:
            lines.append(
                f"  proof: {result['proof_positions']:,} positions in {proof}, checked by the "
                "reference rules"
            )
    used = result["table_used"]
    lines.append(
        f"  {result['nodes']:,} nodes in {result['seconds']:,.1f} s; table "
        f"{result['table_bytes'] / 2**30:.2f} GiB, {used:,} entries used"
    )
    return "\n".join(lines)


def _checked_text(game: Game, checked: dict[str, Any]) -> str:
    return (
        f"{game.title} from {checked['start']}: the proof holds ({checked['value']} for the side "
        f"to move; {checked['used']:,} of {checked['listed']:,} listed positions used)"
    )


def seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds, got {quote(text)}"
        )
    return value


def add_options(parser: argparse.ArgumentParser, count: Any) -> None:
    """The df-pn options of ``solve``."""
    parser.add_argument(
        "--position", metavar="TEXT", help="df-pn: prove from this position, not the start"
    )
    parser.add_argument("--checkpoint", metavar="DIR", help="df-pn: save to and resume from DIR")
    parser.add_argument(
        "--resume", action="store_true", help="df-pn: require a checkpoint in DIR to continue"
    )
    parser.add_argument(
        "--every", type=seconds, metavar="S", help="df-pn: seconds between checkpoints (300)"
    )
    parser.add_argument("--proof", metavar="FILE", help="df-pn: write the proof (JSON lines)")
    parser.add_argument("--check", metavar="FILE", help="check a proof file and stop")
    parser.add_argument("--max-time", type=seconds, metavar="S", help="df-pn: stop after S s")
    parser.add_argument("--max-nodes", type=count, metavar="N", help="df-pn: stop after N nodes")
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="df-pn: spread the first moves over Ray (auto or HOST:PORT)",
    )
