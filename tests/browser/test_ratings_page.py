"""Ratings, profiles and takebacks by mouse: a rated game's rating changes on the game page, a
profile with its ratings, its chart (an SVG point per rated game) and its games linking to
their replays, the leaderboard's tabs, and a takeback declined, then accepted, then the game
aborted, between two browsers."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from harness import api, running_arcade
from pages import match, pass_the_turn_by_mouse
from sqlalchemy import select
from test_accessibility import serious_violations

from flipgames.web.ai import Solutions
from flipgames.web.db import make_engine, players
from flipgames.web.matches import MatchService

GAME = "flipflop-3x3"


@pytest.fixture
def rated_arcade(tmp_path: Path) -> Iterator[tuple[str, MatchService]]:
    """An arcade of this test's own, and a match service on its database (to create rated
    matches: the lobby that pairs accounts is not part of these pages)."""
    with running_arcade(tmp_path) as base:
        engine = make_engine(f"sqlite:///{tmp_path / 'arcade.sqlite'}")
        try:
            yield base, MatchService(engine, Solutions())
        finally:
            engine.dispose()


def account(base: str, service: MatchService, name: str) -> str:
    """Sign ``name`` up through the API; the player's id."""
    api(base, "POST", "/api/accounts", {"name": name, "password": f"{name}-secret-words"})
    with service.transactions.engine.connect() as connection:
        return str(
            connection.execute(
                select(players.c.id).where(players.c.name_key == name.lower())
            ).scalar_one()
        )


def play_rated(service: MatchService, first: str, second: str) -> Any:
    """A rated game played to the end through the service, each side taking its first legal
    action (White wins so on FlipFlop 3x3)."""
    created = service.create_rated(GAME, {}, None, (first, second))
    tokens = (created.token, created.invite_token)
    loaded = service.load(created.match_id)
    while not loaded.over:
        seat = loaded.state.current_player
        loaded, _ = service.play(created.match_id, tokens[seat], loaded.legal[0][0], None)
    return created


def test_a_profile_shows_ratings_a_chart_and_games_linking_to_replays(
    browser: Any, rated_arcade: tuple[str, MatchService]
) -> None:
    base, service = rated_arcade
    ada, bob = account(base, service, "Ada"), account(base, service, "Bob")
    first = play_rated(service, ada, bob)
    play_rated(service, bob, ada)
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # The first game's page, as Ada: the rating changes in words.
    page.goto(f"{base}/play/{first.match_id}?token={first.token}")
    page.wait_for_selector("#rating-changes:not([hidden])")
    lines = page.locator("#rating-changes li").all_inner_texts()
    assert lines == ["Ada 1500 -> 1662? (+162)", "Bob 1500 -> 1338? (-162)"]
    page.goto(f"{base}/players/Bob")
    page.wait_for_selector("#rating-chart svg")
    assert page.inner_text("#player-name") == "Bob"
    row = page.locator("#ratings-rows tr").first.locator("td").all_inner_texts()
    assert row[0] == "FlipFlop 3x3" and row[1].endswith("?") and row[2:] == ["2", "1", "0", "1"]
    assert page.locator("#rating-chart svg circle.point").count() == 2
    games = page.locator("#games li")
    assert games.count() == 2
    assert "against Ada" in games.first.inner_text()
    # Newest first: the second game, which Bob won with White.
    assert games.first.locator(".outcome").inner_text() == "Won"
    games.nth(1).locator("a").click()
    page.wait_for_url(f"**/replay/{first.match_id}")
    page.wait_for_selector("#result-title:not(:empty)")
    # The leaderboard: a tab per game, no one established after two games.
    page.goto(f"{base}/leaderboard")
    page.wait_for_selector("#game-tabs a[aria-current='page']")
    assert page.locator("#game-tabs a").count() >= 6
    page.wait_for_selector("#no-leaders:not([hidden])")
    page.goto(f"{base}/players/Nobody")
    page.wait_for_selector("#toast:not([hidden])")
    assert "no player called" in page.inner_text("#toast")
    context.close()
    assert not errors, errors


def test_a_takeback_declined_then_accepted_then_the_game_aborted(
    two: tuple[Any, Any, dict[str, Any]], arcade: str
) -> None:
    white, black, created = two
    match_id = created["id"]
    assert white.locator("#abort").is_visible() and black.locator("#abort").is_visible()
    assert white.locator("#takeback").is_disabled()  # nothing to take back yet
    pass_the_turn_by_mouse(white, arcade, match_id)
    white.wait_for_selector("#takeback:not([disabled])")
    white.click("#takeback")
    white.wait_for_selector("#takeback:text('Takeback asked')")
    black.wait_for_selector("#takeback-offer:not([hidden])")
    assert black.inner_text("#takeback-offer-text") == "White asks to take back their last move."
    black.click("#takeback-decline")
    white.wait_for_selector("#toast:text('Your takeback request was declined.')")
    assert match(arcade, match_id)["ply"] == 1
    white.wait_for_selector("#takeback:not([disabled])")
    white.click("#takeback")
    black.wait_for_selector("#takeback-offer:not([hidden])")
    black.click("#takeback-accept")
    white.wait_for_selector("#toast:text('Your move was taken back.')")
    assert match(arcade, match_id)["ply"] == 0
    white.wait_for_function("() => document.body.classList.contains('my-turn')")
    # Neither has a move on the board now: either may abort.
    black.wait_for_selector("#abort:not([hidden])")
    black.click("#abort")
    for page in (white, black):
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result-title") == "Game aborted"
    assert match(arcade, match_id)["ending"] == "aborted"


def test_the_profile_and_leaderboard_have_no_serious_accessibility_violations(
    browser: Any, rated_arcade: tuple[str, MatchService]
) -> None:
    base, service = rated_arcade
    play_rated(service, account(base, service, "Ada"), account(base, service, "Bob"))
    # As test_accessibility's audited pages: axe injected past the server's CSP.
    context = browser.new_context(viewport={"width": 1100, "height": 800}, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{base}/players/Ada")
    page.wait_for_selector("#rating-chart svg")
    assert serious_violations(page) == []
    page.goto(f"{base}/leaderboard")
    page.wait_for_selector("#game-tabs a[aria-current='page']")
    assert serious_violations(page) == []
    context.close()


def test_names_are_shown_as_text_never_run(
    browser: Any, rated_arcade: tuple[str, MatchService]
) -> None:
    """A name the name rules would refuse, written straight into the database: the profile,
    the game-over card and the leaderboard show it as text and run nothing."""
    base, service = rated_arcade
    payload = "<img src=x onerror=window.pwned=1><script>window.pwned=2</script>"
    evil = "evil-row"
    with service.transactions.engine.begin() as connection:
        connection.execute(
            players.insert().values(
                id=evil,
                name=payload,
                name_key=payload.lower(),
                password_hash="$argon2id$test",
                created_at=datetime.now(UTC),
            )
        )
    created = play_rated(service, evil, account(base, service, "Ada"))
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.goto(f"{base}/play/{created.match_id}?token={created.invite_token}")
    page.wait_for_selector("#rating-changes:not([hidden])")
    assert payload in page.inner_text("#rating-changes")
    page.goto(f"{base}/players/Ada")
    page.wait_for_selector("#games li")
    assert f"against {payload}" in page.inner_text("#games")
    assert page.evaluate("() => window.pwned") is None
    assert page.locator("#games img, #games script, #rating-changes img").count() == 0
    context.close()
