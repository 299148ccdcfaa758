"""Throughput and format check of ``textdp.spark.privatize_column`` (local Spark).

    python bench/spark.py [--rows 10000] [--repeats 2] [--partitions 2] [--master local[2]]
                          [--baseline-rows 2000] [--check-rows 400] [--detector spacy]

Throughput: ``--rows`` CoNLL-2003 dev sentences (``../shared/data/conll2003/eng.testa``, tokens
joined by single spaces, cycled: 3,250 distinct sentences) in a Spark DataFrame ``id, text``
with ``--partitions`` partitions, privatized with the embedded defaults (mlaplace at the
default ε, en_core_web_md vectors) and ``--detector`` (default ``"spacy"``: the embedded
spaCy NER finds PERSON), with ``report_columns=True`` (the HF output format). Each run is a
full computation written to Spark's ``noop`` sink (nothing is collected). The first run is
cold: it includes starting the Python workers and loading the models in each; the timed runs
after it reuse the workers (``spark.python.worker.reuse``) and the privatizer cached in each.
Interleaved with every timed run, the core :class:`textdp.privatizer.Privatizer` privatizes
``--baseline-rows`` of the same rows in this (driver) process: the single-process rate on the
same machine at the same moment.

Format check: the first ``--check-rows`` rows go through ``privatize_column`` and
``datasets.Dataset.map(hf_textdp.Privatizer(report_columns=True))``. Printed: column names and
Arrow types equal, replaced-token counts equal (the detector is deterministic), row order and
the ``id`` column kept, the share of gold PER words replaced and of other words kept.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    machine_info,
    print_machine,
    read_conll,
    time_once,
    write_results,
)


def cycled_sentences(count: int) -> list[Any]:
    """``count`` dev sentences, cycling through the 3,250 of eng.testa."""
    return list(itertools.islice(itertools.cycle(read_conll("dev")), count))


def start_spark(master: str) -> Any:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(master).appName("textdp-bench")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.driver.memory", "2g")
             .config("spark.python.worker.reuse", "true")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def measure_throughput(spark: Any, args: argparse.Namespace) -> dict[str, Any]:
    from textdp.privatizer import Privatizer
    from textdp.spark import privatize_column

    sentences = cycled_sentences(args.rows)
    n_tokens = sum(len(s.tokens) for s in sentences)
    texts = [s.text for s in sentences]
    df = spark.createDataFrame(list(enumerate(texts)), "id long, text string") \
        .repartition(args.partitions).cache()
    df.count()  # materialise the input so the runs time privatization only

    def run() -> None:
        out = privatize_column(df, "text", report_columns=True, detector=args.detector)
        out.write.format("noop").mode("overwrite").save()

    cold_s, _ = time_once(run)
    print(f"cold run (worker start + model load in each worker + {args.rows} rows): "
          f"{cold_s:.1f} s", flush=True)

    baseline = Privatizer(device="cpu", detector=args.detector)
    base_texts = texts[: args.baseline_rows]
    load_s, _ = time_once(lambda: baseline.privatize(base_texts[:2]))
    spark_s: list[float] = []
    base_s: list[float] = []
    for r in range(args.repeats):
        seconds, _ = time_once(run)
        spark_s.append(seconds)
        print(f"  repeat {r + 1}/{args.repeats} spark: {seconds:.1f} s", flush=True)
        seconds, _ = time_once(lambda: baseline.privatize(base_texts))
        base_s.append(seconds)
        print(f"  repeat {r + 1}/{args.repeats} core, one process: {seconds:.1f} s", flush=True)
    df.unpersist()

    median = statistics.median(spark_s)
    base_median = statistics.median(base_s)
    base_tokens = sum(len(s.tokens) for s in sentences[: args.baseline_rows])
    figures = {
        "rows": args.rows, "tokens": n_tokens, "partitions": args.partitions,
        "master": args.master, "cold_s": round(cold_s, 2),
        "cold_rows_per_s": round(args.rows / cold_s, 1),
        "warm_s": [round(s, 2) for s in spark_s], "warm_median_s": round(median, 2),
        "warm_rows_per_s": round(args.rows / median, 1),
        "warm_tokens_per_s": round(n_tokens / median, 1),
        "core_one_process": {"rows": len(base_texts), "load_s": round(load_s, 2),
                             "seconds": [round(s, 2) for s in base_s],
                             "rows_per_s": round(len(base_texts) / base_median, 1),
                             "tokens_per_s": round(base_tokens / base_median, 1)},
    }
    print(f"\nthroughput: {args.rows} rows ({n_tokens} tokens), {args.partitions} partitions, "
          f"{args.master}")
    print(f"{'run':<34} {'median s':>9} {'rows/s':>8} {'tokens/s':>9}")
    print(f"{'spark, cold (incl. model loads)':<34} {cold_s:>9.1f} "
          f"{args.rows / cold_s:>8.0f} {n_tokens / cold_s:>9.0f}")
    print(f"{'spark, warm workers':<34} {median:>9.1f} {args.rows / median:>8.0f} "
          f"{n_tokens / median:>9.0f}")
    core = figures["core_one_process"]
    print(f"{f'core, one process ({len(base_texts)} rows)':<34} {base_median:>9.1f} "
          f"{core['rows_per_s']:>8.0f} {core['tokens_per_s']:>9.0f}")
    return figures


def format_check(spark: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Spark output against ``hf_textdp.Privatizer(report_columns=True)`` on the same rows."""
    from pyspark.sql.pandas.types import to_arrow_schema

    from textdp.spark import privatize_column

    sentences = read_conll("dev")[: args.check_rows]
    rows = [(i, s.text) for i, s in enumerate(sentences)]
    df = spark.createDataFrame(rows, "id long, text string").repartition(args.partitions)
    before = df.collect()
    out_df = privatize_column(df, "text", report_columns=True, detector=args.detector)
    out = out_df.collect()
    spark_schema = to_arrow_schema(out_df.schema)
    figures: dict[str, Any] = {
        "rows": len(out), "row_count_kept": len(out) == len(before),
        "order_and_ids_kept": [r.id for r in out] == [r.id for r in before],
        "columns": out_df.columns,
        "arrow_types": {f.name: str(f.type) for f in spark_schema},
    }
    try:
        import datasets
    except ImportError:
        figures["hf"] = "datasets not installed: HF comparison skipped"
        print(f"\nformat check: {figures}")
        return figures
    from hf_textdp import Privatizer as HFPrivatizer

    datasets.disable_progress_bars()
    by_id = {r.id: r for r in before}
    ds = datasets.Dataset.from_dict({"id": [r.id for r in before],
                                     "text": [r.text for r in before]})
    hf_privatizer = HFPrivatizer(report_columns=True, device="cpu", detector=args.detector)
    hf = ds.map(hf_privatizer, batched=True, load_from_cache_file=False)
    hf_schema = hf.data.schema.remove_metadata()
    figures["same_columns_as_hf"] = out_df.columns == hf.column_names
    figures["same_arrow_types_as_hf"] = [f.type for f in spark_schema] == \
        [f.type for f in hf_schema]
    figures["same_tokens_replaced_as_hf"] = \
        [r.dp_tokens_replaced for r in out] == hf["dp_tokens_replaced"]
    figures["same_epsilon_as_hf"] = all(
        abs(a.dp_epsilon - b) < 1e-9 for a, b in zip(out, hf["dp_epsilon"]))
    gold = gold_changed = other = other_kept = 0
    for r in out:
        s = sentences[r.id]
        new = r.text.split(" ")
        if len(new) != len(s.tokens) or by_id[r.id].text != s.text:
            raise AssertionError("output words do not align with input words")
        for old, word, tag in zip(s.tokens, new, s.ner):
            if tag.endswith("PER"):
                gold += 1
                gold_changed += old != word
            else:
                other += 1
                other_kept += old == word
    figures["gold_per_replaced"] = round(gold_changed / max(gold, 1), 4)
    figures["other_kept"] = round(other_kept / max(other, 1), 4)
    print(f"\nformat check: {len(out)} dev rows, {args.partitions} partitions")
    for key in ("row_count_kept", "order_and_ids_kept", "same_columns_as_hf",
                "same_arrow_types_as_hf", "same_tokens_replaced_as_hf", "same_epsilon_as_hf"):
        print(f"  {key:<28} {'yes' if figures[key] else 'NO'}")
    print(f"  {'columns, Arrow types':<28} {figures['arrow_types']}")
    print(f"  {'gold PER words replaced':<28} {100 * figures['gold_per_replaced']:.1f} % "
          f"({gold} words; detector recall included)")
    print(f"  {'other words kept':<28} {100 * figures['other_kept']:.1f} % ({other} words)")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="rows for throughput")
    parser.add_argument("--repeats", type=int, default=2, help="timed warm runs")
    parser.add_argument("--partitions", type=int, default=2, help="DataFrame partitions")
    parser.add_argument("--master", default="local[2]", help="Spark master")
    parser.add_argument("--baseline-rows", type=int, default=2000,
                        help="rows for the one-process core baseline")
    parser.add_argument("--detector", default="spacy",
                        help="detector setting (default: the embedded spaCy NER)")
    parser.add_argument("--check-rows", type=int, default=400, help="rows for the check")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=r".*\[W095\]")
    warnings.filterwarnings("ignore", message=r".*pandas >= 3.0.0", category=FutureWarning)
    info = machine_info(("textdp", "torch", "numpy", "spacy", "pyspark", "pandas", "pyarrow"))
    print_machine(info)
    start = time.perf_counter()
    spark = start_spark(args.master)
    session_s = time.perf_counter() - start
    print(f"SparkSession start: {session_s:.1f} s (not in the figures)", flush=True)
    try:
        results = {"machine": info, "session_start_s": round(session_s, 2),
                   "throughput": measure_throughput(spark, args),
                   "check": format_check(spark, args)}
    finally:
        spark.stop()
    results["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    path = write_results("spark", args.master, results)
    print(f"\nresults: {path}")
    check = results["check"]
    ok = all(check.get(k, True) for k in ("row_count_kept", "order_and_ids_kept",
                                          "same_columns_as_hf", "same_arrow_types_as_hf",
                                          "same_tokens_replaced_as_hf"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
