"""Fields of delimited records (CSV, semicolon, pipe and tab lines) and their column headers.

Personal data is often pasted as records: ``id,name,ssn,phone`` then ``7,Ana,536-22-8726,…``.
The recognisers of :mod:`textdp.detect.pii` read a value by what stands around it: a card
number may not follow a comma glued to a word (``1,234`` is a number), and a passport or
driver's licence number is taken only after its label word. In a record both fail: the
value is glued to its neighbours by the delimiter, and its label stands in the header line,
not beside it. :func:`fields` cuts such lines into fields and names each field's column, so
each field can be read alone and, with its header, as ``header: value``
(:func:`textdp.detect.pii.find_pii`).

A line is a record when it holds at least two of one delimiter (three fields; not a
thousands separator, ``40,763,474``, nor a comma in a URL) and, for a comma or a semicolon,
when most of them are not followed by a space (prose writes ``Hi
Anna, thanks, see you``; a record writes ``7,Ana,536``). A pipe or a tab delimits with or
without spaces around it. A field is the text between delimiters without the blanks and the
double quotes around it. The header of a block of records is its first line when that line
has the same number of fields as the next and none of its fields holds a digit; the lines
after it take its field names by position (``date_of_birth`` → ``date of birth``).

Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Delimiters of records, in the order they are tried on a line.
DELIMITERS = (",", ";", "|", "\t")
# Header names are words: at most this many characters, without digits.
_MAX_HEADER = 40


@dataclass(frozen=True)
class Field:
    """A field of a record: its character range in the text, and its column's header
    (``""`` without a header line)."""

    start: int
    end: int
    header: str = ""


# What is no delimiter: a thousands separator ("40,763,474.21") and a URL's commas.
_NOT_DELIMITING = re.compile(r"(?<=\d),(?=\d{3}(?!\d))|(?:https?://|www\.)\S+")


def _delimiter(line: str) -> str | None:
    """The delimiter that makes ``line`` a record, or ``None``."""
    line = _NOT_DELIMITING.sub(lambda m: "_" * len(m.group()), line)
    for d in DELIMITERS:
        count = line.count(d)
        if count < 2:
            continue
        if d in ",;":
            spaced = sum(1 for m in re.finditer(re.escape(d), line)
                         if line[m.end():m.end() + 1] in (" ", ""))
            if spaced * 2 >= count:
                continue
        return d
    return None


def _cells(line: str, start: int, d: str) -> list[tuple[int, int]]:
    """The character ranges of ``line``'s fields (``start``: the line's offset in the text),
    without surrounding blanks and double quotes; a delimiter inside double quotes is the
    field's (``"March 3, 1990"``), as CSV writes it."""
    bounds, quoted, a = [], False, 0
    for i, c in enumerate(line):
        if c == '"':
            quoted = not quoted
        elif c == d and not quoted:
            bounds.append((a, i))
            a = i + 1
    bounds.append((a, len(line)))
    out = []
    for a, b in bounds:
        while a < b and line[a] in " \t\"'":
            a += 1
        while b > a and line[b - 1] in " \t\"'\r":
            b -= 1
        out.append((start + a, start + b))
    return out


def _header_names(text: str, cells: list[tuple[int, int]]) -> list[str] | None:
    """The column names of a header line's cells, or ``None`` when it is no header line."""
    names = []
    for a, b in cells:
        name = text[a:b]
        if not name or len(name) > _MAX_HEADER or any(c.isdigit() for c in name) or \
                not any(c.isalpha() for c in name):
            return None
        names.append(re.sub(r"[_\-.]+", " ", name).strip())
    return names


def fields(text: str) -> list[Field]:
    """The fields of the record lines of ``text`` (see the module doc), in text order; none
    when no line is a record."""
    return _read(text)[0]


def header_cells(text: str) -> list[tuple[int, int]]:
    """The character ranges of the column names of ``text``'s header lines (``first_name``,
    ``sort_code``): a record's labels, never a person's name."""
    return _read(text)[1]


def _read(text: str) -> tuple[list[Field], list[tuple[int, int]]]:
    """The fields of the record lines and the cells of the header lines."""
    if not any(d in text for d in DELIMITERS):
        return [], []
    lines = []
    pos = 0
    for line in text.split("\n"):
        d = _delimiter(line)
        lines.append((d, _cells(line, pos, d) if d else []))
        pos += len(line) + 1
    out: list[Field] = []
    heads: list[tuple[int, int]] = []
    header: list[str] | None = None
    header_delimiter: str | None = None
    for k, (d, cells) in enumerate(lines):
        if d is None:
            header = None
            continue
        following = lines[k + 1] if k + 1 < len(lines) else (None, [])
        names = _header_names(text, cells) if following[0] == d and \
            len(following[1]) == len(cells) else None
        if names is not None and (header is None or header_delimiter != d or
                                  len(header) != len(cells)):
            header, header_delimiter = names, d
            heads.extend(cells)
            continue
        if header is not None and (header_delimiter != d or len(header) != len(cells)):
            header = None
        out.extend(Field(a, b, header[i] if header else "")
                   for i, (a, b) in enumerate(cells) if b > a)
    return out, heads
