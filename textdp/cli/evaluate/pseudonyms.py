"""``textdp evaluate pseudonyms``: do names become names, consistently, at the stated cost?
Measured on gold-labelled dev data (:func:`textdp.evaluate.pseudonyms.evaluate_pseudonyms`).

    textdp evaluate pseudonyms --data ../shared/data            # CoNLL dev articles, WNUT, BTC
    textdp evaluate pseudonyms --data ../shared/data --replace word --domains conll
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from textdp.evaluate.pseudonyms import evaluate_pseudonyms


def add_parser(sub: Any) -> None:
    """``textdp evaluate pseudonyms`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser("pseudonyms", help="do names become names, consistently, at the stated "
                                          "cost? (gold-labelled dev data)")
    p.add_argument("--data", default=None,
                   help="the data folder (default ../shared/data): CoNLL-2003 dev articles, "
                        "WNUT-17 and BTC dev posts")
    p.add_argument("--domains", default="conll,wnut17,btc",
                   help="comma-separated: conll, wnut17, btc")
    p.add_argument("--replace", choices=("name", "word"), default=None,
                   help="what replaces a person (default: the privatizer's default)")
    p.add_argument("--epsilon", type=float, default=None, help="ε (default: the default)")
    p.add_argument("--consistency", default="document",
                   choices=("document", "dataset", "mention"))
    p.add_argument("--draws", type=int, default=2000,
                   help="draws per person word for P(unchanged) (0: skip)")
    p.add_argument("--limit", type=int, default=None, help="only the first N texts per domain")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate pseudonyms``: one summary line per domain, and the JSON file."""
    results = evaluate_pseudonyms(
        data_dir=args.data, domains=args.domains, replace=args.replace, epsilon=args.epsilon,
        consistency=args.consistency, draws=args.draws, limit=args.limit, seed=args.seed,
        log=print)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0
