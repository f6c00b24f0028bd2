"""The layering rules, checked on the source (AST scan, no imports run):

- the inner layers import inward only: ``core`` (the protocol) imports nothing else of
  flipgames, ``kernels`` (the compiled machinery games share) imports only ``core``, and a
  game imports only ``core``, ``kernels`` and itself (docs/architecture.md draws the picture);
- inside a game package imports are one-way: the rules import the helpers (heuristics,
  render, notation, board, tensor, kernels), and a helper imports the rules only for typing
  (under ``if TYPE_CHECKING:``), so no helper can pull in the rules or form a cycle;
- a game package imports nothing of another game;
- a state's private attributes are read only by its own rules module (the state class and
  its game): heuristics, renderers, kernels and everything outside the game use the state's
  public properties.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "flipgames"
GAMES = sorted(p for p in (SRC / "games").iterdir() if (p / "rules.py").exists())
CORE_GAME = SRC / "core" / "game.py"


def runtime_imports(tree: ast.Module, package: str) -> Iterator[tuple[int, str]]:
    """(line, module) of every import executed at run time (not under ``if TYPE_CHECKING``),
    with ``from P import m`` yielding ``P.m`` as well as ``P`` and relative imports resolved
    against ``package``."""

    def visit(node: ast.AST) -> Iterator[tuple[int, str]]:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (item for child in node.orelse for item in visit(child))
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    yield from visit(tree)


def all_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, module) of every absolute import, at run time, lazy or for typing alike."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.lineno, node.module


#: What each inner layer may import of flipgames (its own package included).
INWARD = {"core": {"core"}, "kernels": {"core", "kernels"}, "games": {"core", "kernels", "games"}}


def test_the_inner_layers_import_inward_only():
    violations = []
    for layer, allowed in INWARD.items():
        for module in sorted((SRC / layer).rglob("*.py")):
            for line, name in all_imports(ast.parse(module.read_text())):
                parts = name.split(".")
                if parts[0] == "flipgames" and len(parts) > 1 and parts[1] not in allowed:
                    violations.append(f"{module.relative_to(SRC)}:{line} imports {name}")
    assert not violations, "imports pointing outward:\n" + "\n".join(violations)


def test_the_games_build_on_the_kernels_package():
    # The rule above has something to allow: the games' kernels import the shared machinery,
    # and the machinery no longer lives in core.
    users = [
        module
        for module in (SRC / "games").rglob("*kernel.py")
        if any(
            name.startswith("flipgames.kernels")
            for _, name in all_imports(ast.parse(module.read_text()))
        )
    ]
    assert len(users) >= 10, users
    assert not list((SRC / "core").glob("jit*.py"))


def test_game_helpers_import_the_rules_only_for_typing():
    violations = []
    for game in GAMES:
        package = f"flipgames.games.{game.name}"
        for module in sorted(game.glob("*.py")):
            if module.name == "rules.py":
                continue
            tree = ast.parse(module.read_text())
            for line, name in runtime_imports(tree, package):
                if name == f"{package}.rules":
                    violations.append(f"{module.relative_to(SRC)}:{line} imports {name}")
    assert not violations, "helpers import the rules at run time:\n" + "\n".join(violations)


def test_the_rules_import_their_helpers():
    # The direction the first test protects exists: each rules module imports helpers.
    for game in GAMES:
        package = f"flipgames.games.{game.name}"
        tree = ast.parse((game / "rules.py").read_text())
        helpers = {name for _, name in runtime_imports(tree, package) if name.startswith(package)}
        assert f"{package}.heuristics" in helpers, game.name


def test_a_game_imports_no_other_game():
    violations = []
    for game in GAMES:
        for module in sorted(game.glob("*.py")):
            tree = ast.parse(module.read_text())
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                for name in names:
                    if name.startswith("flipgames.games.") and name.split(".")[2] != game.name:
                        violations.append(f"{module.relative_to(SRC)}:{node.lineno} {name}")
    assert not violations, "\n".join(violations)


def private_attributes(module: Path) -> set[str]:
    """The private attributes the classes of ``module`` define: ``__slots__`` entries and
    ``self._name = ...`` assignments."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            for item in ast.walk(node.value):
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    names.add(item.value)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_only_a_games_rules_read_its_states_private_attributes():
    owners = {game.name: private_attributes(game / "rules.py") for game in GAMES}
    core = private_attributes(CORE_GAME)
    # The scan has something to look for: the states' bitboards and tiles, the core's links.
    assert {"_white", "_bishops"} <= owners["flipflop"]
    assert {"_tiles", "_owners"} <= owners["flip_switch"]
    assert {"_parent", "_action"} <= core
    watched = set().union(*owners.values())
    violations = []
    for module in sorted(SRC.rglob("*.py")):
        own: set[str] = set()
        if module.name == "rules.py" and module.parent.name in owners:
            # A game's rules read their own states' and (as subclasses) the core state's.
            own = owners[module.parent.name] | core
        elif module == CORE_GAME:
            own = core
        for node in ast.walk(ast.parse(module.read_text())):
            if not isinstance(node, ast.Attribute) or node.attr in own:
                continue
            if node.attr not in watched and node.attr not in core:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            violations.append(f"{module.relative_to(SRC)}:{node.lineno} {ast.unparse(node)}")
    assert not violations, "private state attributes read outside the rules:\n" + "\n".join(
        violations
    )
