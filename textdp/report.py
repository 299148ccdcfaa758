"""What a call released and what it cost in ε (docs/architecture.md rule 3).

A report never claims more than basic sequential composition gives: ``epsilon_total`` is the
sum of the per-draw ε over the draws the mechanism made (and likewise for δ). With consistent
pseudonyms (``consistency="document"``, the default) every mention of one name re-uses one
draw, which is post-processing: ``draws`` counts distinct names, ``tokens_replaced`` every
mention, and the guarantee covers each name's identity (all its mentions together), not the
pattern of which mentions repeat a name. A placeholder tag (``replace="tag"``) draws nothing.

How to read it. Under metric DP (``mlaplace``, ``projection``, ``vickrey``, ``tem``,
``santext``) ε is a rate per unit of distance: two values of one token at distance d are
indistinguishable up to e^(ε·d), and for a whole text the loss is at most ε·Σⱼ dⱼ, the sum over
its replaced tokens of the distance between their two vectors. ε alone is therefore not a
privacy level; the report puts two distances of the space beside it: ``name_distance`` (the
median distance between two common person names) and ``diameter`` (no two inputs are further
apart), with ``epsilon_at_name_distance`` and ``epsilon_at_diameter`` (per token; the latter is
the worst case, a pure ε-DP bound). Every guarantee holds only between texts that agree on
``holds_between`` (detection, tokenisation and casing are released without noise).

``scope`` says what one ε covers. ``"token"``: a token's draw depends on that token only (static
vectors; contextual vectors read in a context where the other targets are masked), so a text
that differs in one target costs ε·d for it. ``"text"``: every replaced token's draw reads the
whole text (contextual or ``dpmlm`` with ``targets="all"``), so one changed word moves every
term of ε·Σⱼ dⱼ; the worst case is ``epsilon_total × diameter`` (for ``dpmlm``, pure ε per draw:
``epsilon_total``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

#: Per-row report columns the table front ends (Hugging Face, Spark) append, in this order:
#: target tokens replaced, and the row's composed ε (draws × ε).
REPORT_COLUMNS = ("dp_tokens_replaced", "dp_epsilon")
#: Between which two texts every guarantee holds: what is released without noise.
HOLDS_BETWEEN = ("texts with the same detection outcome (which tokens are targets), the same "
                 "tokenisation and the same casing class (lower, Title, UPPER, other) and form "
                 "(a word, or an @handle, e-mail address or profile URL with the punctuation "
                 "glued to it; of a profile URL, its platform and the URL up to the account) "
                 "of each target")
#: The same with ``surface="table"``, whose substitutes copy neither the input's casing nor
#: its form.
HOLDS_BETWEEN_ANY_CASING = ("texts with the same detection outcome (which tokens are targets) "
                            "and the same tokenisation")
#: Added when personal data other than names are targets (``textdp.detect.pii``): a
#: surrogate is drawn from the value's label and shape alone (``textdp.detect.pii.Shape``).
HOLDS_BETWEEN_SHAPES = ("; for personal data other than names (e-mail, phone, card, IBAN, "
                        "address, ... surrogates), the same label and shape of each value: where "
                        "its digits, letters and separators stand, an IBAN's country, an IP's "
                        "version, a crypto address's chain, a handle's '@', a phone extension's "
                        "marker, a street's type and unit words, a date of birth's style, "
                        "the notation and decimals of coordinates")
#: Added with ``replace="name"``: the kind of each person name chooses its candidates.
HOLDS_BETWEEN_NAME_KINDS = ("; for person names, the same kind (first name, surname or either: "
                            "by the words around the name and its position in it, else the "
                            "name lists), particles in the same places (van, de la, bin, "
                            "...: each written as one drawn at random from the public list of "
                            "particles, whatever it was; a prefix such as al- of a hyphenated "
                            "name kept) and the same hyphenated shape (number of parts, "
                            "casing)")
#: The same with ``surface="table"``, whose substitutes do not copy the parts' casing.
HOLDS_BETWEEN_NAME_KINDS_ANY_CASING = HOLDS_BETWEEN_NAME_KINDS.replace(", casing)", ")")
#: Added with ``name_origin="keep"``: a person name draws among names of its origin group.
HOLDS_BETWEEN_ORIGIN = ("; for person names, the same origin group (a coarse public label of "
                        "the name lists; names no list holds draw across all origins)")
#: Added with consistent pseudonyms: which mentions share a draw is released, and an
#: address spelt from names of its text is written from their draws (textdp.addresses).
#: Added where contextual vectors are computed in bfloat16/float16 (``precision="auto"`` on a
#: GPU or a bfloat16 CPU): the forward pass pads each context to its batch's longest, and the
#: rounding then depends on the batch (issue 34: 0.0095 shift against 3e-6 in float32).
HOLDS_BETWEEN_BATCH = ("; contextual vectors computed in {dtype}: a target's vector also "
                       "depends, through rounding, on the other contexts of its forward batch "
                       "(other targets and other texts; a shift of about 0.01 measured, "
                       "about 3e-6 in float32), which ε does not account for: "
                       "precision='float32' for the stated guarantee to within float32 "
                       "rounding")
HOLDS_BETWEEN_REPEATS = ("; the same pattern of repeated names (which mentions share a name, "
                         "and which @handles, e-mail addresses, profile URLs and run-together "
                         "names are spelt from names of the same text: their parts' order, "
                         "separators and casing, and which parts are initials)")

#: Added with ``report_spans=True``: the reported spans are released as they are.
HOLDS_BETWEEN_SPANS = ("; with report_spans, the same character offsets (so the same position "
                       "and character length) and label of each target, the detector that "
                       "found it and its score")


#: Added with ``review=True``: the per-record review signal is released as it is.
HOLDS_BETWEEN_REVIEW = ("; with review, the same review counts (how many names, handles and "
                        "speaker labels are targeted at some mentions but not all, and how "
                        "many person spans the detector scored near its threshold)")

#: The reasons a record is flagged for review (:attr:`Report.review`), a fixed set of codes:
#: ``partial_mention``: a name, handle or speaker label targeted at some of its mentions in
#: the text but not at all (after the every-mention rule); ``near_threshold``: a targeted
#: person span whose detector score lies within :data:`REVIEW_MARGIN` of the threshold.
REVIEW_REASONS = ("partial_mention", "near_threshold")
#: "Near the threshold": a score whose log-odds exceed the threshold's by at most this much
#: (the odds within a factor e of the threshold's: 0.015 → up to 0.040 with the packaged
#: MiniLM tagger; 0.5 → up to 0.731).
REVIEW_MARGIN = 1.0
#: The field, column or attribute the front ends write the review signal to by default.
REVIEW_FIELD = "dp_review"


def review_record(review: tuple[tuple[str, int], ...] | None) -> dict[str, Any] | None:
    """The review signal of a report as the front ends write it: ``needs_review`` (whether
    any reason counts) and the count of each code of :data:`REVIEW_REASONS`; ``None`` when
    review was not asked for. The same keys for every record (a fixed column type)."""
    if review is None:
        return None
    counts = dict(review)
    out: dict[str, Any] = {"needs_review": any(counts.get(r, 0) for r in REVIEW_REASONS)}
    out.update((r, int(counts.get(r, 0))) for r in REVIEW_REASONS)
    return out


def add_reviews(a: tuple[tuple[str, int], ...] | None, b: tuple[tuple[str, int], ...] | None
                ) -> tuple[tuple[str, int], ...] | None:
    """The review counts of two pieces of one text together (``None`` if neither has any)."""
    if a is None and b is None:
        return None
    counts = dict(a or ())
    for code, n in b or ():
        counts[code] = counts.get(code, 0) + n
    return tuple((r, counts.get(r, 0)) for r in REVIEW_REASONS)


@dataclass(frozen=True)
class ScopeAccount:
    """What the keyed draws of ``consistency="dataset"`` cost, composed over their scopes
    (:meth:`textdp.privatizer.Privatizer.scope_account`).

    A keyed draw is made once per (scope, name, candidate set) and shared by every text of
    the scope that names it (re-used: post-processing), so a text's report, which charges ε
    for each keyed draw the text reads, charges a shared draw once in every text that reads
    it; summing those reports over-counts. This account counts each keyed draw once.

    Attributes:
        epsilon: ε per draw.
        delta: δ per draw.
        scopes: scopes (the whole dataset, or each key-column value) with a keyed draw.
        keyed_draws: distinct keyed draws over all scopes; draws of redacted (over-budget)
            targets and PII surrogates are not draws of the mechanism on a name and do not
            count.
        max_keyed_draws_per_scope: the most distinct keyed draws of one scope.
        epsilon_per_scope: ``max_keyed_draws_per_scope × ε``: by basic sequential
            composition, the bound on what all the texts of any one scope release about the
            names they share (each name's identity at ε, all its mentions in all texts of
            the scope together; ε·d between two names under metric DP).
        epsilon_total: ``keyed_draws × ε``: the same over every scope together.
        delta_per_scope, delta_total: likewise for δ.
        composition: the statement in words.
    """

    epsilon: float
    delta: float
    scopes: int
    keyed_draws: int
    max_keyed_draws_per_scope: int
    epsilon_per_scope: float
    epsilon_total: float
    delta_per_scope: float
    delta_total: float
    composition: str

    @classmethod
    def of(cls, draws_per_scope: list[int], *, epsilon: float, delta: float) -> ScopeAccount:
        """The account of scopes that made ``draws_per_scope`` distinct keyed draws each."""
        total, most = sum(draws_per_scope), max(draws_per_scope, default=0)
        return cls(
            epsilon=epsilon, delta=delta, scopes=len(draws_per_scope), keyed_draws=total,
            max_keyed_draws_per_scope=most, epsilon_per_scope=_times(most, epsilon),
            epsilon_total=_times(total, epsilon), delta_per_scope=min(1.0, _times(most, delta)),
            delta_total=min(1.0, _times(total, delta)),
            composition=(
                "basic sequential composition over distinct keyed draws: each (scope, name, "
                "candidate set) is drawn once, at epsilon, and re-used by every text of its "
                "scope (post-processing), so a name's identity costs epsilon over all its "
                "mentions in all texts of the scope; a text's report charges each keyed draw "
                "it reads, so a draw shared by k texts is charged k times there and once "
                "here. Counted over the draws this privatizer made in this process (each "
                "worker of a multi-process run holds its own account; the sum of theirs is an "
                "upper bound)"))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable values."""
        return asdict(self)


@dataclass(frozen=True)
class Report:
    """Privacy report for one text.

    Attributes:
        mechanism: registered mechanism name.
        epsilon: ε per draw.
        delta: δ per draw (0 for pure metric DP).
        tokens_replaced: target tokens written with a substitute or a tag.
        epsilon_total: composed bound for the text: draws × ε. With
            ``consistency="dataset"`` a draw is shared by every text of its scope that names
            the same name, and each of their reports charges it: ``epsilon_total`` is the
            bound for this text's targets alone, and a sum over texts over-counts shared
            draws; :class:`ScopeAccount` composes over a scope.
        delta_total: draws × δ.
        guarantee: the mechanism's per-token guarantee in words.
        representation: ``"static"`` or ``"contextual"``.
        tokens_redacted: targets over a ``max_epsilon_per_text`` budget, replaced by draws that
            do not depend on them (they cost no ε).
        scope: ``"token"`` or ``"text"`` (see the module docstring).
        holds_between: the texts between which the guarantee holds.
        name_distance: median distance between two common person names in the space the
            mechanism works in (``None`` where ε multiplies no distance).
        diameter: no two inputs are further apart (``None`` likewise).
        epsilon_at_name_distance: ε × name_distance: the per-token bound between two names.
        epsilon_at_diameter: ε × diameter: the per-token worst case.
        draws: draws that went through the mechanism, each costing ε (even when it happened
            to return the same word): one per distinct name per scope with consistent
            pseudonyms, one per target token with ``consistency="mention"``, none for tags.
        replace: what replaced the targets: ``"name"``, ``"word"`` or ``"tag"``.
        consistency: ``"document"``, ``"dataset"`` or ``"mention"`` (which mentions share a
            draw; :mod:`textdp.pipeline.draw_plan`).
        date_offsets: day offsets drawn for this text's dates (0 or 1; :mod:`textdp.quasi`),
            each costing ``epsilon_date`` per day of shift.
        epsilon_date: ε per day of a date offset (``None`` where dates are not targets).
        age_draws: noisy ages drawn for this text, each costing ``epsilon_age`` per year.
        epsilon_age: ε per year of an age (``None`` where ages are not targets).
            ``epsilon_total`` composes all three: draws × ε + date_offsets × epsilon_date +
            age_draws × epsilon_age.
        spans: with ``Privatizer(report_spans=True)``, the targeted spans as ``(start, end,
            label, detector, score)``: character offsets in the input text, never its text
            (``to_dict`` writes them as records); ``None`` otherwise. They are released as
            they are: where each target is, its length, its detector and score
            (``holds_between`` says so).
        review: with ``Privatizer(review=True)``, the per-record review signal: per reason
            of :data:`REVIEW_REASONS`, how often it occurs in the text (codes and counts,
            never text; ``to_dict`` and the front ends write :func:`review_record`); ``None``
            otherwise. Released without noise (``holds_between`` says so).
    """

    mechanism: str
    epsilon: float
    delta: float
    tokens_replaced: int
    epsilon_total: float
    delta_total: float
    guarantee: str
    representation: str = "static"
    tokens_redacted: int = 0
    scope: str = "token"
    holds_between: str = HOLDS_BETWEEN
    name_distance: float | None = None
    diameter: float | None = None
    epsilon_at_name_distance: float | None = None
    epsilon_at_diameter: float | None = None
    draws: int = 0
    replace: str = "word"
    consistency: str = "mention"
    spans: tuple[tuple[int, int, str, str, float | None], ...] | None = None
    date_offsets: int = 0
    epsilon_date: float | None = None
    age_draws: int = 0
    epsilon_age: float | None = None
    review: tuple[tuple[str, int], ...] | None = None

    @property
    def needs_review(self) -> bool | None:
        """Whether the text holds a low-confidence or partial detection (``None`` when
        review was not asked for)."""
        record = review_record(self.review)
        return None if record is None else record["needs_review"]

    @classmethod
    def for_tokens(cls, n: int, *, mechanism: str, epsilon: float, delta: float,
                   guarantee: str, representation: str = "static",
                   redacted: int = 0, scope: str = "token",
                   holds_between: str = HOLDS_BETWEEN, name_distance: float | None = None,
                   diameter: float | None = None, draws: int | None = None,
                   replace: str = "word", consistency: str = "mention",
                   spans: tuple[tuple[int, int, str, str, float | None], ...] | None = None,
                   date_offsets: int = 0, epsilon_date: float | None = None,
                   age_draws: int = 0, epsilon_age: float | None = None) -> Report:
        """The report for ``n`` replaced tokens, ``draws`` of them through the mechanism
        (default: every one), and ``redacted`` cost-free draws; ``date_offsets`` and
        ``age_draws`` at ``epsilon_date`` and ``epsilon_age`` (:mod:`textdp.quasi`)."""
        draws = n if draws is None else draws
        total = _sum(_times(draws, epsilon), _times(date_offsets, epsilon_date or 0.0),
                     _times(age_draws, epsilon_age or 0.0))
        return cls(mechanism=mechanism, epsilon=epsilon, delta=delta, tokens_replaced=n,
                   epsilon_total=total, date_offsets=date_offsets, epsilon_date=epsilon_date,
                   age_draws=age_draws, epsilon_age=epsilon_age,
                   delta_total=min(1.0, _times(draws, delta)), draws=draws,
                   replace=replace, consistency=consistency, spans=spans,
                   guarantee=guarantee, representation=representation,
                   tokens_redacted=redacted, scope=scope, holds_between=holds_between,
                   name_distance=name_distance, diameter=diameter,
                   epsilon_at_name_distance=None if name_distance is None
                   else epsilon * name_distance,
                   epsilon_at_diameter=None if diameter is None else epsilon * diameter)

    def counted(self, n: int, redacted: int = 0, draws: int | None = None, *,
                date_offsets: int = 0, age_draws: int = 0) -> Report:
        """A report with this one's settings for ``n`` replaced tokens, ``draws`` of them
        through the mechanism (default: every one), ``redacted`` cost-free draws, and
        ``date_offsets`` and ``age_draws`` (:mod:`textdp.quasi`)."""
        return Report.for_tokens(
            n, draws=draws, date_offsets=date_offsets, age_draws=age_draws,
            epsilon_date=self.epsilon_date, epsilon_age=self.epsilon_age, replace=self.replace,
            consistency=self.consistency,
            mechanism=self.mechanism, epsilon=self.epsilon, delta=self.delta,
            guarantee=self.guarantee, representation=self.representation, redacted=redacted,
            scope=self.scope, holds_between=self.holds_between,
            name_distance=self.name_distance, diameter=self.diameter)

    def merge(self, other: Report) -> Report:
        """Report for the concatenation of two texts privatized with the same settings."""
        merged = self.counted(self.tokens_replaced + other.tokens_replaced,
                              self.tokens_redacted + other.tokens_redacted,
                              draws=self.draws + other.draws,
                              date_offsets=self.date_offsets + other.date_offsets,
                              age_draws=self.age_draws + other.age_draws)
        review = add_reviews(self.review, other.review)
        if review is not None:
            merged = dataclasses.replace(merged, review=review)
        if self.spans is None and other.spans is None:
            return merged
        return dataclasses.replace(merged, spans=(self.spans or ()) + (other.spans or ()))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable values (for ``doc._.dp``, JSONL and dataset columns)."""
        out = asdict(self)
        if self.review is None:  # not asked for: the report is as it was without review
            del out["review"]
        else:
            out["review"] = review_record(self.review)
        if self.spans is not None:
            out["spans"] = [dict(zip(("start", "end", "label", "detector", "score"), s))
                            for s in self.spans]
        return out


def _times(n: int, value: float) -> float:
    """``n × value`` computed on the decimal that ``value`` prints as, so 6 × 0.3 reports 1.8,
    not 1.7999999999999998 (the float nearest the exact decimal product)."""
    return float(Decimal(repr(float(value))) * n)


def _sum(*values: float) -> float:
    """The sum of ``values`` computed on the decimals they print as (see :func:`_times`)."""
    return float(sum((Decimal(repr(float(v))) for v in values), Decimal(0)))


#: A targeted span of the audit trail: start, end (character offsets), label, detector, score.
SpanRecord = tuple[int, int, str, str, float | None]


def join_cut_spans(spans: Iterable[SpanRecord], text: str, cuts: Iterable[int]
                   ) -> tuple[SpanRecord, ...]:
    """A text's audit spans sorted, the two halves of a span cut by a chunk boundary (a
    position in ``cuts``) joined again: same label, one ending at or before the cut and the
    other starting at or after it, only whitespace between. Detectors are joined with ``+``,
    the score is the higher one (``None`` if either has none)."""
    cuts = sorted(cuts)
    out: list[list[Any]] = []
    for s in sorted(spans, key=lambda r: (r[0], r[1], r[2])):
        prev = out[-1] if out else None
        if prev is not None and cuts and prev[2] == s[2] and prev[1] <= s[0] and \
                not text[prev[1]:s[0]].strip() and any(prev[1] <= c <= s[0] for c in cuts):
            prev[1] = s[1]
            if prev[3] != s[3]:
                prev[3] = "+".join(dict.fromkeys(prev[3].split("+") + s[3].split("+")))
            prev[4] = None if prev[4] is None or s[4] is None else max(prev[4], s[4])
            continue
        out.append(list(s))
    return tuple((a, b, label, det, score) for a, b, label, det, score in out)
