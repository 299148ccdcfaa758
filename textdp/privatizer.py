"""Privatizer: wires the stages of one configuration and runs them on batches of texts.

text → tokens → target selection (:mod:`textdp.selection`) → representation
(:mod:`textdp.representation`) → mechanism and decode against the candidate space
(:mod:`textdp.candidates`) → consistency and surface form (:mod:`textdp.substitution`) → text
and a report, in bounded batches (:mod:`textdp.batching`). Every setting lives in one
:class:`~textdp.config.PrivatizerConfig`, validated before any text is read; the stages keep
DESIGN.md's privacy rules (public candidates, public stand-ins, ε stated per draw).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from textdp.batching import Piece, PrivatizedText, check_row, stream
from textdp.budget import TextState
from textdp.candidates import CandidateSpace, load_table
from textdp.config import PrivatizerConfig, from_mapping
from textdp.contextual import ContextualEncoder
from textdp.contextual_index import resolve_contextual_index
from textdp.detect import Span, build_detector
from textdp.index import resolve_device
from textdp.memory import release_free_memory
from textdp.pseudonyms import merge_pii_tokens, resolve_key
from textdp.report import Report
from textdp.rng import RandomSource
from textdp.selection import (
    Selector,
    TargetSelector,
    audit_spans,
    carry_mentions,
    restrict_to_cores,
    shift_spans,
)
from textdp.substitution import Substituter
from textdp.surface import join_words
from textdp.tables import EmbeddingTable, resolve_exclude
from textdp.targets import DEFAULT_TARGETS, is_word
from textdp.tokenization import split_glued, transient_strings

__all__ = ["DEFAULT_TARGETS", "PrivatizedText", "Privatizer", "PrivatizerConfig", "is_word"]
_SETTINGS = frozenset(f.name for f in dataclasses.fields(PrivatizerConfig))


class Privatizer:
    """Replace target tokens with differentially private public substitutes.

    ``Privatizer(config)`` takes a :class:`~textdp.config.PrivatizerConfig`;
    ``Privatizer(epsilon=..., ...)`` takes its settings as keywords (documented there), and
    ``Privatizer(config, seed=1)`` a config with some settings changed. ``nlp``: the spaCy
    pipeline whose tokenizer splits the text (default: the embedded one); each batch runs in
    a memory zone of it (:func:`transient_strings`), so do not use it from another thread
    while a privatizer runs. The settings read as attributes (``privatizer.surface``).
    """

    def __init__(self, config: PrivatizerConfig | None = None, /, *, nlp: Any = None,
                 **settings: Any) -> None:
        if config is None:
            config = from_mapping(settings)
        elif settings:
            config = config.with_changes(**settings)
        self.config = config
        self.device = resolve_device(config.device)
        self.rng = RandomSource(config.seed, secure=config.secure)
        self.key = resolve_key(config.key, config.seed) \
            if config.consistency == "dataset" else None
        self.calibration = None
        self.mechanism = config.build_mechanism(1.0 if config.auto_epsilon else None)
        self._encoder = None
        self.contextual_index = None
        if config.representation == "contextual" and \
                not self.mechanism.reads_context:
            self._encoder = ContextualEncoder(config.model, layer=config.layer,
                                              device=self.device, precision=config.precision)
            self.contextual_index = resolve_contextual_index(config.contextual_index,
                                                             self._encoder)
        detector = None if config.targets == "all" else build_detector(
            config.detector, device=self.device, targets=config.targets, allow=config.allow,
            deny=config.deny, threshold=config.threshold)
        self.selector: Selector = TargetSelector(config.targets, detector)
        self.exclude = resolve_exclude(config.exclude)
        self._nlp = nlp
        self._table: EmbeddingTable | None = None
        self._space: CandidateSpace | None = None
        self._substituter: Substituter | None = None
        if config.auto_epsilon:  # every parameter is valid: now the (cached) calibration
            from textdp.calibration import calibrate_epsilon

            self.calibration = calibrate_epsilon(
                config.mechanism, self.table, target_unchanged=config.target_unchanged or 0.01,
                clip_norm=config.clip_norm)
            self.mechanism = config.build_mechanism(self.calibration.epsilon)

    def __getattr__(self, name: str) -> Any:
        """The settings read as attributes: ``privatizer.seed`` is ``privatizer.config.seed``."""
        if name in _SETTINGS and "config" in self.__dict__:
            return getattr(self.config, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ lazy state
    def __getstate__(self) -> dict[str, Any]:
        """Pickle the configuration only: models and tables reload in the receiving process."""
        state = dict(self.__dict__)
        state.update(_nlp=None, _space=None, _substituter=None, rng=None)
        if not isinstance(self.config.table, EmbeddingTable) and \
                not isinstance(self.config.contextual_index, EmbeddingTable):
            state["_table"] = None
        if state["mechanism"].prepared:
            state["mechanism"] = self.config.build_mechanism(self.mechanism.epsilon)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.rng = RandomSource(self.config.seed, secure=self.config.secure)

    @property
    def epsilon(self) -> float:
        """ε per draw (the calibrated one with ``epsilon="auto"``)."""
        return self.mechanism.epsilon

    @property
    def replace(self) -> str:
        """What replaces targets: the configured ``replace``, resolved for the mechanism, and
        ``"word"`` once set up on a table without a name vocabulary unless ``"name"`` was
        asked for."""
        return self._space.replace if self._space is not None else \
            self.config.effective_replace

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline used for tokenization."""
        if self._nlp is None:
            from textdp.defaults import load_pipeline

            self._nlp = load_pipeline()
        return self._nlp

    @property
    def table(self) -> EmbeddingTable:
        """The public candidate table (loaded on first use): the static table, or the
        :class:`~textdp.contextual_index.ContextualIndex` of the contextual representation."""
        if self._table is None:
            self._table = load_table(self.config.table, self._encoder, self.contextual_index)
        return self._table

    @property
    def space(self) -> CandidateSpace:
        """The candidate space (set up on first use): the clipped table, its index, and what
        each kind of draw decodes to (:meth:`CandidateSpace.decoder`)."""
        self._setup()
        assert self._space is not None
        return self._space

    @property
    def candidates(self) -> EmbeddingTable:
        """The candidate table as the mechanism sees it (clipped to ``clip_norm``)."""
        return self.space.table

    @property
    def loaded(self) -> bool:
        """Whether the models and the candidates are loaded (on the first batch)."""
        return self._substituter is not None

    def _setup(self) -> Substituter:
        if self._substituter is None:
            if self.mechanism.reads_context:
                self.mechanism.load(self.device)
            else:
                self._space = CandidateSpace(
                    self.table, self.mechanism, clip_norm=self.config.clip_norm,
                    exclude=self.exclude, index_backend=self.config.index, device=self.device,
                    rng=self.rng, replace=self.config.effective_replace,
                    name_required=self.config.replace == "name")
            self._substituter = Substituter(self.config, self.mechanism, self._space,
                                            key=self.key, encoder=self._encoder,
                                            device=self.device)
        return self._substituter

    # ------------------------------------------------------------------ public API
    def __call__(self, text: str) -> PrivatizedText:
        """Privatize one text."""
        return self.privatize([text])[0]

    def privatize(self, texts: Iterable[str | None], *,
                  scopes: Iterable[Any] | None = None) -> list[PrivatizedText | None]:
        """Privatize texts in vectorised batches; one :class:`PrivatizedText` per input, and
        ``None`` for a ``None`` (missing) text, which costs nothing.

        ``scopes`` (with ``consistency="dataset"``): per text, the value whose texts share
        pseudonyms (e.g. a person or case id of a key column); ``None`` (or no ``scopes``):
        the whole dataset. Raises ``ValueError`` naming the row (0-based) of a non-string
        input before any text is processed, and ``TypeError`` for a bare string (iterating
        it would hand back its characters, i.e. the original text): call the privatizer on
        one text.
        """
        texts = list(_texts(texts))
        for i, t in enumerate(texts):
            check_row(i, t)
        return list(self.privatize_iter(texts, scopes=scopes))

    def privatize_iter(self, texts: Iterable[str | None], *,
                       scopes: Iterable[Any] | None = None
                       ) -> Iterator[PrivatizedText | None]:
        """Privatize lazily, in input order: each result is yielded once its text is done.

        Texts are cut into chunks (:mod:`textdp.chunking`) and batched by count
        (``batch_size``) and by characters (``BATCH_CHARS``), so memory is bounded by one
        batch whatever the length of the input or of one text; a ``max_epsilon_per_text``
        budget still spans all chunks of a text. A non-string row raises ``ValueError``
        naming it when it is reached (results before it have been yielded);
        :meth:`privatize` checks every row first.
        """
        yield from stream(_texts(texts), self._run_pieces, empty=self._setup().report,
                          batch_size=self.config.batch_size,
                          keep_original=self.config.keep_original, scopes=scopes)

    def _run_pieces(self, pieces: list[Piece], states: dict[int, TextState]
                    ) -> list[tuple[str, Report]]:
        """The output of each piece's core and its report (with ``report_spans``, its spans
        in offsets of the whole text). Empty and whitespace-only pieces come back as they are
        and spend nothing."""
        empty = self._setup().report  # models and tables load outside the memory zone
        out = [(t[c.core_start:c.core_end], empty) for _, t, c in pieces]
        live = [j for j, (_, t, c) in enumerate(pieces) if t[c.start:c.end].strip()]
        if live:
            with transient_strings(self.nlp):
                chunks = [pieces[j].chunk for j in live]
                docs = split_glued(self.nlp.tokenizer.pipe(pieces[j].text[c.start:c.end]
                                                           for j, c in zip(live, chunks)))
                docs = merge_pii_tokens(docs, self.selector.pii_labels)
                cores = [(c.core_start - c.start, c.core_end - c.start) for c in chunks]
                private = self.privatize_docs(
                    docs, owners=[pieces[j].row for j in live], states=states,
                    cores=[None if core == (0, c.end - c.start) else core
                           for core, c in zip(cores, chunks)])
                for j, c, doc, (a, z), (words, report) in zip(live, chunks, docs, cores,
                                                             private):
                    if report.spans and c.start:
                        report = dataclasses.replace(
                            report, spans=shift_spans(report.spans, c.start))
                    out[j] = (join_words(words, doc, a, z,
                                         collapse_tags=self.config.replace == "tag"), report)
        release_free_memory()  # or the heap grows batch after batch (textdp.memory)
        return out

    def privatize_docs(self, docs: Sequence[Any],
                       spans: Sequence[Sequence[Span]] | None = None, *,
                       owners: Sequence[int] | None = None,
                       states: dict[int, TextState] | None = None,
                       cores: Sequence[tuple[int, int] | None] | None = None,
                       ) -> list[tuple[list[str], Report]]:
        """Privatize tokenized spaCy docs; returns the new words of each doc and its report.

        ``spans`` gives the entity spans per doc (e.g. from ``doc.ents``); when ``None`` the
        configured detector runs (unless ``targets="all"``). ``owners`` (the text each doc
        belongs to, default: each doc its own) and ``states`` (per text, :mod:`textdp.budget`)
        carry a ``max_epsilon_per_text`` budget and the pseudonyms drawn across pieces of one
        long text; ``cores`` (per doc, a character range or ``None`` for all) limits the
        targets to the tokens that start in it (the rest of a chunk is read as context only).
        """
        substituter = self._setup()
        self.rng.next_batch()
        detected = spans is None
        found = None
        if self.config.report_spans and spans is None:
            found = self.selector.findings(docs)  # the spans, with detector and score
            if found is not None:
                spans = [[f.span for f in fs] for fs in found]
        words = [[t.text for t in doc] for doc in docs]  # read once, for both stages
        masks = self.selector.masks(docs, spans, words=words)
        owners = list(range(len(docs))) if owners is None else list(owners)
        if detected and cores and states is not None:  # a long text's chunks
            carry_mentions(words, masks, owners, states, [c is not None for c in cores])
        restrict_to_cores(docs, masks, cores or ())
        out = substituter.substitute(docs, words, masks, owners,
                                     {} if states is None else states, self.rng)
        if found is None:
            return out
        return [(new, dataclasses.replace(report, spans=audit_spans(doc, fs, mask)))
                for doc, fs, mask, (new, report) in zip(docs, found, masks, out)]

    def target_masks(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None
                     ) -> list[list[str | None]]:
        """Per doc, per token: the label that makes it a target, or ``None``: what
        :meth:`privatize_docs` replaces given the same ``spans`` (``None``: the detector's).
        For audits, evaluations and front ends that carry annotations."""
        return self.selector.masks(docs, spans)

    def describe(self) -> dict[str, Any]:
        """The effective configuration as plain values (for reports, configs, fingerprints):
        :meth:`PrivatizerConfig.describe` with the mechanism as built (the calibrated ε)."""
        out = self.config.describe()
        out.update(self.mechanism.describe())  # its name, parameters (ε) and guarantee
        out["replace"] = self.replace
        if self._encoder is not None:
            out.update(model=self._encoder.model_name, layer=self._encoder.layer)
        return out

    def __repr__(self) -> str:
        return (f"Privatizer(mechanism={self.mechanism!r}, targets={self.config.targets!r}, "
                f"representation={self.config.representation!r}, device={str(self.device)!r})")


def _texts(texts: Iterable[str]) -> Iterable[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("privatize() takes an iterable of texts, got one string; use "
                        "privatizer(text) for a single text")
    return texts
