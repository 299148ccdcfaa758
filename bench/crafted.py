"""Crafted inputs against the detectors and surface patterns: time doubles with length.

    python bench/crafted.py [--sizes 10000,20000] [--only hashes,emoji] [--repeats 1]

Issue 37 found texts that one regular expression or loop read in quadratic time or worse:
``"#" * 10000`` took 12 s in the default names-only mode, ``"https://x.com/" + "(" * 10000``
19 s, ``"a:" * 10000`` 23 s. Each crafted input below is privatized at every size by the
default names-only privatizer and by one with the PII targets too (``targets=PERSON,EMAIL,
PHONE,URL,HANDLE,IP,CREDIT_CARD``); printed per input and privatizer: the seconds at each
size (CPU seconds of the process, all threads) and the ratio of the largest size's time to
the smallest's. With sizes 10k and 20k a
ratio near 2 means linear time, near 4 quadratic. Models load before any timing, and every
figure is the best of ``--repeats`` runs (a shared machine's load only ever adds time).

End to end, the name tagger's time (linear, and most of it) hides a quadratic pattern until
the sizes are large; ``--patterns`` times the tokenizer and each pattern stage alone on the
same inputs (the spaCy tokenizer as the privatizer calls it, ``textdp.tokenization.tokenize``,
``find_pii`` with every label, the handle detector on the
text as one token, ``parse_profile_url``, ``surface_form``), which takes seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: Name → text of about ``n`` characters.
CRAFTED: dict[str, Callable[[int], str]] = {
    "hashes": lambda n: "#" * n,
    "ats": lambda n: "@" * n,
    "emoji": lambda n: "\N{GRINNING FACE}" * n,
    "url_brackets": lambda n: "https://x.com/" + "(" * n,
    "url_closing": lambda n: "https://x.com/" + ")" * n,
    "url_plain_brackets": lambda n: "http://example.org/" + "(" * n,
    "profile_query": lambda n: "https://x.com/ab?" + "?" * n + "a",
    "colons": lambda n: "a:" * (n // 2),
    "email_hyphens": lambda n: "x@" + "a-" * (n // 2),
    "email_dots": lambda n: "x@" + "a." * (n // 2),
    "local_parts": lambda n: "a." * (n // 2) + "@",
    "address_after_run": lambda n: "mailto:" + "x-" * (n // 2) + "j.smith@example.com",
    "hash_words": lambda n: "#a" * (n // 2),
    "handles": lambda n: "@a" * (n // 2),
    "digits_groups": lambda n: "1 " * (n // 2),
    "hex_colons": lambda n: "1:" * (n // 2),
}

PII = "PERSON,EMAIL,PHONE,URL,HANDLE,IP,CREDIT_CARD"


def best_time(run: Callable[[], object], repeats: int) -> float:
    """The shortest of ``repeats`` CPU times of ``run()`` (every thread of this process):
    on a shared machine the wall clock also counts other processes' load, which changes
    between a 10k and a 20k run and reads as a ratio far from 2 either way."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def pattern_stages() -> dict[str, Callable[[str], object]]:
    """Per stage, a function of one crafted text that runs that stage alone."""
    from textdp.defaults import load_pipeline
    from textdp.detect.handles import HandleDetector
    from textdp.detect.pii import PII_LABELS, find_pii
    from textdp.profile_urls import parse_profile_url
    from textdp.surface import surface_form
    from textdp.tokenization import tokenize, transient_strings

    nlp = load_pipeline()

    def tokenizer(text: str) -> None:
        with transient_strings(nlp):  # as the privatizer does: nothing cached between runs
            tokenize(nlp.tokenizer, text)  # long runs in pieces, as the privatizer reads them

    handles = HandleDetector()
    handles.names_person("john")  # loads the lexicon
    return {
        "tokenizer": tokenizer,
        "find_pii": lambda text: find_pii(text, PII_LABELS),
        "handles": lambda text: handles.spans([text], [False]),
        "profile_url": parse_profile_url,
        "surface": lambda text: surface_form("bob", text),
    }


def time_patterns(names: list[str], sizes: list[int], repeats: int) -> None:
    """Print, per input and pattern stage, the seconds at each size and the ratio."""
    stages = pattern_stages()
    print(f"{'input':<20}{'stage':<12}" + "".join(f"{n:>10}" for n in sizes) + f"{'ratio':>8}",
          flush=True)
    for name in names:
        for stage, run in stages.items():
            times = [best_time(lambda n=n, run=run, name=name: run(CRAFTED[name](n)), repeats)
                     for n in sizes]
            ratio = times[-1] / times[0] if times[0] > 0 else float("nan")
            print(f"{name:<20}{stage:<12}" + "".join(f"{t:>9.4f}s" for t in times)
                  + f"{ratio:>8.2f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,20000",
                        help="comma-separated lengths in characters (default 10000,20000)")
    parser.add_argument("--only", default="", help="comma-separated inputs (default: all)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--modes", default="names,pii",
                        help="names (default privatizer), pii (with the PII targets)")
    parser.add_argument("--patterns", action="store_true",
                        help="time each pattern stage alone instead of the privatizers")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [n for n in args.only.split(",") if n] or list(CRAFTED)
    unknown = [n for n in names if n not in CRAFTED]
    if unknown:
        parser.error(f"unknown inputs {unknown}; choose among {list(CRAFTED)}")
    if args.patterns:
        time_patterns(names, sizes, args.repeats)
        return

    from textdp import Privatizer

    modes = {"names": {}, "pii": {"targets": PII}}
    privatizers = {m: Privatizer(seed=0, **modes[m]) for m in args.modes.split(",")}
    for privatizer in privatizers.values():
        privatizer("Warm up: John Smith wrote to j.smith@example.com, see https://x.com/js.")
    print(f"{'input':<20}{'mode':<7}" + "".join(f"{n:>10}" for n in sizes) + f"{'ratio':>8}",
          flush=True)
    for name in names:
        for mode, privatizer in privatizers.items():
            times = [best_time(lambda n=n, p=privatizer, name=name: p(CRAFTED[name](n)),
                               args.repeats) for n in sizes]
            ratio = times[-1] / times[0] if times[0] > 0 else float("nan")
            print(f"{name:<20}{mode:<7}" + "".join(f"{t:>9.2f}s" for t in times)
                  + f"{ratio:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
