"""``textdp evaluate pii``: the identifier recognisers on a generated sample of values of many
countries and formats in sentences, and of ordinary numbers and words that must not be taken
(:func:`textdp.evaluate.pii_samples.check`).

    textdp evaluate pii --per-label 200 --ordinary 2000
"""

from __future__ import annotations

import argparse
from typing import Any

from textdp.evaluate.pii_samples import check, report_lines


def add_parser(sub: Any) -> None:
    """``textdp evaluate pii`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser("pii", help="values left verbatim per PII label, and ordinary numbers "
                                   "taken for one, on a generated sample")
    p.add_argument("--per-label", type=int, default=60, help="values per label")
    p.add_argument("--ordinary", type=int, default=600, help="ordinary items")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate pii``: one line per label and per kind of ordinary item."""
    for line in report_lines(check(args.per_label, args.ordinary, args.seed)):
        print(line)
    return 0
