"""Golden playthroughs: a seeded random game written out step by step as text.

A playthrough records, at every state, the player to move, the legal actions in notation (or
the chance outcomes with their exact probabilities), the action taken, the observations and the
returns. Tests compare fresh playthroughs with committed files, so any change of behaviour shows
up as a readable diff.

>>> from flipgames import make
>>> text = playthrough(make("flipflop-3x3"), seed=1, max_steps=2)
>>> text.splitlines()[0]
'game: flipflop-3x3'
"""

from __future__ import annotations

import json
import random

from flipgames.core.game import CHANCE, TERMINAL, Game, sample_chance


def playthrough(game: Game, seed: int, max_steps: int = 400) -> str:
    """The playthrough of one random game (at most ``max_steps`` actions) as text."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    lines = [
        f"game: {game.name}",
        f"options: {json.dumps(game.options, sort_keys=True)}",
        f"seed: {seed}",
    ]
    for step in range(max_steps + 1):
        player = state.current_player
        who = {CHANCE: "chance", TERMINAL: "terminal"}.get(player, str(player))
        lines.append("")
        lines.append(f"step {step}: to move {who}")
        public = json.dumps(state.observation(None), sort_keys=True)
        lines.append(f"  observation: {public}")
        # A player's own view is written only where it differs from a spectator's, which
        # keeps the files small and shows exactly what each player is told.
        for viewer in range(game.num_players):
            view = json.dumps(state.observation(viewer), sort_keys=True)
            if view != public:
                lines.append(f"  observation[{viewer}]: {view}")
        lines.append(f"  returns: {list(state.returns())}")
        if state.is_terminal():
            lines.append(f"  result: {state.result()}")
            break
        if step == max_steps:
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            listed = " ".join(f"{state.action_to_string(a)}={p}" for a, p in outcomes)
            lines.append(f"  chance outcomes: {listed}")
            action = sample_chance(state, rng)
        else:
            legal = state.legal_actions()
            lines.append(f"  legal: {' '.join(state.action_to_string(a) for a in legal)}")
            action = rng.choice(legal)
        lines.append(f"  action: {state.action_to_string(action)} (id {action})")
        state = state.apply(action)
    return "\n".join(lines) + "\n"
