"""Privatizer: detector + representation + mechanism + decode + surface form.

The one object every front end (spaCy, Hugging Face, CLI, Spark) calls, on batches:

    text → tokens (spaCy tokenizer, with whitespace) → detector marks targets → vectors
    (static table rows, or a transformer layer's hidden states pooled to words)
    → mechanism (noise or exponential draw, one batched call) → public word → surface form

A :class:`~textdp.mechanisms.base.ContextMechanism` (``dpmlm``) replaces the vector and
mechanism steps: it draws each target's substitute from its text with its own model.

Privacy rules (DESIGN.md) enforced here: candidates come only from the public table (1); an
out-of-vocabulary target is replaced by a draw from a public fallback vector that does not
depend on it, never published unchanged (2); reports state per-token ε and the composed bound
(3); noise is never returned (4); parameters are checked at construction (5); randomness comes
from an explicit generator (6); the original text is kept nowhere unless ``keep_original`` (7).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from textdp.budget import BUDGET_POLICIES, TextState, over_budget
from textdp.calibration import check_auto
from textdp.chunking import BATCH_CHARS, Chunk, chunk_text
from textdp.contexts import target_contexts
from textdp.contextual import DEFAULT_LAYER, ContextualEncoder
from textdp.contextual_index import ContextualIndex, resolve_contextual_index
from textdp.defaults import default_epsilon
from textdp.detect import Finding, Span, build_detector, find
from textdp.detect.base import span_records
from textdp.detect.pii import PII_LABELS
from textdp.index import BACKENDS, resolve_device, shared_index
from textdp.mechanisms import Mechanism, MechanismSpec, create_mechanism
from textdp.mechanisms.base import ContextMechanism
from textdp.memory import release_free_memory
from textdp.pseudonyms import (
    CONSISTENCY,
    PERSON,
    CandidateSet,
    check_replace,
    drop_honorifics,
    keyed_source,
    merge_pii_tokens,
    name_candidates,
    pii_replacement,
    plan_draws,
    positional_kinds,
    resolve_key,
    tag,
)
from textdp.report import (
    HOLDS_BETWEEN,
    HOLDS_BETWEEN_ANY_CASING,
    HOLDS_BETWEEN_NAME_KINDS,
    HOLDS_BETWEEN_REPEATS,
    Report,
)
from textdp.rng import RandomSource
from textdp.scale import Scale, space_scale
from textdp.surface import join_words, surface_form
from textdp.tables import EmbeddingTable, check_table_spec, resolve_exclude
from textdp.targets import DEFAULT_TARGETS, is_word, resolve_targets
from textdp.tokenization import transient_strings
from textdp.validation import check_choice, check_positive, check_positive_int

REPRESENTATIONS = ("static", "contextual")
SURFACES = ("input", "table")
# Public words whose mean vector stands in for an out-of-vocabulary person name.
_NAME_ANCHORS = ("John", "Mary", "James", "Maria", "David", "Anna", "Michael", "Sarah",
                 "Smith", "Johnson", "Miller", "Brown", "Peter", "Laura", "Thomas", "Elena")


@dataclass(frozen=True)
class PrivatizedText:
    """One privatized text and its report (``original`` only with ``keep_original=True``)."""

    text: str
    report: Report
    original: str | None = None

    def __repr__(self) -> str:  # never show text in reprs (rule 7): logs often print objects
        return (f"PrivatizedText(chars={len(self.text)}, "
                f"tokens_replaced={self.report.tokens_replaced})")


def _single_threaded_after_fork() -> None:
    """OpenMP thread pools (torch, faiss) do not survive ``fork``: a forked child that computes
    with its parent's pool hangs (``nlp.pipe(n_process=2)``, ``datasets.map(num_proc=2)``).
    Forked children compute single-threaded instead; the processes are the parallelism."""
    torch.set_num_threads(1)
    faiss = sys.modules.get("faiss")
    if faiss is not None:
        faiss.omp_set_num_threads(1)


os.register_at_fork(after_in_child=_single_threaded_after_fork)


class Privatizer:
    """Replace target tokens with differentially private public substitutes.

    Args:
        epsilon: ε per token (metric DP: the bound scales with the distance of two inputs in
            the table); ``None`` takes the mechanism's own ε or the default for the
            representation (:func:`textdp.defaults.default_epsilon`), chosen so that names
            are replaced in ≥ 99 % of draws on the default table (static:
            ``textdp.defaults.DEFAULT_EPSILON``; contextual:
            ``textdp.defaults.DEFAULT_CONTEXTUAL_EPSILON``). The useful range depends on the
            table's scale (README, "Choosing ε"). ``"auto"``: the ε at which the median table
            word comes back unchanged in ``target_unchanged`` of the draws, calibrated here on
            the table (:func:`textdp.calibration.calibrate_epsilon`, cached on disk) before
            any text is read; static representation only.
        target_unchanged: with ``epsilon="auto"``, the target P(word unchanged) in (0, 1)
            (default 0.01).
        mechanism: a registered name (``textdp mechanisms``), a ``{"name": ..., **args}``
            mapping, or a :class:`Mechanism`.
        targets: ``["PERSON"]`` (default), ``"all"`` (every word token), or entity labels.
        representation: ``"static"`` (table vectors) or ``"contextual"`` (a transformer
            layer's hidden states pooled to words, :mod:`textdp.contextual`; every token then
            has a vector, so no target falls back to a stand-in).
        table: ``None``/``"default"`` (the embedded pipeline's vectors), a word2vec/GloVe/
            fastText file, or an :class:`EmbeddingTable` (static representation only).
        model: contextual representation: a ``transformers`` encoder folder or hub name
            (default: the embedded all-MiniLM-L6-v2).
        layer: contextual representation: the hidden state used, ``0`` = input embeddings,
            ``1`` (default) = first transformer layer.
        contextual_index: contextual representation: the public candidates, a folder written
            by ``textdp build-index --contextual`` or a
            :class:`~textdp.contextual_index.ContextualIndex`; ``None`` (default) for the
            model's whole-word vocabulary encoded by the same layer (built once, cached on
            disk). Its model and layer must be the encoder's (checked here).
        detector: ``None`` (the default ensemble: the packaged MiniLM name tagger, recall
            rules and names in handles and e-mail addresses, on a normalised view of the
            text), a name (``"spacy"``, ``"trained"``, ``"rules"``, ``"similarity"``,
            ``"handles"``, ``"trained+spacy+rules"``, …), a spaCy package name, or a detector
            object.
        seed: fixed seed for reproducible output. NOT private against anyone who knows it.
        secure: draw every random bit from ChaCha20 keyed from ``os.urandom`` and re-keyed per
            batch (:mod:`textdp.rng`); excludes ``seed``.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"``.
        keep_original: also return the original text (off by default, DESIGN.md rule 7).
        index: nearest-neighbour backend, one of ``auto, exact, int8, flat, hnsw, ivf``.
        batch_size: texts per vectorised batch.
        nlp: the spaCy pipeline whose tokenizer splits the text (default: the embedded one).
            Each batch runs in a memory zone of it (:func:`transient_strings`), so the
            strings of the texts are not kept in its string store; do not use it from another
            thread while a privatizer runs.
        clip_norm: project every vector (inputs and candidates) onto the ball of this radius
            before the mechanism: ``"median"`` (default: the table's median norm), a number, or
            ``None``. Clipping is 1-Lipschitz, so the ε·d guarantee holds for the table's
            original distances; it stops very long vectors (e.g. "John") from surviving the
            noise far more often than others.
        surface: ``"input"`` (default) gives each substitute the casing class of the token
            it replaces (``MERKEL`` → ``JONES``), which is released without noise: the
            guarantee holds between inputs of the same casing class (``report.holds_between``);
            ``"table"`` writes substitutes as the public table spells them, so the output does
            not depend on the input's casing.
        max_epsilon_per_text: a budget for the composed ε of one text. With
            ``budget_policy="truncate"`` the first ⌊budget/ε⌋ targets of a text go through the
            mechanism and the rest are replaced by draws around a public stand-in vector that
            does not depend on them (they cost nothing and are counted in
            ``tokens_redacted``); with ``"refuse"`` an over-budget text raises ``ValueError``
            naming its row, before anything is drawn for the batch.
        replace: what a target becomes: ``"name"`` (person targets decode to the public
            name vocabulary of the table, first names to first names and surnames to
            surnames, :mod:`textdp.pseudonyms`; other targets to the whole table), ``"word"``
            (any public word of the table), ``"tag"`` (a placeholder such as ``[PERSON]``;
            no draw, no ε). ``None`` (default): ``"name"`` where the mechanism can decode to
            a subset of its candidates, else ``"word"``. The guarantee is the same for
            ``"name"`` and ``"word"``: decoding to a public subset is post-processing.
        consistency: which mentions share one draw (for entity targets; with
            ``targets="all"`` every token draws): ``"document"`` (default: one draw per
            distinct name per text, ε charged once per name), ``"dataset"`` (one draw per
            distinct name per scope, derived from ``key``: the same in every process and
            rerun with that key; the scope is the whole dataset, or per text the value given
            in :meth:`privatize`'s ``scopes``), or ``"mention"`` (every mention draws and
            costs ε). Consistency releases which mentions share a name.
        key: the secret of ``consistency="dataset"`` (bytes, or a string of ≥ 16
            characters): as sensitive as ``seed``, since it fixes every pseudonym. ``None``:
            derived from ``seed`` when one is given, else drawn from the OS once per
            privatizer (copies and pickles share it).
        allow: words or phrases never targeted (a list, or ``"@file"`` one a line), whatever
            found them; matched case-insensitively on the normalised text.
        deny: words or phrases always targeted (as ``PERSON``).
        threshold: drop the detector's scored spans below this score (model-based members;
            rule and pattern spans carry no score and are kept).
        exclude: words never written as substitutes: ``"default"`` (the shipped list of slurs
            and loaded terms, :func:`textdp.tables.default_excluded_substitutes`), your own
            words (e.g. that list ``| {"word"}``), or ``None``. A fixed public list:
            excluding candidates is post-processing, the guarantee holds as stated.
        report_spans: add the targeted spans to each report (``report.spans``: character
            offsets in the text, label, the detector that found each and its score; never
            the text), an audit trail of what was replaced and why.
    """

    def __init__(
        self,
        *,
        epsilon: float | str | None = None,
        mechanism: MechanismSpec = "mlaplace",
        targets: str | Sequence[str] | None = DEFAULT_TARGETS,
        representation: str = "static",
        table: Any = None,
        detector: Any = None,
        seed: int | None = None,
        secure: bool = False,
        device: str | None = "cpu",
        keep_original: bool = False,
        index: str = "auto",
        batch_size: int = 512,
        nlp: Any = None,
        clip_norm: float | str | None = "median",
        max_epsilon_per_text: float | None = None,
        budget_policy: str = "truncate",
        surface: str = "input",
        model: str | os.PathLike[str] | None = None,
        layer: int = DEFAULT_LAYER,
        contextual_index: Any = None,
        target_unchanged: float | None = None,
        replace: str | None = None,
        consistency: str = "document",
        key: bytes | str | None = None,
        allow: Any = None,
        deny: Any = None,
        threshold: float | None = None,
        exclude: Any = "default",
        report_spans: bool = False,
    ) -> None:
        auto = check_auto(epsilon, mechanism, representation, target_unchanged)
        if auto:
            epsilon = 1.0  # stands in while every other parameter is validated; see below
        elif epsilon is None:  # the mechanism's own ε, else the default for the representation
            epsilon = default_epsilon(representation, mechanism)
        self.mechanism: Mechanism = create_mechanism(mechanism, epsilon)
        if not self.mechanism.substitutes:
            raise ValueError(f"mechanism {self.mechanism.name!r} releases representations, not "
                             "text; use it through textdp.dpnr.DPNR")
        self.epsilon = self.mechanism.epsilon
        self.targets = resolve_targets(targets)
        self.representation = check_choice("representation", representation, REPRESENTATIONS)
        self.table_spec = check_table_spec(table)
        self.index_backend = check_choice("index", index, BACKENDS)
        self.device = resolve_device(device)
        self.model = None if model is None else os.fspath(model)
        self.layer = layer
        self._encoder: ContextualEncoder | None = None
        self.contextual_index = self._check_contextual(model, layer, contextual_index)
        self.batch_size = check_positive_int("batch_size", batch_size)
        if clip_norm not in (None, "median"):
            clip_norm = check_positive("clip_norm", clip_norm)
        self.clip_norm = clip_norm
        self.max_epsilon_per_text = None if max_epsilon_per_text is None else \
            check_positive("max_epsilon_per_text", max_epsilon_per_text)
        self.budget_policy = check_choice("budget_policy", budget_policy, BUDGET_POLICIES)
        self.surface = check_choice("surface", surface, SURFACES)
        self.replace_spec = replace
        self.replace = check_replace(replace, self.mechanism.decodes_subsets,
                                     self.mechanism.name)
        self.consistency = check_choice("consistency", consistency, CONSISTENCY)
        if key is not None and self.consistency != "dataset":
            raise ValueError("key is the secret of consistency='dataset'; it does not apply "
                             f"to consistency={self.consistency!r}")
        if self.consistency == "dataset" and (representation != "static" or
                                              isinstance(self.mechanism, ContextMechanism)):
            # A contextual vector (or a context mechanism's draw) depends on the text around
            # a name, so one key cannot give one name the same pseudonym in two texts.
            raise ValueError("consistency='dataset' needs representation='static' and a "
                             "vector mechanism: in context a name's draw depends on its text")
        self.key = resolve_key(key, seed) if self.consistency == "dataset" else None
        self.keep_original = bool(keep_original)
        self.seed = seed
        self.secure = bool(secure)
        self.rng = RandomSource(seed, secure=self.secure)
        self.detector_spec = detector
        if self.targets == "all" and (allow, deny, threshold) != (None, None, None):
            raise ValueError("allow, deny and threshold tune the detector; with "
                             "targets='all' every word is a target")
        self._detector = build_detector(detector, device=self.device, targets=self.targets,
                                        allow=allow, deny=deny, threshold=threshold) \
            if self.targets != "all" else None
        self._pii_labels = [t for t in self.targets if t in PII_LABELS] \
            if self.targets != "all" else []
        self.exclude = resolve_exclude(exclude)
        self.report_spans = bool(report_spans)
        self._nlp = nlp
        self._table: EmbeddingTable | None = table if isinstance(table, EmbeddingTable) else None
        if isinstance(self.contextual_index, ContextualIndex):
            self._table = self.contextual_index
        self._ready = False
        self.calibration = None
        if auto and isinstance(self.mechanism, ContextMechanism):
            raise ValueError(f"epsilon='auto' calibrates vector mechanisms on a table; give "
                             f"mechanism {self.mechanism.name!r} a number")
        if auto:  # every parameter is valid: now the (cached) calibration on the table
            from textdp.calibration import calibrate_epsilon

            self.calibration = calibrate_epsilon(
                mechanism, self.table, target_unchanged=target_unchanged or 0.01,
                clip_norm=self.clip_norm)
            self.mechanism = create_mechanism(mechanism, self.calibration.epsilon)
            self.epsilon = self.mechanism.epsilon

    def _check_contextual(self, model: Any, layer: Any, contextual_index: Any) -> Any:
        """Validate the contextual options (DESIGN.md rule 5) and build the encoder."""
        given = [name for name, value, default in (
            ("model", model, None), ("layer", layer, DEFAULT_LAYER),
            ("contextual_index", contextual_index, None)) if value != default]
        if isinstance(self.mechanism, ContextMechanism):
            if given:
                raise ValueError(f"{', '.join(given)}: not for mechanism "
                                 f"{self.mechanism.name!r}, which draws with its own model "
                                 "(give it as the mechanism's model argument)")
            return None
        if self.representation != "contextual":
            if given:
                raise ValueError(f"{', '.join(given)}: only for representation='contextual', "
                                 f"not for {self.representation!r}")
            return None
        if self.table_spec not in (None, "default"):
            raise ValueError("table applies to representation='static'; the candidates of "
                             "representation='contextual' are its contextual_index")
        if self.mechanism.table_words_only:
            raise ValueError(f"mechanism {self.mechanism.name!r} guarantees privacy between "
                             "words of its table only; use representation='static' (or "
                             "mlaplace/projection for contextual vectors)")
        self._encoder = ContextualEncoder(model, layer=layer, device=self.device)
        return resolve_contextual_index(contextual_index, self._encoder)

    # ------------------------------------------------------------------ lazy state
    def __getstate__(self) -> dict[str, Any]:
        """Pickle the configuration only: models and tables reload in the receiving process."""
        state = dict(self.__dict__)
        state.update(_nlp=None, _ready=False, _index=None, rng=None)
        # The encoder pickles its settings only (its model reloads in the receiving process).
        # Arrays derived from the table (rebuilt by _setup) would add ~160 kB per pickle.
        state.pop("_space", None)
        state.pop("_fallback", None)
        state.pop("_radius", None)
        state.pop("_scale", None)
        state.pop("_decoders", None)
        if not isinstance(self.table_spec, EmbeddingTable) and \
                not isinstance(self.contextual_index, ContextualIndex):
            state["_table"] = None
        if state["mechanism"].prepared:
            state["mechanism"] = create_mechanism(
                {"name": self.mechanism.name, **self.mechanism.params()})
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.rng = RandomSource(self.seed, secure=self.secure)

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
            if self._encoder is not None:
                self._table = ContextualIndex.default(self._encoder) \
                    if self.contextual_index is None else \
                    ContextualIndex.load(self.contextual_index, self._encoder)
            elif self.table_spec in (None, "default"):
                from textdp.defaults import default_table

                self._table = default_table()
            else:
                self._table = EmbeddingTable.from_word2vec(self.table_spec)
        return self._table

    @property
    def candidates(self) -> EmbeddingTable:
        """The candidate table as the mechanism sees it (clipped to ``clip_norm``)."""
        self._setup()
        return self._space

    @property
    def _replacing(self) -> str:
        """What replaces targets now: ``replace``, except that the default ``"name"`` falls
        back to ``"word"`` on a table without a name vocabulary (known once set up)."""
        if self.replace == "name" and self._ready and not self._decoders:
            return "word"
        return self.replace

    def decoder(self, kind: str) -> CandidateSet:
        """The candidates a draw of ``kind`` decodes to: ``"word"`` (the whole table) or a
        name kind (``"first"``, ``"last"``, ``"any"``) with ``replace="name"``."""
        self._setup()
        if kind == "word":
            return CandidateSet(self._space)
        if kind not in self._decoders:
            raise ValueError(f"no {kind!r} candidates: name kinds decode with replace='name', "
                             f"this privatizer has replace={self.replace!r}")
        return self._decoders[kind]

    def _setup(self) -> None:
        if self._ready:
            return
        self._scale: Scale | None = None
        if isinstance(self.mechanism, ContextMechanism):
            self.mechanism.load(self.device)
            self._ready = True
            return
        table = self.table
        radius = table.median_norm() if self.clip_norm == "median" else self.clip_norm
        self._radius = radius
        self._space = table if radius is None else table.clipped(radius)
        if self.exclude:
            self._space = self._space.without(self.exclude)
        table = self._space
        if self.mechanism.metric == "euclidean":
            self._scale = space_scale(table, radius)
        self._index = shared_index(table, self.index_backend, self.device)
        self.mechanism.prepare(table.vectors, self._index, self.rng)
        self._fallback = self._fallback_vectors(table)
        self._decoders = {}
        if self.replace == "name":
            try:
                self._decoders = name_candidates(table, self.mechanism, self.index_backend,
                                                 self.device, exclude=self.exclude)
            except ValueError:
                if self.replace_spec == "name":
                    raise  # asked for; the default falls back to "word" (see `_replacing`)
        self._ready = True

    @staticmethod
    def _fallback_vectors(table: EmbeddingTable) -> dict[str, np.ndarray]:
        """Public stand-in vectors for out-of-vocabulary targets, one per label kind."""
        rows = table.lookup(list(_NAME_ANCHORS))
        rows = rows[rows >= 0]
        general = table.vectors.mean(axis=0)
        person = table.lookup_vectors[rows].mean(axis=0) if rows.size else general
        return {"PERSON": person.astype(np.float32), "*": general.astype(np.float32)}

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
            _check_row(i, t)
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
        rows: dict[int, tuple[list[str], list[Report], str | None] | None] = {}
        batch: list[tuple[int, str, Chunk]] = []
        chars = 0
        states: dict[int, TextState] = {}  # per text: budget left, names drawn, scope
        scope_of = iter(scopes) if scopes is not None else None
        done = n = 0  # rows before `done` have been yielded; `n` rows were read
        for i, text in enumerate(_texts(texts)):
            n = i + 1
            scope = next(scope_of, None) if scope_of is not None else None
            _check_row(i, text)
            if text is None:  # missing: passes through as None, costs nothing
                rows[i] = None
                continue
            rows[i] = ([], [], text if self.keep_original else None)
            if scope is not None:
                states[i] = TextState(scope=str(scope))
            for chunk in chunk_text(text):
                batch.append((i, text, chunk))
                chars += chunk.end - chunk.start
                if len(batch) >= self.batch_size or chars >= BATCH_CHARS:
                    self._run_chunks(batch, rows, states)
                    batch, chars = [], 0
                    yield from self._finished(rows, states, done, i)  # rows < i ran
                    done = i
        self._run_chunks(batch, rows, states)
        yield from self._finished(rows, states, done, n)

    def _run_chunks(self, batch: list[tuple[int, str, Chunk]],
                    rows: dict[int, Any], states: dict[int, TextState]) -> None:
        """Privatize one batch of chunks; append each core's output and report to its row."""
        if not batch:
            return
        outs = self._privatize_batch([t[c.start:c.end] for _, t, c in batch],
                                     [(c.core_start - c.start, c.core_end - c.start)
                                      for _, _, c in batch],
                                     [i for i, _, _ in batch], states,
                                     [c.start for _, _, c in batch])
        for (i, _, _), (out, report) in zip(batch, outs):
            rows[i][0].append(out)
            rows[i][1].append(report)
        release_free_memory()  # or the heap grows batch after batch (textdp.memory)

    def _finished(self, rows: dict[int, Any], states: dict[int, TextState], start: int,
                  stop: int) -> Iterator[PrivatizedText | None]:
        """The results of rows ``start:stop`` (all their chunks ran); their state (budget,
        pseudonyms) is dropped."""
        for i in range(start, stop):
            states.pop(i, None)
            row = rows.pop(i)
            if row is None:
                yield None
                continue
            outs, reports, original = row
            report = reports[0] if reports else self._report(0)
            for other in reports[1:]:
                report = report.merge(other)
            yield PrivatizedText("".join(outs), report, original)

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
        long text;
        ``cores`` (per doc, a character range or ``None`` for all) limits the targets to the
        tokens that start in it (the rest of a chunk is read as context only).
        """
        self._setup()
        self.rng.next_batch()
        words = [[t.text for t in doc] for doc in docs]
        found = None
        if self.report_spans and spans is None and self._detector is not None:
            found = find(self._detector, docs)  # the spans, with detector and score
            spans = [[f.span for f in fs] for fs in found]
        masks = self._target_masks(docs, words, spans)
        for doc, mask, core in zip(docs, masks, cores or ()):
            if core is not None:
                for t in doc:
                    if not core[0] <= t.idx < core[1]:
                        mask[t.i] = None
        out = self._substitute(docs, words, masks, list(owners) if owners is not None
                               else list(range(len(docs))),
                               {} if states is None else states)
        if found is None:
            return out
        return [(new, replace(report, spans=_audit_spans(doc, fs, mask)))
                for doc, fs, mask, (new, report) in zip(docs, found, masks, out)]

    def target_masks(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]] | None = None
                     ) -> list[list[str | None]]:
        """Per doc, per token: the label that makes it a target, or ``None``: what
        :meth:`privatize_docs` replaces given the same ``spans`` (``None``: the detector's).
        For audits, evaluations and front ends that carry annotations."""
        return self._target_masks(docs, [[t.text for t in doc] for doc in docs], spans)

    def describe(self) -> dict[str, Any]:
        """The configuration as plain values (for reports, configs and fingerprints)."""
        table = self.table_spec if not isinstance(self.table_spec, EmbeddingTable) \
            else f"EmbeddingTable:{self.table_spec.fingerprint()}"
        out = {
            **self.mechanism.describe(),
            "targets": self.targets if isinstance(self.targets, str) else list(self.targets),
            "representation": self.representation,
            "table": table or "default",
            "clip_norm": self.clip_norm,
            "surface": self.surface,
            "replace": self.replace,
            "consistency": self.consistency,
            "seed": self.seed,
        }
        if self._encoder is not None:
            index = self.contextual_index
            out.update(model=self._encoder.model_name, layer=self._encoder.layer,
                       contextual_index=f"ContextualIndex:{index.fingerprint()}"
                       if isinstance(index, ContextualIndex) else index or "default")
        return out

    def __repr__(self) -> str:
        return (f"Privatizer(mechanism={self.mechanism!r}, targets={self.targets!r}, "
                f"representation={self.representation!r}, device={str(self.device)!r})")

    # ------------------------------------------------------------------ internals
    def _report(self, n: int, redacted: int = 0, draws: int | None = None) -> Report:
        self._setup()
        m = self.mechanism
        # A context mechanism reads each target's text: its representation is contextual.
        representation = "contextual" if isinstance(m, ContextMechanism) else \
            self.representation
        # With targets="all" every draw reads the whole text (see textdp.contexts).
        scope = "text" if representation == "contextual" and self.targets == "all" else \
            "token"
        scale = self._scale
        guarantee = m.guarantee
        shares_line = getattr(m, "shares_line", None)  # nadp: how much of the table it covers
        if callable(shares_line) and m.prepared:
            guarantee = f"{guarantee}; {shares_line()}"
        holds_between = HOLDS_BETWEEN if self.surface == "input" else HOLDS_BETWEEN_ANY_CASING
        replace = self._replacing
        if replace == "name":
            holds_between += HOLDS_BETWEEN_NAME_KINDS
        if self.consistency != "mention" and self.targets != "all" and replace != "tag":
            holds_between += HOLDS_BETWEEN_REPEATS
        return Report.for_tokens(
            n, mechanism=m.name, epsilon=m.epsilon, delta=m.delta, guarantee=guarantee,
            representation=representation, redacted=redacted, scope=scope, draws=draws,
            replace=replace, consistency=self.consistency, holds_between=holds_between,
            name_distance=None if scale is None else scale.name_distance,
            diameter=None if scale is None else scale.diameter)

    def _privatize_batch(self, texts: list[str], cores: list[tuple[int, int]],
                         owners: list[int], states: dict[int, TextState],
                         offsets: list[int] | None = None) -> list[tuple[str, Report]]:
        """The output of each text's core (its characters ``cores[j]``) and its report (its
        spans, with ``report_spans``, moved by ``offsets[j]``: where the piece starts in its
        text)."""
        results = [(t[a:b], self._report(0)) for t, (a, b) in zip(texts, cores)]
        live = [j for j, t in enumerate(texts) if t.strip()]
        if not live:
            return results  # empty or whitespace-only: returned as is, nothing spent
        self._setup()  # models and tables load outside the zone: they must outlive it
        with transient_strings(self.nlp):
            docs = list(self.nlp.tokenizer.pipe(texts[j] for j in live))
            merge_pii_tokens(docs, self._pii_labels)
            private = self.privatize_docs(
                docs, owners=[owners[j] for j in live], states=states,
                cores=[None if cores[j] == (0, len(texts[j])) else cores[j] for j in live])
            for j, doc, (new_words, report) in zip(live, docs, private):
                a, b = cores[j]
                if report.spans and offsets and offsets[j]:
                    report = replace(report, spans=tuple(
                        (s + offsets[j], e + offsets[j], *rest) for s, e, *rest in report.spans))
                results[j] = (join_words(new_words, doc, a, b,
                                         collapse_tags=self.replace == "tag"), report)
        return results

    def _target_masks(self, docs: Sequence[Any], words: list[list[str]],
                      spans: Sequence[Sequence[Span]] | None) -> list[list[str | None]]:
        """Per token: the label that makes it a target, or ``None``."""
        if self.targets == "all":
            return [["*" if is_word(w) else None for w in ws] for ws in words]
        if spans is None:
            assert self._detector is not None
            spans = self._detector(docs)
        wanted = set(self.targets)
        masks: list[list[str | None]] = []
        for ws, doc_spans in zip(words, spans):
            mask: list[str | None] = [None] * len(ws)
            for start, end, label in doc_spans:
                if label in wanted:
                    for k in range(start, min(end, len(ws))):
                        if mask[k] in PII_LABELS and label not in PII_LABELS:
                            continue  # a whole address or number: its surrogate wins
                        if is_word(ws[k]) or (label in PII_LABELS and ws[k].strip()):
                            mask[k] = label
            masks.append(drop_honorifics(mask, ws))
        return masks

    def _substitute(self, docs: Sequence[Any], words: list[list[str]],
                    masks: list[list[str | None]], owners: list[int],
                    states: dict[int, TextState]) -> list[tuple[list[str], Report]]:
        """The new words of each doc and its report: targets grouped into draws
        (:func:`~textdp.pseudonyms.plan_draws`), draws this text made in an earlier batch
        re-used, the budget charged per draw, the rest drawn in one call per candidate set."""
        flat = [(d, k) for d, mask in enumerate(masks) for k, lab in enumerate(mask)
                if lab is not None]
        if not flat:
            return [(list(ws), self._report(0)) for ws in words]
        tokens = [words[d][k] for d, k in flat]
        labels = [masks[d][k] or "*" for d, k in flat]
        kinds = [positional_kinds(mask) for mask in masks]
        plan = plan_draws(tokens, labels, [owners[d] for d, _ in flat],
                          [kinds[d][k] for d, k in flat], replace=self._replacing,
                          consistency=self.consistency)
        first = plan.first.tolist()
        draw_owner = [owners[flat[t][0]] for t in first]
        subs: list[str | None] = [None] * len(first)
        for j, (t, key, kind) in enumerate(zip(first, plan.keys, plan.kinds)):
            state = states.get(draw_owner[j])
            if kind == "tag":
                subs[j] = tag(labels[t])
            elif key is not None and state is not None and (labels[t], key) in state.names:
                subs[j] = state.names[(labels[t], key)]  # drawn in an earlier batch
            elif kind == "pii":  # a surrogate of the value's format: no draw on the value
                rng = self.rng if self.key is None or key is None else keyed_source(
                    self.key, state.scope if state else "", labels[t], key)
                subs[j] = pii_replacement(labels[t], tokens[t], self._replacing, rng)
                if key is not None and self.consistency == "document":
                    states.setdefault(draw_owner[j], TextState()).names[(labels[t], key)] = \
                        subs[j]
        todo = np.asarray([j for j, sub in enumerate(subs) if sub is None], dtype=np.int64)
        # Over-budget draws are redacted: made from a public stand-in, not from the target.
        over = over_budget([draw_owner[j] for j in todo.tolist()], states,
                           epsilon=self.epsilon, max_epsilon_per_text=self.max_epsilon_per_text,
                           policy=self.budget_policy)
        if todo.size:
            drawn = self._draw(docs, flat, tokens, labels, plan, todo, over, draw_owner, states)
            for j, sub in zip(todo.tolist(), drawn):
                subs[j] = sub
                key = plan.keys[j]
                if key is not None and self.consistency == "document":
                    states.setdefault(draw_owner[j], TextState()).names[
                        (labels[first[j]], key)] = sub
        out = [list(ws) for ws in words]
        replaced = [0] * len(words)
        for (d, k), tok, j in zip(flat, tokens, plan.of_target.tolist()):
            sub = subs[j]
            assert sub is not None
            out[d][k] = surface_form(sub, tok) if self.surface == "input" and \
                plan.kinds[j] not in ("tag", "pii") else sub
            replaced[d] += 1
        charged = [0] * len(words)
        redacted = [0] * len(words)
        for j, free in zip(todo.tolist(), over.tolist()):
            d = flat[first[j]][0]
            if free:
                redacted[d] += 1
            else:
                charged[d] += 1
        return [(out[d], self._report(replaced[d], redacted[d], draws=charged[d]))
                for d in range(len(words))]

    def _draw(self, docs: Sequence[Any], flat: list[tuple[int, int]], tokens: list[str],
              labels: list[str], plan: Any, todo: np.ndarray, over: np.ndarray,
              draw_owner: list[int], states: dict[int, TextState]) -> list[str]:
        """One public word per draw in ``todo``, each read from its first mention (over-budget
        draws from a public stand-in), decoded to its candidate set: the whole table or a
        name kind. Keyed draws (``consistency="dataset"``) each get the random source of
        their (scope, name); the others share the privatizer's for one call per set."""
        reps = plan.first[todo]
        if isinstance(self.mechanism, ContextMechanism):
            return self._draw_in_context(docs, flat, labels, reps, over)
        if self.representation == "contextual":
            wanted = np.zeros(len(flat), dtype=bool)
            wanted[reps[~over]] = True
            vecs = self._contextual_inputs(docs, flat, labels, wanted)[reps]
            inverse = torch.arange(len(reps), device=self.device)
        else:
            vecs, inverse = self._static_inputs([tokens[t] for t in reps.tolist()],
                                                [labels[t] for t in reps.tolist()], over)
        kinds = [plan.kinds[j] for j in todo.tolist()]
        out = [""] * len(todo)
        with torch.inference_mode():
            for kind in dict.fromkeys(kinds):
                sel = [i for i, k in enumerate(kinds) if k == kind]
                candidates = self.decoder(kind)
                groups: list[tuple[list[int], RandomSource]] = []
                for i in sel:
                    key = plan.keys[todo[i]]
                    if self.key is not None and key is not None:
                        scope = states.get(draw_owner[todo[i]], TextState()).scope
                        groups.append(([i], keyed_source(self.key, scope, labels[reps[i]], key)))
                shared = sorted(set(sel) - {rows[0] for rows, _ in groups})
                if shared:
                    groups.append((shared, self.rng))
                for rows, rng in groups:
                    inv = inverse[torch.as_tensor(rows, device=inverse.device)]
                    for i, word in zip(rows, candidates.draw(self.mechanism, vecs, inv, rng)):
                        out[i] = word
        return out

    def _static_inputs(self, tokens: list[str], labels: list[str | None], over: np.ndarray
                       ) -> tuple[torch.Tensor, torch.Tensor]:
        """Distinct table vectors of the targets and which one each target uses."""
        table = self._space
        rows = table.lookup(tokens)
        # Out-of-vocabulary (and over-budget) targets get a public fallback key: -1 (general)
        # or -2 (person).
        rows = np.where(over, -1, rows)
        oov = rows < 0
        if oov.any():
            person = np.fromiter((lab == "PERSON" for lab in labels), bool, count=len(labels))
            rows = np.where(oov & person, -2, rows)
        uniq, inverse = np.unique(rows, return_inverse=True)
        vecs = np.empty((len(uniq), table.dim), dtype=np.float32)
        known = uniq >= 0
        vecs[known] = table.lookup_vectors[uniq[known]]
        vecs[uniq == -1] = self._fallback["*"]
        vecs[uniq == -2] = self._fallback["PERSON"]
        return (torch.from_numpy(vecs).to(self.device),
                torch.from_numpy(inverse.astype(np.int64).reshape(-1)).to(self.device))

    def _contextual_inputs(self, docs: Sequence[Any], flat: list[tuple[int, int]],
                           labels: list[str], wanted: np.ndarray) -> torch.Tensor:
        """Each target's contextual vector, read in the context :mod:`textdp.contexts` builds
        (the other targets masked by public words), clipped like the index; targets not
        ``wanted`` (over budget, or later mentions of a name) and, should a tokenizer drop a
        word's characters, words without a piece get the public stand-in vector instead."""
        assert self._encoder is not None
        texts, spans, rows = target_contexts(docs, flat, labels, wanted,
                                             isolate=self.targets != "all")
        person = torch.from_numpy(np.fromiter((lab == PERSON for lab in labels), bool,
                                              count=len(labels))).to(self.device)
        vecs = torch.where(person[:, None],
                           torch.from_numpy(self._fallback["PERSON"]).to(self.device),
                           torch.from_numpy(self._fallback["*"]).to(self.device))
        if texts:
            with torch.inference_mode():
                found_vecs, found = self._encoder.encode_spans(texts, spans)
                radius = self._radius
                if radius is not None:
                    norms = torch.linalg.vector_norm(found_vecs, dim=1, keepdim=True)
                    found_vecs = found_vecs * (radius / norms.clamp_min(1e-12)).clamp(max=1.0)
                where = torch.from_numpy(rows).to(self.device)
                vecs[where[found]] = found_vecs[found]
        return vecs

    def _draw_in_context(self, docs: Sequence[Any], flat: list[tuple[int, int]],
                         labels: list[str], reps: np.ndarray, over: np.ndarray) -> list[str]:
        """Substitutes from a context mechanism for the targets ``reps``, each read in the
        context :mod:`textdp.contexts` builds; over-budget ones get text-free draws."""
        mech = self.mechanism
        assert isinstance(mech, ContextMechanism)
        wanted = np.zeros(len(flat), dtype=bool)
        wanted[reps[~over]] = True
        texts, spans, rows = target_contexts(docs, flat, labels, wanted,
                                             isolate=self.targets != "all")
        by_target: dict[int, str] = {}
        if texts:
            by_target = dict(zip(rows.tolist(), mech.sample_in_context(texts, spans, self.rng)))
        free = iter(mech.sample_free(int(over.sum()), self.rng))
        return [next(free) if o else by_target[t] for t, o in zip(reps.tolist(), over.tolist())]


def _audit_spans(doc: Any, findings: Sequence[Finding], mask: Sequence[str | None]
                 ) -> tuple[tuple[int, int, str, str, float | None], ...]:
    """The findings whose tokens were targets (the mask's label, in the core), as report
    spans: character offsets in ``doc``'s text, label, detector, score; never text."""
    kept = []
    for f in findings:  # each trimmed to its tokens that were targets ("Dr." is kept)
        hit = [k for k in range(f.start, min(f.end, len(mask))) if mask[k] == f.label]
        if hit:
            kept.append(f._replace(start=hit[0], end=hit[-1] + 1))
    return tuple((r["start"], r["end"], r["label"], r["detector"], r["score"])
                 for r in span_records(doc, kept))


def _texts(texts: Iterable[str]) -> Iterable[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("privatize() takes an iterable of texts, got one string; use "
                        "privatizer(text) for a single text")
    return texts


def _check_row(i: int, text: Any) -> None:
    """A text is a string, or ``None`` for a missing one (it passes through)."""
    if text is not None and not isinstance(text, str):
        raise ValueError(f"row {i}: expected a string, got {type(text).__name__}")
