"""Regression tests of issue 24's CLI, files and packaging items, through the real entry
point where the fix is a command's behaviour."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import flipgames

REPO = Path(__file__).resolve().parents[2]


def _console_script() -> Path:
    """The installed ``flipgames`` command of this interpreter's environment."""
    script = Path(sys.executable).parent / "flipgames"
    assert script.is_file(), f"no console script at {script}: pip install -e ."
    return script


# -- item 19: a licence that ships, and one version -------------------------------------------


def test_version_is_printed_by_the_console_script() -> None:
    done = subprocess.run(
        [str(_console_script()), "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"flipgames {flipgames.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", flipgames.__version__)


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "src/flipgames/__init__.py"


def test_the_mit_licence_ships_in_the_package() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    assert project["project"]["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 the flipgames developers" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
