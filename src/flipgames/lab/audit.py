"""``flipgames audit``: what a game designer should know about a rule set, with examples.

An audit is **exhaustive** where an exact solver finishes the game here (the manifest lists
the option set as solved: FlipFlop 3x3, one round of the 3x3 Flip Switch, Checkered Flag):
every reachable position is walked once (folded over the game's symmetries where its compiled
kernel folds them) and solved. Otherwise it is **sampled**: seeded uniformly random playouts
and playouts between two ``easy`` agents, and it says so, with the sample sizes.

Every finding carries a concrete example: a list of actions in the game's notation from the
start (chance outcomes included), which ``flipgames replay`` or
:meth:`~flipgames.core.game.Game.state_from_actions` replays. Finding kinds:

``solved-value``
    the value of the start under perfect play (win/draw/loss chances of the first player, the
    first-player advantage); the example is a line of optimal play.
``first-player-advantage``
    (sampled) the first player's win rate with a 95% Wilson interval, per kind of playout.
``no-legal-action``
    positions where the player to move has no legal action, and how the rules resolve them
    (the game's own words); the example ends in such a position.
``dead-clause``
    a rule clause that never changes any reachable outcome: here the clause for a player
    with no legal action, when no reachable position has none (the example reaches a position
    with the fewest legal actions there are).
``endless-play``
    play that returns to an earlier position, so only the repetition rule ends the game;
    which player (if any) can force it never to end; the example returns to a position.
``optimal-cycle``
    perfect play by both can go round a cycle (the value is kept on every move); the example
    is a line of optimal play that returns to a position.
``never-optimal``
    a choice (an action's notation, e.g. a gear) that is legal somewhere but never among the
    best moves anywhere; the example ends with that choice where it costs the most.
``option-flip``
    another value of a rule option changes the solved value (the example is optimal play
    under that option).
``candidate-fix``
    for a hole found in the standard game, a rule option that could close it, with its solved
    value, game length and first-player advantage, and a recommendation (see
    :func:`candidate_fixes`).
``not-checked``
    (sampled) what a sample cannot establish.

Why a game ended is read as data (:meth:`~flipgames.core.game.State.end_reason`, a
:class:`~flipgames.core.ending.Termination`): the walk tells finished positions apart by their
key, that reason and their result (:meth:`~flipgames.core.game.State.returns`), never by
words; the game's own words for an ending (:meth:`~flipgames.core.game.State.status_text`)
are only what the findings quote.

The work is split by kind: :mod:`.audit_walk` (the graph of every position),
:mod:`.audit_exhaustive`, :mod:`.audit_sampled` and :mod:`.audit_fixes`; this module is the
entry point and the text of the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flipgames.core.errors import quote
from flipgames.core.game import Game
from flipgames.core.manifest import has_manifest, manifest_of
from flipgames.core.progress import Progress, silent
from flipgames.lab.audit_exhaustive import exhaustive
from flipgames.lab.audit_findings import AuditError, Finding
from flipgames.lab.audit_fixes import fix_row
from flipgames.lab.audit_sampled import sampled
from flipgames.solvers import catalog

__all__ = ["Audit", "AuditError", "Finding", "audit", "candidate_fixes", "describe", "fix_row"]

#: Sample sizes of a sampled audit: uniformly random playouts, and playouts of easy vs easy.
RANDOM_GAMES = 400
LEVEL_GAMES = 20

#: The most positions an exhaustive audit walks (a forced ``--method exhaustive`` on a game
#: too large stops there with a clear error rather than filling the memory).
MAX_POSITIONS = catalog.DEFAULT_MAX_POSITIONS


def candidate_fixes(game: Game) -> Mapping[str, tuple[Mapping[str, object], ...]]:
    """Candidate fixes of ``game`` per hole a finding kind reports in the standard game: rule
    option sets from its manifest (docs/lab/<game>.md explains each), compared by solving
    them; none for a game without a manifest."""
    return manifest_of(game).candidate_fixes if has_manifest(game) else {}


@dataclass(frozen=True)
class Audit:
    """The findings of one audit, and whether they cover every position."""

    game: Game
    method: str
    findings: list[Finding]

    def to_json(self) -> dict[str, Any]:
        """``{"game", "options", "method", "findings"}`` (the JSON of ``audit --json``)."""
        return {
            "game": self.game.name,
            "options": dict(self.game.options),
            "method": self.method,
            "findings": [f.to_json() for f in self.findings],
        }


def audit(
    game: Game,
    *,
    method: str = "auto",
    seed: int = 1,
    random_games: int = RANDOM_GAMES,
    level_games: int = LEVEL_GAMES,
    fixes: bool = False,
    progress: Progress = silent,
) -> Audit:
    """Audit ``game``: ``method`` ``"auto"`` (exhaustive where the game is solved here, else
    sampled), ``"exhaustive"`` or ``"sampled"``. ``fixes`` also solves the candidate fixes of
    the holes found (:func:`candidate_fixes`), which takes minutes for Flip Switch."""
    if method not in ("auto", "exhaustive", "sampled"):
        raise AuditError(f"method must be auto, exhaustive or sampled, not {quote(method)}")
    if game.num_players != 2:
        raise AuditError(f"the audit studies two-player games; {game.name} has {game.num_players}")
    if method == "auto":
        method = "exhaustive" if catalog.is_solved(game) else "sampled"
    if method == "sampled":
        return Audit(game, method, sampled(game, seed, random_games, level_games, progress))
    findings = exhaustive(game, progress, MAX_POSITIONS)
    if fixes:
        findings += _candidate_fixes(game, findings, progress)
    return Audit(game, method, findings)


def _candidate_fixes(game: Game, findings: list[Finding], progress: Progress) -> list[Finding]:
    table = candidate_fixes(game)
    holes = {f.kind for f in findings} & set(table)
    rows: list[Finding] = []
    for hole in sorted(holes):
        for fix in table[hole]:
            rows.append(fix_row(game, hole, fix, progress))
    return rows


def describe(audit_result: Audit) -> str:
    """The audit as text for a terminal: the method, then each finding and its example."""
    game = audit_result.game
    options = " ".join(f"{k}={v}" for k, v in game.options.items())
    lines = [f"{game.title} ({options}): {audit_result.method} audit"]
    for finding in audit_result.findings:
        lines.append(f"- [{finding.kind}] {finding.summary}")
        if finding.example:
            lines.append(f"    example: {' '.join(finding.example)}")
    rows = [f for f in audit_result.findings if f.kind == "candidate-fix"]
    if rows:
        lines.append("")
        lines.append(_fix_table(rows))
    return "\n".join(lines)


def _fix_table(rows: list[Finding]) -> str:
    head = "| fix | win | draw | loss | advantage | plies | decided | recommendation |"
    out = [head, "|" + " --- |" * 8]
    for row in rows:
        d = row.details
        fix = " ".join(f"{k}={v}" for k, v in d["fix"].items())
        out.append(
            f"| {fix} | {d['win']:.3f} | {d['draw']:.3f} | {d['loss']:.3f} | "
            f"{d['first_player_advantage']:+.3f} | {d['mean_length']:.1f} | "
            f"{d['decided']:.2f} | {d['recommendation']} |"
        )
    return "\n".join(out)
