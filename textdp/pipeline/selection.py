"""Target selection: which tokens of a tokenized text are replaced, and under which label.

The one path from tokens to targets, shared by every front end: the core's privatizer, the
spaCy component and the dry run ``textdp detect`` (:class:`~textdp.audit.Auditor`) all call
:meth:`TargetSelector.prepare` and :meth:`TargetSelector.select`, so what ``detect`` reports
is what ``privatize`` replaces (docs/architecture.md, "Selection").

1. :meth:`~TargetSelector.prepare`: an address or number over several tokens becomes one
   token (one surrogate replaces it).
2. :meth:`~TargetSelector.select`: the detector's findings (with the detector and score that
   found each), joined with the entities a front end carries (``doc.ents``) through the same
   filters (non-names such as "Pt" or "lol" out of person spans, allow and deny lists, score
   threshold); then one label per token (a *mask*; ``None`` for a token left alone): the
   tokens a whole address or number covers keep its label, honorifics are dropped, and only
   tokens in the core of a chunk stay targets. For the audit trail it gives the spans that
   were targeted with the detector and score that found them (offsets, never text).
3. One detection for every mention: the detector's register stage targets every mention of
   a name it found (:mod:`textdp.detect.register`); the names the entities of a front end
   add get the same rule here, after the join (:func:`~textdp.detect.register.
   mention_targets`), so no front end targets a name in one place and leaves it in another.
4. With ``review``, the per-record review signal (:func:`review_counts`): how many names are
   still targeted at some mentions only, and how many person spans scored near the
   detector's threshold (codes and counts, never text).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Protocol

from textdp.detect import Finding, PIIUnion, Span, find
from textdp.detect.base import span_records
from textdp.detect.glued import split_glued
from textdp.detect.lists import ListDetector
from textdp.detect.pii import PII_LABELS
from textdp.detect.register import mention_targets, partial_mentions
from textdp.detect.rules import drop_non_names
from textdp.pipeline.chunking import Chunk
from textdp.report import REVIEW_MARGIN, REVIEW_REASONS
from textdp.targets import is_word
from textdp.tokenization import merge_tokens, split_tokens, tokenize

Mask = list[str | None]
PERSON = "PERSON"
AuditSpan = tuple[int, int, str, str, float | None]
#: The ``detector`` of a finding that came from the entities a front end carries.
ENTITIES = "ents"
#: Label and detector of the targets of ``targets="all"`` (every word token).
ALL_LABEL, ALL_DETECTOR = "*", "all"
#: Titles that open a person span and are not part of the name (unambiguous ones only:
#: "Lady" or "King" may be a name).
HONORIFICS = frozenset({"mr", "mrs", "ms", "mx", "miss", "dr", "prof", "professor", "sir",
                        "dame", "rev", "revd", "mme", "mlle", "herr", "frau", "messrs"})


def drop_honorifics(mask: list[str | None], words: Sequence[str]) -> list[str | None]:
    """``mask`` without the honorifics inside person spans ("Dr." in "Dr. Patel"): a title
    is not a name, and a pseudonym in its place ("Dear Michael Jared") reads wrong. The title
    is then published as it is, like the words around a name."""
    return [None if label == PERSON and words[k].casefold().rstrip(".") in HONORIFICS
            else label for k, label in enumerate(mask)]


def merge_pii_tokens(docs: Sequence[Any], labels: Sequence[str],
                     region: str | None = None) -> list[Any]:
    """``docs`` with the tokens of every ``labels`` match (e-mail, phone, card, ...) that
    spans several tokens ("555 123 4567") made one token, so each value is one target that
    one surrogate or tag replaces (:mod:`textdp.detect.pii`). Only public patterns decide.

    A doc with such a match is replaced by a new one (:func:`textdp.tokenization.merge_tokens`,
    not spaCy's retokenizer, which would leave each value's hash in the shared vocab's
    vectors)."""
    if not labels:
        return list(docs)
    from textdp.detect.pii import PIIDetector

    detector = PIIDetector(labels) if region is None else PIIDetector(labels, region)
    out = []
    for doc in docs:
        matches = detector.matches(doc.text)
        cuts = pii_cuts(doc, matches)
        if cuts:
            doc = split_tokens(doc, cuts)  # the text, and so the matches, are unchanged
        ends = {f.start: f.end for f in detector.token_findings(doc, matches)
                if f.end - f.start > 1}
        out.append(merge_tokens(doc, ends) if ends else doc)
    return out


def pii_cuts(doc: Any, matches: Sequence[Any]) -> dict[int, list[int]]:
    """Where a match starts or ends inside a token (``C-88213,1499.00`` of a CSV line, which
    spaCy's tokenizer keeps whole): per token, the offsets to cut it at, so the value alone
    is the target and its neighbours stay as written."""
    if not matches:
        return {}
    from bisect import bisect_right

    starts = [t.idx for t in doc]
    cuts: dict[int, set[int]] = {}
    for m in matches:
        for pos in (m.start, m.end):
            k = bisect_right(starts, pos) - 1
            if k >= 0 and starts[k] < pos < starts[k] + len(doc[k]):
                cuts.setdefault(k, set()).add(pos - starts[k])
    return {k: sorted(v) for k, v in cuts.items()}


class Selection(NamedTuple):
    """What :meth:`TargetSelector.select` chose for a batch of docs."""

    #: Per doc, per token: the label that makes it a target, or ``None``.
    masks: list[Mask]
    #: Per doc, the targeted spans for the audit trail (character offsets in the doc's text,
    #: label, detector, score); ``None`` when not asked for.
    spans: list[tuple[AuditSpan, ...]] | None = None
    #: Per doc, the targets outside its core (token → label): a neighbouring chunk draws them,
    #: and every context read in this doc masks them (:mod:`textdp.pipeline.contexts`).
    context_targets: list[dict[int, str]] | None = None
    #: Per doc, the review signal (:func:`review_counts`: reason code, count); ``None`` when
    #: not asked for.
    review: list[tuple[tuple[str, int], ...]] | None = None


class Selector(Protocol):
    """What the privatizer asks of target selection."""

    #: The detector run when a caller gives no spans (``None`` with ``targets="all"``).
    detector: Any
    #: The PII labels among the targets (their tokens are merged into one token each).
    pii_labels: list[str]

    def prepare(self, docs: Sequence[Any]) -> list[Any]: ...

    def select(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None, *,
               entities: Sequence[Sequence[Span] | None] | None = None,
               entities_only: bool = False,
               cores: Sequence[tuple[int, int] | None] | None = None,
               audit: bool = False, owners: Sequence[int] | None = None,
               states: dict[int, Any] | None = None) -> Selection: ...

    def masks(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None, *,
              words: Sequence[Sequence[str]] | None = None) -> list[Mask]: ...


class TargetSelector:
    """Targets by entity label through a detector, or every word with ``targets="all"``.

    Args:
        targets: ``"all"`` or the normalised entity labels to replace.
        detector: the detector that finds spans when a caller gives none (``None`` with
            ``targets="all"``); :func:`textdp.detect.build_detector` builds it from the
            settings.
        review: also give each doc's review signal (:attr:`Selection.review`).
        phone_region: where phone numbers without a country code are read when their
            tokens are merged (:meth:`prepare`; ``None``: the default, ``"US"``).
    """

    def __init__(self, targets: tuple[str, ...] | str, detector: Any, *,
                 review: bool = False, phone_region: str | None = None) -> None:
        self.targets = targets
        self.detector = detector
        self.phone_region = phone_region
        self.review = bool(review)
        #: The score threshold the review signal measures "near" from (``None``: no
        #: scoring member known, so no span is near).
        self.threshold = decision_threshold(detector) if self.review else None
        #: The PII labels among the targets: their tokens are merged into one token each.
        self.pii_labels = [] if targets == "all" else [t for t in targets if t in PII_LABELS]

    def prepare(self, docs: Sequence[Any]) -> list[Any]:
        """``docs`` with each name glued to its neighbours cut into a token of its own
        (:func:`~textdp.detect.glued.split_glued`: only its characters are replaced, never
        the rest of the token) and the tokens of each multi-token PII value of a targeted
        label made one token, a token holding more than a value cut at its ends
        (:func:`merge_pii_tokens`); the docs
        themselves where neither applies. Every front end prepares here: the core's chunks
        straight from the tokenizer, the spaCy component's annotated Docs alike."""
        return merge_pii_tokens(split_glued(docs), self.pii_labels, self.phone_region)

    def select(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None, *,
               entities: Sequence[Sequence[Span] | None] | None = None,
               entities_only: bool = False,
               cores: Sequence[tuple[int, int] | None] | None = None,
               audit: bool = False, words: Sequence[Sequence[str]] | None = None,
               owners: Sequence[int] | None = None, states: dict[int, Any] | None = None
               ) -> Selection:
        """The targets of ``docs`` (prepared by :meth:`prepare`).

        ``spans``: per doc, spans that replace the detector (gold annotations; nothing is
        audited then). ``entities``: per doc, the entities a front end carries (``doc.ents``),
        or ``None`` for a doc it did not annotate; they join the detector's findings (a
        union) through the same filters, or, with ``entities_only``, stand in for the name
        detector where given (the PII patterns still run). ``cores``: per doc, the character
        range whose tokens may be targets (``None``: all; the rest of a chunk is context).
        ``audit``: also return the targeted spans with their detector and score.
        ``words``: each doc's token texts, when the caller has them already. ``owners`` (the
        text each doc belongs to) and ``states`` (per text, its :class:`~textdp.budget.
        TextState`): with ``cores``, the later-mention rule spans a long text's chunks
        (:func:`carry_mentions`). With ``review`` (the selector's), :attr:`Selection.review`
        holds each doc's review signal."""
        if words is None:
            words = [[t.text for t in doc] for doc in docs]
        review = None
        if self.targets == "all":
            masks: list[Mask] = [[ALL_LABEL if is_word(w) else None for w in ws]
                                 for ws in words]
            context_only = restrict_to_cores(docs, masks, cores or ())
            if self.review:  # every word is a target: nothing is partial or scored
                review = [_no_review() for _ in masks]
            found: list[list[Finding]] | None = [
                [Finding(k, k + 1, ALL_LABEL, ALL_DETECTOR, None)
                 for k, label in enumerate(mask) if label is not None] for mask in masks] \
                if audit else None
        else:
            if spans is not None:
                found = [[Finding(s, e, label, "given", None) for s, e, label in doc_spans]
                         for doc_spans in spans]
                audit = False
            else:
                found = self._find(docs, words, entities, entities_only,
                                   scored=audit or self.review)
            masks = self._masks(words, [[f.span for f in fs] for fs in found])
            if spans is None and cores and owners is not None and states is not None:
                carry_mentions(words, masks, owners, states, [c is not None for c in cores])
            whole = [list(m) for m in masks] if self.review else None
            context_only = restrict_to_cores(docs, masks, cores or ())
            if whole is not None:
                cs = list(cores) if cores else [None] * len(docs)
                review = [_no_review() for _ in masks] if spans is not None else [
                    review_counts(ws, full, mask, fs, self.threshold,
                                  None if core is None else
                                  [t.i for t in doc if core[0] <= t.idx < core[1]])
                    for doc, ws, full, mask, fs, core in zip(docs, words, whole, masks, found,
                                                             cs)]
        if not audit or found is None:
            return Selection(masks, None, context_only, review)
        return Selection(masks, [audit_spans(doc, fs, mask)
                                 for doc, fs, mask in zip(docs, found, masks)], context_only,
                         review)

    def _find(self, docs: Sequence[Any], words: Sequence[Sequence[str]],
              entities: Sequence[Sequence[Span] | None] | None, entities_only: bool, *,
              scored: bool) -> list[list[Finding]]:
        """The detector's findings per doc, joined with ``entities`` (see :meth:`select`)."""
        docs = list(docs)
        if entities is None:
            entities = [None] * len(docs)
        elif len(entities) != len(docs):
            raise ValueError(f"entities: {len(entities)} lists for {len(docs)} docs")
        # The entities join below the allow/deny lists and the threshold, as a member of the
        # detector would: an allowed word is never targeted, whoever found it.
        screen = self.detector if isinstance(self.detector, ListDetector) else None
        inner = self.detector.inner if screen is not None else self.detector
        found: list[list[Finding]] = [[] for _ in docs]
        # An empty doc has nothing to find; a doc whose entities stand in for the name
        # detector gets the PII patterns only.
        run = [i for i, ents in enumerate(entities)
               if len(docs[i]) and not (entities_only and ents is not None)]
        if run:
            if scored or screen is not None:  # the screen reads scores
                inner_found = find(inner, [docs[i] for i in run])
            else:  # spans only: a detector's findings may cost more than its spans
                inner_found = [[Finding(s, e, label, "", None) for s, e, label in doc_spans]
                               for doc_spans in inner([docs[i] for i in run])]
            for i, fs in zip(run, inner_found):
                found[i] = list(fs)
        ran = set(run)
        rest = [i for i in range(len(docs)) if i not in ran and len(docs[i])]
        if rest and isinstance(inner, PIIUnion):  # the PII patterns run on every doc
            for i, fs in zip(rest, inner.pii.findings([docs[i] for i in rest])):
                found[i] = list(fs)
        for i, ents in enumerate(entities):
            if ents:
                # A pipeline's NER takes greetings and abbreviations ("Pt", "lol", "omg")
                # for names as the detector's members do: the same filter takes them out.
                kept = drop_non_names(words[i], [tuple(s) for s in ents])  # type: ignore[misc]
                before = _person_tokens(found[i])
                found[i] = sorted({*found[i], *(Finding(s, e, label, ENTITIES, None)
                                                for s, e, label in kept)}, key=_order)
                persons = _person_tokens(found[i])
                if PERSON in self.targets and persons - before:
                    # The names the entities added get the every-mention rule the detector's
                    # register stage gave its own (textdp.detect.register).
                    more = mention_targets(words[i], persons)
                    found[i] = sorted({*found[i], *(Finding(k, k + 1, PERSON, "rules", None)
                                                    for k in more)}, key=_order)
        return screen.screen(docs, found) if screen is not None else found

    def _masks(self, words: Sequence[Sequence[str]], spans: Iterable[Sequence[Span]]
               ) -> list[Mask]:
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

    def masks(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None, *,
              words: Sequence[Sequence[str]] | None = None) -> list[Mask]:
        """Per doc, per token: the label that makes it a target, or ``None``. ``spans``: the
        entity spans per doc; ``None`` runs the detector. ``words``: each doc's token texts,
        when the caller has them already. (:meth:`select`'s masks.)"""
        return self.select(docs, spans, words=words).masks


def _order(f: Finding) -> tuple[int, int, str, str]:
    return f.start, f.end, f.label, f.detector


def _person_tokens(found: Iterable[Finding]) -> set[int]:
    return {k for f in found if f.label == PERSON for k in range(f.start, f.end)}


def _no_review() -> tuple[tuple[str, int], ...]:
    return tuple((r, 0) for r in REVIEW_REASONS)


def decision_threshold(detector: Any) -> float | None:
    """The score threshold a scored person span passed: the highest of the allow/deny
    screen's ``threshold`` (the user's setting) and the lowest threshold of the scoring
    members (the MiniLM tagger's packaged one), found through the wrappers (``inner``,
    ``detectors``); ``None`` when neither is known."""
    user: float | None = None
    members: list[float] = []
    stack, seen = [detector], set()
    while stack:
        d = stack.pop()
        if d is None or id(d) in seen:
            continue
        seen.add(id(d))
        if isinstance(d, ListDetector):
            user = d.threshold
            stack.append(d.inner)
            continue
        stack.append(getattr(d, "inner", None))
        stack.extend(getattr(d, "detectors", None) or ())
        t = getattr(d, "threshold", None)
        if isinstance(t, float) and 0.0 < t < 1.0:
            members.append(t)
    found = [t for t in (user, min(members, default=None)) if t is not None]
    return max(found) if found else None


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def review_counts(words: Sequence[str], whole: Sequence[str | None], mask: Sequence[str | None],
                  found: Sequence[Finding], threshold: float | None,
                  core: Sequence[int] | None = None) -> tuple[tuple[str, int], ...]:
    """One doc's review signal, per reason of :data:`~textdp.report.REVIEW_REASONS`:
    ``partial_mention``, the names targeted at some of their mentions and left at another
    in the ``core`` (its tokens; ``None``: all) (:func:`~textdp.detect.register.
    partial_mentions`; ``whole`` is the mask before the core was cut, ``mask`` after);
    ``near_threshold``, the targeted person spans
    (a token of theirs a target in the core) whose score's log-odds exceed the
    ``threshold``'s by at most :data:`~textdp.report.REVIEW_MARGIN` (an unscored span, which
    a rule, a list or another detector also found, is never near)."""
    persons = {k for k, label in enumerate(whole) if label == PERSON}
    partial = partial_mentions(words, persons, core) if persons else 0
    near = 0
    if threshold is not None:
        edge = _logit(threshold) + REVIEW_MARGIN
        for f in found:
            if f.label == PERSON and f.score is not None and _logit(f.score) <= edge and any(
                    mask[k] == PERSON for k in range(f.start, min(f.end, len(mask)))):
                near += 1
    return (("partial_mention", partial), ("near_threshold", near))


def piece_docs(nlp: Any, selector: Selector, texts: Sequence[str], chunks: Sequence[Chunk]
               ) -> tuple[list[Any], list[tuple[int, int] | None]]:
    """The prepared docs of the chunks (``texts[j][chunk.start:chunk.end]``, tokenized by
    ``nlp``'s tokenizer) and each one's core in its own offsets (``None``: the whole doc).
    Call it in a memory zone of ``nlp`` (:func:`textdp.tokenization.transient_strings`)."""
    # (tokenize: a whitespace-free run is read in bounded pieces, in linear time)
    docs = selector.prepare([tokenize(nlp.tokenizer, t[c.start:c.end])
                             for t, c in zip(texts, chunks)])
    cores: list[tuple[int, int] | None] = []
    for c in chunks:
        core = (c.core_start - c.start, c.core_end - c.start)
        cores.append(None if core == (0, c.end - c.start) else core)
    return docs, cores


def restrict_to_cores(docs: Sequence[Any], masks: list[Mask],
                      cores: Sequence[tuple[int, int] | None]) -> list[dict[int, str]]:
    """Keep as targets only the tokens that start in their doc's core (a character range;
    ``None`` for the whole doc): the rest of a chunk is read as context only. Returns, per
    doc, the targets so removed (token → label): a neighbouring chunk draws them, and every
    context read here masks them (:mod:`textdp.pipeline.contexts`)."""
    removed: list[dict[int, str]] = [{} for _ in masks]
    for doc, mask, core, out in zip(docs, masks, cores, removed):
        if core is not None:
            for t in doc:
                if not core[0] <= t.idx < core[1]:
                    if mask[t.i] is not None:
                        out[t.i] = mask[t.i]
                    mask[t.i] = None
    return removed


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
