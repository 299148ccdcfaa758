"""Record readers and an atomic writer for the command line (``.txt``, ``.jsonl``, ``.csv``, ``-``).

Readers decode each line on its own so an error names the line; writers go to a temporary file
beside the target and are renamed into place only when everything succeeded, so a failure never
leaves a half-written output. Error messages name the file and line, never the text.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

FORMATS = ("txt", "jsonl", "csv")


class InputError(ValueError):
    """Bad input: the message names the source and line."""


def detect_format(path: str) -> str:
    """``txt``/``jsonl``/``csv`` from the file name; ``-`` (stdin) is JSONL."""
    if path == "-":
        return "jsonl"
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix in ("json", "ndjson"):
        suffix = "jsonl"
    if suffix not in FORMATS:
        raise InputError(f"{path}: unsupported format {suffix!r}; use .txt, .jsonl or .csv "
                         "(or --format)")
    return suffix


def _decoded_lines(stream: IO[bytes], name: str, errors: str) -> Iterator[tuple[int, str]]:
    for lineno, raw in enumerate(stream, 1):
        try:
            yield lineno, raw.decode("utf-8", errors=errors)
        except UnicodeDecodeError as err:
            raise InputError(f"{name}, line {lineno}: invalid UTF-8 at byte {err.start} "
                             "(use --encoding-errors replace to substitute it)") from None


def read_records(stream: IO[bytes], fmt: str, field: str, name: str,
                 errors: str = "strict") -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Yield ``(line, record)``: a dict for JSONL/CSV, the line's text for TXT.

    Raises :class:`InputError` naming the line for malformed JSON, a missing or non-string
    text field, or invalid UTF-8.
    """
    lines = _decoded_lines(stream, name, errors)
    if fmt == "txt":
        for lineno, line in lines:
            yield lineno, line[:-1] if line.endswith("\n") else line
        return
    if fmt == "jsonl":
        for lineno, line in lines:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise InputError(f"{name}, line {lineno}: malformed JSON ({err.msg} at column "
                                 f"{err.colno})") from None
            _check_record(record, field, name, lineno)
            yield lineno, record
        return
    header: list[str] | None = None
    buffered = io.StringIO()
    for lineno, line in lines:  # csv needs text; feed it line by line to keep numbering
        buffered.seek(0)
        buffered.truncate()
        buffered.write(line)
        buffered.seek(0)
        try:
            rows = list(csv.reader(buffered))
        except csv.Error as err:
            raise InputError(f"{name}, line {lineno}: malformed CSV ({err})") from None
        if not rows:
            continue
        row = rows[0]
        if header is None:
            header = row
            if field not in header:
                raise InputError(f"{name}, line 1: no column {field!r} in the header "
                                 f"(columns: {header}); set --text-field")
            continue
        if len(row) != len(header):
            raise InputError(f"{name}, line {lineno}: {len(row)} fields, header has "
                             f"{len(header)} (multi-line CSV fields are not supported)")
        yield lineno, dict(zip(header, row))


def _check_record(record: Any, field: str, name: str, lineno: int) -> None:
    if not isinstance(record, dict):
        raise InputError(f"{name}, line {lineno}: expected a JSON object")
    if field not in record:
        raise InputError(f"{name}, line {lineno}: no field {field!r} (set --text-field)")
    if not isinstance(record[field], str):
        raise InputError(f"{name}, line {lineno}: field {field!r} is "
                         f"{type(record[field]).__name__}, expected a string")


class RecordWriter:
    """Writes records in one format to an open text stream."""

    def __init__(self, stream: IO[str], fmt: str) -> None:
        self.stream, self.fmt = stream, fmt
        self._csv: Any = None

    def write(self, record: dict[str, Any] | str) -> None:
        if self.fmt == "txt":
            self.stream.write(f"{record}\n")
        elif self.fmt == "jsonl":
            self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            assert isinstance(record, dict)
            if self._csv is None:
                self._csv = csv.DictWriter(self.stream, fieldnames=list(record))
                self._csv.writeheader()
            self._csv.writerow(record)


@contextmanager
def atomic_output(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """A stream for ``path`` whose file appears only on success (``-`` is stdout).

    Written to a uniquely named temporary file in the same folder and renamed into place, so
    an interrupted write never leaves a half-written file and concurrent writers (e.g. two
    processes filling one cache) never share a temporary file. ``binary`` opens it in bytes
    mode (``np.save``, ``savefig``); text mode is UTF-8 without newline translation.
    """
    if path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", encoding="utf-8", newline="")) as f:
            yield f
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
