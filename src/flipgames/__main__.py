"""``python -m flipgames`` runs the command line."""

import sys

from flipgames.cli.main import main

sys.exit(main())
