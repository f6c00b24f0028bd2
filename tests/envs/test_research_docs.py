"""docs/research.md: every Python example on the page runs, and does what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "research.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)


def test_the_page_has_an_example_per_api():
    text = "\n".join(EXAMPLES)
    apis = (
        "observation_tensor",
        "gymnasium.make",
        "pettingzoo",
        "pyspiel",
        "engine",
        "envs.vector",
        "envs.sb3",
        "opponent=opponent",
        "sample_legal",
        "ground_truth",
        'illegal="lose"',
        "multiprocessing",
    )
    for api in apis:
        assert api in text, api


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_runs(index, capsys):
    # Run as a script is (an example guards its process pool with ``__name__``); the pool's
    # spawned interpreters import pytest's main module, never this namespace.
    namespace: dict[str, object] = {"__name__": "__main__"}
    exec(compile(EXAMPLES[index], f"{PAGE.name} example {index + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert out.strip()
    if "win_rate" in namespace:
        # The page says about 86% against a random player's 50%.
        assert namespace["win_rate"] >= 0.75
    if "final" in namespace:
        assert sorted(namespace["final"].values()) == [-1.0, 1.0]  # type: ignore[attr-defined]
    if "outcomes" in namespace:
        # The vectorised example plays at least the games it asks for, each won, drawn or lost.
        outcomes = namespace["outcomes"]
        assert len(outcomes) >= 10_000 and set(outcomes) <= {-1.0, 0.0, 1.0}  # type: ignore[arg-type]
    if "ppo_win_rate" in namespace:
        # The page says 92% after 4,096 steps, where a random player wins about half.
        assert namespace["ppo_win_rate"] >= 0.8
    if "selfplay" in namespace:
        # The self-play example's policy was called (once per step, for all 8 games at once)
        # by the compiled batch, as the page says.
        selfplay, calls = namespace["selfplay"], namespace["calls"]
        assert len(selfplay) >= 50 and set(selfplay) <= {-1.0, 0.0, 1.0}  # type: ignore[arg-type]
        assert calls and set(calls) == {(8, 8, 4, 4)}  # type: ignore[arg-type]
        assert type(namespace["envs"]).__name__ == "FlipgamesVectorEnv"
    if "truth" in namespace:
        # FlipFlop 3x3 has no drawn position: every value is a win or a loss, with a best move.
        truth = namespace["truth"]
        assert set(truth.value.tolist()) <= {-1.0, 1.0} and truth.best.any(axis=1).all()  # type: ignore[attr-defined]
    if "forfeit" in namespace:
        # The illegal action lost White the game and won it for Black, flagged for White only.
        assert namespace["forfeit"] == {"player_0": (-1.0, True), "player_1": (1.0, False)}
    if "pooled" in namespace:
        # Both workers loaded the pickled game and passed OpenSpiel's random simulation test
        # (it raises on any failure); the pickled state came back with its history.
        assert namespace["checks"] == [None, None] and namespace["pooled"] == [
            namespace["state"].history()  # type: ignore[attr-defined]
        ]
    if "engine" in namespace:
        assert out.startswith("bestmove ")
