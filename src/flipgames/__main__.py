"""``python -m flipgames`` runs the command line."""

from flipgames.cli.main import run

run()
