"""``textdp evaluate pii``: the identifier recognisers on a generated sample of values of many
countries and formats in sentences, and of ordinary numbers and words that must not be taken
(:func:`textdp.evaluate.pii_samples.check`).

    textdp evaluate pii --per-label 200 --ordinary 2000
    textdp evaluate quasi --per-label 400 --ordinary 2000   # dates and ages, preset quasi
"""

from __future__ import annotations

import argparse
from typing import Any

from textdp.evaluate import quasi_samples
from textdp.evaluate.pii_samples import check, report_lines


def add_parser(sub: Any) -> None:
    """``textdp evaluate pii`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser("pii", help="values left verbatim per PII label, and ordinary numbers "
                                   "taken for one, on a generated sample")
    p.add_argument("--per-label", type=int, default=60, help="values per label")
    p.add_argument("--ordinary", type=int, default=600, help="ordinary items")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(handler=run)
    q = sub.add_parser("quasi", help="dates and ages under the quasi preset: values missed "
                                     "and left unchanged per label, ordinary numbers taken, "
                                     "on a generated sample")
    q.add_argument("--per-label", type=int, default=100, help="values per label")
    q.add_argument("--ordinary", type=int, default=600, help="ordinary items")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--epsilon-date", type=float, default=None)
    q.add_argument("--epsilon-age", type=float, default=None)
    q.set_defaults(handler=run_quasi)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate pii``: one line per label and per kind of ordinary item."""
    for line in report_lines(check(args.per_label, args.ordinary, args.seed)):
        print(line)
    return 0


def run_quasi(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate quasi`` (:func:`textdp.evaluate.quasi_samples.check`)."""
    stats = quasi_samples.check(args.per_label, args.ordinary, args.seed,
                                epsilon_date=args.epsilon_date, epsilon_age=args.epsilon_age)
    for line in quasi_samples.report_lines(stats):
        print(line)
    return 0
