"""One long text: peak memory and time against its length (the chunked path).

    python bench/longtext.py [--sizes 1,2,5,10] [--detector ensemble]

Each size runs in a fresh process (peak RSS is per process): the default privatizer (names,
ε 0.3) privatizes ONE text of that many megabytes built from CoNLL-2003 dev sentences (names
included) joined by newlines; without ``../shared/data`` a synthetic newswire-like text is
used. Printed per size: seconds, characters per second, peak RSS, and the RSS of the same
process after loading the models on a short text (the baseline the text adds to). Time is
linear in length when characters per second stay flat across sizes.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import read_conll

_SYNTHETIC = ("Angela Merkel met John Smith in Berlin on Tuesday. The talks went well, "
              "said Mary O'Neil, who joined them later.\n")


def build_text(chars: int) -> str:
    """CoNLL dev sentences (or a synthetic line) repeated to ``chars`` characters."""
    try:
        lines = [s.text for s in read_conll("dev")]
        base = "\n".join(lines) + "\n"
    except (OSError, SystemExit):
        base = _SYNTHETIC
    return (base * (chars // len(base) + 1))[:chars]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(megabytes: float, detector: str | None) -> dict[str, float]:
    """Privatize one text of ``megabytes`` MB in this process; the figures."""
    from textdp import Privatizer

    text = build_text(int(megabytes * 1_000_000))
    p = Privatizer(detector=detector)
    p("Angela Merkel met the press.")  # load the models
    baseline = _peak_mb()
    t0 = time.perf_counter()
    out = p(text)
    seconds = time.perf_counter() - t0
    assert len(out.text) > 0
    return {"mb": megabytes, "seconds": seconds, "chars_per_s": len(text) / seconds,
            "peak_mb": _peak_mb(), "baseline_mb": baseline,
            "tokens_replaced": out.report.tokens_replaced}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1,2,5,10", help="megabytes, comma-separated")
    ap.add_argument("--detector", default=None, help="detector spec (default: the ensemble)")
    ap.add_argument("--one", type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:  # the child process
        print(json.dumps(run_one(args.one, args.detector)))
        return 0
    print(f"{'MB':>5} {'seconds':>8} {'chars/s':>9} {'peak RSS MB':>12} {'after load MB':>14}")
    for size in (float(s) for s in args.sizes.split(",")):
        cmd = [sys.executable, __file__, "--one", str(size)]
        if args.detector:
            cmd += ["--detector", args.detector]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{r['mb']:>5g} {r['seconds']:>8.1f} {r['chars_per_s']:>9,.0f} "
              f"{r['peak_mb']:>12,.0f} {r['baseline_mb']:>14,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
