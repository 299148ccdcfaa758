"""``textdp release-table``: write a noisy copy of an embedding table (word2vec text).

    textdp release-table --mechanism nadp --epsilon 25 [--table default|FILE] -o noisy.vec

Which mechanisms can release a table, and what each released row guarantees, is in
:mod:`textdp.release`; the mechanism is checked before the table is loaded.
"""

from __future__ import annotations

import argparse
from typing import Any

from textdp.cli.args import mechanism_arg
from textdp.cli.settings import add_setting_arguments
from textdp.files import atomic_output
from textdp.mechanisms import create_mechanism
from textdp.release import check_releasable, release_table, write_word2vec

#: The privatizer settings ``textdp release-table`` takes as ``privatize`` does
#: (textdp.cli.settings); its ``--mechanism`` defaults to nadp and ``--precision`` is the
#: digits written, not the encoder's precision.
SETTINGS = ("clip_norm", "seed")


def add_parser(sub: Any) -> None:
    """``textdp release-table`` (``sub``: the top-level subparsers)."""
    p = sub.add_parser("release-table",
                       help="write a noisy copy of an embedding table (word2vec text)")
    p.add_argument("--mechanism", type=mechanism_arg, default="nadp",
                   help='nadp (default), gaussian, mlaplace, mahalanobis, or JSON like '
                        '{"name": "nadp", "tau": 0.3}')
    p.add_argument("--epsilon", type=float, required=True, help="ε of the mechanism")
    p.add_argument("--table", default="default",
                   help="'default' (the embedded vectors) or a word2vec/GloVe/fastText file")
    add_setting_arguments(p, SETTINGS)  # as `privatize` offers them
    p.add_argument("--precision", type=int, default=6, help="significant digits per value")
    p.add_argument("-o", "--output", required=True, help="output file (word2vec text)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp release-table``: the mechanism and precision are checked before the table
    is read."""
    if not 1 <= args.precision <= 9:
        raise ValueError(f"precision must be between 1 and 9, got {args.precision}")
    check_releasable(create_mechanism(args.mechanism, args.epsilon))  # before loading the table
    words, noisy = release_table(args.mechanism, args.epsilon, args.table,
                                 clip_norm=args.clip_norm, seed=args.seed)
    with atomic_output(args.output) as out:
        write_word2vec(out, words, noisy, args.precision)
    if args.output != "-":
        print(f"release-table: wrote {len(words):,} noisy vectors ({noisy.shape[1]} d) to "
              f"{args.output}")
    return 0
