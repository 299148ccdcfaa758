"""The benchmark suite in one command: ``python -m bench`` (or ``textdp bench``).

    python -m bench                    # every benchmark, default sizes (~20–30 min on 2 cores)
    python -m bench --quick            # smaller inputs, one repeat less (~10 min)
    python -m bench --only static,mechanisms --device cuda

Runs each benchmark as its own process (so each one's peak memory is its own: the suite reads
it from ``os.wait4``), streams its printout, then prints one summary table of the headline
figures with the ratios each benchmark measured against its baseline in the same run, and writes
everything to ``bench/results/suite.json``. The per-benchmark JSON files stay in
``bench/results/``. Machine, load and versions are printed first.

Benchmarks (see each file's docstring for what exactly is timed):

========== ================================================================================
static     all-token ``mlaplace`` on the default table and on MLDP's GloVe table, against
           the research notebook's per-word Annoy loop (also at matched decode fidelity)
mechanisms mlaplace, mahalanobis, projection, vickrey, tem on both tables, against MLDP's
           own implementation of the same mechanism on the same table and ε
spacy      names-only ``dp_privatizer`` overhead on the embedded spaCy pipeline
hf_map     ``dataset.map(privatize, batched=True)`` throughput, num_proc 1 and 2
contextual contextual substitution against a per-token notebook-style loop
spark      ``textdp.spark.privatize_column`` in local mode (opt-in: ``--only ...,spark``)
========== ================================================================================
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import REPO_ROOT, RESULTS_DIR, machine_info, print_machine

DEFAULT_ORDER = ("static", "mechanisms", "spacy", "hf_map", "contextual")
OPTIONAL = ("spark",)


def _static(quick: bool, device: str) -> list[list[str]]:
    extra = ["--min-tokens", "30000", "--repeats", "2"] if quick else []
    return [["bench/static.py", "--table", t, "--device", device, *extra]
            for t in ("default", "glove")]


def _mechanisms(quick: bool, device: str) -> list[list[str]]:
    extra = ["--min-tokens", "10000", "--mldp-words", "50", "--repeats", "2"] if quick else []
    return [["bench/mechanisms.py", "--device", device, *extra]]


def _spacy(quick: bool, device: str) -> list[list[str]]:
    return [["bench/spacy_overhead.py", *(["--sentences", "500", "--repeats", "3"]
                                          if quick else ["--repeats", "5"])]]


def _hf_map(quick: bool, device: str) -> list[list[str]]:
    return [["bench/hf_map.py", *(["--rows", "1000", "--check-rows", "200"] if quick else [])]]


def _contextual(quick: bool, device: str) -> list[list[str]]:
    quick_args = ["--min-tokens", "5000", "--baseline-tokens", "100", "--repeats", "2"]
    return [["bench/contextual.py", "--only", "speed", "--device", device,
             *(quick_args if quick else [])]]


def _spark(quick: bool, device: str) -> list[list[str]]:
    return [["bench/spark.py", *(["--rows", "2000", "--baseline-rows", "500"] if quick else [])]]


COMMANDS: dict[str, Callable[[bool, str], list[list[str]]]] = {
    "static": _static, "mechanisms": _mechanisms, "spacy": _spacy, "hf_map": _hf_map,
    "contextual": _contextual, "spark": _spark}


def run(argv: list[str]) -> dict[str, Any]:
    """Run one benchmark script in a child process; its wall time and peak RSS."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *argv], cwd=REPO_ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"command": "python " + " ".join(argv), "exit": proc.returncode,
            "wall_s": round(time.perf_counter() - start, 1),
            # ru_maxrss is in KiB on Linux
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1)}


def _load(name: str) -> dict[str, Any]:
    path = RESULTS_DIR / f"{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def _speed_rows(label: str, tokens_per_s: dict[str, float]) -> list[tuple[str, str]]:
    """Substitution-stage and end-to-end tokens/s, as written by time_privatizer's callers."""
    return [(f"{label}: substitution tokens/s", f"{tokens_per_s['substitution']:,.0f}"),
            (f"{label}: end to end tokens/s", f"{tokens_per_s['end_to_end']:,.0f}")]


def headline(name: str, argv: list[str]) -> list[tuple[str, str]]:
    """(figure, value) pairs read back from the benchmark's JSON results."""
    rows: list[tuple[str, str]] = []
    if name == "static":
        table = argv[argv.index("--table") + 1]
        r = _load("static").get(table, {})
        if r:
            rows += _speed_rows(f"static mlaplace, {table} table", r["tokens_per_s"])
            rows += [(f"  vs per-word Annoy loop (default search_k, agreement "
                      f"{r['annoy_agreement_with_exact']:.2f})",
                      f"{r['ratio_substitution_over_baseline']:.1f}×")]
            m = r.get("baseline_matched_fidelity") or {}
            if m:
                rows.append((f"  vs Annoy loop at matched fidelity (search_k {m['search_k']:,},"
                             f" agreement {m['agreement_with_exact']:.2f})", f"{m['ratio']:,.0f}×"))
    elif name == "mechanisms":
        for key, r in _load("mechanisms").items():
            for table, t in r.get("tables", {}).items():
                for row in t["rows"]:
                    ratio = f", {row['ratio']:,.0f}× MLDP" if "ratio" in row else \
                        (", MLDP failed" if "mldp_error" in row else "")
                    rows.append((f"{row['mechanism']}, {table} table ({key}): word tokens/s",
                                 f"{row['textdp_word_tokens_per_s']:,.0f}{ratio}"))
    elif name == "spacy":
        sentences = argv[argv.index("--sentences") + 1] if "--sentences" in argv else "2000"
        key = f"{sentences}x256"
        r = _load("spacy_overhead").get(key)
        if r:
            rows.append((f"names-only dp_privatizer overhead on the spaCy pipeline "
                         f"({sentences} CoNLL dev sentences)", f"{r['overhead_percent']:+.1f} %"))
    elif name == "hf_map":
        t = _load("hf_map").get("default", {}).get("throughput", {})
        for k in ("num_proc=1", "num_proc=2"):
            if k in t:
                rows.append((f"dataset.map(privatize) {k}: tokens/s",
                             f"{t[k]['tokens_per_s']:,.0f}"))
    elif name == "spark":
        t = _load("spark").get("local[2]", {}).get("throughput", {})
        if t:
            rows.append(("Spark privatize_column local[2]: rows/s (warm)",
                         f"{t['warm_rows_per_s']:,.0f}"))
    elif name == "contextual":
        device = argv[argv.index("--device") + 1]
        speed = _load("contextual").get(f"{device}:speed", {}).get("speed", {})
        if speed:
            rows += _speed_rows(f"contextual mlaplace ({device})", speed["tokens_per_s"])
            rows += [("  vs per-word notebook loop (one forward pass + one query per word)",
                      f"{speed['ratio_substitution_over_baseline']:,.0f}×")]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=None,
                        help=f"comma-separated subset of {list(COMMANDS)} (default: "
                             f"{', '.join(DEFAULT_ORDER)})")
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (where supported)")
    args = parser.parse_args(argv)
    names = DEFAULT_ORDER if args.only is None else \
        tuple(n.strip() for n in args.only.split(",") if n.strip())
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        parser.error(f"--only: unknown {unknown}; choose from {list(COMMANDS)}")

    info = machine_info()
    print_machine(info)
    runs: list[dict[str, Any]] = []
    summary: list[tuple[str, str]] = []
    for name in names:
        for command in COMMANDS[name](args.quick, args.device):
            print(f"\n=== {name}: python {' '.join(command)}", flush=True)
            result = run(command)
            runs.append({"benchmark": name, **result})
            if result["exit"] != 0:
                summary.append((f"{name}: FAILED (exit {result['exit']})", result["command"]))
                continue
            summary += headline(name, command)
            summary.append((f"  peak memory of `{' '.join(command[:3])}`",
                            f"{result['peak_rss_mib']:,.0f} MiB"))

    width = max((len(k) for k, _ in summary), default=10)
    print("\n=== summary (medians; ratios measured against each baseline in the same run)")
    for key, value in summary:
        print(f"{key:<{width}}  {value}")
    print(f"load average now {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / "suite.json"
    out.write_text(json.dumps({"machine": info, "quick": args.quick, "device": args.device,
                               "runs": runs, "summary": summary}, indent=2) + "\n",
                   encoding="utf-8")
    print(f"results: {out}")
    return 1 if any(r["exit"] != 0 for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
