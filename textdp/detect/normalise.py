"""A normalised view for detectors: names hidden by Unicode tricks or odd whitespace are found.

A tagger reads ``Mer\\u00adkel`` (soft hyphen), ``An\\u200bgela`` (zero-width space),
``Ｊｏｈｎ`` (fullwidth), ``Jose\\u0301`` (decomposed accent) or ``Angela\\tMerkel`` as strange
tokens and misses the name, which is then published unchanged. :class:`NormalisedView` wraps a
detector: for each doc whose text is not already normal it builds a normalised text

* NFKC per character (fullwidth and compatibility forms → their plain letters), with
  combining marks composed onto their letter (NFC: ``Jose\\u0301`` → ``José``);
* every invisible default-ignorable character removed: format characters (category ``Cf``:
  soft hyphen, ZWSP, ZWJ/ZWNJ, bidi marks and embeddings, BOM, invisible operators, …), the
  combining grapheme joiner U+034F, variation selectors and Hangul fillers;
* the replacement character U+FFFD removed too: a decoder leaves it for an invalid byte, often
  inside a name (``Jos\ufffd Mart\ufffdnez`` from Latin-1 read as UTF-8 with
  ``--encoding-errors replace``), where it would cut the name into fragments;
* every run of whitespace collapsed to one character: ``"\\n"`` when the run holds a line
  break, ``" "`` otherwise (tabs, NBSP, U+2000–200A, U+3000, double spaces). Line breaks are
  kept because they carry structure a tagger uses (a byline is not the dateline below it);
* then the disguise folds of :mod:`textdp.detect.disguise`: homoglyph skeletons (UTS #39)
  and Cyrillic transliteration, character references, tags inside or around a word,
  letter-spaced and dotted words, leetspeak names (``Каrеn``, ``Владимир``, ``&#74;ohn``,
  ``Jo<b></b>hn``, ``J o h n``, ``J.o.h.n``, ``M4r14`` are read as ``Karen``, ``Vladimir``,
  ``John``, ``Maria``), each character of a fold mapped to the original characters it
  stands for;

tokenizes it with the tokenizer the docs came from, runs the wrapped detector on all docs in
one batch, and maps every span back to the original tokens through a character map: an
original token is in a span when its characters overlap the original characters behind the
span's normalised ones. Docs whose text is already normal (the common case: plain ASCII with
single spaces) are passed through untouched, and a batch of only such docs costs one regular
expression scan per text.

The original text is never logged, printed or put in an exception.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textdp.detect.base import Finding, Span, attribute, detector_name, find

PERSON = "PERSON"

#: Pipelines whose own tokenizer makes the normalised views of their docs (by id of vocab).
_PIPELINES: dict[int, weakref.ref[Any]] = {}


def use_pipeline_tokenizer(nlp: Any) -> None:
    """Make the normalised views of docs of ``nlp``'s vocab with ``nlp``'s own tokenizer.

    That tokenizer was built outside any memory zone and takes part in ``nlp.memory_zone()``.
    A blank tokenizer built for the vocab *inside* a zone keeps special-case lexemes the zone
    frees: every later zone then failed on a text with a blank line (spaCy E031, issue 34).
    """
    vocab = getattr(nlp, "vocab", None)
    if vocab is not None and getattr(nlp, "tokenizer", None) is not None:
        # An object without weak references: the blank tokenizer is used.
        with contextlib.suppress(TypeError):
            _PIPELINES[id(vocab)] = weakref.ref(nlp)

# Default-ignorable characters that are not of category Cf (which is tested by category):
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian free variation
# selectors, variation selectors (and their supplement); and U+FFFD (see the module doc).
_IGNORABLE_EXTRA = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0\ufffd"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))
)
# Whitespace that breaks a line (str.splitlines' set); a run holding one becomes "\n".
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
# Whitespace other than a single " " or "\n" (regex \s is str.isspace's set).
_ODD_SPACE = re.compile(r"[^\S \n]|\s\s")


def is_ignorable(char: str) -> bool:
    """Whether ``char`` is invisible and removed from the normalised text (see module doc)."""
    return char in _IGNORABLE_EXTRA or unicodedata.category(char) == "Cf"


def is_normal(text: str) -> bool:
    """Whether :func:`normalise_text` leaves ``text`` as it is. Plain ASCII costs one regex
    scan; other text an NFKC check and a look at its distinct non-ASCII characters."""
    from textdp.detect.disguise import CYRILLIC, FOLDS, HINT, fold_scripts, skeletons

    if _ODD_SPACE.search(text):
        return False
    if not text.isascii():
        if not unicodedata.is_normalized("NFKC", text):
            return False
        foreign = {c for c in set(text) if c > "\x7f"}
        if any(is_ignorable(c) for c in foreign):
            return False
        table = skeletons()
        if any(c in table or c.lower() in CYRILLIC for c in foreign) and fold_scripts(text):
            return False
    if not HINT.search(text):
        return True
    return not any(fold(text) for fold in FOLDS if fold is not fold_scripts)


@dataclass(frozen=True)
class NormalisedText:
    """A normalised text and, per normalised character, the original characters it comes from
    (``starts[i]`` to ``ends[i]``, end exclusive; several normalised characters may share one
    original range, as ``"ﬁ"`` → ``"fi"``, and one may cover several, as ``"e\\u0301"`` →
    ``"é"``)."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def original_range(self, start: int, end: int) -> tuple[int, int]:
        """The original character range behind the normalised range ``[start, end)``
        (``start < end``)."""
        if not 0 <= start < end <= len(self.text):
            raise ValueError(f"range {start}:{end} outside the normalised text "
                             f"of {len(self.text)} characters")
        return self.starts[start], self.ends[end - 1]

    def __repr__(self) -> str:  # never show text (privacy rule 7)
        return f"NormalisedText(chars={len(self.text)})"


def normalise_text(text: str) -> NormalisedText:
    """``text`` normalised as the module doc says, with its character map: Unicode forms,
    invisible characters and whitespace first, then the disguise folds of
    :mod:`textdp.detect.disguise` in turn, each mapped back through the ones before."""
    from textdp.detect.disguise import FOLDS, HINT, fold_scripts

    if text.isascii() and not _ODD_SPACE.search(text):
        current, starts, ends = text, None, None  # the identity, built only if needed
    else:
        base = _unicode_text(text)
        current, starts, ends = base.text, base.starts, base.ends
    hinted = HINT.search(current) is not None
    for fold in FOLDS:
        if fold is not fold_scripts and not hinted:
            continue
        edits = fold(current)
        if edits:
            current, starts, ends = _apply(current, starts, ends, edits)
    if starts is not None and ends is not None and \
            not unicodedata.is_normalized("NFC", current):
        # a fold may leave a letter that composes with the mark after it (Cyrillic "Ы"
        # folded to "Y" before U+0301): compose again, so normalising twice changes nothing
        again = _unicode_text(current)
        starts = [starts[a] for a in again.starts]
        ends = [ends[b - 1] for b in again.ends]
        current = again.text
    if starts is None:
        n = len(text)
        return NormalisedText(text, tuple(range(n)), tuple(range(1, n + 1)))
    return NormalisedText(current, tuple(starts), tuple(ends))


def _apply(text: str, starts: Sequence[int] | None, ends: Sequence[int] | None,
           edits: Sequence[Any]) -> tuple[str, list[int], list[int]]:
    """``text`` with ``edits`` (:class:`~textdp.detect.disguise.Edit`, in offsets of
    ``text``) made, and the map of its characters to the original (``starts``/``ends``: the
    map of ``text``'s; ``None`` when ``text`` is the original)."""
    def lo(i: int) -> int:
        return i if starts is None else starts[i]

    def hi(i: int) -> int:
        return i + 1 if ends is None else ends[i]

    out: list[str] = []
    new_starts: list[int] = []
    new_ends: list[int] = []
    pos = 0
    for edit in sorted(edits):
        if edit.start < pos:
            continue  # overlaps one already made
        for i in range(pos, edit.start):
            out.append(text[i])
            new_starts.append(lo(i))
            new_ends.append(hi(i))
        for char, (a, b) in zip(edit.chars, edit.sources):
            out.append(char)
            new_starts.append(lo(a))
            new_ends.append(hi(b - 1))
        pos = edit.end
    for i in range(pos, len(text)):
        out.append(text[i])
        new_starts.append(lo(i))
        new_ends.append(hi(i))
    return "".join(out), new_starts, new_ends


def _unicode_text(text: str) -> NormalisedText:
    """``text`` with Unicode forms, invisible characters and whitespace normalised (the
    first part of the module doc), with its character map."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def emit(piece: str, a: int, b: int) -> None:
        out.append(piece)
        starts.extend([a] * len(piece))
        ends.extend([b] * len(piece))

    def compose(chars: list[str]) -> str:
        cluster = "".join(chars)
        piece = unicodedata.normalize("NFKC", cluster)
        # NFKC spells spacing accents as a space + combining mark ("´" → " ́"): that would
        # split "O´Neil" in two, so such a cluster is only composed.
        if piece != cluster and any(ch.isspace() for ch in piece):
            piece = unicodedata.normalize("NFC", cluster)
        return piece

    # A cluster is a character with the combining marks after it (ignorables in between are
    # dropped); it is normalised as a whole so that NFKC composes "e" + U+0301 into "é".
    cluster: list[str] = []
    cluster_start = cluster_end = 0
    space_start = -1
    space_end = 0
    space_break = False
    for i, c in enumerate(text):
        if c.isspace():
            if cluster:
                emit(compose(cluster), cluster_start, cluster_end)
                cluster = []
            if space_start < 0:
                space_start, space_break = i, False
            space_end = i + 1
            space_break = space_break or c in _LINE_BREAKS
            continue
        if c > "\x7f":
            if is_ignorable(c):
                continue  # dropped; the cluster or whitespace run around it stays open
            if cluster and unicodedata.category(c)[0] == "M":
                cluster.append(c)
                cluster_end = i + 1
                continue
        if space_start >= 0:
            emit("\n" if space_break else " ", space_start, space_end)
            space_start = -1
        if cluster:
            emit(compose(cluster), cluster_start, cluster_end)
        cluster = [c]
        cluster_start, cluster_end = i, i + 1
    if cluster:
        emit(compose(cluster), cluster_start, cluster_end)
    if space_start >= 0:
        emit("\n" if space_break else " ", space_start, space_end)
    return NormalisedText("".join(out), tuple(starts), tuple(ends))


def map_spans(doc: Any, view: Any, norm: NormalisedText, spans: Sequence[Span]) -> list[Span]:
    """Spans found on ``view`` (the tokenized ``norm.text``) in token indices of ``doc``: an
    original token is in a span when its characters overlap the original range behind the
    span. Spans of one label that come to overlap are merged (touching ones stay apart, so
    two names side by side stay two); other labels are dropped where they overlap a person,
    as the ensemble does."""
    token_starts = [t.idx for t in doc]
    token_ends = [t.idx + len(t.text) for t in doc]
    by_label: dict[str, list[tuple[int, int]]] = {}
    for s, e, label in spans:
        if not 0 <= s < e <= len(view):
            continue
        last = view[e - 1]
        a, b = norm.original_range(view[s].idx, last.idx + len(last.text))
        first = bisect_right(token_ends, a)  # first token ending after a
        stop = bisect_left(token_starts, b)  # tokens before it start before b
        if first < stop:
            by_label.setdefault(label, []).append((first, stop))
    out: list[Span] = []
    for label, ranges in by_label.items():
        ranges.sort()
        merged = [list(ranges[0])]
        for s, e in ranges[1:]:
            if s < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        out.extend((s, e, label) for s, e in merged)
    persons = {k for s, e, label in out if label == PERSON for k in range(s, e)}
    return sorted(span for span in out if span[2] == PERSON or
                  not any(k in persons for k in range(span[0], span[1])))


# A token that is a markup tag or a piece of one ("</b", "b>", "<i>", "b" of "<", "b", ">").
_TAG_TOKEN = re.compile(r"<?/?[A-Za-z][\w:-]*/?>?|/?>|</?")


# What a token glued to a name may start with and still be part of it ("'s", "-Zahra").
_NAME_GLUE = ("'", "’", "-", "‐")


def _is_markup(doc: Any, k: int) -> bool:
    """A markup tag or a piece of one, or a token glued after another that starts with
    punctuation (``_CV.pdf`` after ``Whitfield``, ``\\Desktop``): neither is a name."""
    text = doc[k].text
    if k > 0 and not doc[k - 1].whitespace_ and text and not text[0].isalnum() and \
            not text.startswith(_NAME_GLUE) and "@" not in text and \
            any(c.isalpha() for c in text):
        return True
    if "<" in text or ">" in text:
        return _TAG_TOKEN.fullmatch(text) is not None
    if not (0 < k < len(doc) - 1) or doc[k - 1].whitespace_ or doc[k].whitespace_:
        return False
    if not (doc[k - 1].text.endswith(("<", "</")) and doc[k + 1].text.startswith((">", "/>"))
            and text.isalnum()):
        return False
    # A tag that touches no letter or digit hides nothing: ``<yusuf> hi`` is a chat speaker
    # label, a name (as :func:`~textdp.detect.disguise.fold_tags` leaves it unfolded).
    before = doc[k - 2].text[-1] if k >= 2 and not doc[k - 2].whitespace_ else " "
    after = doc[k + 2].text[0] if k + 2 < len(doc) and not doc[k + 1].whitespace_ else " "
    return before.isalnum() or after.isalnum()


def drop_markup(doc: Any, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with the markup tags, and the tokens glued after a word that start with
    punctuation, taken out of every ``PERSON`` span (a span is cut around them): a tag or a
    file extension glued to a name (``John</b>``, ``Whitfield_CV.pdf``) is never part of
    it, and replacing it would break the markup or path around the name."""
    out: list[Span] = []
    for s, e, label in spans:
        if label != PERSON:
            out.append((s, e, label))
            continue
        start = s
        for k in range(s, e + 1):
            if k == e or _is_markup(doc, k):
                if k > start:
                    out.append((start, k, label))
                start = k + 1
    return sorted(out)


class NormalisedView:
    """A detector run on a normalised view of each doc, its spans mapped back.

    Args:
        inner: the detector that sees the normalised docs (any object following the
            :class:`~textdp.detect.base.Detector` protocol); it gets all docs of a call in one
            batch, normal docs as they are.
    """

    def __init__(self, inner: Any) -> None:
        if not callable(inner):
            raise ValueError(f"inner must be a detector, got {type(inner).__name__}")
        self.inner = inner
        # Tokenizers by vocab (Vocab takes no weak references): a few per process.
        self._tokenizers: dict[int, tuple[Any, Any]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"inner": self.inner}  # tokenizers are rebuilt in the receiving process

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.inner = state["inner"]
        self._tokenizers = {}

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        docs = list(docs)
        views: list[tuple[Any, NormalisedText] | None] = []
        for doc in docs:
            text = doc.text
            views.append(None if is_normal(text) else self._view(doc, text))
        if all(v is None for v in views):
            return [drop_markup(doc, found) for doc, found in zip(docs, self.inner(docs))]
        spans = self.inner([doc if v is None else v[0] for doc, v in zip(docs, views)])
        return [drop_markup(doc, found if v is None else map_spans(doc, v[0], v[1], found))
                for doc, v, found in zip(docs, views, spans)]

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        """The spans of :meth:`__call__` with the detectors and scores of the inner
        detector's findings that map onto them (:func:`~textdp.detect.base.find`)."""
        docs = list(docs)
        views: list[tuple[Any, NormalisedText] | None] = []
        for doc in docs:
            text = doc.text
            views.append(None if is_normal(text) else self._view(doc, text))
        found = find(self.inner, [doc if v is None else v[0] for doc, v in zip(docs, views)])
        out: list[list[Finding]] = []
        for doc, v, fs in zip(docs, views, found):
            if v is None:
                kept = drop_markup(doc, [f.span for f in fs])
                out.append(list(fs) if kept == sorted(f.span for f in fs)
                           else attribute(kept, fs, detector_name(self.inner)))
                continue
            spans = drop_markup(doc, map_spans(doc, v[0], v[1], [f.span for f in fs]))
            # Each finding mapped on its own, to say which detector found each mapped span.
            mapped = [Finding(s, e, lab, f.detector, f.score) for f in fs
                      for s, e, lab in map_spans(doc, v[0], v[1], [f.span])]
            out.append(attribute(spans, mapped, detector_name(self.inner)))
        return out

    def _view(self, doc: Any, text: str) -> tuple[Any, NormalisedText] | None:
        norm = normalise_text(text)
        if norm.text == text:
            return None
        from textdp.detect.glued import split_glued
        from textdp.tokenization import tokenize

        return split_glued([tokenize(self._tokenizer(doc.vocab), norm.text)])[0], norm

    def _tokenizer(self, vocab: Any) -> Any:
        """The tokenizer for docs of ``vocab``: the pipeline's own when one was named
        (:func:`use_pipeline_tokenizer`) or when they come from the embedded pipeline (already
        loaded, nothing to build), else a blank pipeline's of the vocab's language sharing that
        vocab (built once per vocab; per call inside a memory zone, see
        :func:`use_pipeline_tokenizer`)."""
        from textdp import defaults

        ref = _PIPELINES.get(id(vocab))
        owner = ref() if ref is not None else None
        if owner is not None and owner.vocab is vocab:
            return owner.tokenizer
        cache_info = getattr(defaults.load_pipeline, "cache_info", None)
        if cache_info is not None and cache_info().currsize:  # never load it to compare
            nlp = defaults.load_pipeline()
            if nlp.vocab is vocab:
                return nlp.tokenizer
        cached = self._tokenizers.get(id(vocab))
        if cached is not None and cached[0] is vocab:
            return cached[1]
        import spacy

        try:
            tokenizer = spacy.blank(vocab.lang or "en", vocab=vocab).tokenizer
        except (ImportError, KeyError, ValueError):  # a language spaCy has no class for
            tokenizer = spacy.blank("en", vocab=vocab).tokenizer
        if getattr(vocab, "in_memory_zone", False):
            # Built inside a zone: its special cases die with the zone, so it is not kept.
            return tokenizer
        if len(self._tokenizers) >= 4:
            self._tokenizers.pop(next(iter(self._tokenizers)))
        self._tokenizers[id(vocab)] = (vocab, tokenizer)
        return tokenizer

    def __repr__(self) -> str:
        return f"NormalisedView({self.inner!r})"
