"""Target selection: which tokens of a tokenized text are replaced, and under which label.

The stage between the detector and the substitution: it turns the detector's spans (or spans
a front end carries, such as ``doc.ents``) into one label per token (a *mask*; ``None`` for a
token left alone), keeps the tokens a whole address or number covers together, keeps
honorifics, restricts the targets to the core of a chunk, and, for the audit trail, gives the
spans that were replaced with the detector and score that found them (never text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from textdp.detect import Finding, Span, find
from textdp.detect.base import span_records
from textdp.detect.pii import PII_LABELS
from textdp.pseudonyms import drop_honorifics
from textdp.targets import is_word

Mask = list[str | None]
PERSON = "PERSON"
AuditSpan = tuple[int, int, str, str, float | None]


class Selector(Protocol):
    """What the privatizer asks of target selection."""

    #: The detector run when a caller gives no spans (``None`` with ``targets="all"``).
    detector: Any
    #: The PII labels among the targets (their tokens are merged into one token each).
    pii_labels: list[str]

    def masks(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None, *,
              words: Sequence[Sequence[str]] | None = None) -> list[Mask]: ...

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]] | None: ...


class TargetSelector:
    """Targets by entity label through a detector, or every word with ``targets="all"``.

    Args:
        targets: ``"all"`` or the normalised entity labels to replace.
        detector: the detector that finds spans when a caller gives none (``None`` with
            ``targets="all"``).
    """

    def __init__(self, targets: tuple[str, ...] | str, detector: Any) -> None:
        self.targets = targets
        self.detector = detector
        #: The PII labels among the targets: their tokens are merged into one token each.
        self.pii_labels = [] if targets == "all" else [t for t in targets if t in PII_LABELS]

    def masks(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None, *,
              words: Sequence[Sequence[str]] | None = None) -> list[Mask]:
        """Per doc, per token: the label that makes it a target, or ``None``. ``spans``: the
        entity spans per doc; ``None`` runs the detector. ``words``: each doc's token texts,
        when the caller has them already."""
        if words is None:
            words = [[t.text for t in doc] for doc in docs]
        if self.targets == "all":
            return [["*" if is_word(w) else None for w in ws] for ws in words]
        if spans is None:
            spans = self.detector(docs)
        wanted = set(self.targets)
        masks: list[Mask] = []
        for ws, doc_spans in zip(words, spans):
            mask: Mask = [None] * len(ws)
            for start, end, label in doc_spans:
                if label in wanted:
                    for k in range(start, min(end, len(ws))):
                        if mask[k] in PII_LABELS and label not in PII_LABELS:
                            continue  # a whole address or number: its surrogate wins
                        if is_word(ws[k]) or (label in PII_LABELS and ws[k].strip()):
                            mask[k] = label
            masks.append(drop_honorifics(mask, ws))
        return masks

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]] | None:
        """The detector's spans with the detector and score that found each (``None`` with
        ``targets="all"``: there is no detector)."""
        return None if self.detector is None else find(self.detector, docs)


def restrict_to_cores(docs: Sequence[Any], masks: list[Mask],
                      cores: Sequence[tuple[int, int] | None]) -> None:
    """Keep as targets only the tokens that start in their doc's core (a character range;
    ``None`` for the whole doc): the rest of a chunk is read as context only."""
    for doc, mask, core in zip(docs, masks, cores):
        if core is not None:
            for t in doc:
                if not core[0] <= t.idx < core[1]:
                    mask[t.i] = None


def carry_mentions(words: Sequence[Sequence[str]], masks: list[Mask], owners: Sequence[int],
                   states: dict[int, Any], chunked: Sequence[bool]) -> None:
    """The later-mention rule across the chunks of a long text (in place): the words of every
    full name (two ``PERSON`` tokens or more in a row) targeted in a chunk are kept in its
    text's state, and a capitalised token of a later chunk of that text that is one of them
    (``Smith`` 25,000 characters after ``John Smith``) is targeted too. Within one chunk the
    name rules do this (:mod:`textdp.detect.rules`); ``chunked`` says which docs are chunks
    of a longer text (the others are left to the rules). Chunks of one batch share their
    names both ways; a chunk already written is not revisited."""
    from textdp.budget import TextState
    from textdp.detect.rules import NON_NAMES, is_capitalised, mention_keys, name_key, runs

    live = [i for i, c in enumerate(chunked) if c]
    for i in live:
        person = [k for k, label in enumerate(masks[i]) if label == PERSON]
        full = [(a, b, PERSON) for a, b in runs(person) if b - a > 1]
        if full:
            keys = {key for key in mention_keys(words[i], full)
                    if key.rstrip(".") not in NON_NAMES}
            states.setdefault(owners[i], TextState()).mentions.update(keys)
    for i in live:
        state = states.get(owners[i])
        if state is None or not state.mentions:
            continue
        mask = masks[i]
        for k, w in enumerate(words[i]):
            if mask[k] is None and is_capitalised(w) and name_key(w) in state.mentions:
                mask[k] = PERSON


def audit_spans(doc: Any, findings: Sequence[Finding], mask: Sequence[str | None]
                ) -> tuple[AuditSpan, ...]:
    """The findings whose tokens were targets (the mask's label, in the core), as report
    spans: character offsets in ``doc``'s text, label, detector, score; never text."""
    kept = []
    for f in findings:  # each trimmed to its tokens that were targets ("Dr." is kept)
        hit = [k for k in range(f.start, min(f.end, len(mask))) if mask[k] == f.label]
        if hit:
            kept.append(f._replace(start=hit[0], end=hit[-1] + 1))
    return tuple((r["start"], r["end"], r["label"], r["detector"], r["score"])
                 for r in span_records(doc, kept))


def shift_spans(spans: tuple[AuditSpan, ...], offset: int) -> tuple[AuditSpan, ...]:
    """Audit spans moved by ``offset`` characters (where a piece starts in its text)."""
    return tuple((s + offset, e + offset, *rest) for s, e, *rest in spans)
