"""The lobby's "Play people" by mouse, in two browsers with accounts of their own (Hana and Kenji)
and a visitor who is not signed in, all on one arcade (the tests run in this order): both press
the same quick-pairing button and meet in one rated game, which the visitor finds in the live
games and watches, and which is then aborted (no rating changes); Hana posts a rated FlipFlop
3x3 seek, Kenji sees it appear and takes it, they chat and play it to the end by mouse and both
see the same ratings (winner 1662.3, loser 1337.7, RD 290.3) on the game page, in the API, on
both profiles, in the lobby's "My games" (read from the server) and in the seek list; a
withdrawn seek leaves the other's list; names carrying markup, shown in the seek list and the
live games, run no script."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import api, running_arcade
from pages import match
from sqlalchemy import update
from test_accessibility import serious_violations
from test_identity_page import Browser, fill_dialog

from flipgames.web.db import make_engine, players

GAME = "flipflop-3x3"
PASSWORD = "correct horse battery"
#: A FlipFlop 3x3 game White wins on the board ("Black has no legal move"), as (from, to).
WHITE_WINS = [("a1", "a2"), ("b3", "b1"), ("c1", "b1"), ("a3", "b3"), ("b1", "c2")]
#: The page's Play/Cancel buttons and the game page's way in.
PLAY_URL = re.compile(r"/play/[^/?]+\?token=")
#: Markup in a name that would run script if a page put it into HTML (each within the 32
#: characters the names column holds; an inline handler's bare name is a global).
PAYLOADS = (
    "<img src=x onerror=pwned=1>",
    "<script>pwned=2</script>",
    '"><svg onload=pwned=3>',
)


class Arcade:
    """One arcade for the module and its database (names with markup are written there)."""

    def __init__(self, base: str, folder: Path) -> None:
        self.base = base
        self.engine = make_engine(f"sqlite:///{folder / 'arcade.sqlite'}")


@pytest.fixture(scope="module")
def arcade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arcade]:
    folder = tmp_path_factory.mktemp("people")
    with running_arcade(folder) as base:
        here = Arcade(base, folder)
        try:
            yield here
        finally:
            here.engine.dispose()


@pytest.fixture(scope="module")
def people(browser: Any, arcade: Arcade) -> Iterator[tuple[Browser, Browser, Browser]]:
    """Hana and Kenji, each signed up by mouse in a browser of their own, and a visitor."""
    hana, kenji, visitor = Browser(browser), Browser(browser), Browser(browser)
    for person, name in ((hana, "Hana"), (kenji, "Kenji")):
        person.page.goto(arcade.base + "/")
        fill_dialog(person.page, "Sign up", name, PASSWORD)
        person.page.wait_for_selector(f"#identity .identity-me:text-is('{name}')")
    visitor.page.goto(arcade.base + "/")
    yield hana, kenji, visitor
    problems = hana.problems + kenji.problems + visitor.problems
    for person in (hana, kenji, visitor):
        person.context.close()
    assert not problems, problems


def lobby(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#people[data-live='true']")


def seek_rows(page: Any) -> list[str]:
    return [" ".join(text.split()) for text in page.locator("#seeks li.seek").all_inner_texts()]


def post_seek(page: Any, *, rated: bool) -> None:
    """Post a FlipFlop 3x3 seek with no clock from "Play people" by mouse."""
    page.select_option("#seek-game", GAME)
    page.click("#seek-new")
    page.wait_for_selector("#new-game[open]")
    assert page.is_checked("input[name=mode][value=seek]")
    assert page.is_hidden("#seat-field") and page.is_visible("#clock-field")
    # An account's seek is rated unless unticked.
    assert page.is_checked("#rated")
    if not rated:
        page.uncheck("#rated")
    page.click("#start")
    page.wait_for_selector("#new-game", state="hidden")


def move(page: Any, source: str, target: str) -> None:
    page.wait_for_function(
        "() => document.body.classList.contains('my-turn')"
        " && !document.body.classList.contains('busy')"
    )
    page.locator(f".targets .target.source[data-target='{source}']").click()
    page.locator(f".targets .target:not(.source)[data-target='{target}']").click()


def seat_of(base: str, page: Any) -> int:
    match_id, token = page.url.split("/play/")[1].split("?token=")
    return int(match(base, match_id, token)["seat"])


def test_quick_pairing_puts_two_players_in_one_game_that_a_visitor_watches(
    people: tuple[Browser, Browser, Browser], arcade: Arcade
) -> None:
    # First, while both are new (1500): a wider rating gap would wait for the ranges to widen.
    hana, kenji, visitor = people
    base = arcade.base
    lobby(hana.page, base)
    lobby(kenji.page, base)
    button = "#pairing button.pair[data-game='flipflop-3x3'][data-clock='180+2']"
    # Waiting, then cancelled, then waiting again.
    hana.page.click(button)
    hana.page.wait_for_selector("#pairing-waiting:not([hidden])")
    assert hana.page.inner_text("#pairing-what") == "FlipFlop 3x3, 3+2"
    assert hana.page.get_attribute(button, "aria-pressed") == "true"
    hana.page.click("#pairing-cancel")
    hana.page.wait_for_selector("#pairing-waiting", state="hidden")
    hana.page.click(button)
    hana.page.wait_for_selector("#pairing-waiting:not([hidden])")
    # A place in the pool is not a seek: nobody's list shows it.
    assert seek_rows(kenji.page) == []
    kenji.page.click(button)
    for person in (hana, kenji):
        person.page.wait_for_url(PLAY_URL)
        person.page.wait_for_selector(".board-svg")
    assert hana.page.url.split("?")[0] == kenji.page.url.split("?")[0]
    assert {seat_of(base, hana.page), seat_of(base, kenji.page)} == {0, 1}
    match_id = hana.page.url.split("/play/")[1].split("?")[0]
    view = match(base, match_id)
    assert view["rated"] is True and view["clock"]["label"] == "3+2"
    # The visitor, not signed in, is offered a name, finds the game among the live ones and
    # watches it; a second look at the lobby counts the spectator.
    lobby(visitor.page, base)
    assert visitor.page.is_visible("#people-signin")
    live = visitor.page.locator(f"#live-games li[data-match='{match_id}']")
    live.wait_for()
    assert "0 watching" in live.inner_text() and "3+2" in live.inner_text()
    live.locator("a").click()
    visitor.page.wait_for_url(f"**/watch/{match_id}")
    visitor.page.wait_for_selector(".board-svg")
    second = visitor.context.new_page()
    lobby(second, base)
    second.wait_for_selector(f"#live-games li[data-match='{match_id}']:has-text('1 watching')")
    second.close()
    # Nobody has moved: aborted, the game changes no rating.
    hana.page.click("#abort")
    for person in (hana, kenji):
        person.page.wait_for_selector("#result:not([hidden])")
        assert person.page.inner_text("#result-title") == "Game aborted"


def test_a_rated_seek_taken_and_played_to_the_end_by_mouse(
    people: tuple[Browser, Browser, Browser], arcade: Arcade
) -> None:
    hana, kenji, _ = people
    base = arcade.base
    lobby(hana.page, base)
    lobby(kenji.page, base)
    post_seek(hana.page, rated=True)
    # Kenji's list gets it over the lobby socket, in words; Hana's own row offers Cancel.
    kenji.page.wait_for_selector("#seeks li.seek")
    assert seek_rows(kenji.page) == ["FlipFlop 3x3 standard rules no clock rated Hana 1500? Play"]
    hana.page.wait_for_selector("#seeks li.seek button.seek-cancel")
    kenji.page.click("#seeks li.seek button.seek-accept")
    for person in (hana, kenji):
        person.page.wait_for_url(PLAY_URL)
        person.page.wait_for_selector(".board-svg")
    assert hana.page.url.split("?")[0] == kenji.page.url.split("?")[0]
    white, black = (hana, kenji) if seat_of(base, hana.page) == 0 else (kenji, hana)
    assert seat_of(base, black.page) == 1
    names = {id(hana): "Hana", id(kenji): "Kenji"}
    winner, loser = names[id(white)], names[id(black)]
    # They chat by mouse before they play: each line reaches the other's page.
    for speaker, listener, text in ((hana, kenji, "Good luck!"), (kenji, hana, "You too.")):
        speaker.page.wait_for_selector("#chat:not([hidden])")
        speaker.page.click("#chat-input")
        speaker.page.keyboard.type(text)
        speaker.page.click("#chat-send")
        listener.page.wait_for_function(
            "text => [...document.querySelectorAll('#chat-lines .chat-text')]"
            ".some(e => e.textContent === text)",
            arg=text,
        )
    for ply, (source, target) in enumerate(WHITE_WINS):
        move((white if ply % 2 == 0 else black).page, source, target)
    expected = [f"{winner} 1500 -> 1662? (+162)", f"{loser} 1500 -> 1338? (-162)"]
    for person in (hana, kenji):
        person.page.wait_for_selector("#rating-changes:not([hidden])")
        assert person.page.locator("#rating-changes li").all_inner_texts() == expected
    match_id = hana.page.url.split("/play/")[1].split("?")[0]
    for name, rating in ((winner, 1662.3), (loser, 1337.7)):
        played = api(base, "GET", f"/api/players/{name}")["ratings"][GAME]
        assert (round(played["rating"], 1), round(played["rd"], 1)) == (rating, 290.3)
    # Both profiles list the game (newest first, above the aborted quick pairing); both
    # lobbies' "My games" come from the server.
    for person, name, other, outcome in (
        (white, winner, loser, "Won"),
        (black, loser, winner, "Lost"),
    ):
        person.page.goto(f"{base}/players/{name}")
        person.page.wait_for_selector("#games li")
        rows = person.page.locator("#games li")
        assert rows.count() == 2
        assert rows.first.locator(".outcome").inner_text() == outcome
        assert f"against {other}" in rows.first.inner_text()
        assert rows.first.locator("a").get_attribute("href") == f"/replay/{match_id}"
        assert rows.nth(1).locator(".outcome").inner_text() == "Aborted"
        lobby(person.page, base)
        person.page.wait_for_selector("#mine[data-source='server']:not([hidden])")
        mine = person.page.locator("#my-games li").all_inner_texts()
        words = "You won" if outcome == "Won" else "You lost"
        day = _today(base, name)
        aborted = "Aborted before both had moved"
        assert mine == [
            f"FlipFlop 3x3 against {other} · {words} · rated · {day} · replay",
            f"FlipFlop 3x3 against {other} · {aborted} · rated · {day} · replay",
        ]
        link = person.page.locator("#my-games li a").first.get_attribute("href")
        assert link == f"/replay/{match_id}"
    # The winner's next seek shows the new rating to the loser; withdrawn, it leaves the list.
    post_seek(white.page, rated=False)
    black.page.wait_for_selector("#seeks li.seek")
    assert seek_rows(black.page) == [
        f"FlipFlop 3x3 standard rules no clock casual {winner} 1662? Play"
    ]
    assert white.page.inner_text("#people-status").startswith("Your seek is listed")
    white.page.click("#seeks li.seek button.seek-cancel")
    black.page.wait_for_selector("#no-seeks:not([hidden])")
    white.page.wait_for_selector("#no-seeks:not([hidden])")
    assert seek_rows(black.page) == [] and seek_rows(white.page) == []
    assert white.page.inner_text("#people-status") == ""


def test_a_seek_taken_while_its_seeker_was_away_and_a_pool_place_kept_over_a_reload(
    people: tuple[Browser, Browser, Browser], arcade: Arcade
) -> None:
    """The acceptance told no socket of Hana's (she was on another page): back in the lobby
    within the grace period, her page asks the server and takes her to the game. A quick
    pairing place survives a reload: the waiting line comes back, and Cancel works."""
    hana, kenji, _ = people
    base = arcade.base
    lobby(hana.page, base)
    lobby(kenji.page, base)
    post_seek(hana.page, rated=False)
    kenji.page.wait_for_selector("#seeks li.seek button.seek-accept")
    hana.page.goto("about:blank")
    kenji.page.click("#seeks li.seek button.seek-accept")
    kenji.page.wait_for_url(PLAY_URL)
    hana.page.goto(base + "/")
    hana.page.wait_for_url(PLAY_URL)
    hana.page.wait_for_selector(".board-svg")
    assert hana.page.url.split("?")[0] == kenji.page.url.split("?")[0]
    assert {seat_of(base, hana.page), seat_of(base, kenji.page)} == {0, 1}
    hana.page.click("#abort")
    hana.page.wait_for_selector("#result:not([hidden])")
    lobby(hana.page, base)
    button = "#pairing button.pair[data-game='flipflop-3x3'][data-clock='600+5']"
    hana.page.click(button)
    hana.page.wait_for_selector("#pairing-waiting:not([hidden])")
    lobby(hana.page, base)
    hana.page.wait_for_selector("#pairing-waiting:not([hidden])")
    assert hana.page.inner_text("#pairing-what") == "FlipFlop 3x3, 10+5"
    hana.page.click("#pairing-cancel")
    hana.page.wait_for_selector("#pairing-waiting", state="hidden")


def _today(base: str, name: str) -> str:
    """The date the server gave the player's newest game (its clock, not this machine's)."""
    return str(api(base, "GET", f"/api/players/{name}")["games"][0]["date"][:10])


def _call(base: str, method: str, path: str, token: str, body: Any = None) -> Any:
    """An API request as the player whose session is ``token`` (a bearer token)."""
    request = urllib.request.Request(
        base + path,
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read()
    return json.loads(text) if text else None


def test_names_with_markup_in_seeks_and_live_games_run_no_script(
    people: tuple[Browser, Browser, Browser], arcade: Arcade
) -> None:
    """The name rules refuse markup, so these names are written straight into the database
    (as an older or a broken server might have left them): shown as text, run nothing."""
    _, kenji, visitor = people
    base = arcade.base
    lobby(kenji.page, base)
    lobby(visitor.page, base)
    for number, payload in enumerate(PAYLOADS):
        name = f"Evil{number}"
        token = api(base, "POST", "/api/accounts", {"name": name, "password": PASSWORD})["token"]
        with arcade.engine.begin() as connection:
            connection.execute(
                update(players).where(players.c.name_key == name.lower()).values(name=payload)
            )
        seek = _call(base, "POST", "/api/seeks", token, {"game": GAME})["id"]
        for page in (kenji.page, visitor.page):
            page.wait_for_selector(f"#seeks li[data-seek='{seek}']")
            assert payload in page.inner_text(f"#seeks li[data-seek='{seek}'] .seek-name")
        # The visitor, who has no name yet, is offered the guest name by Play.
        visitor.page.click(f"#seeks li[data-seek='{seek}'] button.seek-accept")
        visitor.page.wait_for_selector("#identity-dialog[open]")
        assert visitor.page.inner_text("#identity-title") == "Play as a guest"
        visitor.page.click("#identity-cancel")
        # Another account takes it: the game, with the name, is among the live ones.
        taker = api(base, "POST", "/api/accounts", {"name": f"Taker{number}", "password": PASSWORD})
        taken = _call(base, "POST", f"/api/seeks/{seek}/accept", taker["token"])
        visitor.page.reload()
        row = visitor.page.locator(f"#live-games li[data-match='{taken['id']}']")
        row.wait_for()
        assert payload in row.inner_text()
    for page in (kenji.page, visitor.page):
        assert page.evaluate("() => window.pwned") is None
        assert page.locator("#people img, #people script, #people svg").count() == 0


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_play_people_has_no_serious_accessibility_violations(
    browser: Any, arcade: Arcade, scheme: str
) -> None:
    """axe on the lobby with a seek listed and the earlier tests' live games, and on the
    new-game dialog with "Anyone" chosen (axe injected past the CSP, as test_accessibility)."""
    base = arcade.base
    token = api(base, "POST", "/api/accounts", {"name": f"Axe-{scheme}", "password": PASSWORD})
    _call(base, "POST", "/api/seeks", token["token"], {"game": GAME, "rated": True})
    context = browser.new_context(
        viewport={"width": 1100, "height": 800}, bypass_csp=True, color_scheme=scheme
    )
    page = context.new_page()
    lobby(page, base)
    page.wait_for_selector("#seeks li.seek")
    page.wait_for_selector("#live-games li")
    assert serious_violations(page) == []
    page.click("#seek-new")  # a visitor: the guest name is offered first
    page.wait_for_selector("#identity-dialog[open]")
    page.click("#identity-cancel")
    page.click(".game-card[data-game='flipflop-3x3'] button.play")
    page.check("input[name=mode][value=seek]")
    assert page.is_visible("#rated-field") and page.is_hidden("#assist-field")
    assert serious_violations(page) == []
    context.close()


def test_a_visitor_takes_a_guest_name_and_is_told_rated_games_are_for_accounts(
    browser: Any, people: tuple[Browser, Browser, Browser], arcade: Arcade
) -> None:
    _, kenji, _ = people
    base = arcade.base
    mika = Browser(browser)
    lobby(mika.page, base)
    lobby(kenji.page, base)
    # The section's own button opens the header's guest dialog: a name, and Mika plays.
    mika.page.click("#people-guest")
    mika.page.wait_for_selector("#identity-dialog[open]")
    mika.page.fill("#identity-name", "Mika")
    mika.page.click("#identity-submit")
    mika.page.wait_for_selector("#people-signin", state="hidden")
    mika.page.wait_for_selector("#people[data-live='true']")
    # Rated is not ticked for a guest; ticked, the server's refusal is shown as it says it.
    mika.page.select_option("#seek-game", GAME)
    mika.page.click("#seek-new")
    mika.page.wait_for_selector("#new-game[open]")
    assert not mika.page.is_checked("#rated")
    mika.page.check("#rated")
    mika.page.click("#start")
    mika.page.wait_for_selector("#new-game-error:has-text('rated games are between accounts')")
    mika.page.uncheck("#rated")
    mika.page.click("#start")
    mika.page.wait_for_selector("#new-game", state="hidden")
    row = kenji.page.locator("#seeks li.seek:has-text('Mika')")
    row.wait_for()
    assert " ".join(row.inner_text().split()) == (
        "FlipFlop 3x3 standard rules no clock casual Mika guest Play"
    )
    # Rated quick pairing: the same refusal, under the section's heading.
    assert not mika.page.is_checked("#pairing-rated")
    mika.page.check("#pairing-rated")
    mika.page.click("#pairing button.pair[data-game='flipflop-3x3'][data-clock='']")
    mika.page.wait_for_selector("#people-error:has-text('rated games are between accounts')")
    assert mika.page.is_hidden("#pairing-waiting")
    problems = mika.problems
    mika.context.close()
    assert not problems, problems
