"""``textdp evaluate privacy``: plausible deniability (N_w, S_w), distance geometry, recovery
skewness and name leak of mechanisms over ε, with plots (:mod:`textdp.evaluate.privacy`).

    textdp evaluate privacy --mechanism mlaplace,mahalanobis,nadp --epsilon 0.5,1,2,5 \\
        [--epsilon nadp:20,50,100] [--table default|FILE] [--data ../shared/data] \\
        [--quick] [--seed 0] -o report/
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from textdp.cli.args import add_epsilon_grid_argument, comma_list
from textdp.evaluate.privacy import (
    CONLL_DEV,
    DEFAULT_EPSILONS,
    DEFAULT_MECHANISMS,
    FULL_DRAWS,
    FULL_WORDS,
    QUICK_DRAWS,
    QUICK_SENTENCES,
    QUICK_WORDS,
    epsilon_grid,
    evaluate_privacy,
    plot_report,
    report_body,
)


def add_parser(sub: Any) -> None:
    """``textdp evaluate privacy`` (``sub``: the ``evaluate`` command's subparsers)."""
    p = sub.add_parser(
        "privacy", help="plausible deniability (N_w, S_w), distance geometry, recovery "
                        "skewness and name leak of mechanisms over ε, with plots")
    p.add_argument("--mechanism", default=",".join(DEFAULT_MECHANISMS),
                   help="comma-separated registered mechanisms (default: %(default)s)")
    add_epsilon_grid_argument(p, DEFAULT_EPSILONS)
    p.add_argument("--table", default="default",
                   help="'default' (the embedded vectors) or a word2vec/GloVe/fastText file")
    p.add_argument("--data", default=os.path.join("..", "shared", "data"),
                   help="folder laid out like ../shared/data; its conll2003/eng.testa gives "
                        "the name-leak rate (skipped with a note when absent)")
    p.add_argument("--n-words", type=int, default=None,
                   help=f"words sampled (default {FULL_WORDS}, {QUICK_WORDS} with --quick)")
    p.add_argument("--n-draws", type=int, default=None,
                   help=f"draws per word (default {FULL_DRAWS}, {QUICK_DRAWS} with --quick)")
    p.add_argument("--sentences", type=int, default=None,
                   help=f"CoNLL sentences for the name leak (default all, {QUICK_SENTENCES} "
                        "with --quick)")
    p.add_argument("--quick", action="store_true", help="small samples (about a minute)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample and every draw")
    p.add_argument("-o", "--output", default="report",
                   help="report folder (default: report/); writes privacy.md, privacy.json, "
                        "PNGs and index.md")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp evaluate privacy``: the mechanisms and the ε grid are checked first."""
    from textdp.evaluate.report import command_line, write_section

    mechanisms = comma_list(args.mechanism)
    grid = epsilon_grid(mechanisms, args.epsilon)  # validated before any work
    conll = Path(args.data) / CONLL_DEV
    notes = []
    if not conll.is_file():
        notes.append(f"Name leak not measured: `{conll}` does not exist (pass --data).")

    def log(line: str) -> None:
        print(line, flush=True)

    start = time.perf_counter()
    evaluation = evaluate_privacy(
        mechanisms, grid, table=args.table, n_words=args.n_words, n_draws=args.n_draws,
        quick=args.quick, seed=args.seed, conll=conll if conll.is_file() else None,
        sentences=args.sentences, log=log)
    seconds = time.perf_counter() - start
    figures = plot_report(evaluation, args.output)
    notes.append(f"Run time: {seconds:.0f} s (wall clock, {os.cpu_count()} CPUs visible).")
    md = write_section(args.output, "privacy", title="Privacy", command=command_line(),
                       body_markdown=report_body(evaluation, notes), figures=figures,
                       data={**evaluation.to_json(), "seconds": seconds})
    print(f"privacy: wrote {md} and {len(figures)} figures")
    return 0
