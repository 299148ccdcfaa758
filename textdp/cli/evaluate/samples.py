"""``textdp evaluate samples``: the detector on a generated register sample (clinical notes,
e-mail with headers and signatures, chats, addresses, organisations, role words, ALL-CAPS
notes, names that are words), :func:`textdp.evaluate.samples.evaluate_samples`.

    textdp evaluate samples                     # the dev split, used to choose the rules
    textdp evaluate samples --split report      # held out from choosing them
    textdp evaluate samples --split written     # 280 hand-written texts (a dev split)
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from textdp.evaluate.samples import SPLIT_SEEDS, WRITTEN, evaluate_samples


def add_parser(sub: Any) -> None:
    """``textdp evaluate samples`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser("samples", help="ordinary words replaced and names surviving on a "
                                       "generated register sample (notes, mail, chat, ...)")
    p.add_argument("--split", choices=[*sorted(SPLIT_SEEDS), WRITTEN], default="dev",
                   help="dev (rules were chosen on it), report (held out), or written "
                        "(280 hand-written notes, chats and support mails; a dev split)")
    p.add_argument("--per-kind", type=int, default=60,
                   help="texts per kind (generated splits)")
    p.add_argument("--detector", default=None, help="a detector spec (default: the default)")
    p.add_argument("--write", default=None, help="also write the sample as JSONL to this path")
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate samples``: one summary line per kind, and the JSON file."""
    figures = evaluate_samples(args.split, args.per_kind, detector=args.detector,
                               write=args.write)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=1)
    return 0
