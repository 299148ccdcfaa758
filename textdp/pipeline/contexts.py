"""The public context each target is read in (contextual vectors and ``dpmlm``).

A transformer's vector of one word depends on every word of its input, so a target read in
its whole text also carries the other targets: the audit found "Angela"'s substitute depending
on whether the surname beside it was "Merkel" or "Schmidt", which breaks a per-token guarantee.
This module builds the texts the encoder (or a context mechanism) reads so that a target's
draw depends on the target itself and on public words only:

* ``isolate=True`` (named targets): one text per target: the tokens within ``window`` tokens of
  it, with every *other* target (redacted ones included) replaced by a fixed public word
  (:data:`MASK_WORDS`). Non-target words are published unchanged anyway, so reading them
  costs nothing. The window is counted in tokens, never characters, so which words are read
  does not depend on the target's length.
* ``isolate=False`` (``targets="all"``): every word is a target, so masking the others would
  leave no context; one text per document is read, with only the redacted (over-budget)
  targets replaced by the public word so that they really cost nothing. The guarantee then
  covers the whole text (scope ``"text"`` in :mod:`textdp.report`).

A chunk of a long text (:mod:`textdp.pipeline.chunking`) also reads the overlap with its neighbours,
whose targets belong to the neighbouring chunk's cores and are drawn there. Those targets
(``context_targets``) are masked too, in both modes, wherever they fall in a window: without
that, a target within the window of a chunk edge was read with the next chunk's names as they
are (the audit moved a vector by 0.644 by changing a name past the edge).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

#: Tokens read on each side of an isolated target (MiniLM's window holds ~200 words; layer-1
#: vectors change little beyond a few dozen).
CONTEXT_WINDOW = 32
#: The public word that stands in for a masked target, per target label.
MASK_WORDS = {"PERSON": "someone"}
DEFAULT_MASK_WORD = "something"


def mask_word(label: str | None) -> str:
    """The public stand-in for a masked target of ``label``."""
    return MASK_WORDS.get(label or "", DEFAULT_MASK_WORD)


def target_contexts(docs: Sequence[Any], flat: Sequence[tuple[int, int]],
                    labels: Sequence[str | None], wanted: np.ndarray, *, isolate: bool,
                    window: int = CONTEXT_WINDOW,
                    context_targets: Sequence[Mapping[int, str | None]] | None = None
                    ) -> tuple[list[str], list[np.ndarray], np.ndarray]:
    """The texts to read and where the wanted targets are in them.

    Args:
        docs: tokenized spaCy docs.
        flat: every target as ``(doc, token)``, in document order.
        labels: each target's label (chooses its mask word).
        wanted: per target, whether it is read (false: redacted, masked wherever read).
        isolate: one text per wanted target with the other targets masked (see the module
            docstring), or one text per document with the unwanted targets masked.
        window: tokens read on each side of an isolated target.
        context_targets: per doc, targets that are read as context only (token → label:
            those of a neighbouring chunk's core); always masked, never read.

    Returns:
        ``(texts, spans, rows)``: the texts, per text an ``(n, 2)`` array of the character
        spans of the wanted targets it holds (sorted), and the position in ``flat`` of each
        span, in the order of the spans.
    """
    by_doc: dict[int, dict[int, int]] = {}  # doc → token → position in flat
    for p, (d, k) in enumerate(flat):
        by_doc.setdefault(d, {})[k] = p
    # doc → token → mask word, for every target of the doc (its own and context-only ones)
    words: dict[int, dict[int, str]] = {}
    for d, extra in enumerate(context_targets or ()):
        if extra:
            words[d] = {k: mask_word(lab) for k, lab in extra.items()}
    for d, targets in by_doc.items():
        words.setdefault(d, {}).update((k, mask_word(labels[p])) for k, p in targets.items())
    texts: list[str] = []
    spans: list[np.ndarray] = []
    rows: list[int] = []
    if isolate:
        for p in np.flatnonzero(wanted).tolist():
            d, k = flat[p]
            doc = docs[d]
            lo = max(0, k - window)
            text, starts = _masked(doc, lo, min(len(doc), k + window + 1), words[d], keep=k)
            texts.append(text)
            start = starts[k - lo]
            spans.append(np.asarray([[start, start + len(doc[k])]], dtype=np.int64))
            rows.append(p)
        return texts, spans, np.asarray(rows, dtype=np.int64)
    for d, targets in by_doc.items():
        read = sorted(k for k, p in targets.items() if wanted[p])
        if not read:
            continue
        doc = docs[d]
        masked = {k: w for k, w in words[d].items() if k not in targets or not wanted[targets[k]]}
        if masked:
            text, starts = _masked(doc, 0, len(doc), masked, keep=-1)
        else:  # nothing to mask: the document's own text and offsets
            text, starts = doc.text, [t.idx for t in doc]
        texts.append(text)
        spans.append(np.asarray([[starts[k], starts[k] + len(doc[k])] for k in read],
                                dtype=np.int64))
        rows.extend(targets[k] for k in read)
    return texts, spans, np.asarray(rows, dtype=np.int64)


def _masked(doc: Any, lo: int, hi: int, masks: Mapping[int, str], keep: int
            ) -> tuple[str, list[int]]:
    """Tokens ``lo:hi`` of ``doc`` as text, every token of ``masks`` but ``keep`` replaced by
    its mask word; and where each of those tokens starts in it."""
    parts: list[str] = []
    starts: list[int] = []
    pos = 0
    for i in range(lo, hi):
        tok = doc[i]
        word = masks.get(i) if i != keep else None
        word = tok.text if word is None else word
        starts.append(pos)
        parts.append(word + tok.whitespace_)
        pos += len(parts[-1])
    return "".join(parts), starts
