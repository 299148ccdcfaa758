"""Privatizer: wires the stages of one configuration and runs them on batches of texts.

texts → chunks in bounded batches (:mod:`textdp.pipeline.batching`,
:mod:`textdp.pipeline.chunking`) → tokens
→ target selection (:mod:`textdp.pipeline.selection`: the one path every front end takes) →
substitution (:mod:`textdp.pipeline.substitution`: the draw plan, i.e. consistency and budget, then
the vectors of :mod:`textdp.pipeline.representation`, the mechanism, the decode against the
candidate
space of :mod:`textdp.pipeline.candidates`, and the surface form) → text and a report. Every setting
lives in one :class:`~textdp.config.PrivatizerConfig`, validated before any text is read; the
privatizer owns the random streams of every front end (:meth:`Privatizer.use_stream`); the
stages keep the privacy rules of docs/architecture.md (public candidates, public stand-ins, ε
stated per draw)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from textdp.budget import TextState
from textdp.config import PrivatizerConfig, from_mapping
from textdp.contextual import ContextualEncoder
from textdp.contextual_index import resolve_contextual_index
from textdp.detect import Span, build_detector
from textdp.detect.normalise import use_pipeline_tokenizer
from textdp.devices import resolve_device
from textdp.errors import withheld
from textdp.keyed_sources import resolve_key
from textdp.memory import release_free_memory
from textdp.pipeline.batching import Piece, PrivatizedText, check_row
from textdp.pipeline.batching import stream as run_batches
from textdp.pipeline.candidates import CandidateSpace, load_table
from textdp.pipeline.selection import Selection, Selector, TargetSelector, piece_docs, shift_spans
from textdp.pipeline.substitution import Substituter
from textdp.place_vocabulary import targeted_places
from textdp.report import REVIEW_REASONS, Report, ScopeAccount
from textdp.rng import RandomSource
from textdp.surface import join_words
from textdp.tables import EmbeddingTable, resolve_exclude
from textdp.targets import DEFAULT_TARGETS, is_word
from textdp.tokenization import transient_strings

__all__ = ["DEFAULT_TARGETS", "PrivatizedText", "Privatizer", "PrivatizerConfig", "is_word"]
_SETTINGS = frozenset(f.name for f in dataclasses.fields(PrivatizerConfig))
# Threads sharing a privatizer set it up once (its batches are serialised by
# :func:`transient_strings`).
_SETUP_LOCK = threading.RLock()

#: The kinds of keyed random streams (docs/architecture.md, "Random streams"), each its own
#: namespace of keys, so keys of two kinds never meet: ``"index"`` a batch by its first
#: dataset index (``datasets.map(with_indices=True)``), ``"worker"`` a worker by its rank
#: (``with_rank=True``; its stream continues from call to call), ``"partition"`` a Spark
#: Arrow batch by its partition and first row, ``"process"`` a process of spaCy's
#: ``nlp.pipe(n_process=...)`` by its position among its siblings.
STREAMS = {"index": 0, "worker": 1, "partition": 2, "process": 3}


class Privatizer:
    """Replace target tokens with differentially private public substitutes.

    ``Privatizer(config)`` takes a :class:`~textdp.config.PrivatizerConfig`;
    ``Privatizer(epsilon=..., ...)`` takes its settings as keywords (documented there), and
    ``Privatizer(config, seed=1)`` a config with some settings changed. ``nlp``: the spaCy
    pipeline whose tokenizer splits the text (default: the embedded one); each batch runs in
    a memory zone of it (:func:`transient_strings`), so do not use it from another thread
    while a privatizer runs. One privatizer may be shared by threads: their batches run one
    at a time. The settings read as attributes (``privatizer.surface``).
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
        self._stream: tuple[int, ...] | None = None  # the key of the stream in use, if keyed
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
            deny=config.deny, threshold=config.threshold, phone_region=config.phone_region)
        self.selector: Selector = TargetSelector(config.targets, detector,
                                                 review=config.review,
                                                 phone_region=config.phone_region)
        self.exclude = resolve_exclude(config.exclude)
        self._nlp = nlp
        if nlp is not None:  # its own tokenizer makes the detector's normalised views
            use_pipeline_tokenizer(nlp)
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
        state.update(_nlp=None, _space=None, _substituter=None, rng=None, _stream=None)
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
            use_pipeline_tokenizer(self._nlp)
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

    def load(self) -> None:
        """Load the pipeline's models, the table and its index now and prepare the mechanism
        with the configuration's own generator (otherwise done on the first batch): a worker
        that loads before choosing its stream prepares the mechanism (e.g. a random
        projection) as every other worker does."""
        self._setup()

    def use_stream(self, kind: str, *key: int) -> None:
        """With a fixed ``seed``, draw from now on from the stream keyed by the seed, ``kind``
        (one of :data:`STREAMS`) and ``key``: distinct keys give independent streams, the same
        key the same stream, so parallel workers never repeat each other's noise and a rerun
        reproduces the release. A ``"worker"`` stream continues when it is already the one in
        use; every other kind starts at its key. Without a seed nothing changes (OS entropy,
        drawn afresh in each process). The models load first (:meth:`load`), so the mechanism
        is prepared from the configuration's generator, never from a worker's stream."""
        if kind not in STREAMS:
            raise ValueError(f"stream kind must be one of {', '.join(STREAMS)}, got {kind!r}")
        if any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0
               for k in key):
            raise ValueError(f"a stream key is non-negative integers, got {key!r}")
        if self.config.seed is None:
            return
        full = (STREAMS[kind], *(int(k) for k in key))
        if kind == "worker" and full == self._stream:
            return
        self.load()
        self.rng = RandomSource.keyed(self.config.seed, *full)
        self._stream = full

    def _setup(self) -> Substituter:
        if self._substituter is not None:
            return self._substituter
        with _SETUP_LOCK:
            return self._setup_once()

    def _setup_once(self) -> Substituter:
        if self._substituter is None:
            if self.mechanism.reads_context:
                self.mechanism.load(self.device)
            else:
                self._space = CandidateSpace(
                    self.table, self.mechanism, clip_norm=self.config.clip_norm,
                    exclude=self.exclude, index_backend=self.config.index, device=self.device,
                    rng=self.rng, replace=self.config.effective_replace,
                    name_required=self.config.replace == "name",
                    places=bool(targeted_places(self.config.targets)))
            self._substituter = Substituter(self.config, self.mechanism, self._space,
                                            key=self.key, encoder=self._encoder,
                                            device=self.device)
            release_free_memory()  # the set-up's temporaries (textdp.memory)
        return self._substituter

    # ------------------------------------------------------------------ public API
    def __call__(self, text: str) -> PrivatizedText:
        """Privatize one text."""
        return self.privatize([text])[0]

    def privatize(self, texts: Iterable[str | None], *,
                  scopes: Iterable[Any] | None = None,
                  stream: tuple[Any, ...] | None = None) -> list[PrivatizedText | None]:
        """Privatize texts in vectorised batches; one :class:`PrivatizedText` per input, and
        ``None`` for a ``None`` (missing) text, which costs nothing.

        ``scopes`` (with ``consistency="dataset"``): per text, the value whose texts share
        pseudonyms (e.g. a person or case id of a key column); ``None`` (or no ``scopes``):
        the whole dataset. Raises ``ValueError`` naming the row (0-based) of a non-string
        input before any text is processed, and ``TypeError`` for a bare string (iterating
        it would hand back its characters, i.e. the original text): call the privatizer on
        one text. ``stream``: ``(kind, *key)``, the keyed stream to draw from
        (:meth:`use_stream`), for front ends that run copies of one privatizer in parallel.
        """
        texts = list(_texts(texts))
        scopes = _scopes(scopes, self.config.consistency)
        for i, t in enumerate(texts):
            check_row(i, t)
        return list(self.privatize_iter(texts, scopes=scopes, stream=stream))

    def privatize_iter(self, texts: Iterable[str | None], *,
                       scopes: Iterable[Any] | None = None,
                       stream: tuple[Any, ...] | None = None
                       ) -> Iterator[PrivatizedText | None]:
        """Privatize lazily, in input order: each result is yielded once its text is done.

        Texts are cut into chunks (:mod:`textdp.pipeline.chunking`) and batched by count
        (``batch_size``) and by characters (``BATCH_CHARS``), so memory is bounded by one
        batch whatever the length of the input or of one text; a ``max_epsilon_per_text``
        budget still spans all chunks of a text. A non-string row raises ``ValueError``
        naming it when it is reached (results before it have been yielded);
        :meth:`privatize` checks every row first. ``stream``: as for :meth:`privatize`.
        """
        if stream is not None:
            self.use_stream(*stream)
        scopes = _scopes(scopes, self.config.consistency)
        failure = None
        try:
            yield from run_batches(_texts(texts), self._run_pieces, empty=self._empty_report(),
                                   batch_size=self.config.batch_size,
                                   keep_original=self.config.keep_original, scopes=scopes)
        except Exception as err:
            failure = withheld(err)  # no text in an error (textdp.errors)
            if failure is None:
                raise
        if failure is not None:
            raise failure  # outside the handler: the original is not its context

    def _empty_report(self) -> Report:
        """The report of a text (or piece) with nothing to read: no draws, and with
        ``report_spans`` no spans, with ``review`` nothing to review."""
        empty = self._setup().report
        if self.config.review:
            empty = dataclasses.replace(empty, review=tuple((r, 0) for r in REVIEW_REASONS))
        return dataclasses.replace(empty, spans=()) if self.config.report_spans else empty

    def _run_pieces(self, pieces: list[Piece], states: dict[int, TextState]
                    ) -> list[tuple[str, Report]]:
        """The output of each piece's core and its report (with ``report_spans``, its spans
        in offsets of the whole text). Empty and whitespace-only pieces come back as they are
        and spend nothing."""
        empty = self._empty_report()  # models and tables load outside the memory zone
        out = [(t[c.core_start:c.core_end], empty) for _, t, c in pieces]
        live = [j for j, (_, t, c) in enumerate(pieces) if t[c.start:c.end].strip()]
        if live:
            with transient_strings(self.nlp):
                chunks = [pieces[j].chunk for j in live]
                docs, cores = piece_docs(self.nlp, self.selector,
                                         [pieces[j].text for j in live], chunks)
                private = self.privatize_docs(
                    docs, owners=[pieces[j].row for j in live], states=states, cores=cores)
                for j, c, doc, (words, report) in zip(live, chunks, docs, private):
                    if report.spans and c.start:
                        report = dataclasses.replace(
                            report, spans=shift_spans(report.spans, c.start))
                    out[j] = (join_words(words, doc, c.core_start - c.start,
                                         c.core_end - c.start,
                                         collapse_tags=self.config.replace == "tag"), report)
        release_free_memory()  # or the heap grows batch after batch (textdp.memory)
        return out

    def prepare(self, docs: Sequence[Any]) -> list[Any]:
        """Tokenized docs made ready for :meth:`select`: each name glued to its neighbours a
        token of its own, each multi-token PII value of a targeted label one token
        (:meth:`TargetSelector.prepare`). Use the returned docs."""
        return self.selector.prepare(docs)

    def select(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None, *,
               entities: Sequence[Sequence[Span] | None] | None = None,
               entities_only: bool = False,
               cores: Sequence[tuple[int, int] | None] | None = None) -> Selection:
        """The targets of prepared ``docs`` (:meth:`TargetSelector.select`): their masks and,
        with ``report_spans``, the audit spans. A front end that carries entities (spaCy's
        ``doc.ents``) passes them as ``entities`` and hands the selection to
        :meth:`privatize_docs`, so targets are chosen once, as for every other front end."""
        return self.selector.select(docs, spans, entities=entities,
                                    entities_only=entities_only, cores=cores,
                                    audit=self.config.report_spans)

    def privatize_docs(self, docs: Sequence[Any],
                       spans: Sequence[Sequence[Span]] | None = None, *,
                       owners: Sequence[int] | None = None,
                       states: dict[int, TextState] | None = None,
                       cores: Sequence[tuple[int, int] | None] | None = None,
                       selection: Selection | None = None,
                       whole_units: bool = True,
                       ) -> list[tuple[list[str], Report]]:
        """Privatize tokenized spaCy docs; returns the new words of each doc and its report.

        ``spans`` gives the entity spans per doc (gold annotations) in place of the detector;
        when ``None`` the configured detector runs (unless ``targets="all"``).
        ``selection``: targets already chosen by :meth:`select` (then ``spans`` and
        ``cores`` are not read). ``owners`` (the text each doc belongs to, default: each doc
        its own) and ``states`` (per text, :mod:`textdp.budget`) carry a
        ``max_epsilon_per_text`` budget and the pseudonyms drawn across pieces of one long
        text; ``cores`` (per doc, a character range or ``None`` for all) limits the targets
        to the tokens that start in it (the rest of a chunk is read as context only).
        ``whole_units``: a place or a hyphenated name of several tokens is one target,
        written on its first token and its other tokens empty
        (:func:`~textdp.surface.join_words` joins them); a caller whose tokens may not be
        empty (a spaCy Doc, a list of pre-split words) passes ``False``: each token is then a
        target of its own.
        """
        substituter = self._setup()
        failure = None
        try:
            return self._privatize_docs(substituter, docs, spans, owners, states, cores,
                                        selection, whole_units)
        except Exception as err:
            failure = withheld(err)  # no text in an error (textdp.errors)
            if failure is None:
                raise
        raise failure  # outside the handler: the original is not its context

    def _privatize_docs(self, substituter: Substituter, docs: Sequence[Any],
                        spans: Sequence[Sequence[Span]] | None,
                        owners: Sequence[int] | None, states: dict[int, TextState] | None,
                        cores: Sequence[tuple[int, int] | None] | None,
                        selection: Selection | None, whole_units: bool = True
                        ) -> list[tuple[list[str], Report]]:
        self.rng.next_batch()
        words = [[t.text for t in doc] for doc in docs]  # read once, for both stages
        owners = list(range(len(docs))) if owners is None else list(owners)
        if selection is None:
            selection = self.selector.select(docs, spans, cores=cores, words=words,
                                             audit=self.config.report_spans, owners=owners,
                                             states=states)
        out = substituter.substitute(docs, words, list(selection.masks), owners,
                                     {} if states is None else states, self.rng,
                                     context_targets=selection.context_targets,
                                     whole_units=whole_units)
        if selection.review is not None:
            out = [(new, dataclasses.replace(report, review=review))
                   for review, (new, report) in zip(selection.review, out)]
        if selection.spans is None:
            return out
        return [(new, dataclasses.replace(report, spans=doc_spans))
                for doc_spans, (new, report) in zip(selection.spans, out)]

    def scope_account(self) -> ScopeAccount:
        """What the keyed draws of ``consistency="dataset"`` made by this privatizer (in this
        process) cost, each counted once over its scope (:class:`~textdp.report.ScopeAccount`):
        a text's report charges every keyed draw the text reads, so a draw shared by several
        texts of a scope is charged in each of their reports, and their sum over-counts. Reads
        nothing of the texts: only how many distinct draws each scope made."""
        if self.config.consistency != "dataset":
            raise ValueError("scope_account() composes the draws that consistency='dataset' "
                             "shares between texts; with consistency="
                             f"{self.config.consistency!r} no draw is shared between texts "
                             "and each report's epsilon_total is the text's whole cost")
        if self._substituter is None:
            return ScopeAccount.of([], epsilon=self.epsilon, delta=self.mechanism.delta)
        return self._substituter.account()

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
    if isinstance(texts, Mapping):  # iterating it would privatize its keys (issue 37)
        raise TypeError("privatize() takes an iterable of texts, got a mapping; pass its "
                        "values (or the column of texts) instead")
    return texts


def _scopes(scopes: Iterable[Any] | None, consistency: str) -> Iterable[Any] | None:
    """``scopes`` checked: one value per text (not a string, whose characters would be the
    scopes), and only where they mean something (``consistency="dataset"``)."""
    if scopes is None:
        return None
    if consistency != "dataset":
        raise ValueError(f"scopes: per-text pseudonym scopes need consistency='dataset', not "
                         f"{consistency!r} (they would be ignored)")
    if isinstance(scopes, (str, bytes, Mapping)):
        raise TypeError("scopes must be an iterable of one scope per text, got "
                        f"{type(scopes).__name__}")
    return scopes
