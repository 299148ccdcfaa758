"""``textdp evaluate name-kinds``: do first names become first names and surnames surnames,
for names of many origins? (:func:`textdp.evaluate.name_kinds.evaluate_name_kinds` on the
dev sample :func:`textdp.evaluate.name_kinds.dev_sample`.)

    textdp evaluate name-kinds --texts 600 --seed 0
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from textdp.replacement import NAME_ORIGINS


def add_parser(sub: Any) -> None:
    """``textdp evaluate name-kinds`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser("name-kinds", help="first names -> first names, surnames -> surnames, "
                                          "particles written as particles, compounds in shape "
                                          "(dev sample of "
                                          "held-apart names of many origins)")
    p.add_argument("--texts", type=int, default=600, help="texts in the dev sample")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample and privatizer")
    p.add_argument("--name-origin", default="any", choices=NAME_ORIGINS)
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate name-kinds``: one line of figures, and the JSON file."""
    from textdp import Privatizer
    from textdp.evaluate.name_kinds import dev_sample, evaluate_name_kinds

    figures = evaluate_name_kinds(Privatizer(seed=args.seed, name_origin=args.name_origin),
                                  dev_sample(args.texts, args.seed))
    print("  ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in figures.items()))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)
    return 0
