"""The ``textdp`` command line.

    textdp privatize data.jsonl -o private.jsonl --text-field text --epsilon 0.5
    textdp privatize notes.txt -o notes.private.txt --targets all --mechanism mahalanobis
    textdp privatize data.jsonl --representation contextual --contextual-index ctx-index/
    echo '{"text": "Angela Merkel met John Smith."}' | textdp privatize -
    textdp build-index --contextual --model <path-or-name> --layer 1 -o ctx-index/
    textdp mechanisms
    textdp calibrate --table default --target-unchanged 0.01
    textdp evaluate privacy --mechanism mlaplace,mahalanobis,nadp -o report/
    textdp evaluate utility --data ../shared/data --mechanism mlaplace,nadp -o report/
    textdp release-table --mechanism nadp --epsilon 25 -o noisy.vec

Errors are one line on stderr naming the parameter, file and line (exit status 2); the text
being privatized is never printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any

from textdp.contextual import DEFAULT_CONTEXTUAL_EPSILON
from textdp.defaults import DEFAULT_EPSILON
from textdp.io import FORMATS, InputError, RecordWriter, atomic_output, detect_format, read_records


def _mechanism_arg(value: str) -> Any:
    """``name`` or a JSON mapping ``{"name": ..., ...}``."""
    value = value.strip()
    return json.loads(value) if value.startswith("{") else value


def _epsilon_arg(value: str) -> float | str:
    """A number, or ``auto`` (calibrated; see ``textdp calibrate``)."""
    if value.strip().lower() == "auto":
        return "auto"
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {value!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="textdp", description="Differentially private substitution of names in text.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("privatize", help="privatize a .txt, .jsonl or .csv file (or - for stdin)")
    p.add_argument("input", help="input file, or - for JSONL on stdin")
    p.add_argument("-o", "--output", default=None,
                   help="output file (same format); default: stdout for -, else INPUT.private.EXT")
    p.add_argument("--format", choices=FORMATS, default=None, help="override the file format")
    p.add_argument("--text-field", default="text", help="JSONL key / CSV column with the text")
    p.add_argument("--epsilon", type=_epsilon_arg, default=None,
                   help=f"ε per token (default {DEFAULT_EPSILON:g}; {DEFAULT_CONTEXTUAL_EPSILON:g} "
                        "with --representation contextual), or 'auto' to calibrate it to "
                        "--target-unchanged on the table")
    p.add_argument("--target-unchanged", type=float, default=None,
                   help="with --epsilon auto: target P(word unchanged) (default 0.01)")
    p.add_argument("--mechanism", type=_mechanism_arg, default="mlaplace",
                   help='registered name or JSON like {"name": "mahalanobis", "lam": 0.2}')
    p.add_argument("--targets", default="PERSON",
                   help="'all' or comma-separated entity labels (default PERSON)")
    p.add_argument("--table", default=None, help="word2vec/GloVe/fastText file (default: "
                   "the embedded vectors)")
    p.add_argument("--detector", default=None,
                   help="detector: ensemble (default: minilm+rules+handles on a normalised "
                        "view), minilm, trained, spacy, rules, handles, similarity, a+b "
                        "unions, a spaCy package or hf:<model>")
    p.add_argument("--seed", type=int, default=None,
                   help="fixed seed: reproducible, NOT private against anyone who knows it")
    p.add_argument("--representation", choices=("static", "contextual"), default="static",
                   help="static table vectors (default) or a transformer layer's hidden states")
    p.add_argument("--model", default=None,
                   help="contextual: transformers encoder folder or hub name (default: the "
                        "embedded all-MiniLM-L6-v2)")
    p.add_argument("--layer", type=int, default=None,
                   help="contextual: hidden-state layer, 0 = input embeddings (default 1)")
    p.add_argument("--contextual-index", default=None, metavar="FOLDER",
                   help="contextual: candidate index folder from `textdp build-index "
                        "--contextual` (default: the model's vocabulary; --index is the "
                        "nearest-neighbour backend)")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto")
    p.add_argument("--index", default="auto", help="nearest-neighbour backend")
    p.add_argument("--batch-size", type=int, default=256, help="records per batch")
    p.add_argument("--max-epsilon-per-text", type=float, default=None,
                   help="budget for the composed ε of one record (see --budget-policy)")
    p.add_argument("--budget-policy", choices=("truncate", "refuse"), default="truncate",
                   help="over budget: redact the rest at no cost, or stop naming the record")
    p.add_argument("--report", action="store_true",
                   help="add a dp report field to each JSONL record")
    p.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict",
                   help="what to do with invalid UTF-8 (default: stop naming the line)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    sub.add_parser("mechanisms", help="list the registered mechanisms and their guarantees")

    from textdp.calibration import add_parser as add_calibrate
    from textdp.contextual_index import add_parser as add_build_index
    from textdp.detect.train import add_parser as add_train_detector
    from textdp.evaluate.detection import add_parser as add_evaluate_detection
    from textdp.evaluate.privacy import add_parser as add_evaluate_privacy
    from textdp.evaluate.utility import add_parser as add_evaluate_utility
    from textdp.release import add_parser as add_release_table

    ev = sub.add_parser("evaluate", help="measure textdp's parts on public data")
    ev_sub = ev.add_subparsers(dest="what", required=True)
    add_evaluate_detection(ev_sub)
    add_evaluate_privacy(ev_sub)
    add_evaluate_utility(ev_sub)
    add_calibrate(sub)
    add_release_table(sub)
    add_train_detector(sub)
    add_build_index(sub)
    b = sub.add_parser("bench", help="run the benchmark suite (python -m bench) of a source "
                                     "checkout; arguments go to it (--quick, --only, --device)")
    b.add_argument("bench_args", nargs=argparse.REMAINDER,
                   help="e.g. --quick --only static,mechanisms --device cuda")
    b.set_defaults(handler=cmd_bench)
    return parser


def _batched(it: Iterator[Any], n: int) -> Iterator[list[Any]]:
    while batch := list(islice(it, n)):
        yield batch


def cmd_privatize(args: argparse.Namespace) -> int:
    from textdp.privatizer import Privatizer

    fmt = args.format or detect_format(args.input)
    if args.report and fmt != "jsonl":
        raise InputError("--report needs JSONL input (other formats have no place for it)")
    output = args.output or ("-" if args.input == "-" else _default_output(args.input))
    if output != "-" and args.input != "-" and _same_file(args.input, output):
        raise InputError("--output must differ from the input file")
    # Validate every parameter before reading any text.
    privatizer = Privatizer(
        epsilon=args.epsilon, mechanism=args.mechanism, targets=args.targets, table=args.table,
        detector=args.detector, seed=args.seed, device=args.device, index=args.index,
        batch_size=args.batch_size, max_epsilon_per_text=args.max_epsilon_per_text,
        budget_policy=args.budget_policy, representation=args.representation,
        target_unchanged=args.target_unchanged,
        model=args.model, contextual_index=args.contextual_index,
        **({} if args.layer is None else {"layer": args.layer}),
    )
    total = None
    if args.input != "-":
        # First pass: check every line (format, field, encoding) before any work is done;
        # it also gives the progress bar its total.
        with open(args.input, "rb") as f:
            total = sum(1 for _ in read_records(f, fmt, args.text_field, args.input,
                                                args.encoding_errors))
    source = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")  # noqa: SIM115
    try:
        records = read_records(source, fmt, args.text_field, args.input, args.encoding_errors)
        progress = None
        if args.input != "-" and not args.no_progress:
            from tqdm import tqdm

            progress = tqdm(total=total, unit="rec", desc="privatize", file=sys.stderr)
        with atomic_output(output) as out:
            writer = RecordWriter(out, fmt)
            for batch in _batched(records, args.batch_size):
                texts = [rec if isinstance(rec, str) else rec[args.text_field]
                         for _, rec in batch]
                results = privatizer.privatize(texts)
                for (_, rec), res in zip(batch, results):
                    if isinstance(rec, str):
                        writer.write(res.text)
                    else:
                        rec = dict(rec)
                        rec[args.text_field] = res.text
                        if args.report:
                            rec["dp"] = res.report.to_dict()
                        writer.write(rec)
                if progress is not None:
                    progress.update(len(batch))
        if progress is not None:
            progress.close()
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    return 0


def _default_output(path: str) -> str:
    from pathlib import Path

    p = Path(path)
    return str(p.with_name(f"{p.stem}.private{p.suffix}"))


def _same_file(a: str, b: str) -> bool:
    from pathlib import Path

    return Path(a).resolve() == Path(b).resolve()


def cmd_mechanisms(args: argparse.Namespace) -> int:
    from textdp.mechanisms import available, registry
    from textdp.report import HOLDS_BETWEEN

    rows = []
    for name in available():
        cls = registry.get(name)
        rows.append((name, getattr(cls, "description", ""), getattr(cls, "guarantee", "")))
    width = max(len(r[0]) for r in rows)
    for name, desc, guarantee in rows:
        print(f"{name:<{width}}  {desc}\n{'':<{width}}  guarantee: {guarantee}")
        if name == "nadp":
            from textdp.mechanisms.nadp import table_shares

            print(f"{'':<{width}}  on the default table: {table_shares().line()}")
    print(f"\nEvery guarantee holds between {HOLDS_BETWEEN}: those are released without "
          "noise (surface='table' drops the casing condition). Metric-DP ε is a rate per "
          "unit of distance: reports give ε × the median distance between two person names "
          "and ε × the space's diameter beside it (README, \"Choosing ε\"). With "
          "representation='contextual' (or dpmlm) and targets='all' every draw reads the "
          "whole text, so the bound is per text, ε·Σ distances of all its tokens (report "
          "scope 'text').")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``textdp bench``: the suite lives in the repository's ``bench/``, next to the package
    (it reads ../shared/data and is not installed with the wheel)."""
    return run_bench(args.bench_args)


def run_bench(bench_args: Sequence[str]) -> int:
    """Run ``python -m bench BENCH_ARGS`` in the source checkout this package comes from."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    if not (root / "bench" / "__main__.py").is_file():
        raise ValueError("textdp bench runs the suite of a source checkout (bench/ next to the "
                         "textdp package); install textdp with `pip install -e .` from a clone")
    return subprocess.call([sys.executable, "-m", "bench", *bench_args], cwd=root)


def cmd_handler(args: argparse.Namespace) -> int:
    """Commands whose parser names its own handler (evaluate ..., calibrate, release-table,
    train-detector, build-index)."""
    return args.handler(args)


COMMANDS = {"privatize": cmd_privatize, "mechanisms": cmd_mechanisms}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``textdp`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"] and not {"-h", "--help"} & set(argv[1:2]):
        # Everything after "bench" belongs to the suite (argparse would claim its options).
        return run_bench(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS.get(args.command, cmd_handler)(args)
    except (InputError, ValueError, FileNotFoundError, IsADirectoryError) as err:
        msg = str(err) if not isinstance(err, (FileNotFoundError, IsADirectoryError)) else \
            f"{err.filename}: {err.strerror}"
        print(f"textdp: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("textdp: interrupted; no output was written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
