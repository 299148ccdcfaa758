"""``textdp detect``: the dry run of detection, the spans that would be targeted, never the text.

    textdp detect data.jsonl -o spans.jsonl --targets PERSON,EMAIL --id-field id

One JSONL line per record of a ``.txt``, ``.jsonl`` or ``.csv`` file: its input line, its
0-based record number, optionally an id field the user names, and its spans as
:class:`~textdp.audit.Auditor` reports them (offsets, label, detector, score). Nothing is
privatized; a summary of counts goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from itertools import islice
from typing import Any

from textdp.audit import Auditor
from textdp.cli.settings import add_setting_arguments, settings_from_args
from textdp.files import atomic_output
from textdp.records import FORMATS, InputError, detect_format, read_once

#: The privatizer settings ``textdp detect`` takes: the selection stage's, as ``privatize``
#: offers them (generated from the config's fields, textdp.cli.settings).
DETECT_SETTINGS = ("targets", "detector", "allow", "deny", "threshold", "phone_region", "device",
                   "batch_size")


def add_detection_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the detection stage, as ``privatize`` names them."""
    add_setting_arguments(p, DETECT_SETTINGS)
    p.add_argument("--deny-label", default="PERSON", help="label of deny-list spans")


def add_parser(sub: Any) -> None:
    """``textdp detect`` (``sub``: the top-level subparsers)."""
    p = sub.add_parser("detect", help="dry run: the spans that would be targeted, as character "
                                      "offsets, labels, detector and score (never the text)")
    p.add_argument("input", help="a .txt, .jsonl or .csv file, or - for JSONL on stdin")
    p.add_argument("-o", "--output", default="-", help="JSONL output (default: stdout)")
    p.add_argument("--format", choices=FORMATS, default=None, help="override the file format")
    p.add_argument("--text-field", default="text", help="JSONL key / CSV column with the text")
    p.add_argument("--id-field", default=None,
                   help="copy this JSONL key / CSV column into each output line (an id; it is "
                        "written as it is, so never name a field that holds text)")
    add_detection_arguments(p)
    p.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict",
                   help="what to do with invalid UTF-8 (default: stop naming the line)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp detect``: every option is checked before the input is read."""
    fmt = args.format or detect_format(args.input)
    if args.id_field is not None and fmt == "txt":
        raise InputError("--id-field needs JSONL or CSV input")
    if args.id_field is not None and args.id_field == args.text_field:
        raise InputError("--id-field must differ from --text-field: the text is never written")
    auditor = Auditor(**settings_from_args(args), deny_label=args.deny_label)
    counts: Counter[str] = Counter()
    records = 0
    with read_once(args.input, fmt, args.text_field, errors=args.encoding_errors) as checked, \
            atomic_output(args.output) as out:
        it = iter(checked.records())
        while batch := list(islice(it, args.batch_size)):
            texts = [rec if isinstance(rec, str) else rec[args.text_field] for _, rec in batch]
            for (lineno, rec), spans in zip(batch, auditor.audit(texts)):
                line: dict[str, Any] = {"line": lineno, "record": records}
                if args.id_field is not None:
                    assert isinstance(rec, dict)
                    if args.id_field not in rec:
                        raise InputError(f"{args.input}, line {lineno}: no field "
                                         f"{args.id_field!r} (--id-field)")
                    line["id"] = rec[args.id_field]
                line["spans"] = spans
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                counts.update(s["label"] for s in spans)
                records += 1
    by_label = ", ".join(f"{label} {n}" for label, n in sorted(counts.items())) or "none"
    print(f"textdp detect: {records} records, {sum(counts.values())} spans ({by_label}); "
          "nothing was privatized", file=sys.stderr)
    return 0
