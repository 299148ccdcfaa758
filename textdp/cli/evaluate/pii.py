"""``textdp evaluate pii``: the identifier recognisers on a generated sample of values of many
countries and formats in sentences, and of ordinary numbers and words that must not be taken
(:func:`textdp.evaluate.pii_samples.check`); with ``--source faker``, on values Faker makes in
17 locales, an independent check (:func:`textdp.evaluate.pii_faker.check`).

    textdp evaluate pii --per-label 200 --ordinary 2000
    textdp evaluate pii --layout records      # the same values in CSV, ;, | and tab records
    textdp evaluate pii --source faker --per-label 30
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    """``textdp evaluate pii`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser("pii", help="values left verbatim per PII label, and ordinary numbers "
                                   "taken for one, on a generated sample")
    p.add_argument("--source", choices=("own", "faker"), default="own",
                   help="own: this project's generator, with ordinary items (default); "
                        "faker: Faker's providers in 17 locales (pip install faker)")
    p.add_argument("--per-label", type=int, default=60,
                   help="values per label (with --source faker: per provider and locale; "
                        "default 30 there)")
    p.add_argument("--ordinary", type=int, default=600, help="ordinary items (own source)")
    p.add_argument("--layout", choices=("sentences", "records"), default="sentences",
                   help="own source: each value in a sentence (default) or in CSV, "
                        "semicolon, pipe and tab records under a column named for its label")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate pii``: one line per label (or Faker provider) and per kind of
    ordinary item."""
    if args.source == "faker":
        from textdp.evaluate import pii_faker

        per = args.per_label if args.per_label != 60 else 30
        lines = pii_faker.report_lines(pii_faker.check(per, args.seed))
    else:
        from textdp.evaluate.pii_samples import check, report_lines

        lines = report_lines(check(args.per_label, args.ordinary, args.seed, args.layout))
    for line in lines:
        print(line)
    return 0
