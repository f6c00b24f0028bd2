"""The pages draw and play from the view's structured data, never from notation (issue 10).

The view sends every legal action as data (``legal_actions``: ``State.action_info``), the
history as data (``moves``: text, kind, squares, ``by``, ``chance``) and the position under
``observation.board``. A board module that parsed action text (a regular expression over
"b1xb3" or "R@a4", splitting "2:4", reading the ``legal``, ``history`` or ``last`` strings)
would break as soon as a game's notation changed; these checks fail if one comes back. The
action a page sends is the ``text`` of one of the view's ``legal_actions``, unchanged (the
whole games played by mouse in tests/browser/test_play.py send nothing else).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import flipgames.web
from flipgames.core.manifest import manifest_for
from flipgames.core.registry import game_names

STATIC = Path(flipgames.web.__file__).parent / "static"
BOARDS = sorted((STATIC / "boards").glob("*.js"))
#: The page scripts that hand views to the board modules.
PAGES = [STATIC / name for name in ("common.js", "game.js", "replay.js")] + sorted(
    (STATIC / "game").glob("*.js")
)

#: What parsing text takes in JavaScript: regular expressions and string surgery.
PARSING = {
    "a regular expression literal": re.compile(r"(?:^|[=(,:!&|?{};]|return)\s*/(?![/*\s])"),
    "new RegExp": re.compile(r"\bnew RegExp\b"),
    ".exec(": re.compile(r"\.exec\("),
    ".match(": re.compile(r"\.match\("),
    ".split(": re.compile(r"\.split\("),
    ".test(": re.compile(r"\.test\("),
}

#: The view's notation fields, which board modules must not read.
NOTATION_FIELDS = {
    "view.legal (use legal_actions)": re.compile(r"\.legal\b(?!_)"),
    "view.history (use moves)": re.compile(r"\.history\b"),
    "view.last (use moves)": re.compile(r"\.last\b"),
}


def _code(path: Path) -> list[tuple[int, str]]:
    """The file's lines without comments (``//`` lines and ``/** ... */`` blocks)."""
    lines = []
    in_comment = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.strip()
        if in_comment:
            in_comment = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            in_comment = "*/" not in stripped
            continue
        code = re.sub(r"(^|\s)//.*$", "", line)
        lines.append((number, code))
    return lines


def test_every_registered_game_has_a_board_module_here() -> None:
    names = {path.stem for path in BOARDS}
    assert {manifest_for(game).board for game in game_names()} <= names


@pytest.mark.parametrize("path", BOARDS + PAGES, ids=lambda path: path.name)
def test_no_board_module_or_page_parses_text(path: Path) -> None:
    found = [
        f"{path.name}:{number}: {what}: {code.strip()}"
        for number, code in _code(path)
        for what, pattern in PARSING.items()
        if pattern.search(code)
    ]
    assert found == []


@pytest.mark.parametrize("path", BOARDS, ids=lambda path: path.name)
def test_no_board_module_reads_the_notation_fields(path: Path) -> None:
    found = [
        f"{path.name}:{number}: {what}: {code.strip()}"
        for number, code in _code(path)
        for what, pattern in NOTATION_FIELDS.items()
        if pattern.search(code)
    ]
    assert found == []


def test_the_checks_catch_the_parsers_they_replaced(tmp_path: Path) -> None:
    # The FlipFlop board's old move parser and the Checkered Flag board's start-spin split:
    # both are caught, so a green run above means they are gone.
    old = tmp_path / "old.js"
    old.write_text(
        "const MOVE = /^([a-z][0-9]+)([-x])([a-z][0-9]+)$/;\n"
        "const [a, b] = text.split(':').map(Number);\n"
        "for (const move of (view.legal || []).map(parseMove)) {}\n"
        "const last = next.last ? parseMove(next.last.action) : null;\n"
    )
    lines = dict(_code(old))
    assert PARSING["a regular expression literal"].search(lines[1])
    assert PARSING[".split("].search(lines[2])
    assert NOTATION_FIELDS["view.legal (use legal_actions)"].search(lines[3])
    assert NOTATION_FIELDS["view.last (use moves)"].search(lines[4])
