"""The solvers load numpy and numba only when a game is solved: the CLI's startup (and so
``flipgames --help``), the agents' level table and the solver catalog never import them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


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


def test_solving_loads_numpy_and_a_kernel_loads_numba(tmp_path: Path) -> None:
    """The check above can fail: solving a game imports numpy (Checkered Flag's graph and
    solve are numpy alone, so not numba: tests/checkered_flag/test_batch_graph.py), and
    asking its compiled kernel for playouts imports numba."""
    code = (
        "import sys\n"
        "from flipgames import make\n"
        "from flipgames.solvers.catalog import solve\n"
        "game = make('checkered-flag', track='short', start='first')\n"
        "solve(game)\n"
        "print(' '.join(sorted(m for m in ('numba', 'numpy') if m in sys.modules)))\n"
        "game.kernel().playouts(10, seed=1)\n"
        "print(' '.join(sorted(m for m in ('numba', 'numpy') if m in sys.modules)))\n"
    )
    env = {**os.environ, "FLIPGAMES_CACHE": str(tmp_path)}
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert loaded.splitlines() == ["numpy", "numba numpy"]


def test_a_cached_solution_is_reported_without_numba() -> None:
    """Once solved, the value from the start comes from the disk cache with no kernel built
    (numba and the kernel's machine code are most of a cached ``solve``'s time), and it is
    the value the solve found; a position other than the start is found by the numpy
    builder's key, still without numba."""
    code = (
        "import sys\n"
        "from flipgames import make\n"
        "from flipgames.solvers.catalog import solve\n"
        "game = make('checkered-flag', track='short', start='first')\n"
        "solution = solve(game)\n"
        "start = game.new_initial_state()\n"
        "print(solution.value(start).expected, 'numba' in sys.modules)\n"
        "later = start.apply(start.legal_actions()[0])\n"
        "solution.value(later)\n"
        "print('numba' in sys.modules)\n"
    )

    def run() -> list[str]:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()

    solved = run()  # solves (or finds it cached by another test: then both runs read)
    cached = run()
    assert cached[1:] == ["False", "False"]
    assert cached[0] == solved[0] != ""
