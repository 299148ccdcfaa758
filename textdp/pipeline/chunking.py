"""Long texts in bounded chunks, with overlap so names at a cut are still found.

A text of any length is privatized chunk by chunk, so memory depends on the chunk size, not on
the text (one 10 MB text peaked at several GB read whole). Each :class:`Chunk` has

* a **core**: the characters whose output it writes. Cores tile the text exactly, so the
  output is the concatenation of the cores' outputs;
* a **read** range: the core plus up to ``overlap`` characters on each side, which the
  tokenizer and the detector see. A name cut by the core's edge ("… Angela | Merkel said …")
  is read whole in both neighbouring chunks, so the detector finds it in each, and each chunk
  replaces the part in its own core.

Cuts fall where a non-space character follows whitespace, so a cut is a token boundary for
spaCy's tokenizer (which never puts whitespace inside a token of words). Within the second
half of the window a cut prefers, in order, the end of a line, the end of a sentence, then any
whitespace. A window without such a boundary (a run of the limit's length with no whitespace
inside, or whitespace up to the text's end) is cut hard: the token there is split, and the two
chunks read the cut as a text edge, without overlap across it, so they tokenize it alike.
Chunk texts are slices of the original: nothing is copied beyond one chunk at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Characters per chunk core.
CHUNK_CHARS = 20_000
#: Characters per batch of chunks (with the Privatizer's ``batch_size``, what bounds memory).
#: With the heap trimmed after each batch (textdp.memory), one text of 1 or 3 MB peaked
#: 300 MB above the loaded models at 50,000 (330 MB and growing at 100,000), at the same speed.
BATCH_CHARS = 50_000
#: Characters read on each side of a core (≈ 60 words: a name and the words that reveal it).
OVERLAP_CHARS = 400

_AFTER_LINE = re.compile(r"\n\s*(?=\S)")
_AFTER_SENTENCE = re.compile(r"[.!?][\"'”’)\]]*\s+(?=\S)")
_BOUNDARY = re.compile(r"(?<=\s)(?=\S)")  # zero-width: its look-behind sees before `pos`


@dataclass(frozen=True)
class Chunk:
    """One chunk: ``text[start:end]`` is read, and its output kept for
    ``text[core_start:core_end]`` (offsets into the whole text)."""

    start: int
    end: int
    core_start: int
    core_end: int


def chunk_text(text: str, limit: int | None = None, overlap: int | None = None
               ) -> Iterator[Chunk]:
    """The chunks of ``text`` (one chunk, the whole text, when it fits in ``limit``;
    defaults: :data:`CHUNK_CHARS` and :data:`OVERLAP_CHARS`, read at each call)."""
    limit = CHUNK_CHARS if limit is None else limit
    overlap = OVERLAP_CHARS if overlap is None else overlap
    n = len(text)
    if n <= limit:
        yield Chunk(0, n, 0, n)
        return
    core_start = 0
    while core_start < n:
        core_end = n if n - core_start <= limit else _cut(text, core_start, limit)
        # A hard cut is read as a text edge by both neighbours (no overlap across it), so
        # they split the token there alike.
        start = _first_boundary(text, max(0, core_start - overlap), core_start) \
            if _is_boundary(text, core_start) else core_start
        end = _last_boundary(text, core_end, min(n, core_end + overlap)) \
            if _is_boundary(text, core_end) else core_end
        yield Chunk(start, end, core_start, core_end)
        core_start = core_end


def _cut(text: str, start: int, limit: int) -> int:
    """Where the core starting at ``start`` ends (see the module docstring)."""
    end = start + limit
    half = start + limit // 2
    for pattern in (_AFTER_LINE, _AFTER_SENTENCE, _BOUNDARY):
        cut = _last_match_end(pattern, text, half, end)
        if cut is not None:
            return cut
    cut = _last_match_end(_BOUNDARY, text, start, end)
    return end if cut is None else cut


def _last_match_end(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int | None:
    """The end of the last match of ``pattern`` ending in ``(lo, hi]`` (its look-ahead may
    read one character past ``hi``)."""
    last = None
    for m in pattern.finditer(text, lo, min(len(text), hi + 1)):
        if lo < m.end() <= hi:
            last = m.end()
    return last


def _is_boundary(text: str, pos: int) -> bool:
    """Whether ``pos`` is a text edge or a non-space right after whitespace."""
    return pos in (0, len(text)) or (text[pos - 1].isspace() and not text[pos].isspace())


def _first_boundary(text: str, lo: int, default: int) -> int:
    """The first token boundary at or after ``lo`` (``default`` if none before it)."""
    if lo == 0:
        return 0
    m = _BOUNDARY.search(text, lo, default + 1)
    return m.start() if m is not None and m.start() <= default else default


def _last_boundary(text: str, default: int, hi: int) -> int:
    """The last token boundary at or before ``hi`` (``default`` if none after it)."""
    if hi == len(text):
        return hi
    cut = _last_match_end(_BOUNDARY, text, default, hi)
    return default if cut is None else cut
