"""Privatizer: detector + representation + mechanism + decode + surface form.

The one object every front end (spaCy, Hugging Face, CLI, Spark) calls, on batches:

    text → tokens (spaCy tokenizer, with whitespace) → detector marks targets → static vectors
    → mechanism (noise or exponential draw, one batched call) → public word → surface form

Privacy rules (DESIGN.md) enforced here: candidates come only from the public table (1); an
out-of-vocabulary target is replaced by a draw from a public fallback vector that does not
depend on it, never published unchanged (2); reports state per-token ε and the composed bound
(3); noise is never returned (4); parameters are checked at construction (5); randomness comes
from an explicit generator (6); the original text is kept nowhere unless ``keep_original`` (7).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from textdp.defaults import DEFAULT_EPSILON
from textdp.detect import Span, create_detector
from textdp.index import BACKENDS, NeighbourIndex, resolve_device
from textdp.mechanisms import Mechanism, MechanismSpec, create_mechanism
from textdp.report import Report
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable
from textdp.validation import check_choice, check_positive_int

DEFAULT_TARGETS = ("PERSON",)
REPRESENTATIONS = ("static",)
# Texts longer than this are privatized in pieces split at whitespace (spaCy's max_length and
# memory stay bounded for any input size).
CHUNK_CHARS = 100_000
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


def is_word(token: str) -> bool:
    """A token that ``targets="all"`` replaces: it contains a letter (so not punctuation,
    numbers or whitespace)."""
    return any(c.isalpha() for c in token)


def surface_form(substitute: str, original: str) -> str:
    """Give ``substitute`` the casing pattern of ``original`` (Title, UPPER, or as is)."""
    if len(original) > 1 and original.isupper():
        return substitute.upper()
    if original[:1].isupper():
        return substitute[:1].upper() + substitute[1:]
    return substitute


def resolve_targets(targets: str | Sequence[str] | None) -> tuple[str, ...] | str:
    """``"all"`` or a tuple of upper-case entity labels (``PER`` → ``PERSON``)."""
    from textdp.detect import normalise_label

    if targets is None:
        return DEFAULT_TARGETS
    if isinstance(targets, str):
        if targets.lower() == "all":
            return "all"
        targets = [t for t in targets.split(",") if t.strip()]
    labels = []
    for t in targets:
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"targets must be 'all' or entity labels, got {targets!r}")
        labels.append(normalise_label(t.strip()))
    if not labels:
        raise ValueError("targets must be 'all' or a non-empty list of entity labels")
    return tuple(dict.fromkeys(labels))


def resolve_table(table: Any) -> Any:
    """Validate a table spec eagerly; return it as given (loaded lazily) or as a table."""
    if table is None or isinstance(table, EmbeddingTable) or table == "default":
        return table
    if isinstance(table, (str, os.PathLike)):
        if not os.path.isfile(table):
            raise ValueError(f"table must be 'default', an EmbeddingTable or an existing "
                             f"word2vec/GloVe/fastText file; {os.fspath(table)!r} does not exist")
        return os.fspath(table)
    raise ValueError(f"table must be 'default', a path or an EmbeddingTable, got "
                     f"{type(table).__name__}")


class Privatizer:
    """Replace target tokens with differentially private public substitutes.

    Args:
        epsilon: ε per token (metric DP: the bound scales with the distance of two inputs in
            the table). The default replaces names with probability ≥ 99 % on the default
            table; scale depends on the table (see README: calibrate with ``textdp calibrate``).
        mechanism: a registered name (``textdp mechanisms``), a ``{"name": ..., **args}``
            mapping, or a :class:`Mechanism`.
        targets: ``["PERSON"]`` (default), ``"all"`` (every word token), or entity labels.
        representation: ``"static"`` (table vectors).
        table: ``None``/``"default"`` (the embedded pipeline's vectors), a word2vec/GloVe/
            fastText file, or an :class:`EmbeddingTable`.
        detector: ``None`` (embedded spaCy NER), a spaCy package name, or a detector object.
        seed: fixed seed for reproducible output. NOT private against anyone who knows it.
        secure: re-key the generators from OS entropy for every batch.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"``.
        keep_original: also return the original text (off by default, DESIGN.md rule 7).
        index: nearest-neighbour backend, one of ``auto, exact, flat, hnsw, ivf``.
        batch_size: texts per vectorised batch.
        nlp: the spaCy pipeline whose tokenizer splits the text (default: the embedded one).
    """

    def __init__(
        self,
        *,
        epsilon: float = DEFAULT_EPSILON,
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
    ) -> None:
        self.mechanism: Mechanism = create_mechanism(mechanism, epsilon)
        self.epsilon = self.mechanism.epsilon
        self.targets = resolve_targets(targets)
        self.representation = check_choice("representation", representation, REPRESENTATIONS)
        self.table_spec = resolve_table(table)
        self.index_backend = check_choice("index", index, BACKENDS)
        self.device = resolve_device(device)
        self.batch_size = check_positive_int("batch_size", batch_size)
        self.keep_original = bool(keep_original)
        self.seed = seed
        self.secure = bool(secure)
        self.rng = RandomSource(seed, secure=self.secure)
        self.detector_spec = detector
        self._detector = create_detector(detector) if self.targets != "all" else None
        self._nlp = nlp
        self._table: EmbeddingTable | None = table if isinstance(table, EmbeddingTable) else None
        self._ready = False

    # ------------------------------------------------------------------ lazy state
    def __getstate__(self) -> dict[str, Any]:
        """Pickle the configuration only: models and tables reload in the receiving process."""
        state = dict(self.__dict__)
        state.update(_nlp=None, _ready=False, _index=None, rng=None)
        if not isinstance(self.table_spec, EmbeddingTable):
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
        """The public candidate table (loaded on first use)."""
        if self._table is None:
            if self.table_spec in (None, "default"):
                from textdp.defaults import default_table

                self._table = default_table()
            else:
                self._table = EmbeddingTable.from_word2vec(self.table_spec)
        return self._table

    def _setup(self) -> None:
        if self._ready:
            return
        table = self.table
        self._index = NeighbourIndex(table.vectors, backend=self.index_backend,
                                     device=self.device)
        self.mechanism.prepare(table.vectors, self._index, self.rng)
        self._candidate_of_row = table.candidate_of_row()
        self._fallback = self._fallback_vectors(table)
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

    def privatize(self, texts: Iterable[str]) -> list[PrivatizedText]:
        """Privatize texts in vectorised batches; one :class:`PrivatizedText` per input.

        Raises ``ValueError`` naming the row (0-based) of a ``None`` or non-string input
        before any text is processed.
        """
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise ValueError(f"row {i}: expected a string, got {type(t).__name__}")
        # Split long texts into whitespace-bounded pieces; remember which text each came from.
        pieces: list[str] = []
        owner: list[int] = []
        for i, t in enumerate(texts):
            for piece in split_long_text(t, CHUNK_CHARS):
                pieces.append(piece)
                owner.append(i)
        outputs: list[list[str]] = [[] for _ in texts]
        reports: list[Report | None] = [None] * len(texts)
        for start in range(0, len(pieces), self.batch_size):
            batch = pieces[start:start + self.batch_size]
            for j, (out, report) in enumerate(self._privatize_batch(batch)):
                i = owner[start + j]
                outputs[i].append(out)
                reports[i] = report if reports[i] is None else reports[i].merge(report)
        return [
            PrivatizedText("".join(outputs[i]), reports[i] or self._report(0),
                           texts[i] if self.keep_original else None)
            for i in range(len(texts))
        ]

    def privatize_docs(self, docs: Sequence[Any],
                       spans: Sequence[Sequence[Span]] | None = None
                       ) -> list[tuple[list[str], Report]]:
        """Privatize tokenized spaCy docs; returns the new words of each doc and its report.

        ``spans`` gives the entity spans per doc (e.g. from ``doc.ents``); when ``None`` the
        configured detector runs (unless ``targets="all"``).
        """
        self._setup()
        self.rng.next_batch()
        words = [[t.text for t in doc] for doc in docs]
        masks = self._target_masks(docs, words, spans)
        return self._substitute(words, masks)

    def describe(self) -> dict[str, Any]:
        """The configuration as plain values (for reports, configs and fingerprints)."""
        table = self.table_spec if not isinstance(self.table_spec, EmbeddingTable) \
            else f"EmbeddingTable:{self.table_spec.fingerprint()}"
        return {
            **self.mechanism.describe(),
            "targets": self.targets if isinstance(self.targets, str) else list(self.targets),
            "representation": self.representation,
            "table": table or "default",
            "seed": self.seed,
        }

    def __repr__(self) -> str:
        return (f"Privatizer(mechanism={self.mechanism!r}, targets={self.targets!r}, "
                f"representation={self.representation!r}, device={str(self.device)!r})")

    # ------------------------------------------------------------------ internals
    def _report(self, n: int) -> Report:
        m = self.mechanism
        return Report.for_tokens(n, mechanism=m.name, epsilon=m.epsilon, delta=m.delta,
                                 guarantee=m.guarantee, representation=self.representation)

    def _privatize_batch(self, texts: list[str]) -> list[tuple[str, Report]]:
        live = [i for i, t in enumerate(texts) if t.strip()]
        results: list[tuple[str, Report]] = [(t, self._report(0)) for t in texts]
        if not live:
            return results  # empty or whitespace-only: returned as is, nothing spent
        docs = list(self.nlp.tokenizer.pipe(texts[i] for i in live))
        for i, doc, (new_words, report) in zip(live, docs, self.privatize_docs(docs)):
            results[i] = ("".join(w + t.whitespace_ for w, t in zip(new_words, doc)), report)
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
                        if is_word(ws[k]):
                            mask[k] = label
            masks.append(mask)
        return masks

    def _substitute(self, words: list[list[str]], masks: list[list[str | None]]
                    ) -> list[tuple[list[str], Report]]:
        table = self.table
        flat = [(d, k) for d, mask in enumerate(masks) for k, lab in enumerate(mask)
                if lab is not None]
        if not flat:
            return [(list(ws), self._report(0)) for ws in words]
        tokens = [words[d][k] for d, k in flat]
        rows = table.lookup(tokens)
        # Out-of-vocabulary targets get a public fallback key: -1 (general) or -2 (person).
        labels = [masks[d][k] for d, k in flat]
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
        with torch.inference_mode():
            ids = self.mechanism.sample(
                torch.from_numpy(vecs).to(self.device),
                torch.from_numpy(inverse.astype(np.int64)).to(self.device),
                self.rng,
            ).cpu().numpy()
        cand = table.words
        out = [list(ws) for ws in words]
        counts = [0] * len(words)
        for (d, k), tok, cid in zip(flat, tokens, ids.tolist()):
            out[d][k] = surface_form(cand[cid], tok)
            counts[d] += 1
        return [(out[d], self._report(counts[d])) for d in range(len(words))]


def split_long_text(text: str, limit: int) -> list[str]:
    """Split ``text`` into pieces of at most ``limit`` characters, cutting after whitespace
    (a newline if one is near) so no token is cut; a run with no whitespace is cut hard."""
    if len(text) <= limit:
        return [text]
    pieces = []
    start = 0
    while len(text) - start > limit:
        window = text[start:start + limit]
        cut = window.rfind("\n")
        if cut < limit // 2:
            cut = max(window.rfind(" "), window.rfind("\t"))
        cut = limit if cut <= 0 else cut + 1
        pieces.append(text[start:start + cut])
        start += cut
    pieces.append(text[start:])
    return pieces
