"""The solvers load numpy and numba only when a game is solved: the CLI's startup (and so
``flipgames --help``), the agents' level table and the solver catalog never import them."""

from __future__ import annotations

import subprocess
import sys


def test_startup_modules_do_not_load_numpy_or_numba() -> None:
    code = (
        "import sys\n"
        "import flipgames.cli.main, flipgames.agents.levels, flipgames.solvers.catalog\n"
        "print(' '.join(sorted(m for m in ('numba', 'numpy') if m in sys.modules)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == ""


def test_solving_loads_them() -> None:
    """The check above can fail: solving a game does import both."""
    code = (
        "import sys\n"
        "from flipgames import make\n"
        "from flipgames.solvers.catalog import solve\n"
        "solve(make('checkered-flag', track='short', start='first'))\n"
        "print(' '.join(sorted(m for m in ('numba', 'numpy') if m in sys.modules)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.split() == ["numba", "numpy"]
