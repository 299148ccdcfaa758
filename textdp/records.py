"""Record formats of the command line (``.txt``, ``.jsonl``, ``.csv``, ``-``): readers, writers.

Input is read once (:func:`read_once`): a regular file is checked record by record and then
read again from the start; anything else (standard input, ``/dev/stdin``, a FIFO, a shell's
``<(…)``) is copied into an anonymous spool while it is checked — in memory up to
:data:`SPOOL_MEMORY_BYTES`, then in an unnamed temporary file (``O_TMPFILE``) that the operating
system removes even when the process is killed — so every record is checked before anything is
written, whatever the input is. CSV is parsed by a real CSV reader over the whole stream (a
quoted field may hold line breaks); errors name the record's first line.

Output (:class:`RecordWriter`) is written in the same formats to a stream the caller opens,
usually :func:`textdp.files.atomic_output`, which makes the file appear only when complete.

Error messages name the file, line, field or column position and character position, never the
text: not even a CSV header cell or a first line. Exceptions raised here carry no context that
holds the input either (they are raised outside the handler of the error that caused them).
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import IO, Any

FORMATS = ("txt", "jsonl", "csv")
# Standard input, FIFOs and other streams are spooled in memory up to this size, then in an
# unnamed temporary file: they can be read once only, and every record is checked before output.
SPOOL_MEMORY_BYTES = 8 * 2**20
# csv's default field limit (131,072 characters) would refuse one long text; texts of any length
# are split by the privatizer, so the limit is raised while reading (never lowered).
_CSV_FIELD_LIMIT = 2**31 - 1
_BOM = "\ufeff"
# In a Python str every UTF-16 surrogate is a lone one (JSON's "\ud83d\ude00" pairs decode to one
# character); they cannot be written as UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")


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


# ---------------------------------------------------------------------------------- reading
def _decoded_lines(stream: Iterable[bytes], name: str, errors: str) -> Iterator[str]:
    """Each line decoded (line ending kept); a UTF-8 BOM at the start is dropped."""
    for lineno, raw in enumerate(stream, 1):
        problem = None
        try:
            line = raw.decode("utf-8", errors=errors)
        except UnicodeDecodeError as err:
            problem = f"invalid UTF-8 at byte {err.start}"
        if problem is not None:  # raised here, so no context holding the bytes is attached
            raise InputError(f"{name}, line {lineno}: {problem} "
                             "(use --encoding-errors replace to substitute it)")
        if lineno == 1 and line.startswith(_BOM):
            line = line[1:]
        yield line


def _lone_surrogate(value: Any, field: str) -> str | None:
    """Where ``value`` (a decoded JSON record) holds a lone surrogate, in words without text."""
    if isinstance(value, dict):
        text = value.get(field)
        if isinstance(text, str) and (m := _SURROGATE.search(text)):
            return f"field {field!r} has a lone surrogate (\\ud800-\\udfff) at character " \
                   f"{m.start()}"
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return f"a key or value other than {field!r} has a lone surrogate " \
                       "(\\ud800-\\udfff)"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class _NonFinite(ValueError):
    pass


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _NonFinite
    return value


def _no_constant(literal: str) -> Any:
    raise _NonFinite


class RecordReader:
    """Yields ``(line, record)``: a dict for JSONL/CSV, the line's text for TXT.

    Args:
        stream: the input's lines as bytes (an open binary file, or any iterable of lines).
        fmt: ``txt``, ``jsonl`` or ``csv``.
        field: JSONL key / CSV column holding the text.
        name: the source's name for error messages.
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        report_field: a JSONL key that no record may already have (``--report`` adds it).
        review_field: a JSONL key or CSV column that no record or header may already have
            (``--review-field`` adds it).

    ``columns`` is the CSV header once it was read (``None`` for other formats); ``newline``
    the line ending of the first CSV line (``"\r\n"`` or ``"\n"``, ``None`` until a line
    ending was read), which :class:`RecordWriter` repeats so LF files stay LF. Raises
    :class:`InputError` naming the (first) line of the record for malformed JSON or CSV, a
    missing or non-string text field, a lone surrogate, a number JSON cannot hold, a CSV row
    with the wrong number of fields, duplicate CSV column names, or invalid UTF-8.
    """

    def __init__(self, stream: Iterable[bytes], fmt: str, field: str, name: str,
                 errors: str = "strict", *, report_field: str | None = None,
                 review_field: str | None = None) -> None:
        self.stream, self.fmt, self.field, self.name = stream, fmt, field, name
        self.errors, self.report_field = errors, report_field
        self.review_field = review_field
        self.columns: list[str] | None = None
        self.newline: str | None = None

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any] | str]]:
        lines = _decoded_lines(self.stream, self.name, self.errors)
        if self.fmt == "txt":
            return ((n, line[:-1] if line.endswith("\n") else line)
                    for n, line in enumerate(lines, 1))
        if self.fmt == "jsonl":
            return self._jsonl(lines)
        return self._csv(lines)

    def _jsonl(self, lines: Iterator[str]) -> Iterator[tuple[int, dict[str, Any] | str]]:
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            problem = None
            try:
                record = json.loads(line, parse_float=_finite_float, parse_constant=_no_constant)
            except _NonFinite:
                problem = "a number JSON cannot hold (NaN, Infinity or out of double range)"
            except json.JSONDecodeError as err:
                problem = f"malformed JSON ({err.msg} at column {err.colno})"
            except RecursionError:
                problem = "JSON nested too deeply"
            if problem is not None:
                raise InputError(f"{self.name}, line {lineno}: {problem}")
            _check_record(record, self.field, self.name, lineno, self.report_field,
                          self.review_field)
            yield lineno, record

    def _csv(self, lines: Iterator[str]) -> Iterator[tuple[int, dict[str, Any] | str]]:
        if csv.field_size_limit() < _CSV_FIELD_LIMIT:
            csv.field_size_limit(_CSV_FIELD_LIMIT)
        # One source item per physical line, so reader.line_num counts lines; strict: an
        # unclosed quote is an error, not a field that swallows the rest of the file.
        reader = csv.reader(self._line_ending(lines), strict=True)
        width = 0
        while True:
            start = reader.line_num + 1  # the record's first line
            problem = None
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as err:
                problem = f"malformed CSV ({err}) in the record starting at line {start}"
            if problem is not None:
                raise InputError(f"{self.name}, line {reader.line_num}: {problem}")
            if not row:
                continue  # a blank line (an empty field is written as "")
            if self.columns is None:
                self.columns, width = _check_header(row, self.field, self.name, start), len(row)
                if self.review_field is not None and self.review_field in row:
                    raise InputError(f"{self.name}, line {start}: the header already has a "
                                     f"column {self.review_field!r}, where the review signal "
                                     "would go; choose another name with --review-field")
                continue
            if len(row) != width:
                raise InputError(f"{self.name}, line {start}: {len(row)} fields, the header has "
                                 f"{width}")
            yield start, dict(zip(self.columns, row))


    def _line_ending(self, lines: Iterator[str]) -> Iterator[str]:
        """``lines`` unchanged, noting the first line's ending in ``newline``."""
        for line in lines:
            if self.newline is None and line.endswith("\n"):
                self.newline = "\r\n" if line.endswith("\r\n") else "\n"
            yield line


def _check_header(header: list[str], field: str, name: str, lineno: int) -> list[str]:
    if field not in header:
        # The header's cells are not printed: a file without a header has data there.
        raise InputError(f"{name}, line {lineno}: no column {field!r} in the header (it has "
                         f"{len(header)} column{'s' if len(header) != 1 else ''}); set "
                         "--text-field, or give the file a header")
    positions: dict[str, list[int]] = {}
    for i, cell in enumerate(header, 1):
        positions.setdefault(cell, []).append(i)
    if len(positions[field]) > 1:
        raise InputError(f"{name}, line {lineno}: column {field!r} appears at positions "
                         f"{_positions(positions[field])}; rename all but one")
    duplicated = [p for p in positions.values() if len(p) > 1]
    if duplicated:
        groups = "; ".join(_positions(p) for p in duplicated)
        raise InputError(f"{name}, line {lineno}: the header repeats a column name (columns "
                         f"{groups} of {len(header)}); one column's values would be lost, "
                         "rename them")
    return header


def _positions(positions: list[int]) -> str:
    return ", ".join(map(str, positions[:-1])) + f" and {positions[-1]}"


def read_records(stream: Iterable[bytes], fmt: str, field: str, name: str,
                 errors: str = "strict", *, report_field: str | None = None,
                 review_field: str | None = None,
                 ) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Yield ``(line, record)``: a dict for JSONL/CSV, the line's text for TXT.

    See :class:`RecordReader` (which also gives the CSV header) for the checks.
    """
    return iter(RecordReader(stream, fmt, field, name, errors, report_field=report_field,
                             review_field=review_field))


def _check_record(record: Any, field: str, name: str, lineno: int,
                  report_field: str | None = None, review_field: str | None = None) -> None:
    if not isinstance(record, dict):
        raise InputError(f"{name}, line {lineno}: expected a JSON object")
    if field not in record:
        raise InputError(f"{name}, line {lineno}: no field {field!r} (set --text-field)")
    if record[field] is not None and not isinstance(record[field], str):
        raise InputError(f"{name}, line {lineno}: field {field!r} is "
                         f"{type(record[field]).__name__}, expected a string or null")
    if report_field is not None and report_field in record:
        raise InputError(f"{name}, line {lineno}: the record already has a field "
                         f"{report_field!r}, where the report would go; choose another name "
                         "with --report-field")
    if review_field is not None and review_field in record:
        raise InputError(f"{name}, line {lineno}: the record already has a field "
                         f"{review_field!r}, where the review signal would go; choose another "
                         "name with --review-field")
    if where := _lone_surrogate(record, field):
        raise InputError(f"{name}, line {lineno}: {where}; it is not Unicode text and cannot "
                         "be written as UTF-8")


@dataclass
class CheckedInput:
    """An input whose every record was checked; :meth:`records` reads it (again) once.

    ``count`` is the number of records, ``columns`` the CSV header (``None`` otherwise),
    ``spooled`` whether it was copied (not a regular file), ``newline`` the CSV line ending
    (see :class:`RecordReader`).
    """

    fmt: str
    field: str
    name: str
    errors: str
    report_field: str | None
    count: int
    columns: list[str] | None
    spooled: bool
    _stream: IO[bytes] = dataclass_field(repr=False)
    _size: int | None = dataclass_field(repr=False, default=None)
    newline: str | None = None
    review_field: str | None = None

    def records(self) -> Iterator[tuple[int, dict[str, Any] | str]]:
        self._stream.seek(0)
        lines: Iterable[bytes] = self._stream if self._size is None else \
            _first_bytes(self._stream, self._size)
        return read_records(lines, self.fmt, self.field, self.name, self.errors,
                            report_field=self.report_field, review_field=self.review_field)


def _first_bytes(stream: IO[bytes], size: int) -> Iterator[bytes]:
    """The lines of a regular file up to the size it had when it was checked."""
    for line in stream:
        if len(line) >= size:
            yield line[:size]
            return
        size -= len(line)
        yield line


def _tee(source: Iterable[bytes], sink: IO[bytes]) -> Iterator[bytes]:
    for line in source:
        sink.write(line)
        yield line


@contextmanager
def read_once(path: str, fmt: str, field: str, *, errors: str = "strict",
              report_field: str | None = None, review_field: str | None = None
              ) -> Iterator[CheckedInput]:
    """Open ``path`` (``-``: standard input) once and check every record before returning.

    A regular file is read again from the start by :meth:`CheckedInput.records` (up to the
    size it was checked at); anything else is spooled while it is checked (module docstring).
    The spool lives only inside the ``with`` block.
    """
    if path == "-":
        source: IO[bytes] = sys.stdin.buffer
    else:
        source = open(path, "rb")  # noqa: SIM115 - closed below
    spool: IO[bytes] | None = None
    try:
        regular = False
        if path != "-":
            regular = stat.S_ISREG(os.fstat(source.fileno()).st_mode)
        if regular:
            reader = RecordReader(source, fmt, field, path, errors, report_field=report_field,
                                  review_field=review_field)
            count = sum(1 for _ in reader)
            stream, size = source, source.tell()
        else:
            spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES,  # noqa: SIM115
                                                  prefix=".textdp-spool-")
            reader = RecordReader(_tee(source, spool), fmt, field, path, errors,
                                  report_field=report_field, review_field=review_field)
            count = sum(1 for _ in reader)
            stream, size = spool, None
        yield CheckedInput(fmt, field, path, errors, report_field, count, reader.columns,
                           not regular, stream, size, newline=reader.newline,
                           review_field=review_field)
    finally:
        if spool is not None:
            spool.close()
        if path != "-":
            source.close()


# ---------------------------------------------------------------------------------- writing
class RecordWriter:
    """Writes records in one format to an open text stream.

    ``columns`` (CSV) is the header, written at once, so a header-only input gives a header-only
    output; without it the first record's keys are the header. ``newline`` (CSV) ends each
    row: the input's (``CheckedInput.newline``), else ``"\r\n"`` as RFC 4180 has it.
    :meth:`write` raises :class:`InputError` naming ``line`` when a record cannot be written as
    UTF-8 JSON (a lone surrogate, a non-finite number: JSON has no ``Infinity``).
    """

    def __init__(self, stream: IO[str], fmt: str, *, columns: list[str] | None = None,
                 newline: str | None = None) -> None:
        self.stream, self.fmt = stream, fmt
        #: Records whose writing began: one interrupted inside the stream's ``write`` (a
        #: signal during a blocked write to a pipe) is in the stream's buffer and reaches the
        #: output when it is flushed, so it counts as written.
        self.count = 0
        self._csv: Any = None
        self._columns = columns
        self._newline = newline or "\r\n"
        if fmt == "csv" and columns is not None:
            self._csv = csv.writer(stream, lineterminator=self._newline)
            self._csv.writerow(columns)

    def write(self, record: dict[str, Any] | str, *, line: int | None = None) -> None:
        where = f"line {line}" if line is not None else "a record"
        if self.fmt == "txt":
            assert isinstance(record, str)
            self._check_text(record, where)
            self.count += 1
            self.stream.write(f"{record}\n")
        elif self.fmt == "jsonl":
            problem = None
            try:
                text = json.dumps(record, ensure_ascii=False, allow_nan=False)
            except ValueError:
                problem = "a number JSON cannot hold (NaN or Infinity)"
            if problem is not None:
                raise InputError(f"{where}: {problem}; nothing non-JSON is written")
            self._check_text(text, where)
            self.count += 1
            self.stream.write(text + "\n")
        else:
            assert isinstance(record, dict)
            if self._csv is None:
                self._columns = list(record)
                self._csv = csv.writer(self.stream, lineterminator=self._newline)
                self._csv.writerow(self._columns)
            row = [record[c] for c in self._columns or ()]
            for cell in row:
                if isinstance(cell, str):
                    self._check_text(cell, where)
            self.count += 1
            self._csv.writerow(row)

    @staticmethod
    def _check_text(text: str, where: str) -> None:
        if m := _SURROGATE.search(text):
            raise InputError(f"{where}: a lone surrogate at character {m.start()} of the output "
                             "record cannot be written as UTF-8")
