"""Golden playthroughs: each game's seeded random game must match its committed file.

After an intended change of behaviour, regenerate with
``FLIPGAMES_REGENERATE=1 .venv/bin/pytest tests/test_playthroughs.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from flipgames import game_names, make
from flipgames.core.playthrough import playthrough

FOLDER = Path(__file__).with_name("playthroughs")


@pytest.mark.parametrize("name", game_names())
def test_playthrough_matches_the_golden_file(name):
    text = playthrough(make(name), seed=2026, max_steps=40)
    golden = FOLDER / f"{name}.txt"
    if os.environ.get("FLIPGAMES_REGENERATE"):
        FOLDER.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}; run with FLIPGAMES_REGENERATE=1"
    expected = golden.read_text()
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), "golden", "now", n=1
            )
        )
        pytest.fail(f"{name} playthrough changed:\n{diff[:4000]}")
