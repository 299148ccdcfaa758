"""Overhead of the names-only ``dp_privatizer`` on the embedded default spaCy pipeline.

    python bench/spacy_overhead.py [--sentences 2000] [--repeats 5] [--batch-size 256]
                                   [--detector ents]

Times ``nlp.pipe`` over the first 2,000 CoNLL-2003 dev sentences (``../shared/data/conll2003/
eng.testa``) with the embedded pipeline alone and with ``dp_privatizer`` (default config:
PERSON targets, mlaplace, the pipeline's own vectors) after ``ner``. Both run in one process,
interleaved round-robin (so load from other jobs hits both), after a warm-up run (the
privatizer's table and neighbour index are built once per process, not per call). Also times
the component alone on the already annotated docs. Prints the medians, the overhead in percent
of the medians and the median of the per-repeat ratios; the target is ≤ 10 %.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import warnings
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine_info, print_machine, read_conll, time_interleaved, write_results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=2000, help="CoNLL dev sentences")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each")
    parser.add_argument("--batch-size", type=int, default=256, help="nlp.pipe batch size")
    parser.add_argument("--detector", default=None,
                        help="the component's detector (default: the ensemble, united with "
                             "the ner's entities; 'ents': the ner's entities alone)")
    args = parser.parse_args(argv)

    from textdp.defaults import fresh_pipeline

    texts = [s.text for s in read_conll("dev")[: args.sentences]]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        nlp = fresh_pipeline()
    nlp.add_pipe("dp_privatizer", config={"detector": args.detector})
    baseline = [name for name in nlp.pipe_names if name != "dp_privatizer"]

    def without_dp() -> int:
        with nlp.select_pipes(enable=baseline):
            return sum(len(d) for d in nlp.pipe(texts, batch_size=args.batch_size))

    def with_dp() -> int:
        return sum(d._.dp["tokens_replaced"] for d in
                   nlp.pipe(texts, batch_size=args.batch_size))

    component = nlp.get_pipe("dp_privatizer")
    with nlp.select_pipes(enable=baseline):
        annotated = list(nlp.pipe(texts, batch_size=args.batch_size))

    def dp_alone() -> int:  # the component on already annotated docs (it never mutates them)
        return sum(d._.dp["tokens_replaced"] for d in
                   component.pipe(annotated, batch_size=args.batch_size))

    info = machine_info()
    print_machine(info)
    tokens = sum(len(d) for d in annotated)
    replaced = with_dp()  # also the warm-up of the privatizer (table + index)
    print(f"{len(texts)} sentences, {tokens} tokens, {replaced} person tokens replaced "
          f"per run; pipeline: {', '.join(nlp.pipe_names)}")
    timings = time_interleaved({"pipeline": without_dp, "pipeline+dp_privatizer": with_dp,
                                "dp_privatizer alone": dp_alone},
                               repeats=args.repeats, warmup=False,
                               log=lambda line: print(line, flush=True))
    base = timings["pipeline"].median
    full = timings["pipeline+dp_privatizer"].median
    alone = timings["dp_privatizer alone"].median
    overhead = 100.0 * (full - base) / base
    # Each repeat times both back to back, so their ratio is robust to load between repeats.
    paired = 100.0 * (statistics.median(
        f / b for f, b in zip(timings["pipeline+dp_privatizer"].seconds,
                              timings["pipeline"].seconds)) - 1.0)
    print(f"pipeline alone:              {base:.3f} s (median of {args.repeats})")
    print(f"pipeline + dp_privatizer:    {full:.3f} s (median of {args.repeats})")
    print(f"dp_privatizer alone:         {alone:.3f} s (median of {args.repeats}, on the "
          f"annotated docs) = {100.0 * alone / base:.1f} % of the pipeline")
    print(f"overhead of dp_privatizer:   {overhead:+.1f} % of medians, {paired:+.1f} % median "
          f"of paired repeats (target ≤ 10 %)")
    write_results("spacy_overhead", f"{args.sentences}x{args.batch_size}", {
        "sentences": len(texts), "tokens": tokens, "replaced_per_run": replaced,
        "pipeline": timings["pipeline"].as_dict(len(texts)),
        "pipeline+dp_privatizer": timings["pipeline+dp_privatizer"].as_dict(len(texts)),
        "dp_privatizer_alone": timings["dp_privatizer alone"].as_dict(len(texts)),
        "overhead_percent": round(overhead, 2), "overhead_paired_percent": round(paired, 2),
        "alone_percent": round(100.0 * alone / base, 2), "machine": info,
    })
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
