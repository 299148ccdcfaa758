"""The GPU path in one run: the four figures issue 16 asks of one GPU, with peak GPU memory.

    python bench/gpu.py                      # device "cuda" (the device tool's GPU machine)
    python bench/gpu.py --device cpu --min-tokens 5000 --repeats 1   # a smoke run anywhere

Prints tokens/s (medians of ``--repeats``, after a warm-up call) of

* the *static substitution stage*: ``Privatizer(targets="all").privatize_docs(docs)`` on
  tokenized docs, mlaplace and mahalanobis, default table (lookup + noise + decode + surface
  form; tokenization excluded);
* *static end to end*: ``Privatizer(targets="all").privatize(texts)``, tokenization included;
* *contextual end to end*: ``Privatizer(representation="contextual", targets="all")`` (MiniLM
  layer 1, its whole-word vocabulary index);
* *names only*: the default ``Privatizer()`` (detector, pseudonyms) end to end;

each against the same privatizer on the CPU for ``--cpu-tokens`` of the same texts, timed in the
same run (the ratio is what to compare across machines), and the peak GPU memory of each
(``torch.cuda.max_memory_allocated``, reset before it). Texts: CoNLL-2003 dev sentences from
``../shared/data`` (cycled to ``--min-tokens``). Results go to ``bench/results/gpu.json``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    chunks,
    corpus_docs,
    machine_info,
    print_machine,
    read_conll,
    time_interleaved,
    write_results,
)

# name → (Privatizer settings, whether the figure is the substitution stage alone)
RUNS: dict[str, tuple[dict[str, Any], bool]] = {
    "static substitution, mlaplace": ({"targets": "all", "mechanism": "mlaplace"}, True),
    "static substitution, mahalanobis": ({"targets": "all", "mechanism": "mahalanobis"}, True),
    "static end to end, mlaplace": ({"targets": "all", "mechanism": "mlaplace"}, False),
    "contextual end to end, mlaplace": ({"targets": "all", "representation": "contextual"},
                                        False),
    "names only end to end (default)": ({}, False),
}


def texts_of(min_tokens: int) -> list[str]:
    """CoNLL-2003 dev sentences, cycled until they hold ``min_tokens`` gold tokens."""
    out, n = [], 0
    for sentence in itertools.cycle(read_conll("dev")):
        out.append(" ".join(sentence.tokens))
        n += len(sentence.tokens)
        if n >= min_tokens:
            return out
    return out


def measure(name: str, settings: dict[str, Any], stage_only: bool, texts: list[str],
            cpu_texts: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Tokens/s of one run on ``args.device`` and on the CPU, interleaved, and peak memory."""
    import torch

    from textdp import Privatizer

    made = {device: Privatizer(seed=0, device=device, batch_size=args.batch_size, **settings)
            for device in dict.fromkeys((args.device, "cpu"))}
    docs = {device: corpus_docs(texts if device == args.device else cpu_texts)
            for device in made}
    tokens = {device: sum(len(d) for d in ds) for device, ds in docs.items()}

    def run(device: str) -> Any:
        p = made[device]
        if stage_only:
            return [p.privatize_docs(batch) for batch in chunks(docs[device], args.batch_size)]
        return p.privatize(texts if device == args.device else cpu_texts)

    cuda = args.device.startswith("cuda")
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    timings = time_interleaved({device: (lambda d=device: run(d)) for device in made},
                               repeats=args.repeats)
    out = {device: round(tokens[device] / timings[device].median, 1) for device in made}
    row: dict[str, Any] = {"tokens_per_s": out, "tokens": tokens}
    if args.device != "cpu":
        row["ratio_to_cpu"] = round(out[args.device] / out["cpu"], 2)
    if cuda:
        row["peak_gpu_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 3)
    print(f"{name:<36} " + "  ".join(f"{d}: {v:>11,.0f} tokens/s" for d, v in out.items())
          + (f"  ({row['ratio_to_cpu']}× CPU)" if "ratio_to_cpu" in row else "")
          + (f"  peak GPU {row['peak_gpu_gib']} GiB" if "peak_gpu_gib" in row else ""),
          flush=True)
    return row


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu")
    parser.add_argument("--min-tokens", type=int, default=200_000,
                        help="tokens on the measured device")
    parser.add_argument("--cpu-tokens", type=int, default=20_000,
                        help="tokens of the CPU run it is compared with")
    parser.add_argument("--batch-size", type=int, default=2048, help="texts per batch")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", action="append", choices=list(RUNS), default=None)
    parser.add_argument("--no-json", action="store_true")
    args = parser.parse_args(argv)
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        parser.error(f"--device {args.device}: no CUDA device here (use --device cpu for a "
                     "smoke run)")
    info = machine_info()
    print_machine(info)
    texts = texts_of(args.min_tokens)
    cpu_texts = texts_of(args.cpu_tokens)
    results = {name: measure(name, *RUNS[name], texts, cpu_texts, args)
               for name in (args.only or RUNS)}
    payload = {"machine": info, "args": vars(args), "results": results}
    if not args.no_json:
        print(f"results: {write_results('gpu', args.device, payload)}")
    return payload


if __name__ == "__main__":
    main()
