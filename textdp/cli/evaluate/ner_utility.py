"""``textdp evaluate ner-utility``: train a spaCy NER on CoNLL-2003 train as it is and as
privatized, score each on the original dev (:mod:`textdp.evaluate.ner_utility`).

    textdp evaluate ner-utility [--data ../shared/data] [--variants original,word,name] \\
        [--variant 'NAME={"replace": "tag"}'] [--epsilon E] [--seeds 0,1,2] [--quick] \\
        [--no-vectors] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, replace
from typing import Any

from textdp.evaluate.ner_utility import (
    DEFAULT_VARIANTS,
    FULL,
    KNOWN_VARIANTS,
    ORIGINAL,
    QUICK,
    check_seeds,
    conll_paths,
    evaluate_ner_utility,
    ner_model,
    parse_variant_definition,
    parse_variants,
    results_table,
    summarise,
    summary_table,
)
from textdp.files import atomic_output
from textdp.validation import check_epsilon


def add_parser(sub: Any) -> None:
    """``textdp evaluate ner-utility`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser(
        "ner-utility", help="train a spaCy NER on original and privatized CoNLL-2003 train, "
                            "PER precision/recall/F1 on the original dev")
    p.add_argument("--data", default=None,
                   help="folder laid out like ../shared/data (conll2003/eng.train, "
                        "eng.testa); default: ../shared/data beside the checkout or "
                        "$TEXTDP_DATA")
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                   help=f"comma-separated: {ORIGINAL} (no privatization), "
                        + ", ".join(f"{n} ({json.dumps(k)})" for n, k in KNOWN_VARIANTS.items())
                        + " or a name given by --variant (default: %(default)s)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=JSON",
                   help="define or override a variant: a JSON object of Privatizer keyword "
                        "arguments, passed unchanged (repeatable), e.g. 'word={}'")
    p.add_argument("--epsilon", type=float, default=None,
                   help="ε per token of every privatized variant that sets none (default: the "
                        "Privatizer's default)")
    p.add_argument("--seeds", "--seed", dest="seeds", default="0", metavar="S[,S...]",
                   help="comma-separated seeds, one run each, then the mean and spread per "
                        "variant; a seed seeds the privatizers (fixed: NOT private against "
                        "anyone who knows it; the text is never written out), the sampling "
                        "and the training (default %(default)s)")
    p.add_argument("--quick", action="store_true",
                   help=f"CI-sized: {QUICK.train_sentences} train and {QUICK.dev_sentences} "
                        f"dev sentences, {QUICK.epochs} epochs (default: all of train and dev, "
                        f"{FULL.epochs} epochs)")
    p.add_argument("--epochs", type=int, default=None,
                   help="override the number of training epochs")
    p.add_argument("--no-vectors", dest="vectors", action="store_false",
                   help="train the NER on hashed word features alone, without the embedded "
                        "pipeline's static vectors (default: with them, as spaCy's md and lg "
                        "pipelines train theirs)")
    p.add_argument("--curve", action="store_true",
                   help="also score dev after every epoch (the learning curve, in the JSON)")
    p.add_argument("--json", default=None, metavar="OUT",
                   help="also write the settings, figures and learning curves to this file")
    p.set_defaults(handler=run)


def parse_seeds(value: str) -> list[int]:
    """``"0,1,2"`` → ``[0, 1, 2]``; a part that is no integer raises a ``ValueError``."""
    parts = [part.strip() for part in value.split(",") if part.strip()]
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise ValueError(f"--seeds must be comma-separated integers, got {value!r}") from None


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate ner-utility``: the variants, ε and data files are checked
    first."""
    from textdp.evaluate.report import command_line

    # Validate every argument and the data files before any work.
    extra = dict(parse_variant_definition(v) for v in args.variant)
    variants = parse_variants(args.variants, extra)
    epsilon = None if args.epsilon is None else check_epsilon(args.epsilon)
    seeds = check_seeds(parse_seeds(args.seeds))
    settings = QUICK if args.quick else FULL
    settings = replace(settings, vectors=args.vectors)
    if args.epochs is not None:
        settings = replace(settings, epochs=args.epochs)
    conll_paths(args.data)

    def log(line: str) -> None:
        print(line, flush=True)

    start, cpu_start = time.perf_counter(), time.process_time()
    results = evaluate_ner_utility(variants, data_dir=args.data, settings=settings,
                                   epsilon=epsilon, seeds=seeds, curve=args.curve, log=log)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    print()
    print(results_table(results))
    if len(seeds) > 1:
        print()
        print(summary_table(results))
    print(f"\n{seconds:.0f} s wall clock, {cpu_seconds:.0f} s CPU of this process "
          f"({os.cpu_count()} CPUs visible)")
    if args.json:
        with atomic_output(args.json) as f:
            json.dump({"command": command_line(), "settings": asdict(settings),
                       "model": ner_model(settings.vectors), "seeds": seeds,
                       "quick": bool(args.quick), "seconds": seconds,
                       "cpu_seconds": cpu_seconds, "results": [r.as_dict() for r in results],
                       "summary": summarise(results)}, f, indent=2)
        print(f"ner-utility: wrote {args.json}")
    return 0
