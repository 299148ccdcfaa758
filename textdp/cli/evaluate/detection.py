"""``textdp evaluate detection``: PER precision/recall/F1, token recall and speed of
detectors on a CoNLL file or a labelled JSONL sample, or per domain with the names surviving
the privatizer (:mod:`textdp.evaluate.detection` does the measuring).

    textdp evaluate detection --data ../shared/data/conll2003/eng.testa --detector rules
    textdp evaluate detection --data ../shared/data              # every domain's dev split
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from textdp.detect.base import normalise_label
from textdp.detect.lists import read_list
from textdp.evaluate.detection import (
    TARGET,
    conll_survival,
    evaluate_domains,
    evaluate_file,
    evaluate_jsonl,
    is_jsonl,
)
from textdp.files import atomic_output
from textdp.targets import resolve_targets


def add_parser(sub: Any) -> None:
    """``textdp evaluate detection`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser(
        "detection", help="PER precision/recall/F1, token recall and speed of detectors on a "
                          "CoNLL file, or per domain with names surviving the privatizer")
    p.add_argument("--data", required=True,
                   help="your labelled sample: JSONL with text and character spans "
                        "[[start, end, label], ...] (.jsonl), or a CoNLL file (4 columns, "
                        "IOB1/IOB2), e.g. "
                        "../shared/data/conll2003/eng.testa, or the data folder "
                        "../shared/data: then every domain's dev split (CoNLL-2003, WNUT-17, "
                        "BTC section b, Enron e-mail threads) through the full privatizer, "
                        "with the share of names surviving and of other words kept (never "
                        "tune on a test set)")
    p.add_argument("--domains", default=None,
                   help="with a data folder: comma-separated domains (conll, wnut17, btc, "
                        "enron)")
    p.add_argument("--epsilon", type=float, default=None,
                   help="the privatizer's ε for the survival run (default: its default)")
    p.add_argument("--detector", action="append", default=None,
                   help="detector name (spacy, trained, rules, similarity, ensemble, a+b, a "
                        "spaCy package, hf:<model>); repeat for several; default: the default")
    p.add_argument("--unit", choices=("document", "sentence"), default="document",
                   help="one text per document of the file (default) or per sentence")
    p.add_argument("--seeds", default=None,
                   help="similarity detector: comma-separated seed words or @file")
    p.add_argument("--threshold", type=float, default=None,
                   help="similarity detector: cosine threshold for its P/R/F1 line")
    p.add_argument("--label", default=TARGET, help="entity label scored (default PERSON)")
    p.add_argument("--limit", type=int, default=None, help="only the first N documents")
    p.add_argument("--no-survival", action="store_true",
                   help="with a file: skip the run through the full privatizer that counts "
                        "the names that would survive")
    p.add_argument("--seed", type=int, default=0,
                   help="the privatizer's seed for the survival run (default 0: reproducible)")
    p.add_argument("--text-field", default="text", help="JSONL sample: key of the text")
    p.add_argument("--spans-field", default="spans",
                   help="JSONL sample: key of the gold spans [[start, end, label], ...] "
                        "(character offsets)")
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    p.add_argument("--review", action="store_true",
                   help="with a folder of dev data: also count the texts the review signal "
                        "flags per domain (a name targeted at some mentions only, a span "
                        "scored near the threshold); the other figures are unchanged")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate detection``."""
    if os.path.isdir(args.data):
        domain_runs = evaluate_domains(args.data, args.detector or [None],
                                       domains=args.domains, epsilon=args.epsilon,
                                       limit=args.limit, review=args.review)
        if args.json:
            with atomic_output(args.json) as f:
                json.dump([r.as_dict() for r in domain_runs], f, indent=2)
        return 0
    if not os.path.isfile(args.data):
        raise FileNotFoundError(2, "No such file", args.data)
    resolve_targets([args.label])  # an unknown label fails before any text is read
    if is_jsonl(args.data):
        pairs = evaluate_jsonl(args.data, args.detector or [None], label=args.label,
                               limit=args.limit, survival_run=not args.no_survival,
                               epsilon=args.epsilon, seed=args.seed,
                               text_field=args.text_field, spans_field=args.spans_field)
        figures = [{**r.as_dict(), **({"survival": s.as_dict()} if s else {})}
                   for r, s in pairs]
    else:
        seeds = None if args.seeds is None else list(read_list(args.seeds))
        runs = evaluate_file(args.data, args.detector or [None], unit=args.unit, seeds=seeds,
                             threshold=args.threshold, label=args.label, limit=args.limit)
        figures = [r.as_dict() for r in runs]
        if not args.no_survival and normalise_label(args.label) == TARGET:
            surv = conll_survival(args.data, args.detector or [None], limit=args.limit,
                                  epsilon=args.epsilon, seed=args.seed)
            for fig, run in zip(figures, surv):
                fig["survival"] = {"label": normalise_label(args.label), "names": run.names,
                                   "surviving": run.surviving,
                                   "surviving_share": run.surviving_share,
                                   "others_kept_share": run.others_kept_share}
    if args.json:
        with atomic_output(args.json) as f:
            json.dump(figures, f, indent=2)
    return 0
