"""An audit trail of detection: which character ranges would be targeted, by what, never the text.

A row whose names were all missed used to report ``"tokens_replaced": 0`` and nothing else.
:class:`Auditor` runs the detection stage exactly as a privatizer configures it (detector, PII
recognisers of the PII labels among ``targets``, allow and deny lists, score threshold; see
:func:`textdp.detect.build_detector`) on the privatizer's tokenizer and chunks, and returns
per text the targeted spans as plain values::

    {"start": 0, "end": 10, "label": "PERSON", "detector": "minilm", "score": 0.9995}

``start``/``end`` are character offsets into the text (end exclusive), ``detector`` the
member(s) that found it (``"minilm+handles"``, ``"rules"``, ``"pii"``, ``"deny_list"``),
``score`` the detector's score where it has one (the MiniLM tagger's person probability),
else ``null``. A span holds offsets and labels only: never a character of the text.

``textdp detect FILE`` (:mod:`textdp.cli.detect`) is the dry run: it writes one JSONL line per
record of a ``.txt``, ``.jsonl`` or ``.csv`` file (its input line, its 0-based record number,
optionally an id field the user names, and its spans) and privatizes nothing; a summary of
counts goes to stderr.

    textdp detect data.jsonl -o spans.jsonl --targets PERSON,EMAIL --id-field id
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textdp.chunking import chunk_text
from textdp.detect import Finding, build_detector, find
from textdp.detect.base import span_records
from textdp.targets import DEFAULT_TARGETS, is_word, resolve_targets

# The keys of one span record, in order.
SPAN_FIELDS = ("start", "end", "label", "detector", "score")


class Auditor:
    """The detection stage of a privatizer, reporting spans instead of replacing them.

    Args:
        targets: as the privatizer's (``["PERSON"]`` by default; ``"all"`` marks every word
            token, label ``"*"``, detector ``"all"``); unknown labels are refused.
        detector: as the privatizer's (``None`` for the default).
        allow, deny, deny_label, threshold: see :class:`~textdp.detect.lists.ListDetector`.
        device: where model-based detectors run.
        nlp: the spaCy pipeline whose tokenizer splits the text (default: the embedded one).
        batch_size: chunks per detector call.

    Every argument is validated here, before any text is read.
    """

    def __init__(self, *, targets: Any = DEFAULT_TARGETS, detector: Any = None,
                 allow: Any = None, deny: Any = None, deny_label: str = "PERSON",
                 threshold: float | None = None, device: Any = "cpu", nlp: Any = None,
                 batch_size: int = 256) -> None:
        from textdp.validation import check_positive_int

        self.targets = resolve_targets(targets)
        self.batch_size = check_positive_int("batch_size", batch_size)
        self.detector = None if self.targets == "all" else build_detector(
            detector, device=device, targets=self.targets, allow=allow, deny=deny,
            deny_label=deny_label, threshold=threshold)
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from textdp.defaults import load_pipeline

            self._nlp = load_pipeline()
        return self._nlp

    def audit(self, texts: Sequence[str]) -> list[list[dict[str, Any]]]:
        """The targeted spans of each text (see the module doc), in text order."""
        from textdp.tokenization import transient_strings

        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise ValueError(f"row {i}: expected a string, got {type(t).__name__}")
        pieces = [(i, c) for i, t in enumerate(texts) for c in chunk_text(t)]
        out: list[list[dict[str, Any]]] = [[] for _ in texts]
        for k in range(0, len(pieces), self.batch_size):
            batch = pieces[k:k + self.batch_size]
            with transient_strings(self.nlp):
                docs = list(self.nlp.tokenizer.pipe(texts[i][c.start:c.end] for i, c in batch))
                found = self._find(docs)
                for (i, c), doc, fs in zip(batch, docs, found):
                    # A chunk reports the tokens that start in its core, as it replaces them.
                    core = [f._replace(start=s, end=e) for f in fs
                            for s, e in [_core_tokens(doc, f, c.core_start - c.start,
                                                      c.core_end - c.start)] if s < e]
                    out[i].extend(span_records(doc, core, offset=c.start))
        cuts: list[set[int]] = [set() for _ in texts]
        for i, c in pieces:
            if c.core_start > 0:
                cuts[i].add(c.core_start)
        return [_join_cuts(spans, texts[i], cuts[i]) for i, spans in enumerate(out)]

    def _find(self, docs: list[Any]) -> list[list[Finding]]:
        if self.detector is None:  # targets="all": every word token
            return [[Finding(t.i, t.i + 1, "*", "all", None) for t in doc if is_word(t.text)]
                    for doc in docs]
        wanted = set(self.targets)
        return [[f for f in fs if f.label in wanted] for fs in find(self.detector, docs)]

    def __repr__(self) -> str:
        return f"Auditor(targets={self.targets!r}, detector={self.detector!r})"


def _core_tokens(doc: Any, f: Finding, a: int, b: int) -> tuple[int, int]:
    """The tokens of ``f`` that start in the character range ``[a, b)`` of ``doc``."""
    inside = [k for k in range(f.start, f.end) if a <= doc[k].idx < b]
    return (inside[0], inside[-1] + 1) if inside else (0, 0)


def _join_cuts(spans: list[dict[str, Any]], text: str, cuts: set[int]
               ) -> list[dict[str, Any]]:
    """Spans sorted, the two halves of a span cut by a chunk boundary (a position in
    ``cuts``) joined again: same label, one ending at or before the cut and the other
    starting at or after it, only whitespace between."""
    spans = sorted(spans, key=lambda r: (r["start"], r["end"], r["label"]))
    out: list[dict[str, Any]] = []
    for r in spans:
        prev = out[-1] if out else None
        if prev is not None and cuts and prev["label"] == r["label"] and \
                prev["end"] <= r["start"] and not text[prev["end"]:r["start"]].strip() and \
                any(prev["end"] <= c <= r["start"] for c in cuts):
            prev["end"] = r["end"]
            if prev["detector"] != r["detector"]:
                parts = prev["detector"].split("+") + r["detector"].split("+")
                prev["detector"] = "+".join(dict.fromkeys(parts))
            prev["score"] = None if prev["score"] is None or r["score"] is None else \
                max(prev["score"], r["score"])
            continue
        out.append(dict(r))
    return out
