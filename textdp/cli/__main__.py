"""``python -m textdp.cli`` is the ``textdp`` command (as ``python -m textdp`` is)."""

import sys

from textdp.cli import main

sys.exit(main())
