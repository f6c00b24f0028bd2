"""The header in chromium at a small laptop's width and a phone's, in English and Japanese: at
960 px every link's words sit on one line, all on the same line; at 390 px nothing in the
header overlaps, nothing makes the page wider than the screen, the header (sticky: always on
screen) keeps to a sixth of the screen's height, every link is visible and on top where it is
drawn, and a link clicked with the mouse goes where it says."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pages import create

#: For each link of the header's nav: its words and the tops of the lines its words take (one
#: top per line: a Range over the words has a box per line they wrap onto).
LINK_LINES = """() => [...document.querySelectorAll('.site-header nav a')].map((link) => {
  const range = document.createRange();
  range.selectNodeContents(link);
  const tops = new Set([...range.getClientRects()].map((box) => Math.round(box.top)));
  return { words: link.textContent, tops: [...tops] };
})"""

#: The header's visible parts (brand, heading, links, settings button, player area's
#: buttons) as boxes, and the page's width beyond the screen's.
LAYOUT = """() => {
  const header = document.querySelector('.site-header');
  const shown = ':scope > .brand, :scope > h1, nav a, .settings summary, .identity > *';
  const parts = [...header.querySelectorAll(shown)]
    .filter((element) => element.getClientRects().length > 0);
  return {
    height: header.getBoundingClientRect().height,
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    parts: parts.map((element) => {
      const box = element.getBoundingClientRect();
      return { name: element.textContent.trim() || element.className, left: box.left,
               right: box.right, top: box.top, bottom: box.bottom };
    }),
  };
}"""

#: The element drawn at a link's centre is the link (or inside it): nothing covers it.
ON_TOP = """(link) => {
  const box = link.getBoundingClientRect();
  const found = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return found !== null && link.contains(found);
}"""


@pytest.fixture(params=["en-US", "ja-JP"])
def locale(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def arcade_pages(arcade: str) -> list[str]:
    """The lobby (the most links), a game page (a heading beside them) and a puzzle page."""
    created = create(arcade, "flipflop-3x3", mode="ai", level="easy", seed=5)
    return [
        arcade + "/",
        arcade + created["links"]["play"],
        arcade + "/puzzles",
    ]


@pytest.fixture
def sized(browser: Any, locale: str) -> Iterator[Any]:
    """A page whose context speaks ``locale`` (the arcade follows the browser's language)."""
    context = browser.new_context(viewport={"width": 960, "height": 800}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"script errors on the page: {errors}"


def open_page(page: Any, address: str) -> None:
    page.goto(address)
    page.wait_for_selector("#identity button, #identity a")
    # Translated (a Japanese page shows its words once settings.js has put them in).
    page.wait_for_function("() => !document.documentElement.classList.contains('i18n-pending')")


def overlapping(parts: list[dict[str, Any]]) -> list[str]:
    """Pairs of the header's parts whose boxes share some area."""
    found = []
    for index, first in enumerate(parts):
        for second in parts[index + 1 :]:
            if (
                first["left"] < second["right"] - 0.5
                and second["left"] < first["right"] - 0.5
                and first["top"] < second["bottom"] - 0.5
                and second["top"] < first["bottom"] - 0.5
            ):
                found.append(f"{first['name']!r} and {second['name']!r}")
    return found


def test_at_960_px_the_links_sit_on_one_line(
    sized: Any, arcade_pages: list[str], locale: str
) -> None:
    for address in arcade_pages:
        open_page(sized, address)
        assert sized.evaluate("document.documentElement.lang") == locale[:2]
        links = sized.evaluate(LINK_LINES)
        assert len(links) >= 1
        wrapped = [link["words"] for link in links if len(link["tops"]) != 1]
        assert wrapped == [], f"{address}: these links' words wrap: {wrapped}"
        tops = {link["tops"][0] for link in links}
        assert len(tops) == 1, f"{address}: the links take {len(tops)} lines: {links}"
        layout = sized.evaluate(LAYOUT)
        assert overlapping(layout["parts"]) == [], address
        assert layout["overflow"] <= 0, address


def test_the_lobby_has_all_five_links_at_960_px(sized: Any, arcade: str) -> None:
    """The page with the most links: the test above measures these five, not fewer."""
    open_page(sized, arcade + "/")
    assert len(sized.evaluate(LINK_LINES)) == 5


def test_at_390_px_nothing_overlaps_or_overflows_and_every_link_is_reachable(
    sized: Any, arcade_pages: list[str]
) -> None:
    sized.set_viewport_size({"width": 390, "height": 844})
    for address in arcade_pages:
        open_page(sized, address)
        layout = sized.evaluate(LAYOUT)
        assert layout["overflow"] <= 0, f"{address}: the page is {layout['overflow']} px too wide"
        assert overlapping(layout["parts"]) == [], address
        assert layout["height"] <= 844 / 6, f"{address}: the header is {layout['height']} px tall"
        for part in layout["parts"]:
            assert part["left"] >= 0 and part["right"] <= 390, f"{address}: {part}"
        links = sized.locator(".site-header nav a")
        for index in range(links.count()):
            link = links.nth(index)
            assert link.is_visible()
            assert link.evaluate(ON_TOP), f"{address}: {link.inner_text()!r} is covered"
    # By mouse: the lobby's last link (the one most likely pushed off a narrow screen).
    open_page(sized, arcade_pages[0])
    last = sized.locator(".site-header nav a").last
    target = last.get_attribute("href")
    assert target is not None
    last.click()
    sized.wait_for_url(f"**{target}")
