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
#: A figure's provenance may name its commit: "Commit and date: `abc1234`, ..." or
#: "commit `abc1234`, 2026-...", which is what one current-figures table per claim asks for.
PROVENANCE = re.compile(r"[Cc]ommit(?: and date)?:? `[0-9a-f]{7,40}`")
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
