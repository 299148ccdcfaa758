"""Name detection on CoNLL-2003 dev: PER precision/recall/F1, token recall, speed.

    python bench/detect.py                                   # baseline, parts, default ensemble
    python bench/detect.py --detector trained --detector ensemble --repeats 5
    python bench/detect.py --end-to-end-only --device cuda   # the privatizer on a GPU

End to end: the default names-only ``Privatizer()`` (``privatize(texts)`` on the dev documents
as texts: tokenizer, detector, substitution) against the same privatizer with en_core_web_md's
NER alone (``detector="spacy"``), timed interleaved in the same run; tokens are whitespace
tokens of the texts.

Each detector is scored once (exact PER spans, and PER tokens covered) and timed over the
whole dev set ``--repeats`` times, round-robin with the others (medians; a burst of load from
another job hits every detector alike). Detectors see spaCy docs built from the gold tokens in
the embedded pipeline's vocab, i.e. what the Privatizer hands them after tokenizing; model
loading is not timed. Results also go to bench/results/detect.json.

Data: ``../shared/data/conll2003/eng.testa`` (dev). Never point this at a test set to choose
settings.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    machine_info,
    print_machine,
    shared_data_dir,
    time_interleaved,
    write_results,
)

DETECTORS = ("spacy", "trained", "minilm", "rules", "similarity", "ensemble")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--detector", action="append", default=None,
                        help=f"detector name (repeatable; default: {', '.join(DETECTORS)})")
    parser.add_argument("--data", default=None, help="CoNLL file (default: dev, eng.testa)")
    parser.add_argument("--unit", choices=("document", "sentence"), default="document")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--end-to-end-only", action="store_true",
                        help="only time the default privatizer end to end")
    parser.add_argument("--device", default="cpu", help="torch device of the privatizer")
    args = parser.parse_args(argv)

    from textdp.corpora.conll import read_conll, to_docs, token_count
    from textdp.detect import create_detector
    from textdp.evaluate.detection import DetectionRun, run_detector

    data = args.data or os.fspath(shared_data_dir() / "conll2003" / "eng.testa")
    info = machine_info()
    print_machine(info)
    docs, gold = to_docs(read_conll(data), unit=args.unit)
    tokens = sum(token_count(d) for d in docs)
    print(f"data: {data}: {len(docs)} {args.unit}s, {tokens:,} tokens, "
          f"{sum(1 for g in gold for s in g if s[2] == 'PERSON')} PERSON entities")
    results = {"end_to_end": end_to_end(docs, args)}
    if args.end_to_end_only:
        path = write_results("detect", f"{Path(data).name}:{args.unit}:{args.device}",
                             {"machine": info, **results})
        print(f"\nresults: {path}")
        return 0
    names = args.detector or list(DETECTORS)
    detectors = {}
    for name in names:
        t0 = time.perf_counter()
        detectors[name] = create_detector(None if name == "default" else name)
        detectors[name](docs[:8])  # load models outside the timed runs
        print(f"  loaded {name} in {time.perf_counter() - t0:.1f} s", flush=True)

    runs: dict[str, DetectionRun] = {}
    walls: dict[str, list[float]] = {n: [] for n in names}
    cpus: dict[str, list[float]] = {n: [] for n in names}
    for r in range(args.repeats):
        for name, det in detectors.items():
            run = run_detector(det, docs, gold, name=name, warmup=0,
                               batch_size=args.batch_size)
            runs.setdefault(name, run)  # scores are the same every repeat
            walls[name].append(run.seconds)
            cpus[name].append(run.cpu_seconds)
        print(f"  repeat {r + 1}/{args.repeats} done", flush=True)

    print()
    print(f"{'detector':<16} {'P':>6} {'R':>6} {'F1':>6} {'tokR':>6} {'tokP':>6} "
          f"{'tok/s':>8} {'tok/CPU-s':>9}")
    for name in names:
        s = runs[name].scores
        wall = sorted(walls[name])[len(walls[name]) // 2]
        cpu = sorted(cpus[name])[len(cpus[name]) // 2]
        print(f"{name:<16} {s.precision:6.4f} {s.recall:6.4f} {s.f1:6.4f} "
              f"{s.token_recall:6.4f} {s.token_precision:6.4f} {tokens / wall:8,.0f} "
              f"{tokens / cpu:9,.0f}")
        results.setdefault("detectors", {})[name] = {
            **s.as_dict(), "tokens": tokens, "wall_s": walls[name], "cpu_s": cpus[name],
            "tokens_per_s": tokens / wall, "tokens_per_cpu_s": tokens / cpu}
    path = write_results("detect", f"{Path(data).name}:{args.unit}",
                         {"machine": info, **results})
    print(f"\nresults: {path}")
    return 0


def end_to_end(docs: list, args: argparse.Namespace) -> dict:
    """Tokens per second of the default privatizer and of the md-NER baseline, interleaved."""
    from textdp.privatizer import Privatizer

    texts = [d.text for d in docs]
    tokens = sum(len(t.split()) for t in texts)
    privatizers = {"default": Privatizer(device=args.device),
                   "spacy_ner_only": Privatizer(detector="spacy", device=args.device)}
    timings = time_interleaved({name: (lambda p=p: p.privatize(texts))
                                for name, p in privatizers.items()}, repeats=args.repeats,
                               log=lambda m: print(m, flush=True))
    out = {name: t.as_dict(tokens) for name, t in timings.items()}
    print(f"end to end on {len(texts)} texts, {tokens:,} tokens ({args.device}):")
    for name, t in timings.items():
        print(f"  {name:<16} {t.rate(tokens):9,.0f} tokens/s ({t.cpu_rate(tokens):,.0f} "
              f"tokens/CPU-s)")
    ratio = timings["default"].rate(tokens) / timings["spacy_ner_only"].rate(tokens)
    print(f"  default / md-NER-only privatizer: {ratio:.2f}x")
    out["ratio_default_to_spacy"] = round(ratio, 3)
    return out


if __name__ == "__main__":
    sys.exit(main())
