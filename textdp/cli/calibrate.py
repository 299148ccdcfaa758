"""``textdp calibrate``: the ε at which a word survives a target share of draws.

    textdp calibrate --table default --target-unchanged 0.01
    textdp calibrate --mechanism nadp --target-unchanged 0.05 --quantile 0.9

The work is :func:`textdp.calibration.calibrate_epsilon` (how P(unchanged) is estimated, the
bisection and the cache are described there).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from textdp.calibration import (
    DEFAULT_N_DRAWS,
    DEFAULT_N_WORDS,
    DEFAULT_TOL,
    STATISTICS,
    Statistic,
    calibrate_epsilon,
)
from textdp.cli.settings import add_setting_arguments

#: The privatizer settings ``textdp calibrate`` takes as ``privatize`` does
#: (textdp.cli.settings); ``--table``, ``--target-unchanged`` and ``--seed`` are the
#: calibration's own (a file to calibrate on, the target itself, the sample's seed).
SETTINGS = ("mechanism", "clip_norm")


def add_parser(sub: Any) -> None:
    """``textdp calibrate`` (``sub``: the top-level subparsers)."""
    p = sub.add_parser(
        "calibrate", help="the epsilon at which a word survives a target share of draws")
    p.add_argument("--table", default="default",
                   help="'default' (the embedded vectors) or a word2vec/GloVe/fastText file")
    p.add_argument("--target-unchanged", type=float, default=0.01,
                   help="target P(unchanged) in (0, 1) (default 0.01)")
    add_setting_arguments(p, SETTINGS)  # as `privatize` offers them
    group = p.add_mutually_exclusive_group()
    group.add_argument("--statistic", choices=STATISTICS, default=None,
                       help="statistic over the words (default median)")
    group.add_argument("--quantile", type=float, default=None,
                       help="a quantile in (0, 1) over the words instead (0.9: 90 %% of words "
                            "survive at most the target)")
    p.add_argument("--n-words", type=int, default=DEFAULT_N_WORDS, help="words sampled")
    p.add_argument("--n-draws", type=int, default=DEFAULT_N_DRAWS, help="draws per word")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample and the draws")
    p.add_argument("--tol", type=float, default=DEFAULT_TOL, help="relative precision of ε")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp calibrate``: print ε and the statistic it achieves."""
    statistic: Statistic = args.quantile if args.quantile is not None else \
        (args.statistic or "median")
    result = calibrate_epsilon(
        args.mechanism, args.table, target_unchanged=args.target_unchanged,
        statistic=statistic, n_words=args.n_words, n_draws=args.n_draws, seed=args.seed,
        tol=args.tol, clip_norm=args.clip_norm, cache=not args.no_cache)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=str))
    else:
        print(result.summary())
    return 0
