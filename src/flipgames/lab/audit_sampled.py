"""The sampled audit: seeded random playouts and playouts between two ``easy`` agents, for
games the solvers do not finish here."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from flipgames.agents.arena import wilson_interval
from flipgames.agents.levels import make_level_agent
from flipgames.core.ending import Termination
from flipgames.core.game import Game, sample_chance
from flipgames.core.progress import Progress
from flipgames.lab.audit_findings import Finding


@dataclass
class _Sample:
    kind: str
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    capped: int = 0
    repeated: int = 0
    stuck: int = 0
    plies: int = 0
    repeat_example: list[str] | None = None
    stuck_example: list[str] | None = None
    stuck_how: set[str] = field(default_factory=set)
    first_game: list[str] = field(default_factory=list)


def _play(game: Game, sample: _Sample, agents: list[Any] | None, rng: random.Random) -> None:
    state = game.new_initial_state()
    seen = {state.key(): 0}
    line: list[str] = []
    repeat_at: int | None = None
    while not state.is_terminal() and len(line) < game.max_game_length:
        if state.is_chance_node():
            action = sample_chance(state, rng)
        elif agents is None:
            action = rng.choice(state.legal_actions())
        else:
            action = agents[state.current_player].choose(state)
        line.append(state.action_to_string(action))
        state = state.apply(action)
        if repeat_at is None and not state.is_terminal():
            if state.key() in seen:
                repeat_at = len(line)
            seen[state.key()] = len(line)
    sample.games += 1
    sample.plies += len(line)
    if not sample.first_game:
        sample.first_game = line
    if not state.is_terminal():
        sample.capped += 1
        sample.draws += 1
    else:
        result = state.returns()[0]
        if result > 0:
            sample.wins[0] += 1
        elif result < 0:
            sample.wins[1] += 1
        else:
            sample.draws += 1
        if state.end_reason() == Termination.NO_LEGAL_MOVE:
            sample.stuck += 1
            sample.stuck_how.add(state.status_text())
            if sample.stuck_example is None:
                sample.stuck_example = line
    if repeat_at is not None:
        sample.repeated += 1
        if sample.repeat_example is None:
            sample.repeat_example = line[:repeat_at]


def sampled(
    game: Game, seed: int, random_games: int, level_games: int, progress: Progress
) -> list[Finding]:
    """Every finding of a sampled audit: ``random_games`` uniformly random playouts and
    ``level_games`` between two ``easy`` agents, seeded by ``seed``."""
    samples = _play_samples(game, seed, random_games, level_games, progress)
    first = game.player_names[0]
    findings = [_advantage(sample, seed, first) for sample in samples if sample.games]
    games = sum(s.games for s in samples)
    stuck = _no_legal_action(samples, games)
    findings += stuck
    findings += _endless_play(game, samples, games)
    findings.append(
        Finding(
            "not-checked",
            f"Sampled, not exhaustive ({games:,} games): no solved value, no check that a "
            "choice is never optimal or that an option flips the value, and a case not seen "
            f"may still occur{'' if stuck else ' (no game ended with no legal action)'}.",
            [],
            {"games": games, "seed": seed},
        )
    )
    return findings


def _play_samples(
    game: Game, seed: int, random_games: int, level_games: int, progress: Progress
) -> list[_Sample]:
    """The random playouts, then the easy-vs-easy ones, each game seeded on its own."""
    samples = [_Sample("random"), _Sample("easy")]
    total = random_games + level_games
    done = 0
    for index in range(random_games):
        _play(game, samples[0], None, random.Random(f"{seed}:random:{index}"))
        done += 1
        progress("audit: sampling games", done=done, total=total)
    for index in range(level_games):
        rng = random.Random(f"{seed}:easy:{index}")
        agents = [
            make_level_agent(game, "easy", random.Random(f"{seed}:easy:{index}:{p}"))
            for p in (0, 1)
        ]
        _play(game, samples[1], agents, rng)
        done += 1
        progress("audit: sampling games", done=done, total=total)
    return samples


def _advantage(sample: _Sample, seed: int, first: str) -> Finding:
    rate = sample.wins[0] / sample.games
    low, high = wilson_interval(rate, sample.games)
    return Finding(
        "first-player-advantage",
        f"In {sample.games:,} {sample.kind} vs {sample.kind} games (seed {seed}), "
        f"{first} won {sample.wins[0]:,} ({rate * 100:.1f}%, 95% interval "
        f"{low * 100:.1f}-{high * 100:.1f}%), lost {sample.wins[1]:,}, drew "
        f"{sample.draws:,}; {sample.plies / sample.games:.1f} plies on average.",
        sample.first_game,
        {
            "playouts": sample.kind,
            "games": sample.games,
            "first_wins": sample.wins[0],
            "second_wins": sample.wins[1],
            "draws": sample.draws,
            "first_win_rate": round(rate, 6),
            "first_win_ci": [round(low, 6), round(high, 6)],
            "mean_length": round(sample.plies / sample.games, 2),
            "capped": sample.capped,
        },
    )


def _no_legal_action(samples: list[_Sample], games: int) -> list[Finding]:
    stuck = [s for s in samples if s.stuck_example is not None]
    if not stuck:
        return []
    how = sorted(set().union(*(s.stuck_how for s in stuck)))
    count = sum(s.stuck for s in samples)
    example = stuck[0].stuck_example
    assert example is not None
    return [
        Finding(
            "no-legal-action",
            f"{count:,} of {games:,} sampled games ended with the player to move having no "
            f"legal action; the rules resolve it as: {'; '.join(how[:3])}",
            example,
            {"games": count, "resolutions": how[:10]},
        )
    ]


def _endless_play(game: Game, samples: list[_Sample], games: int) -> list[Finding]:
    repeats = [s for s in samples if s.repeat_example is not None]
    if not repeats:
        return []
    count = sum(s.repeated for s in samples)
    example = repeats[0].repeat_example
    assert example is not None
    capped = sum(s.capped for s in samples)
    return [
        Finding(
            "endless-play",
            f"{count:,} of {games:,} sampled games returned to an earlier position (only the "
            f"repetition rule ends such play); {capped:,} hit the "
            f"{game.max_game_length}-ply cap. The example returns to a position it passed.",
            example,
            {"games": count, "capped": capped},
        )
    ]
