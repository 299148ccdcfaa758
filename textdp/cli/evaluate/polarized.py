"""``textdp evaluate polarized``: ROC of the similarity detector's scores, public vectors vs
subword skip-gram vs PolarizedText, on CoNLL-2003 dev (:mod:`textdp.evaluate.polarized`).

    textdp evaluate polarized --plot docs/polarized_roc.png -o report/   # 5-13 min on 2 cores
    textdp evaluate polarized --quick                                   # about 1 min
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from textdp.cli.args import comma_list
from textdp.evaluate.polarized import QUICK, VARIANTS, Settings, evaluate, format_table, plot


def add_parser(sub: Any) -> None:
    """``textdp evaluate polarized`` (``sub``: the evaluate subparsers)."""
    d = Settings()
    p = sub.add_parser("polarized", help="ROC of similarity scores: public vectors vs subword "
                                         "skip-gram vs PolarizedText (CoNLL-2003)")
    p.add_argument("--data", default=None,
                   help="the shared data folder (default ../shared/data or $TEXTDP_DATA)")
    p.add_argument("-o", "--output", default=None, help="folder for results.json (and roc.png)")
    p.add_argument("--plot", default=None, help="write the ROC figure here (.png)")
    p.add_argument("--quick", action="store_true",
                   help=f"dim {QUICK.dim}, {QUICK.epochs} epochs, seed 0, first "
                        f"{QUICK.train_limit} train / {QUICK.dev_limit} dev sentences")
    p.add_argument("--dim", type=int, default=None, help=f"dimension (default {d.dim})")
    p.add_argument("--epochs", type=int, default=None, help=f"epochs (default {d.epochs})")
    p.add_argument("--polarization", type=float, default=d.polarization, help="λ")
    p.add_argument("--field", type=float, default=d.field, help="length of label directions")
    p.add_argument("--seeds", default=None,
                   help="training seeds, comma-separated (default 0,1,2; --quick: 0)")
    p.add_argument("--threads", type=int, default=d.threads, help="torch CPU threads")
    p.add_argument("--variants", default=",".join(VARIANTS),
                   help=f"comma-separated subset of {', '.join(VARIANTS)}")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate polarized``."""
    base = QUICK if args.quick else Settings()
    seeds = base.seeds if args.seeds is None else \
        tuple(int(x) for x in args.seeds.split(",") if x.strip())
    if not seeds:
        raise ValueError("--seeds must name at least one seed")
    settings = Settings(
        dim=args.dim or base.dim, epochs=args.epochs or base.epochs, window=base.window,
        polarization=args.polarization, field=args.field, seeds=seeds, threads=args.threads,
        train_limit=base.train_limit, dev_limit=base.dev_limit,
        variants=tuple(comma_list(args.variants)))
    started = time.perf_counter()
    results = evaluate(settings, args.data, progress=not args.no_progress,
                       log=lambda m: print(f"textdp: {m}", file=sys.stderr))
    seconds = time.perf_counter() - started
    print(format_table(results))
    print(f"({seconds:.0f} s; dim {settings.dim}, {settings.epochs} epochs, seeds "
          f"{','.join(map(str, settings.seeds))}, λ = {settings.polarization:g})")
    title = (f"dim {settings.dim}, {settings.epochs} epochs, λ = {settings.polarization:g}, "
             f"seeds {','.join(map(str, settings.seeds))}"
             f"{' (quick: subsets)' if args.quick else ''}; labels: train sentences with / "
             "without a person; curves: first seed, AUC in the legend: mean over seeds")
    if args.output:
        out = Path(args.output)
        out.mkdir(parents=True, exist_ok=True)
        payload = {"settings": settings.__dict__, "seconds": round(seconds, 1),
                   "results": [r.summary() for r in results]}
        (out / "results.json").write_text(json.dumps(payload, indent=2, default=list),
                                          encoding="utf-8")
        plot(results, out / "roc.png", title)
    if args.plot:
        plot(results, args.plot, title)
    return 0
