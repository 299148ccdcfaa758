"""How well a detector finds person names: entity P/R/F1, token recall, speed, and an ROC.

In names-only mode a missed name is published unchanged, so token-level recall of ``PERSON``
is the privacy figure; entity-level precision/recall/F1 (exact span match, the CoNLL
convention) measures the detector as a tagger, and precision says how much non-name text is
replaced needlessly.

    textdp evaluate detection --data ../shared/data/conll2003/eng.testa [--detector NAME]
    textdp evaluate detection --data ... --detector similarity --seeds John,Mary,Smith
    textdp evaluate detection --data my_sample.jsonl      # your own labelled sample
    textdp evaluate detection --data ../shared/data       # every dev domain, Enron e-mail too
    textdp evaluate samples --split dev                    # generated clinical/e-mail/chat/...

Your own labelled sample, before a release: a CoNLL file, or JSONL with a ``text`` and its
character ``spans`` ``[[start, end, label], ...]`` (end exclusive; ``PER`` is ``PERSON``) per
line. Besides the detector's recall it prints the share of the label's word tokens that would
survive: unchanged at their place in the output of the full privatizer (``--no-survival``
skips that run).

Docs are built from the gold tokens (``Doc(vocab, words=...)``) so token indices align
exactly; a document of the file is one text (``--unit sentence`` for one text a sentence).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from textdp.corpora.conll import token_count
from textdp.detect.base import Span, normalise_label

TARGET = "PERSON"
# Thresholds printed for the similarity detector's ROC (cosine similarity to the seeds).
ROC_THRESHOLDS = tuple(round(t, 2) for t in np.arange(0.20, 0.85, 0.05))


@dataclass(frozen=True)
class DetectionScores:
    """Entity-level (exact span) and token-level counts for one label, and derived rates."""

    label: str
    tp: int
    fp: int
    fn: int
    token_tp: int
    token_fp: int
    token_fn: int

    @staticmethod
    def _ratio(a: int, b: int) -> float:
        return a / b if b else 0.0

    @property
    def precision(self) -> float:
        return self._ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return self._ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return self._ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def token_recall(self) -> float:
        """Share of gold name tokens inside a predicted span of the label (the privacy rate)."""
        return self._ratio(self.token_tp, self.token_tp + self.token_fn)

    @property
    def token_precision(self) -> float:
        return self._ratio(self.token_tp, self.token_tp + self.token_fp)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "precision": self.precision, "recall": self.recall,
                "f1": self.f1, "token_recall": self.token_recall,
                "token_precision": self.token_precision}


def score(gold: Sequence[Sequence[Span]], pred: Sequence[Sequence[Span]],
          label: str = TARGET) -> DetectionScores:
    """Compare predicted spans with gold spans per doc, for one label (normalised, so
    ``PER`` and ``PERSON`` are the same)."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold docs but {len(pred)} predicted")
    label = normalise_label(label)
    tp = fp = fn = ttp = tfp = tfn = 0
    for g_doc, p_doc in zip(gold, pred):
        g = {(s, e) for s, e, lab in g_doc if normalise_label(lab) == label}
        p = {(s, e) for s, e, lab in p_doc if normalise_label(lab) == label}
        tp += len(g & p)
        fp += len(p - g)
        fn += len(g - p)
        g_tok = {k for s, e in g for k in range(s, e)}
        p_tok = {k for s, e in p for k in range(s, e)}
        ttp += len(g_tok & p_tok)
        tfp += len(p_tok - g_tok)
        tfn += len(g_tok - p_tok)
    return DetectionScores(label, tp, fp, fn, ttp, tfp, tfn)


@dataclass(frozen=True)
class DetectionRun:
    """Scores of one detector on one data set, and its speed."""

    detector: str
    scores: DetectionScores
    docs: int
    tokens: int
    seconds: float
    cpu_seconds: float = 0.0

    @property
    def tokens_per_s(self) -> float:
        """Tokens per wall-clock second."""
        return self.tokens / self.seconds if self.seconds > 0 else float("inf")

    @property
    def tokens_per_cpu_s(self) -> float:
        """Tokens per CPU second of this process (all its threads): on a machine shared with
        other jobs, wall-clock speed depends on their load; this does less."""
        return self.tokens / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")

    def as_dict(self) -> dict[str, Any]:
        return {"detector": self.detector, **self.scores.as_dict(), "docs": self.docs,
                "tokens": self.tokens, "seconds": self.seconds,
                "tokens_per_s": self.tokens_per_s, "cpu_seconds": self.cpu_seconds,
                "tokens_per_cpu_s": self.tokens_per_cpu_s}

    def summary(self) -> str:
        s = self.scores
        return (f"{self.detector}: {s.label} P {s.precision:.4f} R {s.recall:.4f} "
                f"F1 {s.f1:.4f} | token recall {s.token_recall:.4f} "
                f"(token precision {s.token_precision:.4f}) | "
                f"{self.tokens_per_s:,.0f} tokens/s ({self.tokens:,} tokens, "
                f"{self.seconds:.2f} s wall, {self.tokens_per_cpu_s:,.0f} tokens/CPU-s)")


def run_detector(detector: Any, docs: Sequence[Any], gold: Sequence[Sequence[Span]], *,
                 name: str = "detector", label: str = TARGET, warmup: int = 8,
                 batch_size: int = 256) -> DetectionRun:
    """Detect on ``docs`` in batches (as the Privatizer calls a detector), time it, score it.

    The first ``warmup`` docs are run once untimed, so lazy model loading is not counted.
    """
    if warmup:
        detector(list(docs[:warmup]))
    pred: list[list[Span]] = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(0, len(docs), batch_size):
        pred.extend(detector(list(docs[i:i + batch_size])))
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    tokens = sum(token_count(d) for d in docs)
    return DetectionRun(name, score(gold, pred, label), len(docs), tokens, seconds, cpu_seconds)


# ---------------------------------------------------------------------------- ROC
@dataclass(frozen=True)
class RocPoint:
    threshold: float
    tpr: float
    fpr: float
    flagged: int


def roc(scores: np.ndarray, positive: np.ndarray,
        thresholds: Sequence[float] = ROC_THRESHOLDS) -> list[RocPoint]:
    """True- and false-positive rates of ``scores >= threshold`` against ``positive``."""
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    points = []
    for t in thresholds:
        flagged = scores >= t
        tp = int((flagged & positive).sum())
        fp = int((flagged & ~positive).sum())
        points.append(RocPoint(float(t), tp / n_pos if n_pos else 0.0,
                               fp / n_neg if n_neg else 0.0, int(flagged.sum())))
    return points


def auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve (probability a positive outscores a negative; ties ½)."""
    from scipy.stats import rankdata

    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if not n_pos or not n_neg:
        return float("nan")
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def similarity_roc(detector: Any, docs: Sequence[Any], gold: Sequence[Sequence[Span]],
                   label: str = TARGET, thresholds: Sequence[float] = ROC_THRESHOLDS
                   ) -> tuple[list[RocPoint], float, int, int]:
    """ROC of a similarity detector's token scores over the word tokens of ``docs``
    (positives: gold ``label`` tokens). Returns the points, the AUC, #positives, #negatives."""
    from textdp.privatizer import is_word

    label = normalise_label(label)
    all_scores, all_pos = [], []
    for doc, spans in zip(docs, gold):
        words = [t.text for t in doc]
        s = detector.token_scores(words)
        pos = np.zeros(len(words), dtype=bool)
        for a, b, lab in spans:
            if normalise_label(lab) == label:
                pos[a:b] = True
        keep = np.array([is_word(w) for w in words], dtype=bool)
        all_scores.append(s[keep])
        all_pos.append(pos[keep])
    scores = np.concatenate(all_scores) if all_scores else np.zeros(0)
    positive = np.concatenate(all_pos) if all_pos else np.zeros(0, dtype=bool)
    return (roc(scores, positive, thresholds), auc(scores, positive), int(positive.sum()),
            int((~positive).sum()))


# ---------------------------------------------------------------------------- domains
@dataclass(frozen=True)
class SurvivalRun:
    """One detector on one domain's dev split through the full :class:`Privatizer`: gold
    person-name word tokens still standing in the output, and other words kept."""

    detector: str
    domain: str
    scores: DetectionScores
    names: int
    surviving: int
    surviving_anywhere: int
    others: int
    others_kept: int
    tokens: int
    seconds: float
    #: With ``review``: texts flagged for review, and per reason the texts it flags
    #: (``None`` without review).
    flagged: int | None = None
    reasons: dict[str, int] | None = None
    texts: int = 0

    @property
    def surviving_share(self) -> float:
        """Share of gold person word tokens unchanged at their place in the output (any
        case): what a reader of the output still sees."""
        return self.surviving / self.names if self.names else 0.0

    @property
    def anywhere_share(self) -> float:
        """Share of gold person word tokens found anywhere in their text's output (any case):
        also counts a name drawn back as another mention's substitute."""
        return self.surviving_anywhere / self.names if self.names else 0.0

    @property
    def others_kept_share(self) -> float:
        return self.others_kept / self.others if self.others else 0.0

    @property
    def tokens_per_s(self) -> float:
        """Whitespace tokens of the input privatized per wall-clock second, end to end."""
        return self.tokens / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict[str, Any]:
        return {"detector": self.detector, "domain": self.domain, **self.scores.as_dict(),
                "names": self.names, "surviving": self.surviving,
                "surviving_share": self.surviving_share,
                "surviving_anywhere": self.surviving_anywhere,
                "anywhere_share": self.anywhere_share, "others": self.others,
                "others_kept": self.others_kept, "others_kept_share": self.others_kept_share,
                "tokens": self.tokens, "seconds": self.seconds,
                "tokens_per_s": self.tokens_per_s,
                **({} if self.flagged is None else {
                    "texts": self.texts, "flagged": self.flagged, "reasons": self.reasons})}

    def summary(self) -> str:
        s = self.scores
        return (f"{self.domain:8s} {self.detector:24s} PER P {s.precision:.3f} R {s.recall:.3f} "
                f"F1 {s.f1:.3f} | token recall {s.token_recall:.3f} | surviving "
                f"{100 * self.surviving_share:5.1f} % (anywhere {100 * self.anywhere_share:5.1f}"
                f" %) of {self.names} | other words kept {100 * self.others_kept_share:5.1f} % | "
                f"{self.tokens_per_s:,.0f} tokens/s" + self.review_summary())

    def review_summary(self) -> str:
        """`` | review: n of N texts (reason n, ...)`` with review, else nothing."""
        if self.flagged is None:
            return ""
        reasons = ", ".join(f"{k} {v}" for k, v in (self.reasons or {}).items())
        return f" | review: {self.flagged} of {self.texts} texts ({reasons})"


def survival(privatizer: Any, sentences: Sequence[Any], *, name: str = "detector",
             domain: str = "", batch_size: int = 256) -> SurvivalRun:
    """Privatize each sentence as a user would (its gold tokens joined by spaces, through
    ``privatizer.privatize``) and count what survives.

    The privatizer keeps the whitespace skeleton, so the output's i-th whitespace-separated
    chunk is what became the i-th gold token. Person tokens without a letter (``@`` of a
    tokenized handle) are not counted: no policy replaces punctuation. Detection is scored on
    the same output, over word tokens: gold spans are the runs of word tokens inside gold
    person spans (``@ kim`` is ``kim``), predicted spans the runs of changed word chunks."""
    from textdp.privatizer import is_word

    texts = [" ".join(s.tokens) for s in sentences]
    privatizer(texts[0] if texts else "")  # load models outside the timed run
    start = time.perf_counter()
    outputs = []
    reviews = []
    for i in range(0, len(texts), batch_size):
        for r in privatizer.privatize(texts[i:i + batch_size]):
            outputs.append(r.text)
            reviews.append(getattr(getattr(r, "report", None), "review", None))
    seconds = time.perf_counter() - start
    flagged = reasons = None
    if reviews and reviews[0] is not None:  # the privatizer gives the review signal
        counts = [dict(r) for r in reviews]
        flagged = sum(any(c.values()) for c in counts)
        reasons = {k: sum(1 for c in counts if c.get(k)) for k in counts[0]}
    names = surviving = anywhere = others = kept = 0
    gold: list[list[Span]] = []
    pred: list[list[Span]] = []
    for sent, out in zip(sentences, outputs):
        chunks = out.split(" ")
        if len(chunks) != len(sent.tokens):
            raise ValueError("the privatizer changed the whitespace skeleton of a text")
        words = [is_word(t) for t in sent.tokens]
        person = np.zeros(len(sent.tokens), dtype=bool)
        for a, b, lab in sent.spans:
            if lab == TARGET:
                person[a:b] = True
        seen = {c.casefold() for c in chunks}
        for tok, new, word, is_person in zip(sent.tokens, chunks, words, person.tolist()):
            if not word:
                continue
            same = tok.casefold() == new.casefold()
            if is_person:
                names += 1
                surviving += same
                anywhere += tok.casefold() in seen
            else:
                others += 1
                kept += same
        gold.append([g for a, b, lab in sent.spans if lab == TARGET
                     for g in _runs(words[a:b], a)])
        pred.append(_runs([w and t != c for w, t, c in zip(words, sent.tokens, chunks)]))
    tokens = sum(len(s.tokens) for s in sentences)
    return SurvivalRun(name, domain, score(gold, pred), names, surviving, anywhere, others,
                       kept, tokens, seconds, flagged, reasons, len(texts))


def _runs(flags: Sequence[bool], offset: int = 0) -> list[Span]:
    """``PERSON`` spans of the runs of true flags, shifted by ``offset``."""
    spans, start = [], -1
    for k, flag in enumerate([*flags, False]):
        if flag and start < 0:
            start = k
        elif not flag and start >= 0:
            spans.append((start + offset, k + offset, TARGET))
            start = -1
    return spans


def check_detectors(detectors: Sequence[str | None]) -> None:
    """Parse every detector spec (:func:`textdp.detect.spec.parse_detector_spec`) before any
    data is read: a misspelt ``--detector`` fails at once, not after the corpus loads."""
    from textdp.detect.spec import parse_detector_spec

    for spec in detectors:
        if spec is None or isinstance(spec, str):
            parse_detector_spec(spec, param="detector")


def evaluate_domains(data_dir: str | os.PathLike[str] | None, detectors: Sequence[str | None],
                     *, domains: str | Sequence[str] | None = None, epsilon: float | None = None,
                     seed: int | None = 0, limit: int | None = None, log: Any = print,
                     review: bool = False) -> list[SurvivalRun]:
    """Every detector on every domain's dev split (:mod:`textdp.corpora.domains`), through
    the full default privatizer (names only, default ε): one line each. ``review``: also
    count the texts the review signal flags (``Privatizer(review=True)``; the outputs, and
    so the other figures, are the same)."""
    check_detectors(detectors)
    from textdp.corpora.domains import load_split, resolve_domains, sentences
    from textdp.privatizer import Privatizer

    runs = []
    chosen = resolve_domains(domains)
    splits = {}
    for d in chosen:
        sents = sentences(load_split(d, "dev", data_dir))
        splits[d.name] = sents[:limit] if limit else sents
        n = sum(1 for s in splits[d.name] for sp in s.spans if sp[2] == TARGET)
        log(f"{d.name}: {d.description}, dev {d.dev}: {len(splits[d.name])} texts, "
            f"{sum(len(s.tokens) for s in splits[d.name]):,} tokens, {n} persons")
    for spec in detectors:
        kwargs: dict[str, Any] = {"detector": spec, "seed": seed, "review": review}
        if epsilon is not None:
            kwargs["epsilon"] = epsilon
        privatizer = Privatizer(**kwargs)
        for d in chosen:
            run = survival(privatizer, splits[d.name], name=spec or "default", domain=d.name)
            log(run.summary())
            runs.append(run)
    return runs


# ---------------------------------------------------------------------------- user samples
@dataclass(frozen=True)
class LabelledText:
    """One text of a user's labelled sample and its gold spans in character offsets."""

    text: str
    spans: tuple[tuple[int, int, str], ...]

    def __repr__(self) -> str:  # never show the text
        return f"LabelledText(chars={len(self.text)}, spans={len(self.spans)})"


def read_labelled_jsonl(path: str | os.PathLike[str], *, text_field: str = "text",
                        spans_field: str = "spans") -> list[LabelledText]:
    """A JSONL sample: per line an object with the text and its gold spans
    ``[[start, end, label], ...]`` (character offsets, end exclusive). Raises ``ValueError``
    naming the line for anything else (never quoting the text)."""
    import json

    out = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            problem = None
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                problem = f"malformed JSON ({err.msg} at column {err.colno})"
            if problem is not None:
                raise ValueError(f"{os.fspath(path)}, line {lineno}: {problem}")
            where = f"{os.fspath(path)}, line {lineno}"
            if not isinstance(record, dict) or not isinstance(record.get(text_field), str):
                raise ValueError(f"{where}: expected an object with a string {text_field!r}")
            text = record[text_field]
            raw = record.get(spans_field, [])
            if not isinstance(raw, list):
                raise ValueError(f"{where}: {spans_field!r} must be a list of "
                                 "[start, end, label]")
            spans = []
            for k, span in enumerate(raw):
                ok = isinstance(span, (list, tuple)) and len(span) == 3 and \
                    all(isinstance(x, int) and not isinstance(x, bool) for x in span[:2]) and \
                    isinstance(span[2], str)
                if not ok or not 0 <= span[0] < span[1] <= len(text):
                    raise ValueError(f"{where}: span {k} must be [start, end, label] with "
                                     f"0 <= start < end <= {len(text)} (the text's length)")
                spans.append((span[0], span[1], normalise_label(span[2])))
            out.append(LabelledText(text, tuple(spans)))
    return out


def char_to_token_spans(doc: Any, spans: Sequence[tuple[int, int, str]]) -> list[Span]:
    """Gold character spans as token spans of ``doc``: the non-space tokens that overlap
    each (a span that covers no token is dropped)."""
    from bisect import bisect_left, bisect_right

    starts = [t.idx for t in doc]
    ends = [t.idx + len(t.text) for t in doc]
    out = []
    for a, b, label in spans:
        first, stop = bisect_right(ends, a), bisect_left(starts, b)
        while first < stop and doc[first].is_space:
            first += 1
        while stop > first and doc[stop - 1].is_space:
            stop -= 1
        if first < stop:
            out.append((first, stop, label))
    return out


@dataclass(frozen=True)
class SampleSurvival:
    """The label's word tokens of a sample through the full privatizer."""

    label: str
    names: int
    surviving: int
    #: Word tokens outside every gold span (of any label), and those the privatizer changed.
    others: int = 0
    others_changed: int = 0

    @property
    def surviving_share(self) -> float:
        """Share of the label's word tokens unchanged at their place in the output (any
        case): published as they were."""
        return self.surviving / self.names if self.names else 0.0

    @property
    def others_kept_share(self) -> float:
        """Share of the word tokens outside every gold span left as they were."""
        return 1.0 - self.others_changed / self.others if self.others else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "names": self.names, "surviving": self.surviving,
                "surviving_share": self.surviving_share, "others": self.others,
                "others_changed": self.others_changed,
                "others_kept_share": self.others_kept_share}

    def summary(self) -> str:
        return (f"would survive the privatizer: {100 * self.surviving_share:.1f} % of "
                f"{self.names} {self.label} word tokens ({self.surviving} unchanged); other "
                f"words kept {100 * self.others_kept_share:.1f} % of {self.others}")


def sample_survival(privatizer: Any, docs: Sequence[Any], gold: Sequence[Sequence[Span]],
                    label: str = TARGET) -> SampleSurvival:
    """Run ``docs`` (made by ``privatizer.nlp``'s tokenizer) through the privatizer with its
    own detector and count the gold ``label`` word tokens whose output is the same word
    (case-insensitively), and the word tokens outside every gold span that it changed."""
    from textdp.targets import is_word

    label = normalise_label(label)
    results = privatizer.privatize_docs(list(docs)) if docs else []
    names = surviving = others = changed = 0
    for doc, spans, (new_words, _) in zip(docs, gold, results):
        inside = {k for a, b, _ in spans for k in range(a, b)}
        for a, b, lab in spans:
            if normalise_label(lab) != label:
                continue
            for k in range(a, b):
                if is_word(doc[k].text):
                    names += 1
                    surviving += doc[k].text.casefold() == new_words[k].casefold()
        for k, token in enumerate(doc):
            if k not in inside and is_word(token.text):
                others += 1
                changed += token.text.casefold() != new_words[k].casefold()
    return SampleSurvival(label, names, surviving, others, changed)


def evaluate_jsonl(data: str | os.PathLike[str], detectors: Sequence[str | None], *,
                   label: str = TARGET, limit: int | None = None, survival_run: bool = True,
                   epsilon: float | None = None, seed: int | None = 0,
                   text_field: str = "text", spans_field: str = "spans", log: Any = print
                   ) -> list[tuple[DetectionRun, SampleSurvival | None]]:
    """Each detector on a user's JSONL sample (:func:`read_labelled_jsonl`): its scores, and
    with ``survival_run`` the share of ``label`` tokens the full privatizer (that detector,
    ``epsilon``, names only) would publish unchanged."""
    check_detectors(detectors)
    from textdp.defaults import load_pipeline
    from textdp.detect import create_detector
    from textdp.privatizer import Privatizer
    from textdp.tokenization import transient_strings

    samples = read_labelled_jsonl(data, text_field=text_field, spans_field=spans_field)
    if limit:
        samples = samples[:limit]
    label = normalise_label(label)
    nlp = load_pipeline()
    privatizers: dict[int, Any] = {}
    if survival_run:
        for j, spec in enumerate(detectors):
            kwargs: dict[str, Any] = {"detector": spec, "seed": seed, "targets": [label]}
            if epsilon is not None:
                kwargs["epsilon"] = epsilon
            privatizers[j] = Privatizer(**kwargs, nlp=nlp)
            # Tables and indexes load outside the memory zone below: they must outlive it.
            privatizers[j].privatize(["Warm up."])
    out = []
    with transient_strings(nlp):  # the sample's strings leave no trace in the pipeline
        docs = list(nlp.tokenizer.pipe(s.text for s in samples))
        gold = [char_to_token_spans(doc, s.spans) for doc, s in zip(docs, samples)]
        n_gold = sum(1 for g in gold for sp in g if sp[2] == label)
        log(f"data: {os.fspath(data)}: {len(docs)} texts, "
            f"{sum(token_count(d) for d in docs):,} tokens, {n_gold} {label} entities")
        for j, spec in enumerate(detectors):
            run = run_detector(create_detector(spec), docs, gold, name=spec or "default",
                               label=label)
            log(run.summary())
            surv = None
            if j in privatizers:
                surv = sample_survival(privatizers[j], docs, gold, label)
                log(f"{spec or 'default'}: {surv.summary()}")
            out.append((run, surv))
    return out


def conll_survival(data: str | os.PathLike[str], detectors: Sequence[str | None], *,
                   limit: int | None = None, epsilon: float | None = None,
                   seed: int | None = 0, log: Any = print) -> list[SurvivalRun]:
    """The share of person word tokens of a CoNLL file's sentences (each one text, as
    :func:`survival` privatizes them) that the full privatizer would publish unchanged, per
    detector."""
    check_detectors(detectors)
    from textdp.corpora.conll import read_conll
    from textdp.privatizer import Privatizer

    documents = read_conll(data)
    if limit:
        documents = documents[:limit]
    sents = [s for d in documents for s in d]
    runs = []
    for spec in detectors:
        kwargs: dict[str, Any] = {"detector": spec, "seed": seed}
        if epsilon is not None:
            kwargs["epsilon"] = epsilon
        run = survival(Privatizer(**kwargs), sents, name=spec or "default",
                       domain=os.path.basename(os.fspath(data)))
        log(f"{spec or 'default'}: would survive the privatizer: "
            f"{100 * run.surviving_share:.1f} % of {run.names} PERSON word tokens "
            f"({run.surviving} unchanged; other words kept {100 * run.others_kept_share:.1f} %)")
        runs.append(run)
    return runs


def _is_similarity(spec: str | None) -> bool:
    """Whether ``spec`` names the similarity detector alone (short or versioned name)."""
    from textdp.detect.registry import is_builtin
    from textdp.detect.spec import parse_detector_spec

    parsed = parse_detector_spec(spec)
    return not parsed.is_union and parsed.members[0].model is None \
        and is_builtin(parsed.members[0].name, "similarity")


def is_jsonl(path: str | os.PathLike[str]) -> bool:
    """Whether a sample file is JSONL (by its suffix: .jsonl, .json, .ndjson)."""
    return os.fspath(path).lower().endswith((".jsonl", ".json", ".ndjson"))


# ---------------------------------------------------------------------------- command
def evaluate_file(data: str | os.PathLike[str], detectors: Sequence[str | None], *,
                  unit: str = "document", seeds: Sequence[str] | None = None,
                  threshold: float | None = None, label: str = TARGET,
                  limit: int | None = None, log: Any = print) -> list[DetectionRun]:
    """Evaluate each named detector (``None``: the default) on a CoNLL file and print one
    line per detector (and the ROC for ``similarity``)."""
    check_detectors(detectors)
    from textdp.corpora.conll import read_conll, to_docs
    from textdp.detect import create_detector

    documents = read_conll(data)
    if limit:
        documents = documents[:limit]
    docs, gold = to_docs(documents, unit=unit)
    n_gold = sum(1 for g in gold for s in g if normalise_label(s[2]) == normalise_label(label))
    log(f"data: {os.fspath(data)}: {len(docs)} {unit}s, {sum(token_count(d) for d in docs):,} "
        f"tokens, "
        f"{n_gold} {label} entities")
    runs = []
    for spec in detectors:
        name = spec or "default"
        if _is_similarity(spec):
            from textdp.detect.similarity import SimilarityDetector

            kwargs: dict[str, Any] = {}
            if threshold is not None:
                kwargs["threshold"] = threshold
            detector: Any = SimilarityDetector(seeds=seeds, **kwargs)
            points, area, n_pos, n_neg = similarity_roc(detector, docs, gold, label)
            log(f"similarity ROC over word tokens ({n_pos} {label} / {n_neg} other), "
                f"{len(detector.seeds)} seeds, AUC {area:.4f}")
            log("  threshold    TPR     FPR   flagged")
            for p in points:
                log(f"  {p.threshold:9.2f}  {p.tpr:.4f}  {p.fpr:.4f}  {p.flagged:7d}")
        else:
            detector = create_detector(spec)
        run = run_detector(detector, docs, gold, name=name, label=label)
        log(run.summary())
        runs.append(run)
    return runs
