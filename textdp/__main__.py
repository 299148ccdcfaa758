"""``python -m textdp`` is the ``textdp`` command."""

import sys

from textdp.cli import main

sys.exit(main())
