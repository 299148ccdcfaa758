"""``textdp evaluate utility``: word similarity, odd-man-out, STS-B and classification on
original and privatized text over ε, with plots (:mod:`textdp.evaluate.utility`).

    textdp evaluate utility --data ../shared/data --mechanism mlaplace,nadp \
        [--epsilon 1,2,3 --epsilon nadp=10,50] [--quick] -o report/
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from textdp.cli.args import add_epsilon_grid_argument
from textdp.evaluate.utility import (
    DEFAULT_EPSILONS,
    DEFAULT_FOLDS,
    DEFAULT_MECHANISMS,
    MECHANISM_EPSILONS,
    QUICK_FOLDS,
    QUICK_LIMIT,
    TASKS,
    check_data,
    epsilon_grid,
    evaluate_utility,
    parse_mechanisms,
    parse_tasks,
    plot_report,
    report_body,
)


def add_parser(sub: Any) -> None:
    """``textdp evaluate utility`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser(
        "utility", help="word similarity, odd-man-out, STS-B and classification on original "
                        "and privatized text over ε, with plots")
    p.add_argument("--data", required=True,
                   help="folder laid out like ../shared/data (wordsim/, oddmanout/, "
                        "stsbenchmark/, senteval/)")
    p.add_argument("--mechanism", default=",".join(DEFAULT_MECHANISMS),
                   help="comma-separated registered mechanisms (default: %(default)s)")
    add_epsilon_grid_argument(p, {"*": DEFAULT_EPSILONS, **MECHANISM_EPSILONS})
    p.add_argument("--table", default="default",
                   help="'default' (the embedded vectors) or a word2vec/GloVe/fastText file")
    p.add_argument("--tasks", default=None,
                   help=f"comma-separated subset of {','.join(TASKS)} (default: all)")
    p.add_argument("--quick", action="store_true",
                   help=f"≤ {QUICK_LIMIT} sentences per split and {QUICK_FOLDS}-fold CV")
    p.add_argument("--limit", type=int, default=None,
                   help="subsample each sentence split to at most N (reproducibly)")
    p.add_argument("--folds", type=int, default=None,
                   help=f"CV folds for MR/CR/SUBJ (default {DEFAULT_FOLDS}, {QUICK_FOLDS} "
                        "with --quick)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the privatizers, subsamples and CV splits (default 0)")
    p.add_argument("-o", "--output", default="report",
                   help="report folder (default: report/); writes utility.md, utility.json, "
                        "PNGs and index.md")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate utility``: every option and the data folder are checked first."""
    from textdp.evaluate.report import command_line, write_section

    # Validate every argument and the data folder before any work.
    tasks = parse_tasks(args.tasks)
    mechanisms = parse_mechanisms(args.mechanism)
    epsilons = epsilon_grid(mechanisms, args.epsilon)
    check_data(args.data, tasks)
    sizes: list[dict[str, Any]] = []

    def log(line: str) -> None:
        print(line, flush=True)

    start, cpu_start = time.perf_counter(), time.process_time()
    rows = evaluate_utility(mechanisms, epsilons, data_dir=args.data, table=args.table,
                            tasks=tasks, quick=args.quick, seed=args.seed, limit=args.limit,
                            folds=args.folds, log=log, sizes_out=sizes)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    figures = plot_report(rows, args.output)
    notes = [f"Run time: {seconds:.0f} s wall clock, {cpu_seconds:.0f} s CPU of this process "
             f"({os.cpu_count()} CPUs visible; other jobs on the machine lengthen the wall "
             "clock)."]
    md = write_section(args.output, "utility", title="Utility", command=command_line(),
                       body_markdown=report_body(rows, sizes, notes), figures=figures,
                       data={"rows": rows, "sizes": sizes, "seconds": seconds,
                             "quick": bool(args.quick), "seed": args.seed,
                             "table": str(args.table)})
    print(f"utility: wrote {md} and {len(figures)} figures")
    return 0
