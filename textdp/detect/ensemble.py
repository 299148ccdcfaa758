"""Several detectors as one: the union of their person tokens, then the recall rules.

In names-only mode a missed name is published unchanged, so the ensemble takes every token any
member marks as a person (recall first) and then adds the other mentions of the names found
(:class:`~textdp.detect.rules.NameRules`). Spans are rebuilt from the union of tokens, split
where the first member (the primary) has two touching names.

With the rules comes the register stage (:class:`~textdp.detect.register.RegisterStage`):
the person spans read in the text's register, so e-mail headers, clinical shorthand, role
words, organisations and streets leave them and names the register shows (signatures,
address parts, speaker labels, every mention of a found name) join them.

Non-person spans (ORG, LOC, …) are kept where no person token lies: they serve other targets,
and the rules leave them alone (``Jordan`` the country next to ``Michael Jordan``).

Build one from names with ``create_detector("minilm+rules")``: :func:`build_spec` makes the
detector of a parsed spec (:mod:`textdp.detect.spec`), a union as an ensemble on the
:class:`~textdp.detect.normalise.NormalisedView`. The name ``"ensemble"`` (registered here,
the default detector) is :data:`DEFAULT_ENSEMBLE`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textdp.detect.base import Finding, Span, attribute, find
from textdp.detect.normalise import NormalisedView
from textdp.detect.registry import make_detector, register_detector
from textdp.detect.rules import PERSON, NameRules, person_spans
from textdp.detect.spec import DetectorSpec, parse_detector_spec

# The default detector: the MiniLM name tagger (newswire, posts and tweets; recall-first
# threshold), the recall rules, and the names in handles, hashtags and e-mail addresses
# (:mod:`textdp.detect.handles`); ``create_detector`` runs it on the normalised view
# (:mod:`textdp.detect.normalise`). Chosen on the dev splits through the full privatizer
# (``textdp evaluate detection --data ../shared/data``): it met the survival and other-words
# targets on every domain; adding the spaCy tagger ("trained+minilm+rules+handles") catches
# more names but keeps fewer other words (BTC b below 95 % at its default recall bias) at
# half the speed.
DEFAULT_ENSEMBLE = "minilm+rules+handles+glued"  # glued: names in paths and URLs (d37)


def union_spans(span_lists: Sequence[Sequence[Span]]) -> list[Span]:
    """One doc's spans from several detectors: person tokens united, re-split at the first
    list's boundaries between touching person spans; other labels kept off person tokens."""
    persons = {k for spans in span_lists for s, e, lab in spans if lab == PERSON
               for k in range(s, e)}
    cuts = set()
    if span_lists:
        primary = sorted((s, e) for s, e, lab in span_lists[0] if lab == PERSON)
        cuts = {s for (s, _), (_, prev_e) in zip(primary[1:], primary[:-1]) if s == prev_e}
    out = person_spans(persons, cuts)
    for spans in span_lists:
        for s, e, lab in spans:
            if lab != PERSON and not any(k in persons for k in range(s, e)):
                out.add((s, e, lab))
    return sorted(out)


def member_scores(found: Sequence[Sequence[Sequence[Finding]]], n: int
                  ) -> list[dict[int, float]]:
    """Per doc, the person tokens the members found, each with the highest score a member
    gave it (a span's score is its best word's); 1.0 for a token an unscored member (rules,
    handles, a spaCy tagger) found: nothing says its evidence is weak. Tokens the rules
    added later have none. The register stage reads these as the strength of the name
    evidence."""
    out: list[dict[int, float]] = []
    for i in range(n):
        scores: dict[int, float] = {}
        unscored: set[int] = set()
        for member in found:
            for f in member[i]:
                if f.label != PERSON:
                    continue
                for k in range(f.start, f.end):
                    if f.score is None:
                        unscored.add(k)
                    else:
                        scores[k] = max(scores.get(k, 0.0), float(f.score))
        out.append({**scores, **dict.fromkeys(unscored, 1.0)})
    return out


class EnsembleDetector:
    """Union of detectors with recall priority, followed by the name rules.

    Args:
        detectors: member detectors (objects following the protocol); the first is the
            primary, whose span boundaries split touching names.
        rules: a :class:`NameRules` applied to the union (``True`` for the default rules,
            ``None``/``False`` for none).
        register: a :class:`~textdp.detect.register.RegisterStage` applied last (``True``
            for the default one, ``False`` for none; ``None``, the default: with the rules).
    """

    name = "ensemble"

    def __init__(self, detectors: Sequence[Any], *, rules: NameRules | bool | None = True,
                 register: Any = None) -> None:
        if not detectors and not rules:
            raise ValueError("an ensemble needs at least one detector or the rules")
        self.detectors = list(detectors)
        self.rules = NameRules() if rules is True else (rules or None)
        if register is None:  # the register stage goes with the rules
            register = self.rules is not None
        if register is True:
            from textdp.detect.register import RegisterStage

            register = RegisterStage()
        self.register = register or None

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        docs = list(docs)
        if not self.detectors:
            assert self.rules is not None
            return self.rules(docs)
        if self.register is None:
            outputs = [d(docs) for d in self.detectors]
            merged = [union_spans([out[i] for out in outputs]) for i in range(len(docs))]
            return self.rules.expand(docs, merged) if self.rules is not None else merged
        # The register reads the tagger's scores: its findings cost what its spans do.
        found = [find(d, docs) for d in self.detectors]
        merged = [union_spans([[f.span for f in out[i]] for out in found])
                  for i in range(len(docs))]
        if self.rules is not None:
            merged = self.rules.expand(docs, merged)
        return self.register(docs, merged, scores=member_scores(found, len(docs)))

    def findings(self, docs: Sequence[Any]) -> list[list[Finding]]:
        """The spans of :meth:`__call__`, each with the members whose spans overlap it
        (``"minilm+handles"``; ``"rules"`` for a mention only the rules added) and a score:
        the highest member score, or ``None`` when an unscored member (rules, handles, spaCy)
        also found it, so that a score threshold never drops what such a member found."""
        docs = list(docs)
        if not self.detectors:
            assert self.rules is not None
            return [[Finding(s, e, lab, "rules", None) for s, e, lab in spans]
                    for spans in self.rules(docs)]
        outputs = [find(d, docs) for d in self.detectors]
        merged = [union_spans([[f.span for f in out[i]] for out in outputs])
                  for i in range(len(docs))]
        if self.rules is not None:
            merged = self.rules.expand(docs, merged)
        if self.register is not None:
            merged = self.register(docs, merged, scores=member_scores(outputs, len(docs)))
        return [attribute(spans, [f for out in outputs for f in out[i]], "rules")
                for i, spans in enumerate(merged)]

    def __repr__(self) -> str:
        members = ", ".join(repr(d) for d in self.detectors)
        return (f"EnsembleDetector([{members}], rules={self.rules!r}, "
                f"register={self.register is not None})")


def build_spec(spec: DetectorSpec, *, device: str = "cpu") -> Any:
    """The detector of a parsed spec: its one member as it is (for who wants exactly that
    detector), or the union of its members as an :class:`EnsembleDetector` (the rules on top
    where the spec has them) on the normalised view of each text. ``device`` is where
    model-based members run."""
    members = [make_detector(m.name, model=m.model, device=device) for m in spec.members]
    if not spec.is_union:
        return members[0]
    return NormalisedView(EnsembleDetector(members, rules=spec.rules))


@register_detector("ensemble")
def default_ensemble(device: str = "cpu") -> Any:
    """:data:`DEFAULT_ENSEMBLE` on the normalised view, model-based members on ``device``."""
    return build_spec(parse_detector_spec(DEFAULT_ENSEMBLE), device=device)
