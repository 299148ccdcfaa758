"""``textdp evaluate quasi``: the date and age recognisers and their DP releases under the
``quasi`` preset, on a generated sample of dates of many styles and ages of many forms, and of
ordinary numbers that must not be taken (:func:`textdp.evaluate.quasi_samples.check`).

    textdp evaluate quasi --per-label 400 --ordinary 2000
"""

from __future__ import annotations

import argparse
from typing import Any

from textdp.evaluate.quasi_samples import check, report_lines


def add_parser(sub: Any) -> None:
    """``textdp evaluate quasi`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser("quasi", help="dates, ages and places under the quasi preset: values "
                                     "missed and left unchanged per label, ordinary numbers "
                                     "taken, on a generated sample")
    p.add_argument("--per-label", type=int, default=100, help="values per label")
    p.add_argument("--ordinary", type=int, default=600, help="ordinary items")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epsilon-date", type=float, default=None,
                   help="ε per day of the date offset (default: the config's)")
    p.add_argument("--epsilon-age", type=float, default=None,
                   help="ε per year of an age (default: the config's)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate quasi``: one line per label and per kind of ordinary item."""
    stats = check(args.per_label, args.ordinary, args.seed, epsilon_date=args.epsilon_date,
                  epsilon_age=args.epsilon_age)
    for line in report_lines(stats):
        print(line)
    return 0
