"""textdp.records: record readers, the read-once input and the record writer.

The command line's behaviour is tested through ``main()`` in tests/cli/test_cli.py; these tests
pin the pieces other commands reuse and what an exception may carry.
"""

from __future__ import annotations

import io
import sys
import traceback

import pytest

from textdp.records import (
    InputError,
    RecordReader,
    RecordWriter,
    read_once,
    read_records,
)

CANARY = "Quillonbrae"  # an invented word: any echo of it is a leak


def _lines(data: bytes) -> list[bytes]:
    return io.BytesIO(data).readlines()


def _chain(err: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    while err is not None and err not in out:
        out.append(err)
        err = err.__cause__ or err.__context__
    return out


def _leaks(err: BaseException) -> bool:
    """Whether any exception in the chain holds the canary (message, repr or attributes)."""
    for e in _chain(err):
        values = [repr(e), str(e), *map(repr, vars(e).values())]
        values += [repr(getattr(e, a, "")) for a in ("doc", "object")]
        if any(CANARY in v for v in values):
            return True
    return False


@pytest.mark.parametrize("fmt, data, line", [
    ("jsonl", f'{{"text": "ok"}}\n{{"text": "{CANARY} never closed\n'.encode(), 2),
    ("jsonl", b'{"text": "ok"}\n{"text": "' + CANARY.encode() + b'\\ud800"}\n', 2),
    ("txt", b"fine\n" + CANARY.encode() + b" caf\xe9\n", 2),
    ("csv", b'id,text\n1,ok\n2,"' + CANARY.encode() + b'"x\n', 3),
    ("csv", b"id,text\n1,ok\n2," + CANARY.encode() + b",extra\n", 3),
    ("csv", b"id\n" + CANARY.encode() + b"\n", 1),
])
def test_errors_carry_no_input_in_their_chain(fmt, data, line):
    with pytest.raises(InputError) as info:
        list(read_records(_lines(data), fmt, "text", "in"))
    assert f"line {line}" in str(info.value)
    # Raised outside the handler of the error that caused it: no context holds the line.
    assert info.value.__context__ is None and info.value.__cause__ is None
    assert not _leaks(info.value)
    assert CANARY not in "".join(traceback.format_exception(info.value))


def test_csv_records_keep_their_first_line():
    data = b'id,text\n1,"two\nlines"\n\n2,"three\r\nlines\r\nhere"\n3,one\n\n'
    reader = RecordReader(_lines(data), "csv", "text", "in")
    got = list(reader)
    assert [n for n, _ in got] == [2, 5, 8]
    assert [r["text"] for _, r in got] == ["two\nlines", "three\r\nlines\r\nhere", "one"]
    assert reader.columns == ["id", "text"]


def test_bom_is_dropped_from_the_first_line_only():
    data = "\ufeffid,text\n1,\ufeffkept\n".encode()
    reader = RecordReader(_lines(data), "csv", "text", "in")
    assert list(reader) == [(2, {"id": "1", "text": "\ufeffkept"})]


def test_writer_refuses_what_is_not_utf8_json(tmp_path):
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    writer = RecordWriter(stream, "jsonl")
    with pytest.raises(InputError, match=r"line 7.*JSON") as info:
        writer.write({"text": "x", "n": float("inf")}, line=7)
    assert "Infinity" not in stream.buffer.getvalue().decode()
    with pytest.raises(InputError, match=r"line 8.*surrogate") as info:
        writer.write({"text": f"{CANARY}\ud800"}, line=8)
    assert not _leaks(info.value) and info.value.__context__ is None


def test_csv_writer_writes_the_header_first():
    stream = io.StringIO()
    RecordWriter(stream, "csv", columns=["id", "text"])
    assert stream.getvalue() == "id,text\r\n"


# ---------------------------------------------------------------------------------- read_once
def test_read_once_spools_a_stream_read_only_once(monkeypatch):
    class OneShot(io.RawIOBase):
        """A pipe: readable once, not seekable."""

        def __init__(self, data):
            self.data, self.reads = io.BytesIO(data), 0

        def readable(self):
            return True

        def readinto(self, b):
            chunk = self.data.read(len(b))
            b[:len(chunk)] = chunk
            return len(chunk)

    raw = OneShot(b'{"text": "a"}\n{"text": "b"}\n')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(raw)))
    with read_once("-", "jsonl", "text") as checked:
        assert checked.count == 2 and checked.spooled
        assert [r["text"] for _, r in checked.records()] == ["a", "b"]


def test_read_once_reads_a_regular_file_as_it_was_checked(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"text": "a"}\n{"text": "b"}')
    with read_once(str(src), "jsonl", "text") as checked:
        with open(src, "ab") as f:  # grows (with a bad line) after it was checked
            f.write(b"\nnot json\n")
        assert not checked.spooled
        assert [r["text"] for _, r in checked.records()] == ["a", "b"]
