"""Throughput and release check of ``ds.map(privatize, batched=True)`` (Hugging Face datasets).

    python bench/hf_map.py [--rows 5000] [--repeats 2] [--check-rows 400]

Throughput: 5,000 CoNLL-2003 sentences (all 3,250 of dev, ``../shared/data/conll2003/eng.testa``,
then the first train sentences of ``eng.train``; tokens joined by single spaces) in a
``datasets.Dataset`` with an ``id`` column, mapped with the ready-made ``hf_textdp.privatize``
(embedded defaults: spaCy NER finds PERSON, mlaplace at the default ε, en_core_web_md vectors)
at ``num_proc`` 1 and 2, interleaved, median of ``--repeats`` runs after one warm-up each.
``num_proc=2`` includes starting the two workers; the start-up alone (a 2-row map) is timed too,
so the table also gives the rate without it. Tokens are CoNLL tokens.

Check ("done when"): the first 400 dev sentences with a gold PER token go through
``ds.map(privatize, batched=True)`` and ``ds.map(Privatizer(epsilon=0.5), batched=True,
num_proc=2)``. Printed per run: whether row order and the other columns (``tokens``, ``ner``)
are unchanged, the share of the detector's PERSON tokens that were replaced, the share of gold
PER tokens replaced (detector recall included), and the share of the other words (gold non-PER)
kept (target ≥ 95 %). Output words align one-to-one with the input words because substitutes
are single words and whitespace is kept.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine_info, print_machine, read_conll, time_interleaved, write_results


def throughput_rows(count: int) -> list[Any]:
    """All dev sentences, then train sentences until ``count`` (no sentence repeated)."""
    rows = read_conll("dev")
    if len(rows) < count:
        rows += read_conll("train")[: count - len(rows)]
    return rows[:count]


def measure_throughput(args: argparse.Namespace) -> dict[str, Any]:
    from datasets import Dataset

    from hf_textdp import privatize

    sentences = throughput_rows(args.rows)
    n_tokens = sum(len(s.tokens) for s in sentences)
    ds = Dataset.from_dict({"id": list(range(len(sentences))),
                            "text": [s.text for s in sentences]})
    tiny = ds.select(range(2))

    def run(n_proc: int, data: Any = ds) -> Any:
        return data.map(privatize, batched=True, num_proc=n_proc if n_proc > 1 else None,
                        load_from_cache_file=False)

    start = time.perf_counter()
    privatize({"text": [ds[0]["text"]]})  # load models in this process
    load_s = time.perf_counter() - start
    timings = time_interleaved(
        {"num_proc=1": lambda: run(1), "num_proc=2": lambda: run(2),
         "start-up num_proc=2": lambda: run(2, tiny)},
        repeats=args.repeats, log=lambda m: print(m, flush=True))
    startup = timings["start-up num_proc=2"].median
    print(f"\nthroughput: {len(sentences)} sentences, {n_tokens} tokens; model load in the "
          f"main process {load_s:.1f} s (not in the figures)")
    print(f"{'run':<12} {'median s':>9} {'rows/s':>8} {'tokens/s':>9} {'start-up s':>11} "
          f"{'rows/s w/o start-up':>20}")
    out: dict[str, Any] = {"rows": len(sentences), "tokens": n_tokens, "load_s": load_s}
    for name in ("num_proc=1", "num_proc=2"):
        t = timings[name]
        fixed = startup if name == "num_proc=2" else 0.0
        net = len(sentences) / max(t.median - fixed, 1e-9)
        print(f"{name:<12} {t.median:>9.2f} {t.rate(len(sentences)):>8.0f} "
              f"{t.rate(n_tokens):>9.0f} {fixed:>11.2f} {net:>20.0f}")
        out[name] = {**t.as_dict(len(sentences)), "tokens_per_s": round(t.rate(n_tokens), 1),
                     "startup_s": round(fixed, 3)}
    return out


def release_check(args: argparse.Namespace) -> dict[str, Any]:
    from datasets import Dataset

    from hf_textdp import Privatizer, privatize
    from textdp.detect import create_detector

    sentences = [s for s in read_conll("dev") if any(t.endswith("PER") for t in s.ner)]
    sentences = sentences[: args.check_rows]
    ds = Dataset.from_dict({
        "id": list(range(len(sentences))), "text": [s.text for s in sentences],
        "tokens": [list(s.tokens) for s in sentences], "ner": [list(s.ner) for s in sentences],
    })
    detected = detected_words(sentences, privatize.core.nlp, create_detector(None))
    runs = {
        "privatize": lambda: ds.map(privatize, batched=True, load_from_cache_file=False),
        "Privatizer(epsilon=0.5), num_proc=2": lambda: ds.map(
            Privatizer(epsilon=0.5), batched=True, num_proc=2, load_from_cache_file=False),
    }
    print(f"\nrelease check: {len(sentences)} dev sentences with a gold PER token, "
          f"{sum(len(d) for d in detected)} detected PERSON words, "
          f"{sum(t.endswith('PER') for s in sentences for t in s.ner)} gold PER words")
    print(f"{'run':<38} {'order':>5} {'cols':>5} {'detected repl.':>15} {'gold PER repl.':>15} "
          f"{'other kept':>11} {'undetected kept':>16}")
    results: dict[str, Any] = {}
    for name, fn in runs.items():
        out = fn()
        figures = compare(ds, out, sentences, detected)
        results[name] = figures
        ok = figures["other_kept"] >= 0.95
        print(f"{name:<38} {yes(figures['order_kept']):>5} {yes(figures['columns_kept']):>5} "
              f"{pct(figures['detected_replaced']):>15} {pct(figures['gold_per_replaced']):>15} "
              f"{pct(figures['other_kept']):>11} {pct(figures['undetected_kept']):>16}"
              f"{'' if ok else '  < 95 %'}")
    return results


def detected_words(sentences: list[Any], nlp: Any, detector: Any) -> list[set[int]]:
    """Per sentence: indices of the CoNLL words holding a token the detector marks PERSON."""
    from textdp.privatizer import is_word

    docs = list(nlp.tokenizer.pipe(s.text for s in sentences))
    out = []
    for s, doc, spans in zip(sentences, docs, detector(docs)):
        starts, pos = [], 0
        for tok in s.tokens:  # character offset of each word in the space-joined text
            starts.append(pos)
            pos += len(tok) + 1
        words: set[int] = set()
        for start, end, label in spans:
            if label != "PERSON":
                continue
            for t in doc[start:end]:
                if is_word(t.text):
                    words.add(max(i for i, c in enumerate(starts) if c <= t.idx))
        out.append(words)
    return out


def compare(ds: Any, out: Any, sentences: list[Any], detected: list[set[int]]
            ) -> dict[str, Any]:
    counts = dict.fromkeys(("det", "det_changed", "gold", "gold_changed", "other",
                            "other_kept", "undet", "undet_kept"), 0)
    for s, new_text, det in zip(sentences, out["text"], detected):
        new = new_text.split(" ")
        if len(new) != len(s.tokens):
            raise AssertionError("output words do not align with input words")
        for i, (old, word, tag) in enumerate(zip(s.tokens, new, s.ner)):
            same = old == word
            if i in det:
                counts["det"] += 1
                counts["det_changed"] += not same
            else:
                counts["undet"] += 1
                counts["undet_kept"] += same
            if tag.endswith("PER"):
                counts["gold"] += 1
                counts["gold_changed"] += not same
            else:
                counts["other"] += 1
                counts["other_kept"] += same
    return {
        "rows": len(out),
        "order_kept": out["id"] == ds["id"],
        "columns_kept": out["tokens"] == ds["tokens"] and out["ner"] == ds["ner"]
        and out.column_names == ds.column_names,
        "detected_replaced": counts["det_changed"] / max(counts["det"], 1),
        "gold_per_replaced": counts["gold_changed"] / max(counts["gold"], 1),
        "other_kept": counts["other_kept"] / max(counts["other"], 1),
        "undetected_kept": counts["undet_kept"] / max(counts["undet"], 1),
        "counts": counts,
    }


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def yes(x: bool) -> str:
    return "yes" if x else "NO"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000, help="sentences for throughput")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of each")
    parser.add_argument("--check-rows", type=int, default=400, help="sentences for the check")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=r".*\[W095\]")
    import datasets

    datasets.disable_progress_bars()
    info = machine_info(("textdp", "torch", "numpy", "spacy", "datasets", "transformers"))
    print_machine(info)
    results = {"machine": info, "throughput": measure_throughput(args),
               "check": release_check(args)}
    path = write_results("hf_map", "default", results)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
