"""Allow and deny lists and a score threshold around any detector.

A user who knows their data knows words no tagger will: a product called ``Jordan`` that is
never a person (allow list: never targeted), a patient's surname the tagger misses (deny list:
always targeted). :class:`ListDetector` wraps a detector:

1. the wrapped detector's spans, with their detectors and scores
   (:func:`~textdp.detect.base.find`);
2. ``threshold``: spans whose score is known and below it are dropped. Only scored spans can
   be dropped: the MiniLM name tagger's (a span scores the highest person probability of its
   words); spans an unscored member also found (the recall rules, the handle lexicon, spaCy's
   NER, the PII patterns) have no score and are kept. The recall rules' other mentions of a
   name are unscored too, so they stay when the mention they copy is dropped;
3. the allow list: every token of a phrase on it is removed from every span (a span is cut
   around it, or dropped when nothing is left);
4. the deny list: every occurrence of a phrase on it becomes a span of ``deny_label``
   (``PERSON`` by default), detector ``"deny_list"``.

Phrases are one or more words (``"Santa Claus"``), matched against consecutive non-space
tokens, case-insensitively on the normalised form of :mod:`textdp.detect.normalise` (NFKC,
invisible characters removed, then case-folded: ``ＳＭＩＴＨ`` and ``smith`` are the same word).
A phrase is split into words by the tokenizer of the docs it is matched on, so ``O'Neil``
matches however that tokenizer splits it. A phrase on both lists is refused.

The lists are the caller's configuration; nothing from the texts is kept, logged or raised.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from textdp.detect.base import Finding, Span, find
from textdp.detect.normalise import is_ignorable

PERSON = "PERSON"


def normalise_word(word: str) -> str:
    """The form words are compared in: NFKC, invisible characters removed, case-folded."""
    word = "".join(c for c in word if not (c > "\x7f" and is_ignorable(c)))
    return unicodedata.normalize("NFKC", word).casefold()


def read_list(source: str | os.PathLike[str] | Iterable[str] | None) -> tuple[str, ...]:
    """Phrases from ``None`` (none), an iterable of strings, a comma-separated string, or
    ``@FILE`` / a path (one phrase a line, ``#`` comments and blank lines skipped)."""
    if source is None:
        return ()
    if isinstance(source, os.PathLike) or (isinstance(source, str) and source.startswith("@")):
        path = os.fspath(source)[1:] if isinstance(source, str) else os.fspath(source)
        with open(path, encoding="utf-8") as f:
            lines = [" ".join(line.split("#", 1)[0].split()) for line in f]
        return tuple(p for p in lines if p)
    items = source.split(",") if isinstance(source, str) else list(source)
    out = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"list entries must be strings, got {type(item).__name__}")
        if item.strip():
            out.append(" ".join(item.split()))
    return tuple(out)


class ListDetector:
    """A detector with allow and deny lists and a score threshold (see the module doc).

    Args:
        inner: the wrapped detector (any object following the
            :class:`~textdp.detect.base.Detector` protocol).
        allow: phrases never targeted (see :func:`read_list` for the forms accepted).
        deny: phrases always targeted.
        deny_label: the label of deny-list spans (``PERSON``).
        threshold: drop scored spans below this score in [0, 1]; ``None`` keeps all.
    """

    name = "lists"

    def __init__(self, inner: Any, *, allow: Any = None, deny: Any = None,
                 deny_label: str = PERSON, threshold: float | None = None) -> None:
        if not callable(inner):
            raise ValueError(f"inner must be a detector, got {type(inner).__name__}")
        self.inner = inner
        self.allow = read_list(allow)
        self.deny = read_list(deny)
        both = {normalise_word(p) for p in self.allow} & {normalise_word(p) for p in self.deny}
        if both:
            raise ValueError(f"{len(both)} phrase{'s are' if len(both) > 1 else ' is'} on both "
                             "the allow and the deny list; remove it from one")
        if not isinstance(deny_label, str) or not deny_label.strip():
            raise ValueError(f"deny_label must be a label such as 'PERSON', got {deny_label!r}")
        from textdp.detect.base import normalise_label

        self.deny_label = normalise_label(deny_label.strip())
        if threshold is not None:
            if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or \
                    not 0.0 <= float(threshold) <= 1.0:
                raise ValueError(f"threshold must be a number in [0, 1] or None, got "
                                 f"{threshold!r}")
            threshold = float(threshold)
        self.threshold = threshold
        # Phrases split into normalised words, per tokenizer (by id of the vocab).
        self._phrases: dict[int, tuple[Any, list[tuple[str, ...]], list[tuple[str, ...]]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_phrases"] = {}
        return state

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        return [[f.span for f in found] for found in self.findings(docs)]

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        """The wrapped detector's findings, thresholded, without allowed tokens, with the
        deny-list spans added."""
        docs = list(docs)
        return self.screen(docs, find(self.inner, docs))

    def screen(self, docs: Sequence[Any], found: Sequence[Sequence[Finding]]
               ) -> list[list[Finding]]:
        """``found`` (per doc, findings of any source: the wrapped detector's, or spans a
        front end carries) thresholded, without allowed tokens, with the deny-list spans
        added: what :meth:`findings` does to the wrapped detector's findings."""
        out = []
        for doc, fs in zip(docs, found):
            if self.threshold is not None:
                fs = [f for f in fs if f.score is None or f.score >= self.threshold]
            if not self.allow and not self.deny:
                out.append(list(fs))
                continue
            allow, deny = self._split(doc)
            words = [(t.i, normalise_word(t.text)) for t in doc if not t.is_space]
            allowed = {k for s, e in _occurrences(words, allow) for k in range(s, e)}
            kept: list[Finding] = []
            for f in fs:
                kept.extend(_cut(f, allowed))
            seen = {f.span for f in kept}
            for s, e in _occurrences(words, deny):
                if (s, e, self.deny_label) not in seen:
                    kept.append(Finding(s, e, self.deny_label, "deny_list", None))
            out.append(sorted(kept))
        return out

    def _split(self, doc: Any) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        """The phrases as tuples of normalised words, split by ``doc``'s tokenizer."""
        vocab = doc.vocab
        cached = self._phrases.get(id(vocab))
        if cached is not None and cached[0] is vocab:
            return cached[1], cached[2]
        import spacy

        try:
            tokenizer = spacy.blank(vocab.lang or "en", vocab=vocab).tokenizer
        except (ImportError, KeyError, ValueError):
            tokenizer = spacy.blank("en", vocab=vocab).tokenizer

        def split(phrases: Sequence[str]) -> list[tuple[str, ...]]:
            out = []
            for p in phrases:
                words = tuple(normalise_word(t.text) for t in tokenizer(p) if not t.is_space)
                if words:
                    out.append(words)
            return out

        allow, deny = split(self.allow), split(self.deny)
        if len(self._phrases) >= 4:
            self._phrases.pop(next(iter(self._phrases)))
        self._phrases[id(vocab)] = (vocab, allow, deny)
        return allow, deny

    def __repr__(self) -> str:  # counts only: the lists may hold names
        return (f"ListDetector({self.inner!r}, allow={len(self.allow)} phrases, "
                f"deny={len(self.deny)} phrases, threshold={self.threshold})")


def _occurrences(words: Sequence[tuple[int, str]], phrases: Sequence[tuple[str, ...]]
                 ) -> list[tuple[int, int]]:
    """Token ranges (of the doc) where a phrase occurs in ``words`` (token index, normalised
    word) of the non-space tokens."""
    if not phrases:
        return []
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for p in phrases:
        by_first.setdefault(p[0], []).append(p)
    out = []
    for j, (_, w) in enumerate(words):
        for p in by_first.get(w, ()):
            if tuple(x for _, x in words[j:j + len(p)]) == p:
                out.append((words[j][0], words[j + len(p) - 1][0] + 1))
    return out


def _cut(f: Finding, allowed: set[int]) -> list[Finding]:
    """``f`` without the allowed tokens: the runs of tokens left."""
    if not any(k in allowed for k in range(f.start, f.end)):
        return [f]
    out = []
    start = -1
    for k in range(f.start, f.end + 1):
        inside = k < f.end and k not in allowed
        if inside and start < 0:
            start = k
        elif not inside and start >= 0:
            out.append(f._replace(start=start, end=k))
            start = -1
    return out
