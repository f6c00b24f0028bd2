"""The documentation is a reference that says what is true now: no page narrates its own
making (a tracker's issue, a commit id outside a figure's provenance), none cites a file outside
the repository, and none is too long to read as a reference. History lives in ``studies/`` and
``CHANGELOG.md``; the rulings in ``docs/rulings.md``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *ROOT.glob("docs/**/*.md")])
#: The longest a reference page may be (split by concept beyond it).
MAX_LINES = 500

#: A tracker's issue named in the text ("the issue", "issue 24", "issue's").
ISSUE = re.compile(r"\bthe issue\b|\bissues? \d+|\bissue's\b", re.IGNORECASE)
#: A commit id: 7 to 40 hexadecimal digits in backticks, with at least one letter (so
#: perft counts and other numbers are not taken for one).
COMMIT = re.compile(r"`(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}`")
#: A figure's provenance may name its commit: "Commit and date: `abc1234`, ...", "commit
#: `abc1234`, 2026-..." or a provenance table's row "| commit | `abc1234` |", which is what one
#: current-figures table per claim asks for.
PROVENANCE = re.compile(
    r"[Cc]ommit(?: and date)?:? `[0-9a-f]{7,40}`|^\| commit \| `[0-9a-f]{7,40}`"
)
#: A path leaving the repository, or the files the rulings once lived in.
OUTSIDE = re.compile(r"\.\./shared\b|\bRULINGS\.md\b|\bseeds/[\w-]+\.txt\b|/work/")


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _offending(pattern: re.Pattern[str], page: Path) -> list[str]:
    return [
        f"{_name(page)}:{number}: {line.strip()}"
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if pattern.search(line)
    ]


def test_the_pages_are_found() -> None:
    assert ROOT / "README.md" in PAGES and ROOT / "docs" / "rulings.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_page_names_a_tracker_issue(page: Path) -> None:
    assert not _offending(ISSUE, page)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_commit_ids_appear_only_as_a_figures_provenance(page: Path) -> None:
    narrated = [
        f"{_name(page)}:{number}: {line.strip()}"
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if len(COMMIT.findall(line)) > len(PROVENANCE.findall(line))
        and not line.lstrip().startswith("- Commit and date:")
    ]
    assert not narrated


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_page_cites_a_file_outside_the_repository(page: Path) -> None:
    assert not _offending(OUTSIDE, page)


@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if p.parent.name == "docs" or p.parent.parent.name == "docs"],
    ids=_name,
)
def test_no_reference_page_is_over_500_lines(page: Path) -> None:
    assert len(page.read_text().splitlines()) <= MAX_LINES


def test_the_rulings_are_numbered_once_each() -> None:
    numbers = re.findall(r"^- \*\*R(\d+)\.", (ROOT / "docs" / "rulings.md").read_text(), re.M)
    assert [int(n) for n in numbers] == list(range(1, len(numbers) + 1))


#: A Markdown link: ``[words](target)``; the target's ``#fragment`` is a heading's anchor.
LINK = re.compile(r"\]\(([^)\s]+)\)")
#: A line opening or closing a fenced block, whose lines are not headings.
FENCE = re.compile(r"^\s*```")


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped (hyphens and
    underscores kept), spaces turned into hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    fenced = False
    for line in page.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"#{1,6} (.+)", line)):
            found.add(anchor(heading.group(1)))
    return found


def broken_links(page: Path) -> list[str]:
    """The links on ``page`` to a file of the repository that is missing, or to a heading that
    the linked page (or this one) does not have; web addresses are not followed."""
    broken = []
    for number, line in enumerate(page.read_text().splitlines(), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}:{number}: {target}: no such file")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                broken.append(f"{page.name}:{number}: {target}: no such heading")
    return broken


def test_the_link_check_finds_broken_links(tmp_path: Path) -> None:
    assert anchor("Players: `flipgames admin`") == "players-flipgames-admin"
    assert anchor("More than one server process (PostgreSQL)") == (
        "more-than-one-server-process-postgresql"
    )
    (tmp_path / "other.md").write_text("# Other page\n\n```\n# not a heading\n```\n")
    probe = tmp_path / "probe.md"
    probe.write_text(
        "# Here\n\n[a](#here) [b](#not-here) [c](missing.md) [d](other.md#other-page)\n"
        "[e](other.md#not-a-heading) [f](https://example.org/x.md#y)\n"
    )
    assert broken_links(probe) == [
        "probe.md:3: #not-here: no such heading",
        "probe.md:3: missing.md: no such file",
        "probe.md:4: other.md#not-a-heading: no such heading",
    ]


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_link_to_a_page_or_heading_resolves(page: Path) -> None:
    assert not broken_links(page)
