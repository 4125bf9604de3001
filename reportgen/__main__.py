"""``python -m reportgen`` runs the command line."""

import sys

from reportgen.cli import main

sys.exit(main())
