"""The size limits of the developers' guide, for every Python file under ``src/``: no file over
600 lines and no function over 80 lines, except compiled kernels (numba functions, whose loops
stay in one piece so the compiler sees them whole, and the kernel modules that hold them).

Run: ``.venv/bin/pytest -n0 -q tests/test_code_shape.py``; a failure names each file or
function over its limit with its length.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
#: Decorators that compile a function with numba (``kernels.jit.jit`` wraps ``njit``).
COMPILERS = frozenset({"jit", "njit", "vectorize", "guvectorize"})


def is_compiled_module(path: Path) -> bool:
    """A module of compiled kernels: under ``kernels/``, or a game's ``*kernel*.py``."""
    relative = path.relative_to(SRC).parts
    return "kernels" in relative[:-1] or "kernel" in path.stem


def is_compiled(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True for a function decorated by a numba compiler (``@jit``, ``@njit(cache=True)``,
    ``@numba.njit``...)."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in COMPILERS:
            return True
    return False


def long_functions(path: Path, root: Path = SRC) -> list[str]:
    """The functions of ``path`` over the limit that are not compiled, with their lengths
    (named relative to ``root``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not is_compiled(node):
            assert node.end_lineno is not None
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines)")
    return found


def sources() -> list[Path]:
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 100, "src/ not found where the test expects it"
    return files


def test_no_source_file_is_over_600_lines_outside_compiled_kernels() -> None:
    too_long = [
        f"{path.relative_to(SRC)} ({lines} lines)"
        for path in sources()
        if not is_compiled_module(path)
        and (lines := len(path.read_text().splitlines())) > MAX_FILE_LINES
    ]
    assert too_long == []


def test_no_function_is_over_80_lines_outside_compiled_kernels() -> None:
    too_long = [entry for path in sources() for entry in long_functions(path)]
    assert too_long == []


def test_the_shape_check_finds_a_long_function_and_spares_compiled_ones(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    probe = tmp_path / "probe.py"
    probe.write_text(
        f"def long():\n{body}\n@jit\ndef loop():\n{body}\n"
        f"@njit(cache=True)\ndef loop2():\n{body}\n@numba.njit\ndef loop3():\n{body}\n"
        "def short():\n    return 1\n"
    )
    assert long_functions(probe, tmp_path) == [f"probe.py:1 long ({MAX_FUNCTION_LINES + 1} lines)"]
    assert is_compiled_module(SRC / "flipgames" / "kernels" / "search.py")
    assert is_compiled_module(SRC / "flipgames" / "games" / "flipflop" / "search_kernel.py")
    assert not is_compiled_module(SRC / "flipgames" / "agents" / "levels.py")
