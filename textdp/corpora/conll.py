"""CoNLL-2003 reader: documents of sentences with gold entity spans.

The files have 4 columns ``token POS chunk NER`` with IOB1 tags (``I-PER``; ``B-PER`` only where
two entities of one type touch), a blank line between sentences, and ``-DOCSTART-`` lines
between documents (in some copies the first one sits at the end of the file). IOB2 files
(``B-`` at every entity start) decode the same way.

Only the reading is pure Python; :func:`to_docs` builds spaCy ``Doc`` objects from the gold
tokens, so predicted and gold token indices align exactly.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from textdp.detect.base import Span, normalise_label


@dataclass(frozen=True)
class Sentence:
    """One sentence: its tokens and NER tags (IOB1 or IOB2, as in the file)."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]

    @property
    def spans(self) -> list[Span]:
        """Gold entity spans, labels normalised (``PER`` → ``PERSON``)."""
        return iob_spans(self.tags)


Document = list[Sentence]


def iob_spans(tags: Sequence[str]) -> list[Span]:
    """Entity spans ``(start, end, label)`` of an IOB1 or IOB2 tag sequence (end exclusive).

    An ``I-X`` continues the open entity only when that entity is of type ``X``; otherwise it
    opens one (IOB1). ``B-X`` always opens one. ``E-``/``S-``/``L-``/``U-`` (BIOES/BILUO) close
    the entity after the token.
    """
    spans: list[Span] = []
    start, label = -1, ""
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, kind = tag.partition("-")
        if tag == "O" or not kind:
            prefix, kind = "O", ""
        continues = prefix in ("I", "E", "L") and kind == label and start >= 0
        if start >= 0 and not continues:
            spans.append((start, i, normalise_label(label)))
            start, label = -1, ""
        if prefix != "O" and not continues:
            start, label = i, kind
        if prefix in ("E", "L", "S", "U") and start >= 0:
            spans.append((start, i + 1, normalise_label(label)))
            start, label = -1, ""
    return spans


def read_conll(path: str | os.PathLike[str]) -> list[Document]:
    """Documents of a CoNLL-2003 file (empty documents are dropped)."""
    documents: list[Document] = [[]]
    tokens: list[str] = []
    tags: list[str] = []

    def flush() -> None:
        if tokens:
            documents[-1].append(Sentence(tuple(tokens), tuple(tags)))
            tokens.clear()
            tags.clear()

    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                flush()
            elif parts[0] == "-DOCSTART-":
                flush()
                documents.append([])
            else:
                tokens.append(parts[0])
                tags.append(parts[-1] if len(parts) > 1 else "O")
    flush()
    return [d for d in documents if d]


LINE_BREAK = "\n"


def units(documents: Iterable[Document], unit: str = "document"
          ) -> list[tuple[list[str], list[bool], list[Span]]]:
    """Words, trailing spaces and gold spans per evaluation unit.

    ``unit="document"`` makes one text of a document (what a user privatizes is a text, and
    the rules use the other mentions in it), its sentences on lines of their own: a line-break
    token sits between them, as the spaCy tokenizer makes of ``"Larry Fine\nNEW YORK"``, so a
    byline is not read as running into the next line's dateline. ``"sentence"`` keeps
    sentences apart.
    """
    if unit not in ("document", "sentence"):
        raise ValueError(f"unit must be 'document' or 'sentence', got {unit!r}")
    out: list[tuple[list[str], list[bool], list[Span]]] = []
    for doc in documents:
        groups = [doc] if unit == "document" else [[s] for s in doc]
        for group in groups:
            words: list[str] = []
            spaces: list[bool] = []
            spans: list[Span] = []
            for sent in group:
                if words:
                    spaces[-1] = False
                    words.append(LINE_BREAK)
                    spaces.append(False)
                offset = len(words)
                words.extend(sent.tokens)
                spaces.extend([True] * len(sent.tokens))
                spans.extend((s + offset, e + offset, lab) for s, e, lab in sent.spans)
            if spaces:
                spaces[-1] = False
            out.append((words, spaces, spans))
    return out


def token_count(doc: Any) -> int:
    """Tokens of a doc that are not whitespace (the line breaks between sentences)."""
    return sum(1 for t in doc if not t.is_space)


def to_docs(documents: Iterable[Document], vocab: Any = None, unit: str = "document"
            ) -> tuple[list[Any], list[list[Span]]]:
    """spaCy docs built from the gold tokens, and the gold spans per doc.

    ``vocab`` defaults to the embedded pipeline's, as the :class:`~textdp.privatizer.Privatizer`
    tokenizes with it. Docs carry no sentence boundaries, like the Privatizer's (a detector
    sees what it would see in use).
    """
    from spacy.tokens import Doc

    if vocab is None:
        from textdp.defaults import load_pipeline

        vocab = load_pipeline().vocab
    docs, gold = [], []
    for words, spaces, spans in units(documents, unit):
        docs.append(Doc(vocab, words=words, spaces=spaces))
        gold.append(spans)
    return docs, gold
