"""``textdp bench``: run the benchmark suite (``python -m bench``) of a source checkout.

The suite lives in the repository's ``bench/``, next to the package (it reads
``../shared/data`` and is not installed with the wheel). Everything after ``bench`` on the
command line goes to the suite: :func:`textdp.cli.main` hands it over before argparse could
claim the suite's options.

    textdp bench --quick --only static,mechanisms --device cuda
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The checkout this package comes from: textdp/cli/bench.py → the repository root.
CHECKOUT = Path(__file__).resolve().parents[2]


def add_parser(sub: Any) -> None:
    """``textdp bench`` (``sub``: the top-level subparsers); shown by ``textdp --help``."""
    b = sub.add_parser("bench", help="run the benchmark suite (python -m bench) of a source "
                                     "checkout; arguments go to it (--quick, --only, --device)")
    b.add_argument("bench_args", nargs=argparse.REMAINDER,
                   help="e.g. --quick --only static,mechanisms --device cuda")
    b.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp bench`` from parsed arguments."""
    return run_bench(args.bench_args)


def run_bench(bench_args: Sequence[str]) -> int:
    """Run ``python -m bench BENCH_ARGS`` in the source checkout this package comes from."""
    if not (CHECKOUT / "bench" / "__main__.py").is_file():
        raise ValueError("textdp bench runs the suite of a source checkout (bench/ next to the "
                         "textdp package); install textdp with `pip install -e .` from a clone")
    return subprocess.call([sys.executable, "-m", "bench", *bench_args], cwd=CHECKOUT)
