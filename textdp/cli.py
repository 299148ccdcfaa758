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
    textdp evaluate ner-utility --variants original,word,name --json ner-utility.json
    textdp release-table --mechanism nadp --epsilon 25 -o noisy.vec
    textdp detect data.jsonl -o spans.jsonl       # a dry run: the targeted spans, no text
    echo "Anna Smith called" | textdp privatize - --format txt

Errors are one line on stderr naming the parameter, file and line (exit status 2); the text
being privatized is never printed. ``privatize`` reads its input once and checks every record
before it writes anything, whatever the input (a file, ``-``, ``/dev/stdin``, a FIFO): nothing
is written when a record is malformed. A regular output file appears only complete (the
previous one stays as it was on any failure, SIGINT or SIGTERM); ``-o -``, a FIFO or a device
are written as the run goes (textdp.io). ε above ``EPSILON_WARNING_CEILING`` prints a warning;
above ``MAX_EPSILON`` it is refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any

from textdp._version import __version__
from textdp.defaults import default_epsilon
from textdp.io import (
    FORMATS,
    InputError,
    OutputError,
    RecordWriter,
    atomic_output,
    detect_format,
    output_is_streamed,
    read_once,
)

# Above this ε a warning is printed. On the default table the median word comes back unchanged
# in 90 % of draws at ε ≈ 3 (mlaplace) or 3.7 (mahalanobis), in 90 % at 38 for nadp and in 50 %
# at 118 for gaussian (README, "Choosing ε"; `textdp calibrate`): past 100 names come back
# unchanged most of the time whatever the mechanism, and nothing is protected.
EPSILON_WARNING_CEILING = 100.0
# Above this ε it is refused before any text is read. Reports multiply ε by the number of draws
# in a record and by distances of the space (epsilon_total, epsilon_at_diameter); JSON has no
# Infinity, so those products must stay finite for any record: 1e100 × 1e12 draws × a distance of
# 1e100 is still a float64. Any ε this large is meaningless (see the ceiling above).
MAX_EPSILON = 1e100
DEFAULT_REPORT_FIELD = "dp"


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
    parser.add_argument("--version", action="version", version=f"textdp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    from textdp.audit import add_list_arguments

    p = sub.add_parser("privatize", help="privatize a .txt, .jsonl or .csv file (or - for stdin)")
    p.add_argument("input", help="input file (FIFOs, /dev/stdin and <(...) work; give --format), "
                                 "or - for JSONL on stdin (plain text: - --format txt); read "
                                 "once, checked before any output")
    p.add_argument("-o", "--output", default=None,
                   help="output file (same format; - for stdout); default: stdout for -, else "
                        "INPUT.private.EXT. A file appears only complete; a FIFO or device is "
                        "written as the run goes; a symlink's target is replaced, the link kept")
    p.add_argument("--format", choices=FORMATS, default=None, help="override the file format")
    p.add_argument("--text-field", default="text", help="JSONL key / CSV column with the text")
    p.add_argument("--epsilon", type=_epsilon_arg, default=None,
                   help=f"ε per token (default {default_epsilon('static'):g}; "
                        f"{default_epsilon('contextual'):g} "
                        "with --representation contextual), or 'auto' to calibrate it to "
                        "--target-unchanged on the table; warns above "
                        f"{EPSILON_WARNING_CEILING:g} (names mostly come back unchanged), "
                        f"refused above {MAX_EPSILON:g}")
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
    add_list_arguments(p)
    p.add_argument("--exclude", default="default", metavar="WORDS",
                   help="words never written as substitutes: 'default' (slurs and loaded "
                        "terms), comma-separated words, @FILE, or 'none'")
    p.add_argument("--replace", choices=("name", "word", "tag"), default=None,
                   help="what a person name becomes: a public name (default), any public word, "
                        "or a [PERSON] tag (no ε)")
    p.add_argument("--consistency", choices=("document", "dataset", "mention"),
                   default="document",
                   help="one draw per distinct name per record (default), per dataset (keyed: "
                        "the same in every run with the same --key-file), or per mention")
    p.add_argument("--key-file", default=None, metavar="FILE",
                   help="with --consistency dataset: a file holding the secret key (≥ 16 "
                        "bytes; as sensitive as a seed); default: a key from --seed, else a "
                        "fresh one per run")
    p.add_argument("--scope-field", default=None, metavar="NAME",
                   help="with --consistency dataset: a JSONL key / CSV column whose equal "
                        "values share pseudonyms (e.g. a patient id)")
    p.add_argument("--report", action="store_true",
                   help="add a report field (--report-field, default dp) to each JSONL record")
    p.add_argument("--report-spans", action="store_true",
                   help="with --report: list the targeted spans (offsets, label, detector, "
                        "score; never the text) in each report")
    p.add_argument("--report-field", default=None, metavar="NAME",
                   help=f"with --report: the report's key (default {DEFAULT_REPORT_FIELD}); a "
                        "record that already has it is refused before any output")
    p.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict",
                   help="what to do with invalid UTF-8 (default: stop naming the line)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    sub.add_parser("mechanisms", help="list the registered mechanisms and their guarantees")

    from textdp.audit import add_parser as add_detect
    from textdp.calibration import add_parser as add_calibrate
    from textdp.contextual_index import add_parser as add_build_index
    from textdp.detect.train import add_parser as add_train_detector
    from textdp.embeddings.train import add_parser as add_train_embeddings
    from textdp.evaluate.detection import add_parser as add_evaluate_detection
    from textdp.evaluate.ner_utility import add_parser as add_evaluate_ner_utility
    from textdp.evaluate.polarized import add_parser as add_evaluate_polarized
    from textdp.evaluate.privacy import add_parser as add_evaluate_privacy
    from textdp.evaluate.pseudonyms import add_parser as add_evaluate_pseudonyms
    from textdp.evaluate.utility import add_parser as add_evaluate_utility
    from textdp.release import add_parser as add_release_table

    ev = sub.add_parser("evaluate", help="measure textdp's parts on public data")
    ev_sub = ev.add_subparsers(dest="what", required=True)
    add_evaluate_detection(ev_sub)
    add_evaluate_privacy(ev_sub)
    add_evaluate_utility(ev_sub)
    add_evaluate_ner_utility(ev_sub)
    add_evaluate_pseudonyms(ev_sub)
    add_evaluate_polarized(ev_sub)
    add_detect(sub)
    add_calibrate(sub)
    add_release_table(sub)
    add_train_detector(sub)
    add_train_embeddings(sub)
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


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during ``privatize``: the message says what was and was not written."""


def _check_epsilon(epsilon: Any) -> None:
    """Refuse an ε whose reports could overflow (see MAX_EPSILON); NaN, ∞ and ε ≤ 0 are the
    privatizer's to refuse."""
    if isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > MAX_EPSILON:
        raise ValueError(f"epsilon={epsilon:g} is too large: reports (ε × draws × distance) would "
                         f"not be finite numbers; at most {MAX_EPSILON:g} is accepted, and above "
                         f"{EPSILON_WARNING_CEILING:g} names come back unchanged most of the time")


def _warn_epsilon(epsilon: float) -> None:
    if epsilon > EPSILON_WARNING_CEILING:
        print(f"textdp: warning: epsilon={epsilon:g} is above {EPSILON_WARNING_CEILING:g}: at "
              "such ε names come back unchanged most of the time (mlaplace leaves 90 % of words "
              "unchanged at ε ≈ 3 on the default table; see `textdp calibrate`)",
              file=sys.stderr)


def _privatize_batch(privatizer: Any, texts: list[str | None], lines: list[int], name: str,
                     scopes: list[Any] | None = None) -> Any:
    """``privatizer.privatize``, with a row named by the privatizer mapped to its input line."""
    problem = None
    try:
        results = privatizer.privatize(texts) if scopes is None else \
            privatizer.privatize(texts, scopes=scopes)
    except ValueError as err:
        problem = str(err)
    else:
        if len(results) == len(texts):
            return results
        # zip() would drop the rest silently: never lose records.
        problem = (f"{name}, lines {lines[0]}-{lines[-1]}: the privatizer returned "
                   f"{len(results)} results for {len(texts)} records (a bug; please report it)")
    m = re.match(r"row (\d+): (.*)", problem, re.S)
    if m and int(m.group(1)) < len(lines):
        problem = f"{name}, line {lines[int(m.group(1))]}: {m.group(2)}"
    raise ValueError(problem)


def privatizer_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~textdp.privatizer.Privatizer` of ``textdp privatize``'s parsed options,
    every parameter validated (it loads no model and reads no text)."""
    from textdp.privatizer import Privatizer

    _check_epsilon(args.epsilon)
    privatizer = Privatizer(
        epsilon=args.epsilon, mechanism=args.mechanism, targets=args.targets, table=args.table,
        detector=args.detector, seed=args.seed, device=args.device, index=args.index,
        batch_size=args.batch_size, max_epsilon_per_text=args.max_epsilon_per_text,
        budget_policy=args.budget_policy, representation=args.representation,
        target_unchanged=args.target_unchanged,
        model=args.model, contextual_index=args.contextual_index,
        replace=args.replace, consistency=args.consistency, key=_read_key(args.key_file),
        allow=args.allow, deny=args.deny, threshold=args.threshold,
        exclude=_exclude_arg(args.exclude), report_spans=args.report_spans,
        **({} if args.layer is None else {"layer": args.layer}),
    )
    if args.scope_field is not None and args.consistency != "dataset":
        raise ValueError("--scope-field needs --consistency dataset")
    _check_epsilon(privatizer.epsilon)  # a mechanism given as JSON may carry its own ε
    return privatizer


def _exclude_arg(value: str) -> Any:
    """``--exclude``: ``default``, ``none``, or words (comma-separated or ``@FILE``)."""
    if value in ("default", "none"):
        return None if value == "none" else "default"
    from textdp.detect.lists import read_list

    return read_list(value)


def _read_key(path: str | None) -> bytes | None:
    """The secret key in ``path`` (its bytes, without a final newline); its content is never
    printed."""
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read().rstrip(b"\r\n")
    except OSError as err:
        raise InputError(f"--key-file {path}: cannot read it ({err.strerror})") from None


def cmd_privatize(args: argparse.Namespace) -> int:
    fmt = args.format or detect_format(args.input)
    if args.report and fmt != "jsonl":
        raise InputError("--report needs JSONL input (other formats have no place for it)")
    if args.report_field is not None and not args.report:
        raise InputError("--report-field needs --report")
    report_field = args.report_field or DEFAULT_REPORT_FIELD
    if args.report and report_field == args.text_field:
        raise InputError("--report-field must differ from --text-field")
    output = args.output or ("-" if args.input == "-" else _default_output(args.input))
    if output != "-" and args.input != "-" and _same_file(args.input, output):
        raise InputError("--output must differ from the input file")
    # Validate every parameter before reading any text.
    started = time.perf_counter()
    privatizer = privatizer_from_args(args)
    if args.epsilon == "auto":
        _print_auto_epsilon(privatizer, time.perf_counter() - started)
    _warn_epsilon(privatizer.epsilon)
    try:
        # Read once; every record (format, field, encoding, report field) is checked before
        # anything is written, for every kind of input (textdp.io.read_once).
        with _stdin_hint(args), read_once(
                args.input, fmt, args.text_field, errors=args.encoding_errors,
                report_field=report_field if args.report else None) as checked:
            return _write_privatized(args, privatizer, checked, output, report_field)
    except KeyboardInterrupt as err:
        if isinstance(err, Interrupted):
            raise
        raise Interrupted("interrupted while reading the input; no output was written") from None


STDIN_HINT = "standard input is read as JSONL; for plain text, one text a line, add --format txt"


@contextlib.contextmanager
def _stdin_hint(args: argparse.Namespace) -> Iterator[None]:
    """Adds :data:`STDIN_HINT` to a JSON error about standard input read without
    ``--format`` (``echo "Anna Smith called" | textdp privatize -`` is plain text). The
    error names the line and the problem only, never the text."""
    problem = None
    try:
        yield
    except InputError as err:
        if args.input != "-" or args.format is not None or not (
                "malformed JSON" in str(err) or "expected a JSON object" in str(err)):
            raise
        problem = str(err)
    if problem is not None:  # raised outside the handler: no context attached
        raise InputError(f"{problem}; {STDIN_HINT}")


def _print_auto_epsilon(privatizer: Any, seconds: float) -> None:
    """``--epsilon auto``: say on stderr which ε was chosen and what it took."""
    cal = privatizer.calibration
    how = "read from the cache" if cal is not None and cal.cached else "calibrated"
    target = f" for P(unchanged) = {cal.target:g}" if cal is not None else ""
    print(f"textdp: --epsilon auto: epsilon = {privatizer.epsilon:.6g}{target} "
          f"({how} on the table in {seconds:.1f} s)", file=sys.stderr)


def _write_privatized(args: argparse.Namespace, privatizer: Any, checked: Any, output: str,
                      report_field: str) -> int:
    streamed = output_is_streamed(output)
    where = "standard output" if output == "-" else output
    existed = output != "-" and os.path.lexists(output)
    progress = None
    if args.input != "-" and not args.no_progress:
        from tqdm import tqdm

        progress = tqdm(total=checked.count, unit="rec", desc="privatize", file=sys.stderr)
    written = 0
    failure: BaseException | None = None
    try:
        with atomic_output(output) as out:
            writer = RecordWriter(out, checked.fmt, columns=checked.columns,
                                  newline=checked.newline)
            for batch in _batched(checked.records(), args.batch_size):
                texts = [rec if isinstance(rec, str) else rec[args.text_field]
                         for _, rec in batch]
                scopes = None if args.scope_field is None else \
                    [None if isinstance(rec, str) else rec.get(args.scope_field)
                     for _, rec in batch]
                results = _privatize_batch(privatizer, texts, [n for n, _ in batch],
                                           args.input, scopes)
                for (lineno, rec), res in zip(batch, results):
                    if isinstance(rec, str):
                        writer.write(res.text, line=lineno)
                    else:
                        rec = dict(rec)
                        # A null text stays null: nothing released, nothing spent.
                        rec[args.text_field] = None if res is None else res.text
                        if args.report:
                            rec[report_field] = None if res is None else res.report.to_dict()
                        writer.write(rec, line=lineno)
                    written += 1
                if streamed:
                    out.flush()
                if progress is not None:
                    progress.update(len(batch))
    except (KeyboardInterrupt, OSError, ValueError) as err:
        failure = err
    finally:
        if progress is not None:
            progress.close()
    if failure is None:
        return 0
    # Say exactly what was written: a streamed output has what came before; a file has nothing.
    if streamed:
        state = (f"{written} of {checked.count} records had been written to {where}, which is "
                 "incomplete") if written else f"nothing was written to {where}"
    else:
        state = f"{where} was {'left as it was' if existed else 'not created'}"
    if isinstance(failure, KeyboardInterrupt):
        raise Interrupted(f"interrupted; {state}")
    if isinstance(failure, OutputError):
        raise failure
    if isinstance(failure, OSError):  # ENOSPC, EACCES, a folder that cannot be made, EPIPE, …
        reason = failure.strerror or type(failure).__name__
        raise OutputError(f"{where}: cannot write the output ({reason}); {state}")
    message = str(failure)
    if streamed and written:
        message = f"{message}; {state}"
    raise type(failure)(message) if isinstance(failure, InputError) else ValueError(message)


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
        names = "" if getattr(registry.get(name), "decodes_subsets", False) else \
            " (draws from its own candidates: person names become any word, replace='word')"
        print(f"{name:<{width}}  {desc}\n{'':<{width}}  guarantee: {guarantee}{names}")
        if name == "nadp":
            from textdp.mechanisms.nadp import table_shares

            print(f"{'':<{width}}  on the default table: {table_shares().line()}")
    print(f"\nEvery guarantee holds between {HOLDS_BETWEEN}: those are released without "
          "noise (surface='table' drops the casing condition). Metric-DP ε is a rate per "
          "unit of distance: reports give ε × the median distance between two person names "
          "and ε × the space's diameter beside it (README, \"Choosing ε\"). With "
          "representation='contextual' (or dpmlm) and targets='all' every draw reads the "
          "whole text, so the bound is per text, ε·Σ distances of all its tokens (report "
          "scope 'text'). Person names become public names by default (replace='name'): "
          "the noise or the draw is the same, only the candidates are the table's words in "
          "the census name lists, so decoding to them is post-processing and every guarantee "
          "above is unchanged; one draw serves every mention of a name in a text "
          "(consistency='document'), so ε is charged once per distinct name, and the output "
          "shows which mentions repeat a name.")
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
    except (InputError, OutputError) as err:
        if isinstance(err, OutputError) and "Broken pipe" in str(err):
            _silence_stdout()  # the reader went away: nothing more can reach it
        return _error(str(err))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as err:
        return _error(f"{err.filename}: {err.strerror}" if err.filename else
                      (err.strerror or type(err).__name__))
    except OSError as err:  # e.g. ENOSPC from another command's writer
        where = f"{err.filename}: " if err.filename else ""
        return _error(f"{where}{err.strerror or type(err).__name__}")
    except ValueError as err:
        return _error(str(err))
    except Interrupted as err:
        print(f"textdp: {err}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("textdp: interrupted (a file being written was removed; finished files were kept)",
              file=sys.stderr)
        return 130


def _error(message: str) -> int:
    print(f"textdp: error: {message}", file=sys.stderr)
    return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass

if __name__ == "__main__":
    sys.exit(main())
