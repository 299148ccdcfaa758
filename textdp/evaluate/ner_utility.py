"""What privatized training text costs a downstream NER model: train a spaCy NER on CoNLL-2003
train as it is and as privatized by textdp, score each on the *original* CoNLL dev (issue 15).

    textdp evaluate ner-utility [--data ../shared/data] [--variants original,word,name] \\
        [--variant 'NAME={"replace": "tag"}'] [--epsilon E] [--seeds 0,1,2] [--quick] \\
        [--json OUT]

A *variant* is ``original`` (no privatization) or a mapping of
:class:`~textdp.privatizer.Privatizer` keyword arguments, passed through unchanged. The known
ones: ``name`` = ``{"replace": "name"}`` (person names become public names, one per distinct
name and document), ``word`` = ``{"replace": "word"}`` (any public word, the behaviour before
the ``replace`` option) and ``tag`` = ``{"replace": "tag"}`` (a placeholder such as
``[PERSON]``) and ``gold`` = ``{"replace": "name"}`` with the gold person spans as the
targets instead of the detector's (:data:`GOLD_TARGETS`: an upper bound that separates what
detection costs from what the substitution does); ``--variant NAME=JSON`` defines or
overrides one (``{}``: the Privatizer's defaults).

How it is measured:

* CoNLL train is read as its articles (``-DOCSTART-`` documents), and each article is
  privatized as one text (names are consistent per document, as a user's privatized corpus
  would be): a spaCy ``Doc`` is built from the gold words, sentences joined by a line-break
  token, with the vocabulary of the privatizer's pipeline, and batches of articles go through
  :meth:`Privatizer.privatize_docs`, whose *detector* chooses the targets (the gold labels are
  never shown to it). It writes one new word per input token, so the gold tags stay on the
  same positions; the line breaks are dropped again and the sentences are trained on.
  The share of gold person tokens changed by privatization is measured (what survived is
  what the model still sees of the original names), and the share of other words changed
  (the detector's false positives).
* Every variant trains the same model from ``spacy.blank("en")`` (the ``ner`` component with
  spaCy's default CNN tok2vec, :func:`ner_model`; by default with the embedded pipeline's
  static vectors as a feature, as spaCy's ``md`` and ``lg`` pipelines train their NER, or
  with ``vectors=False`` on the hashed word features alone) with the same
  hyper-parameters (:class:`TrainingSettings`) and seed, on all four CoNLL types, and is
  scored on the original eng.testa sentences with spaCy's ``get_ner_prf``: PERSON
  precision/recall/F1 (exact spans) and the overall micro F1 for context. PERSON recall is
  also split by whether the dev person's name occurs in the original training text
  (``seen``: 43 % of CoNLL dev's person mentions) or not: a model of the original text can
  learn those names by heart, one of privatized text cannot, by design.

Each seed of ``--seeds`` makes a run of its own: the privatizers, the sampling of a capped
split and the training all take that seed, so the spread over seeds covers both the noise of
privatization and that of training. The summary gives, per variant, the mean and the spread
(sample standard deviation, and the lowest and highest value) of PERSON P/R/F1 over the seeds
and the mean PERSON F1 as a share of the original's.

The privatizers run with fixed seeds so that the figures are reproducible; the
privatized text is therefore not private against anyone who knows the seed, and it is never
written out or printed (only counts and scores are).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from textdp.corpora.conll import Document, Sentence, iob_spans, read_conll, units
from textdp.corpora.domains import DOMAINS, default_data_dir
from textdp.detect.base import normalise_label

ORIGINAL = "original"
PERSON = normalise_label("PER")  # CoNLL's PER as textdp and spaCy name it ("PERSON")
# Privatizer keyword arguments of the known variants (issue 15's `replace` option).
KNOWN_VARIANTS: dict[str, dict[str, Any]] = {
    "name": {"replace": "name"},
    "word": {"replace": "word"},
    "tag": {"replace": "tag"},
    "gold": {"replace": "name"},
}
#: Variants whose targets are the gold person spans instead of the detector's: what the
#: default output would train with a detector that neither misses a name nor takes another
#: word for one (the part of the utility gap that is detection's, against the part that is
#: the names themselves).
GOLD_TARGETS = frozenset({"gold"})
DEFAULT_VARIANTS = (ORIGINAL, "word", "name")
# Articles per privatize_docs call: ~32 articles are ~470 sentences, ~6,800 tokens (one
# detector batch, one noise draw and one decode each; fast batched, slow one by one).
BATCH_ARTICLES = 32
# spaCy's default NER model (spacy/pipeline/ner.py), spelt out so every variant and every
# spaCy version trains the same architecture: a 4-layer CNN tok2vec over hashed NORM, PREFIX,
# SUFFIX and SHAPE embeddings, without static vectors (:func:`ner_model` adds them).
NER_MODEL: dict[str, Any] = {
    "@architectures": "spacy.TransitionBasedParser.v2",
    "state_type": "ner",
    "extra_state_tokens": False,
    "hidden_width": 64,
    "maxout_pieces": 2,
    "use_upper": True,
    "nO": None,
    "tok2vec": {
        "@architectures": "spacy.HashEmbedCNN.v2",
        "pretrained_vectors": None,
        "width": 96,
        "depth": 4,
        "embed_size": 2000,
        "window_size": 1,
        "maxout_pieces": 3,
        "subword_features": True,
    },
}


@dataclass(frozen=True)
class TrainingSettings:
    """Hyper-parameters shared by every variant of a run.

    ``train_sentences``/``dev_sentences`` cap the splits (``None``: all of it): whole
    articles are drawn in a seeded random order until the cap is reached, the last one cut.
    Batches are sentences, their size compounding from ``batch_start`` to ``batch_stop``
    (spaCy's ``compounding``), with spaCy's default Adam optimizer. ``vectors``: the model
    reads the embedded pipeline's static vectors too (:func:`ner_model`).
    """

    epochs: int
    vectors: bool = True
    dropout: float = 0.1
    batch_start: float = 8.0
    batch_stop: float = 32.0
    batch_compound: float = 1.001
    train_sentences: int | None = None
    dev_sentences: int | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.epochs, int) and self.epochs >= 1):
            raise ValueError(f"epochs must be an integer >= 1, got {self.epochs!r}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout!r}")
        for name in ("train_sentences", "dev_sentences"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int) and value >= 1):
                raise ValueError(f"{name} must be an integer >= 1 or None, got {value!r}")


# Full run: all of CoNLL train (14,041 sentences) and dev (3,250), 5 epochs: the three
# default variants took 1,407 s of CPU (one core busy at a time), so ~25 min on 2 free cores.
# Dev PERSON F1 of the original variant after epochs 1-5 (seed 0, --curve): 0.845, 0.855,
# 0.877, 0.885, 0.882, levelled off; the privatized variants move ±0.02 between epochs.
FULL = TrainingSettings(epochs=5)
# --quick: CI-sized, a few hundred sentences and 2 epochs (under 2 minutes on 2 cores).
QUICK = TrainingSettings(epochs=2, train_sentences=400, dev_sentences=500)


@dataclass
class PrivatizationStats:
    """What privatization changed in the gold-annotated training text (counts of word tokens:
    tokens with a letter, the only ones a privatizer replaces)."""

    person_tokens: int = 0
    person_changed: int = 0
    other_tokens: int = 0
    other_changed: int = 0
    tokens_replaced: int = 0  # target tokens the privatizer reports it wrote over
    draws: int = 0  # of them, draws through the mechanism (a repeated name may share one)

    @property
    def person_changed_share(self) -> float | None:
        """Share of the gold person tokens that came out different."""
        return self.person_changed / self.person_tokens if self.person_tokens else None

    @property
    def other_changed_share(self) -> float | None:
        """Share of the other word tokens that came out different."""
        return self.other_changed / self.other_tokens if self.other_tokens else None

    def as_dict(self) -> dict[str, Any]:
        """Counts and shares as plain values."""
        return {**asdict(self), "person_changed_share": self.person_changed_share,
                "other_changed_share": self.other_changed_share}


@dataclass
class VariantResult:
    """One variant: how its training text was made and how its model scores on dev."""

    variant: str
    seed: int
    privatizer: dict[str, Any] | None  # the keyword arguments (None for the original)
    epsilon: float | None
    stats: PrivatizationStats | None
    scores: dict[str, Any]
    train_sentences: int
    dev_sentences: int
    seconds_privatize: float
    seconds_train: float
    curve: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        out = asdict(self)
        out["stats"] = None if self.stats is None else self.stats.as_dict()
        return out


# ---------------------------------------------------------------------------- arguments
def parse_variants(value: str | Sequence[str],
                   extra: Mapping[str, Mapping[str, Any]] | None = None
                   ) -> dict[str, dict[str, Any] | None]:
    """Variants by name from ``"original,word,name"`` or a list: ``original`` → ``None``,
    a known or ``extra`` name → its Privatizer keyword arguments. Unknown names raise a
    ``ValueError`` listing the accepted ones."""
    known: dict[str, Mapping[str, Any]] = {**KNOWN_VARIANTS, **(extra or {})}
    names = [n.strip() for n in (value.split(",") if isinstance(value, str) else value)]
    names = [n for n in names if n]
    unknown = [n for n in names if n != ORIGINAL and n not in known]
    if unknown or not names:
        raise ValueError(f"variants must be a comma-separated subset of "
                         f"{', '.join([ORIGINAL, *known])}; got "
                         f"{', '.join(unknown) or 'nothing'}")
    return {n: None if n == ORIGINAL else dict(known[n]) for n in dict.fromkeys(names)}


def parse_variant_definition(value: str) -> tuple[str, dict[str, Any]]:
    """``NAME=JSON`` (a JSON object of Privatizer keyword arguments) → ``(name, kwargs)``."""
    name, sep, spec = value.partition("=")
    name = name.strip()
    if not sep or not name or "," in name:
        raise ValueError(f"--variant must look like NAME={{...}} (a JSON object of Privatizer "
                         f"arguments), got {value!r}")
    if name == ORIGINAL:
        raise ValueError(f"--variant cannot redefine {ORIGINAL!r} (it is never privatized)")
    try:
        kwargs = json.loads(spec)
    except json.JSONDecodeError as err:
        raise ValueError(f"--variant {name}: not valid JSON ({err.msg} at column "
                         f"{err.colno})") from None
    if not isinstance(kwargs, dict):
        raise ValueError(f"--variant {name}: expected a JSON object of Privatizer arguments")
    return name, kwargs


def make_privatizer(name: str, kwargs: Mapping[str, Any], *, epsilon: float | None = None,
                    seed: int | None = None) -> Any:
    """The :class:`~textdp.privatizer.Privatizer` of a variant: its keyword arguments as
    given, plus ``epsilon`` and ``seed`` where the variant does not set them. Arguments the
    Privatizer does not accept raise a ``ValueError`` naming the variant."""
    from textdp.privatizer import Privatizer

    args = dict(kwargs)
    if epsilon is not None:
        args.setdefault("epsilon", epsilon)
    if seed is not None:
        args.setdefault("seed", seed)
    try:
        return Privatizer(**args)
    except TypeError as err:
        raise ValueError(f"variant {name!r}: the Privatizer refused its arguments "
                         f"{sorted(args)} ({err})") from None


# ---------------------------------------------------------------------------- data
def conll_paths(data_dir: str | os.PathLike[str] | None = None) -> tuple[Path, Path]:
    """CoNLL-2003 train and dev files under the data folder, checked to exist."""
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    domain = DOMAINS["conll"]
    paths = (root / domain.train[0], root / domain.dev)
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(2, "CoNLL-2003 file not found", os.fspath(path))
    return paths


def sample_documents(documents: Sequence[Document], max_sentences: int | None,
                     seed: int) -> list[Document]:
    """Whole documents in a seeded random order until ``max_sentences`` (the last one cut),
    put back in file order; all of them when ``max_sentences`` is ``None``."""
    if max_sentences is None:
        return list(documents)
    order = list(range(len(documents)))
    random.Random(seed).shuffle(order)
    chosen: dict[int, Document] = {}
    left = max_sentences
    for i in order:
        if left <= 0:
            break
        chosen[i] = list(documents[i][:left])
        left -= len(chosen[i])
    return [chosen[i] for i in sorted(chosen)]


def _batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def privatize_documents(documents: Sequence[Document], privatizer: Any, *,
                        batch_articles: int = BATCH_ARTICLES, gold_targets: bool = False
                        ) -> tuple[list[Document], PrivatizationStats]:
    """The documents with every word replaced by what ``privatizer`` writes for it, the tags
    untouched, and what changed.

    Each document is one text: its sentences' gold words joined by a line-break token, as a
    spaCy ``Doc`` of the privatizer's pipeline vocabulary, so the detector sees the gold
    tokenization and :meth:`~textdp.privatizer.Privatizer.privatize_docs` returns exactly one
    word per gold token. Docs are made and privatized in a spaCy memory zone per batch (their
    strings are not kept in the pipeline's string store). ``gold_targets``: the gold person
    spans are the targets (the detector does not run). Raises ``ValueError`` (naming the
    document and position, not the text) when the privatizer breaks that alignment.
    """
    from spacy.tokens import Doc

    from textdp.targets import is_word
    from textdp.tokenization import transient_strings

    nlp = privatizer.nlp
    stats = PrivatizationStats()
    out: list[Document] = []
    for first, batch in zip(range(0, len(documents), batch_articles),
                            _batches(documents, batch_articles)):
        layouts: list[list[int]] = []  # per document: the start of each sentence in its doc
        gold: list[list[tuple[int, int, str]]] = []  # per document: its gold person spans
        # (with gold_targets only)
        with transient_strings(nlp):
            docs = []
            for document in batch:
                # One text per article, sentences on lines of their own (conll.units), so
                # sentence i starts after the i earlier sentences and their line breaks.
                (words, spaces, _), = units([document])
                starts = list(accumulate((len(s.tokens) + 1 for s in document[:-1]),
                                         initial=0))
                docs.append(Doc(nlp.vocab, words=words, spaces=spaces))
                layouts.append(starts)
                if gold_targets:
                    gold.append([(start + a, start + b, PERSON)
                                 for sentence, start in zip(document, starts)
                                 for a, b, label in iob_spans(sentence.tags)
                                 if normalise_label(label) == PERSON])
            private = privatizer.privatize_docs(docs, gold) if gold_targets else \
                privatizer.privatize_docs(docs)
            sizes = [len(doc) for doc in docs]
        for k, (document, starts, size, (new_words, report)) in enumerate(
                zip(batch, layouts, sizes, private)):
            row = first + k
            if len(new_words) != size:
                raise ValueError(f"document {row}: the privatizer wrote {len(new_words)} "
                                 f"words for {size} tokens (the gold tags need one each)")
            stats.tokens_replaced += report.tokens_replaced
            stats.draws += report.draws
            new_document: Document = []
            for sentence, start in zip(document, starts):
                new = tuple(new_words[start:start + len(sentence.tokens)])
                for i, (old, word, tag) in enumerate(zip(sentence.tokens, new, sentence.tags)):
                    if not word or word.isspace():
                        raise ValueError(f"document {row}, token {start + i}: the privatizer "
                                         "wrote an empty word (a spaCy token needs text)")
                    if not is_word(old):
                        continue
                    person = tag != "O" and normalise_label(tag) == PERSON
                    if person:
                        stats.person_tokens += 1
                        stats.person_changed += word != old
                    else:
                        stats.other_tokens += 1
                        stats.other_changed += word != old
                new_document.append(Sentence(new, sentence.tags))
            out.append(new_document)
    return out, stats


# ---------------------------------------------------------------------------- training
def _bio(sentence: Sentence) -> list[str]:
    """IOB2 tags (``B-``/``I-``, labels normalised) of a sentence's gold spans."""
    tags = ["O"] * len(sentence.tokens)
    for start, end, label in iob_spans(sentence.tags):
        tags[start] = f"B-{label}"
        for i in range(start + 1, end):
            tags[i] = f"I-{label}"
    return tags


def make_examples(nlp: Any, sentences: Sequence[Sentence]) -> list[Any]:
    """spaCy training ``Example``s: the sentence's words (a space after each, none after the
    last) as the predicted doc, the same words with the gold entities as the reference."""
    from spacy.tokens import Doc
    from spacy.training import Example

    examples = []
    for sentence in sentences:
        words = list(sentence.tokens)
        spaces = [True] * (len(words) - 1) + [False]
        reference = Doc(nlp.vocab, words=words, spaces=spaces, ents=_bio(sentence))
        examples.append(Example(Doc(nlp.vocab, words=words, spaces=spaces), reference))
    return examples


def ner_model(vectors: bool) -> dict[str, Any]:
    """The NER's model config: :data:`NER_MODEL`, with ``vectors`` reading the static vectors
    of the pipeline's vocabulary beside the hashed features (``pretrained_vectors``)."""
    return {**NER_MODEL, "tok2vec": {**NER_MODEL["tok2vec"], "pretrained_vectors": vectors or None}}


def new_ner_pipeline(seed: int, *, vectors: bool = True) -> Any:
    """A blank English pipeline with an untrained ``ner`` of :func:`ner_model`; with
    ``vectors``, its vocabulary holds the embedded pipeline's static vectors
    (:func:`textdp.defaults.load_pipeline`: en_core_web_md's 20,000 rows over 514,000 keys),
    shared, never changed by training."""
    import spacy

    spacy.util.fix_random_seed(seed)
    nlp = spacy.blank("en")
    if vectors:
        from textdp.defaults import load_pipeline

        nlp.vocab.vectors = load_pipeline().vocab.vectors
    nlp.add_pipe("ner", config={"model": ner_model(vectors)})
    return nlp


def train_ner(sentences: Sequence[Sentence], settings: TrainingSettings, *, seed: int = 0,
              dev: Sequence[Sentence] | None = None, seen: frozenset[str] | None = None,
              log: Callable[[str], None] | None = None) -> tuple[Any, list[dict[str, Any]]]:
    """Train :func:`new_ner_pipeline` on ``sentences`` with ``settings``; returns the
    pipeline and, when ``dev`` is given, its scores after every epoch (the learning curve;
    ``seen``: see :func:`score_ner`).

    Seeded end to end (thinc/numpy/random through ``spacy.util.fix_random_seed``, and the
    shuffle of each epoch), so the same data gives the same model on one machine."""
    from spacy.training import Example
    from spacy.util import compounding, minibatch

    if not sentences:
        raise ValueError("train_ner needs at least one sentence")
    nlp = new_ner_pipeline(seed, vectors=settings.vectors)
    examples = make_examples(nlp, sentences)
    optimizer = nlp.initialize(lambda: examples)
    curve: list[dict[str, Any]] = []
    shuffle = random.Random(seed)
    for epoch in range(1, settings.epochs + 1):
        order: list[Example] = list(examples)
        shuffle.shuffle(order)
        losses: dict[str, float] = {}
        sizes = compounding(settings.batch_start, settings.batch_stop,
                            settings.batch_compound)
        for batch in minibatch(order, size=sizes):
            nlp.update(batch, drop=settings.dropout, sgd=optimizer, losses=losses)
        point: dict[str, Any] = {"epoch": epoch, "loss": float(losses.get("ner", 0.0))}
        if dev is not None:
            point.update(score_ner(nlp, dev, seen))
        curve.append(point)
        if log is not None:
            extra = f", dev {PERSON} F1 {point[f'{PERSON}_f']:.3f}" if dev is not None else ""
            log(f"  epoch {epoch}/{settings.epochs}: loss {point['loss']:.1f}{extra}")
    return nlp, curve


def score_ner(nlp: Any, sentences: Sequence[Sentence],
              seen: frozenset[str] | None = None) -> dict[str, Any]:
    """PERSON precision/recall/F1 and overall micro P/R/F1 (exact spans, spaCy's
    ``get_ner_prf``) of ``nlp`` on the gold ``sentences``, and the gold PERSON entities.

    With ``seen`` (the person names of the original training text, :func:`person_names`),
    also the PERSON recall on the gold persons whose name is among them and on the others
    (``PERSON_r_seen``/``PERSON_r_unseen`` and their counts): a model trained on the
    original text may have learnt those names by heart; one trained on privatized text
    never saw them."""
    from spacy.scorer import get_ner_prf
    from spacy.tokens import Doc
    from spacy.training import Example

    references = []
    for sentence in sentences:
        words = list(sentence.tokens)
        spaces = [True] * (len(words) - 1) + [False]
        references.append(Doc(nlp.vocab, words=words, spaces=spaces, ents=_bio(sentence)))
    inputs = (Doc(nlp.vocab, words=[t.text for t in r], spaces=[bool(t.whitespace_) for t in r])
              for r in references)
    predicted = list(nlp.pipe(inputs, batch_size=256))
    prf = get_ner_prf([Example(p, r) for p, r in zip(predicted, references)])
    person = (prf.get("ents_per_type") or {}).get(PERSON, {"p": 0.0, "r": 0.0, "f": 0.0})
    gold_persons = sum(1 for r in references for e in r.ents if e.label_ == PERSON)
    out = {f"{PERSON}_p": float(person["p"]), f"{PERSON}_r": float(person["r"]),
           f"{PERSON}_f": float(person["f"]), "ents_p": float(prf["ents_p"] or 0.0),
           "ents_r": float(prf["ents_r"] or 0.0), "ents_f": float(prf["ents_f"] or 0.0),
           f"gold_{PERSON}": gold_persons}
    if seen is not None:
        found = {"seen": [0, 0], "unseen": [0, 0]}
        for p, r in zip(predicted, references):
            hits = {(e.start, e.end) for e in p.ents if e.label_ == PERSON}
            for e in r.ents:
                if e.label_ == PERSON:
                    which = found["seen" if e.text in seen else "unseen"]
                    which[0] += (e.start, e.end) in hits
                    which[1] += 1
        for which, (hit, total) in found.items():
            out[f"{PERSON}_r_{which}"] = hit / total if total else None
            out[f"gold_{PERSON}_{which}"] = total
    return out


def person_names(sentences: Iterable[Sentence]) -> frozenset[str]:
    """The gold person names of ``sentences`` as written (words joined by spaces)."""
    return frozenset(" ".join(s.tokens[a:b]) for s in sentences
                     for a, b, label in iob_spans(s.tags) if normalise_label(label) == PERSON)


# ---------------------------------------------------------------------------- the run
def evaluate_ner_utility(variants: Mapping[str, Mapping[str, Any] | None], *,
                         data_dir: str | os.PathLike[str] | None = None,
                         settings: TrainingSettings = FULL, epsilon: float | None = None,
                         seeds: Sequence[int] = (0,), curve: bool = False,
                         log: Callable[[str], None] | None = None) -> list[VariantResult]:
    """Train one NER per variant and seed on CoNLL train (original, or privatized with the
    variant's Privatizer keyword arguments) and score each on the original CoNLL dev.

    Every argument, the data files and every variant's Privatizer are checked before any
    training. ``seeds``: one run per seed (privatizers, sampling and training all seeded with
    it), results in seed order then variant order. ``curve``: also score dev after every
    epoch (costs one dev pass per epoch)."""
    if not variants:
        raise ValueError("variants must name at least one variant")
    seeds = check_seeds(seeds)
    train_path, dev_path = conll_paths(data_dir)
    for name, kwargs in variants.items():  # refuse bad arguments before any work
        if kwargs is not None:
            make_privatizer(name, kwargs, epsilon=epsilon, seed=seeds[0])
    say = log or (lambda line: None)
    train_all, dev_all = read_conll(train_path), read_conll(dev_path)
    results = []
    for seed in seeds:
        train_docs = sample_documents(train_all, settings.train_sentences, seed)
        dev = [s for d in sample_documents(dev_all, settings.dev_sentences, seed) for s in d]
        seen = person_names(s for d in train_docs for s in d)
        train_count = sum(len(d) for d in train_docs)
        say(f"CoNLL-2003: {train_count} train sentences in {len(train_docs)} articles, "
            f"{len(dev)} dev sentences; {settings.epochs} epochs, seed {seed}")
        for name, kwargs in variants.items():
            results.append(_run_variant(name, kwargs, train_docs, dev, seen,
                                        settings=settings, epsilon=epsilon, seed=seed,
                                        curve=curve, say=say, log=log))
    return results


def check_seeds(seeds: Sequence[int]) -> list[int]:
    """The seeds as a list of distinct integers ≥ 0 (in the order given), or a ``ValueError``
    that names the bad one."""
    out: list[int] = []
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seeds must be integers >= 0, got {seed!r}")
        if seed in out:
            raise ValueError(f"seed {seed} is given twice")
        out.append(seed)
    if not out:
        raise ValueError("seeds must name at least one seed")
    return out


def _run_variant(name: str, kwargs: Mapping[str, Any] | None, train_docs: Sequence[Document],
                 dev: Sequence[Sentence], seen: frozenset[str], *,
                 settings: TrainingSettings, epsilon: float | None,
                 seed: int, curve: bool, say: Callable[[str], None],
                 log: Callable[[str], None] | None) -> VariantResult:
    """Privatize (unless ``kwargs`` is ``None``), train and score one variant with one seed."""
    start = time.perf_counter()
    stats = None
    documents = train_docs
    privatizer = None
    if kwargs is not None:
        privatizer = make_privatizer(name, kwargs, epsilon=epsilon, seed=seed)
        documents, stats = privatize_documents(train_docs, privatizer,
                                               gold_targets=name in GOLD_TARGETS)
        share = stats.person_changed_share
        other = stats.other_changed_share
        say(f"{name}: privatized in {time.perf_counter() - start:.0f} s; gold person "
            f"tokens changed {stats.person_changed}/{stats.person_tokens}"
            + (f" ({share:.1%})" if share is not None else "")
            + f", other words changed {stats.other_changed}/{stats.other_tokens}"
            + (f" ({other:.2%})" if other is not None else ""))
    seconds_privatize = time.perf_counter() - start
    sentences = [s for d in documents for s in d]
    start = time.perf_counter()
    say(f"{name}: training on {len(sentences)} sentences")
    nlp, points = train_ner(sentences, settings, seed=seed, dev=dev if curve else None,
                            seen=seen, log=log)
    seconds_train = time.perf_counter() - start
    scores = points[-1] if curve else score_ner(nlp, dev, seen)
    scores = {k: v for k, v in scores.items() if k not in ("epoch", "loss")}
    say(f"{name}: dev {PERSON} P {scores[f'{PERSON}_p']:.3f} R "
        f"{scores[f'{PERSON}_r']:.3f} F1 {scores[f'{PERSON}_f']:.3f} (R of names seen in "
        f"train {_share(scores[f'{PERSON}_r_seen'])}, unseen "
        f"{_share(scores[f'{PERSON}_r_unseen'])}); all types F1 {scores['ents_f']:.3f} "
        f"({seconds_train:.0f} s)")
    return VariantResult(
        variant=name, seed=seed, privatizer=None if kwargs is None else dict(kwargs),
        epsilon=None if privatizer is None else float(privatizer.epsilon),
        stats=stats, scores=scores, train_sentences=len(sentences),
        dev_sentences=len(dev), seconds_privatize=seconds_privatize,
        seconds_train=seconds_train, curve=points)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


# The scores the summary spreads over seeds: PERSON P/R/F1, the PERSON recall of names seen
# and unseen in the original training text, and the micro F1 of all types.
SUMMARY_SCORES = (f"{PERSON}_p", f"{PERSON}_r", f"{PERSON}_f", f"{PERSON}_r_seen",
                  f"{PERSON}_r_unseen", "ents_f")


def summarise(results: Sequence[VariantResult]) -> list[dict[str, Any]]:
    """Per variant (in first-seen order): the seeds, and per score of :data:`SUMMARY_SCORES`
    its mean, sample standard deviation (0 for one seed), lowest and highest value over the
    seeds; ``person_f_share``: the variant's mean PERSON F1 over the original's (``None``
    without an original variant in ``results``)."""
    groups: dict[str, list[VariantResult]] = {}
    for r in results:
        groups.setdefault(r.variant, []).append(r)
    rows = []
    for name, runs in groups.items():
        row: dict[str, Any] = {"variant": name, "seeds": [r.seed for r in runs]}
        for key in SUMMARY_SCORES:
            values = [float(r.scores[key]) for r in runs if r.scores.get(key) is not None]
            if not values:
                row[key] = None
                continue
            row[key] = {"mean": statistics.fmean(values),
                        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
                        "min": min(values), "max": max(values)}
        rows.append(row)
    original = next((row for row in rows if row["variant"] == ORIGINAL), None)
    base = None if original is None else original[f"{PERSON}_f"]["mean"]
    for row in rows:
        row["person_f_share"] = row[f"{PERSON}_f"]["mean"] / base if base else None
    return rows


def summary_table(results: Sequence[VariantResult]) -> str:
    """The Markdown table of :func:`summarise`: mean ± standard deviation (lowest–highest)
    per score and variant, and the share of the original's PERSON F1."""
    from textdp.evaluate.report import markdown_table

    def spread(value: Mapping[str, float] | None) -> str | None:
        if value is None:
            return None
        return (f"{value['mean']:.3f} ± {value['sd']:.3f} "
                f"({value['min']:.3f}–{value['max']:.3f})")

    rows = []
    for row in summarise(results):
        share = row["person_f_share"]
        rows.append({"variant": row["variant"], "seeds": ", ".join(map(str, row["seeds"])),
                     **{key: spread(row[key]) for key in SUMMARY_SCORES},
                     "share": None if share is None else f"{share:.1%}"})
    return markdown_table(rows, {
        "variant": "train text", "seeds": "seeds", f"{PERSON}_p": "dev PER P",
        f"{PERSON}_r": "dev PER R", f"{PERSON}_f": "dev PER F1",
        f"{PERSON}_r_seen": "PER R, names seen in train",
        f"{PERSON}_r_unseen": "PER R, unseen names", "ents_f": "dev F1 (all types)",
        "share": "PER F1 / original's"})


def results_table(results: Sequence[VariantResult]) -> str:
    """The Markdown table of a run (one row per variant)."""
    from textdp.evaluate.report import markdown_table

    rows = []
    for r in results:
        share = None if r.stats is None else r.stats.person_changed_share
        other = None if r.stats is None else r.stats.other_changed_share
        rows.append({
            "variant": r.variant, "seed": r.seed,
            "privatizer": "none" if r.privatizer is None else
            json.dumps(r.privatizer, sort_keys=True),
            "epsilon": r.epsilon,
            "person_changed": None if share is None else f"{share:.1%}",
            "other_changed": None if other is None else f"{other:.2%}",
            "p": r.scores[f"{PERSON}_p"], "r": r.scores[f"{PERSON}_r"],
            "f": r.scores[f"{PERSON}_f"], "r_seen": r.scores.get(f"{PERSON}_r_seen"),
            "r_unseen": r.scores.get(f"{PERSON}_r_unseen"), "all_f": r.scores["ents_f"]})
    return markdown_table(rows, {
        "variant": "train text", "seed": "seed", "privatizer": "Privatizer arguments",
        "epsilon": "ε",
        "person_changed": "gold person tokens changed", "other_changed": "other words changed",
        "p": "dev PER P", "r": "dev PER R", "f": "dev PER F1",
        "r_seen": "PER R, names seen in train", "r_unseen": "PER R, unseen names",
        "all_f": "dev F1 (all types)"})
