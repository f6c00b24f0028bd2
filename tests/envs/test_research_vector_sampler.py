"""docs/research.md's vectorised example samples only legal actions (issue 24, item 23).

Its first sampler weighted illegal actions by 1e-3 rather than 0 and so picked one now and
then (2 in 3,015 FlipFlop 3x3 episodes, 9 in 3,013 Checkered Flag ones), each ending an
episode as an illegal-action loss. This runs the page's own code, on the page's game and on
Checkered Flag, and checks every action it chose against the mask it was chosen from.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import flipgames.envs.vector as vector

PAGE = Path(__file__).resolve().parents[2] / "docs" / "research.md"
(EXAMPLE,) = [
    code
    for code in re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)
    if "flipgames.envs.vector" in code and "outcomes" in code  # not the self-play example
]


class Checked:
    """The example's batch, checking each step's actions against the last masks."""

    def __init__(self, envs: Any) -> None:
        self.envs = envs
        self.checked = 0
        self.illegal = 0

    def reset(self, **kwargs: Any) -> Any:
        self.observations, infos = self.envs.reset(**kwargs)
        return self.observations, infos

    def step(self, actions: Any) -> Any:
        mask = self.observations["action_mask"]
        playing = mask.any(axis=1)  # a finished game's row is all zeros: its action is ignored
        chosen = mask[np.arange(len(mask)), np.asarray(actions)]
        self.checked += int(playing.sum())
        self.illegal += int((playing & (chosen == 0)).sum())
        self.observations, *rest = self.envs.step(actions)
        return (self.observations, *rest)


@pytest.mark.parametrize("game", ["flipflop-3x3", "checkered-flag"])
def test_the_example_chooses_only_legal_actions(game, monkeypatch, capsys):
    assert '"flipflop-3x3"' in EXAMPLE
    batches: list[Checked] = []
    original = vector.make

    def make(*args: Any, **kwargs: Any) -> Checked:
        batches.append(Checked(original(*args, **kwargs)))
        return batches[-1]

    monkeypatch.setattr(vector, "make", make)
    namespace: dict[str, object] = {"__name__": "research_vector_example"}
    exec(compile(EXAMPLE.replace('"flipflop-3x3"', f'"{game}"'), "example", "exec"), namespace)
    assert "games: White wins" in capsys.readouterr().out
    (batch,) = batches
    assert batch.checked > 50_000  # 10,000 games' worth of choices
    assert batch.illegal == 0
