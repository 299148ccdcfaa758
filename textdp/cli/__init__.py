"""The ``textdp`` command line: one module per command, the library does the work.

    textdp privatize data.jsonl -o private.jsonl --text-field text --epsilon 0.5
    textdp privatize notes.txt -o notes.private.txt --targets all --mechanism mahalanobis
    textdp privatize data.jsonl --representation contextual --contextual-index ctx-index/
    echo '{"text": "Angela Merkel met John Smith."}' | textdp privatize -
    echo "Anna Smith called" | textdp privatize - --format txt
    textdp detect data.jsonl -o spans.jsonl       # a dry run: the targeted spans, no text
    textdp mechanisms
    textdp calibrate --table default --target-unchanged 0.01
    textdp release-table --mechanism nadp --epsilon 25 -o noisy.vec
    textdp build-index --contextual --model <path-or-name> --layer 1 -o ctx-index/
    textdp train-detector --data ../shared/data -o textdp/detect/models/names_ner
    textdp train-embeddings notes.txt -o notes.emb.npz
    textdp evaluate privacy --mechanism mlaplace,mahalanobis,nadp -o report/
    textdp evaluate utility --data ../shared/data --mechanism mlaplace,nadp -o report/
    textdp evaluate ner-utility --variants original,word,name --json ner-utility.json
    textdp bench --quick

Each command is a module of this package with ``add_parser(sub)`` (its options; the parser
names its handler) and ``run(args)``; options shared by several commands are in
:mod:`textdp.cli.args`. The modules outside this package take plain Python arguments and never
import argparse.

Errors are one line on stderr naming the parameter, file and line (exit status 2); the text
being privatized is never printed. Ctrl-C exits with status 130 and says what was written.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence

from textdp._version import __version__
from textdp.cli.privatize import (
    DEFAULT_REPORT_FIELD,
    EPSILON_WARNING_CEILING,
    MAX_EPSILON,
    Interrupted,
    privatizer_from_args,
)
from textdp.errors import InternalError
from textdp.files import OutputError
from textdp.records import InputError

#: Each command, in the order of ``textdp --help``, and its module in this package.
COMMANDS = {"privatize": "privatize", "mechanisms": "mechanisms", "evaluate": "evaluate",
            "detect": "detect", "calibrate": "calibrate", "release-table": "release_table",
            "train-detector": "train_detector", "train-embeddings": "train_embeddings",
            "build-index": "build_index", "bench": "bench"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every ``textdp`` command (each command module adds its own), or of
    ``command`` alone when it names one: a run imports its own command's module only (all of
    them took 0.08 s of a one-line job's start)."""
    import importlib

    parser = argparse.ArgumentParser(
        prog="textdp", description="Differentially private substitution of names in text.")
    parser.add_argument("--version", action="version", version=f"textdp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in [command] if command in COMMANDS else COMMANDS:
        importlib.import_module(f"textdp.cli.{COMMANDS[name]}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``textdp`` console script and of ``python -m textdp``."""
    if argv is None:
        # A command's own process (not a caller's, which keeps its collector as it is): what
        # is imported by now lives as long as the process, and kept out of the collector's
        # scans, the loads of a first batch (pipeline, tables, name lists) no longer trigger
        # full collections that walk torch's and spaCy's objects again and again (0.1 s of a
        # one-line job's start).
        gc.freeze()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"] and not {"-h", "--help"} & set(argv[1:2]):
        from textdp.cli.bench import run_bench

        # Everything after "bench" belongs to the suite (argparse would claim its options).
        return run_bench(argv[1:])
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
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
    except InternalError as err:  # a bug: one line that holds no text (textdp.errors)
        print(f"textdp: error: {err}", file=sys.stderr)
        return 1
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


__all__ = ["DEFAULT_REPORT_FIELD", "EPSILON_WARNING_CEILING", "MAX_EPSILON", "build_parser",
           "main", "privatizer_from_args"]
