"""Nothing outside ``games/`` switches on a game's name: per-game facts live in the manifests
(``flipgames.core.manifest``), so a new game touches only its package and its tests.

Checked on the source: every string literal of the package's Python outside ``games/``, other
than docstrings (whose examples name real games, and run as doctests), and every quoted string
of the pages' scripts, styles and templates outside the per-game board modules
(``static/boards/``), alone or as the last part of an address (``/rules/NAME``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from flipgames import game_names

SRC = Path(__file__).resolve().parents[2] / "src" / "flipgames"
STATIC = SRC / "web" / "static"


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the nodes that are docstrings (a module's, a class's or a function's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def python_strings(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    skip = docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def script_strings(path: Path) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        for match in re.finditer(r"([\"'`])([^\"'`]*)\1", line):
            yield number, match.group(2)


def sources() -> Iterator[tuple[Path, Iterator[tuple[int, str]]]]:
    for path in sorted(SRC.rglob("*.py")):
        if "games" not in path.relative_to(SRC).parts[:1]:
            yield path, python_strings(path)
    for path in sorted([*STATIC.glob("*.js"), *STATIC.rglob("game/*.js"), *STATIC.glob("*.css")]):
        yield path, script_strings(path)
    for path in sorted((SRC / "web" / "templates").glob("*.html")):
        yield path, script_strings(path)


def test_no_game_name_outside_the_games():
    names = set(game_names())
    found = [
        f"{path.relative_to(SRC)}:{line}: {text!r}"
        for path, strings in sources()
        for line, text in strings
        # A name alone, as an address's last part ("/rules/NAME"), or in a data-game rule.
        if text in names
        or text.rsplit("/", 1)[-1] in names
        or re.search(r"data-game=[\"']?(" + "|".join(names) + ")", text)
    ]
    assert not found, "game names outside games/ (move the fact into the manifest):\n" + "\n".join(
        found
    )


def test_the_check_sees_a_name():
    """The scan would catch the old way: a table keyed by name, a docstring would not count."""
    source = 'def f():\n    """make("flipflop")"""\n    return {"flipflop": 1}\n'
    tree = ast.parse(source)
    skip = docstrings(tree)
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and id(n) not in skip]
    assert [s for s in strings if isinstance(s, str)] == ["flipflop"]
