"""``textdp privatize``: privatize a .txt, .jsonl or .csv file, or standard input.

    textdp privatize data.jsonl -o private.jsonl --text-field text --epsilon 0.5
    textdp privatize notes.txt -o notes.private.txt --targets all --mechanism mahalanobis
    textdp privatize data.jsonl --representation contextual --contextual-index ctx-index/
    echo '{"text": "Angela Merkel met John Smith."}' | textdp privatize -
    echo "Anna Smith called" | textdp privatize - --format txt

The input is read once and every record checked before anything is written, whatever the input
(a file, ``-``, ``/dev/stdin``, a FIFO): nothing is written when a record is malformed. A
regular output file appears only complete (the previous one stays as it was on any failure,
SIGINT or SIGTERM); ``-o -``, a FIFO or a device are written as the run goes (textdp.files). ε
above :data:`EPSILON_WARNING_CEILING` prints a warning; above :data:`MAX_EPSILON` it is refused.
Errors name the parameter, file and line, never the text being privatized.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
from collections.abc import Iterator
from itertools import islice
from typing import Any

from textdp.cli.settings import add_setting_arguments, settings_from_args
from textdp.config import front_end_defaults
from textdp.errors import RowError
from textdp.files import OutputError, atomic_output, output_is_streamed
from textdp.records import (
    FORMATS,
    InputError,
    RecordWriter,
    detect_format,
    read_once,
)
from textdp.report import REVIEW_FIELD, review_record

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
#: The settings ``textdp privatize`` offers: every setting the command line offers
#: (textdp.settings; ``keep_original`` is not, its reason is on its field).
CLI_SETTINGS = tuple(front_end_defaults("cli"))


def add_parser(sub: Any) -> None:
    """``textdp privatize`` (``sub``: the top-level subparsers)."""
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
    # Every privatizer setting the command line offers, generated from its config field.
    add_setting_arguments(p, CLI_SETTINGS, help_suffix={"epsilon": (
        f"; warns above {EPSILON_WARNING_CEILING:g} (names mostly come back unchanged), "
        f"refused above {MAX_EPSILON:g}")})
    p.add_argument("--scope-field", default=None, metavar="NAME",
                   help="with --consistency dataset: a JSONL key / CSV column whose equal "
                        "values share pseudonyms (e.g. a patient id)")
    p.add_argument("--report", action="store_true",
                   help="add a report field (--report-field, default dp) to each JSONL record")
    p.add_argument("--report-field", default=None, metavar="NAME",
                   help=f"with --report: the report's key (default {DEFAULT_REPORT_FIELD}); a "
                        "record that already has it is refused before any output")
    p.add_argument("--review-field", default=None, metavar="NAME",
                   help="write the review signal (--review: whether the record holds a name "
                        "targeted at some mentions only or a span scored near the threshold, "
                        f"with each reason's count) to this JSONL key or CSV column (default "
                        f"{REVIEW_FIELD}); implies --review; a record or header that already "
                        "has it is refused before any output")
    p.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict",
                   help="what to do with invalid UTF-8 (default: stop naming the line)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=run)


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
    """``privatizer.privatize``, with a row the privatizer names (:class:`RowError`) named by
    its input line."""
    try:
        results = privatizer.privatize(texts) if scopes is None else \
            privatizer.privatize(texts, scopes=scopes)
    except RowError as err:
        if 0 <= err.row < len(lines):
            raise err.named(f"{name}, line {lines[err.row]}") from None
        raise
    if len(results) != len(texts):
        # zip() would drop the rest silently: never lose records.
        raise ValueError(f"{name}, lines {lines[0]}-{lines[-1]}: the privatizer returned "
                         f"{len(results)} results for {len(texts)} records (a bug; please "
                         "report it)")
    return results


def config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~textdp.config.PrivatizerConfig` of ``textdp privatize``'s parsed options
    (:func:`textdp.cli.settings.settings_from_args`: the key is read from ``--key-file`` and
    ``--exclude`` expanded here). Validated here, before any text is read."""
    from textdp.config import from_mapping

    return from_mapping(settings_from_args(args))


def privatizer_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~textdp.privatizer.Privatizer` of ``textdp privatize``'s parsed options,
    every parameter validated (it loads no model and reads no text)."""
    from textdp.privatizer import Privatizer

    _check_epsilon(args.epsilon)
    if args.scope_field is not None and args.consistency != "dataset":
        raise ValueError("--scope-field needs --consistency dataset")
    privatizer = Privatizer(config_from_args(args))
    _check_epsilon(privatizer.epsilon)  # a mechanism given as JSON may carry its own ε
    return privatizer


def run(args: argparse.Namespace) -> int:
    """Run ``textdp privatize``: every parameter is checked before the input is read, every
    record before anything is written."""
    fmt = args.format or detect_format(args.input)
    if args.report and fmt != "jsonl":
        raise InputError("--report needs JSONL input (other formats have no place for it)")
    if args.report_field is not None and not args.report:
        raise InputError("--report-field needs --report")
    report_field = args.report_field or DEFAULT_REPORT_FIELD
    if args.report and report_field == args.text_field:
        raise InputError("--report-field must differ from --text-field")
    if args.review_field is not None:
        args.review = True  # naming the field asks for the signal
    review_field = (args.review_field or REVIEW_FIELD) if args.review else None
    if review_field is not None:
        if fmt == "txt":
            raise InputError("--review needs JSONL or CSV input (plain text has no place "
                             "for it)")
        if review_field == args.text_field or (args.report and review_field == report_field):
            raise InputError("--review-field must differ from --text-field and "
                             "--report-field")
    output = args.output or ("-" if args.input == "-" else _default_output(args.input))
    if output != "-" and args.input != "-" and _same_file(args.input, output):
        raise InputError("--output must differ from the input file")
    if args.epsilon == "auto" and args.input != "-":
        # Calibrating takes seconds: an input that cannot be opened fails first (the error
        # read_once would give; the file is opened, not read).
        with open(args.input, "rb"):
            pass
    # Validate every parameter before reading any text.
    started = time.perf_counter()
    privatizer = privatizer_from_args(args)
    if args.epsilon == "auto":
        _print_auto_epsilon(privatizer, time.perf_counter() - started)
    _warn_epsilon(privatizer.epsilon)
    try:
        # Read once; every record (format, field, encoding, report field) is checked before
        # anything is written, for every kind of input (textdp.records.read_once).
        with _stdin_hint(args), read_once(
                args.input, fmt, args.text_field, errors=args.encoding_errors,
                report_field=report_field if args.report else None,
                review_field=review_field) as checked:
            return _write_privatized(args, privatizer, checked, output, report_field,
                                     review_field)
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
                      report_field: str, review_field: str | None = None) -> int:
    streamed = output_is_streamed(output)
    where = "standard output" if output == "-" else output
    existed = output != "-" and os.path.lexists(output)
    progress = None
    if args.input != "-" and not args.no_progress:
        from tqdm import tqdm

        progress = tqdm(total=checked.count, unit="rec", desc="privatize", file=sys.stderr)
    writer: RecordWriter | None = None
    failure: BaseException | None = None
    try:
        with atomic_output(output) as out:
            columns = checked.columns
            if columns is not None and review_field is not None:
                columns = [*columns, review_field]  # CSV: the signal is the last column
            writer = RecordWriter(out, checked.fmt, columns=columns,
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
                        if review_field is not None:
                            rec[review_field] = _review_value(res, checked.fmt)
                        writer.write(rec, line=lineno)
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
    # Say exactly what was written: a streamed output has what came before (a record cut by
    # the interrupt inside the stream's write included: it is flushed at exit); a file has
    # nothing.
    written = 0 if writer is None else writer.count
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


def _review_value(result: Any, fmt: str) -> Any:
    """The review signal of one record (:func:`textdp.report.review_record`): an object in
    JSONL, its compact JSON in a CSV cell; null for a missing (null) text, which released
    nothing."""
    if result is None:
        return None
    record = review_record(result.report.review)
    if fmt == "csv":
        import json

        return json.dumps(record, separators=(",", ":"))
    return record


def _default_output(path: str) -> str:
    from pathlib import Path

    p = Path(path)
    return str(p.with_name(f"{p.stem}.private{p.suffix}"))


def _same_file(a: str, b: str) -> bool:
    # os.path.realpath, not Path.resolve: a symlink loop is a path like any other here (the
    # output's own check refuses it in one line), not a RuntimeError traceback (issue 37).
    return os.path.realpath(a) == os.path.realpath(b)
