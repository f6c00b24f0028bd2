"""Checkered Flag's new-game dialog says plainly how little room luck leaves between the
levels, and the solution-based ``hard`` plays in the arcade (issue 24, item 7)."""

from __future__ import annotations

import random
from typing import Any

from harness import api
from pages import MY_TURN_OR_OVER, make_a_move, match


def test_the_dialog_says_luck_decides_and_hard_answers_a_gear_clicked_by_mouse(
    page: Any, arcade: str
) -> None:
    page.goto(arcade + "/")
    page.click(".game-card[data-game='checkered-flag'] button.play")
    pitch = page.locator("#new-game-pitch").inner_text()
    assert "Luck decides most races" in pitch and "57 in 100 against medium" in pitch
    page.check("input[name=mode][value=ai]")
    page.select_option("[name='level']", "hard")
    page.click("#start")
    page.wait_for_selector(".board-svg")
    match_id = page.url.split("/play/")[1].split("?")[0]
    assert api(arcade, "GET", f"/api/matches/{match_id}")["level"] == "hard"
    rng = random.Random(5)
    for _ in range(3):  # our gears by mouse, each answered by the computer's
        # The spin may give the computer the first turn, and its first move solves the race
        # first: wait for our turn before looking for gears.
        page.wait_for_function(MY_TURN_OR_OVER)
        if not page.locator("#result").is_hidden():
            break
        make_a_move(page, arcade, match_id, rng)
    assert match(arcade, match_id)["ply"] >= 3
