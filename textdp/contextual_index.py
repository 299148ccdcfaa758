"""ContextualIndex: the public candidates of contextual substitution, and ``build-index``.

docs/architecture.md rule 1: substitutes come from a public table, never from the text being
privatized.
A research notebook built its contextual index from a sample of the private data and could
write other people's words; here the index holds contextual vectors of PUBLIC words only:

* by default the model's whole-word vocabulary entries (no ``##`` pieces, real words only,
  :func:`textdp.contextual.whole_word_vocabulary`), each encoded by the same layer as the
  inputs, alone or inside a neutral ``template``;
* or the words of a public corpus the user gives (``textdp build-index --corpus``): the mean
  contextual vector of each word type over its occurrences.

An index is an :class:`~textdp.tables.EmbeddingTable` (so :class:`~textdp.index.NeighbourIndex`
and every mechanism decode against it) with metadata: the model it was built with (name,
fingerprint of its configuration and vocabulary, and a probe: the vectors of a fixed public
sentence, which catches other weights), the layer, the template, the textdp version. Saved to
a folder (``vectors.npy``, ``words.json``, ``meta.json``); loading it for an encoder with
another model or layer is a ``ValueError``. The default index of a model and layer is built
once and cached under :func:`textdp.tables.cache_dir`.

    textdp build-index --contextual --model <path-or-name> --layer 1 -o ctx-index/
    textdp build-index --contextual --corpus public.txt -o ctx-index/

(the command is :mod:`textdp.cli.build_index`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from textdp._version import __version__
from textdp.contextual import ContextualEncoder, model_label, whole_word_vocabulary
from textdp.files import atomic_output
from textdp.tables import EmbeddingTable, cache_dir, is_real_word
from textdp.validation import check_positive_int

FORMAT_VERSION = 1
# The neutral context a vocabulary word is encoded in ("{}" is the word): the word alone.
# `python bench/contextual.py --only templates`: over the 5,221 word tokens of 300 SST-2 train
# sentences (all-MiniLM-L6-v2 layer 1, vectors clipped to the index's median norm) the
# templates "{}", "{} .", "the {} .", "a {}" and "it is {} ." all decode every in-vocabulary
# token to itself without noise and leave tokens unchanged alike under mlaplace noise (ε = 10:
# 0.711–0.727); the word alone encodes fastest (5.0 s for the 21,748 words vs 6.9–8.3 s).
DEFAULT_TEMPLATE = "{}"
# A fixed public sentence whose word vectors identify the weights an index was built with.
PROBE_TEXT = "The quick brown fox jumps over the lazy dog near the river bank."
PROBE_RTOL = 1e-3
VOCAB_BATCH = 2048
# Indexes and their probe are computed in float32 whatever the machine's fast precision, so an
# index (and the check that a loaded model is the one that built it) is the same everywhere.
INDEX_PRECISION = "float32"


def _textdp_version() -> str:
    return __version__


def check_template(template: str) -> str:
    """A template is a string with exactly one ``{}`` (where the word goes)."""
    if not isinstance(template, str) or template.count("{}") != 1 or \
            template.replace("{}", "").count("{") or template.replace("{}", "").count("}"):
        raise ValueError(f"template must be a string with exactly one '{{}}' where the word "
                         f"goes, e.g. 'the {{}} .', got {template!r}")
    return template


def probe_vector(encoder: ContextualEncoder) -> np.ndarray:
    """The mean of :data:`PROBE_TEXT`'s word vectors (whitespace words) under ``encoder``."""
    spans, pos = [], 0
    for word in PROBE_TEXT.split(" "):
        spans.append((pos, pos + len(word)))
        pos += len(word) + 1
    vecs, _ = encoder.encode_spans([PROBE_TEXT], [np.asarray(spans)],
                                   precision=INDEX_PRECISION)
    return vecs.mean(dim=0).cpu().numpy().astype(np.float32)


class ContextualIndex(EmbeddingTable):
    """Public words and their contextual vectors, with the model and layer that made them.

    Build one with :meth:`from_vocabulary`, :meth:`from_corpus` or :meth:`default`; save with
    :meth:`save`, load with :meth:`load`. Every row is a candidate.

    Args:
        words: unique real words (lower-case for an uncased model).
        vectors: ``(len(words), dim)`` contextual vectors.
        meta: the provenance (``model``, ``fingerprint``, ``layer``, ``template``, ``probe``,
            ``source``, ``textdp_version``, …).
    """

    def __init__(self, words: Sequence[str], vectors: np.ndarray, meta: dict[str, Any]) -> None:
        words = list(words)
        if len(set(words)) != len(words):
            raise ValueError("contextual index words must be unique")
        bad = [i for i, w in enumerate(words) if not is_real_word(w)]
        if bad:
            raise ValueError(f"contextual index row {bad[0]} is not a real word; candidates "
                             "must be whole words")
        super().__init__(words, vectors, candidate_rows=np.arange(len(words)),
                         name=f"contextual:{meta.get('label', 'model')}@{meta.get('layer')}")
        self.meta = dict(meta)

    @property
    def layer(self) -> int:
        """The hidden-state layer the vectors come from."""
        return int(self.meta["layer"])

    def __repr__(self) -> str:
        return (f"ContextualIndex(model={self.meta.get('label')!r}, layer={self.layer}, "
                f"words={len(self)}, dim={self.dim}, source={self.meta.get('source')!r})")

    # ------------------------------------------------------------------ building
    @classmethod
    def from_vocabulary(cls, encoder: ContextualEncoder, *, template: str = DEFAULT_TEMPLATE,
                        limit: int | None = None) -> ContextualIndex:
        """The model's whole-word vocabulary entries, each encoded inside ``template``.

        ``limit`` keeps the first ``limit`` words in vocabulary order (WordPiece vocabularies
        list single characters, then words roughly by frequency): small indexes for tests.
        """
        check_template(template)
        if limit is not None:
            limit = check_positive_int("limit", limit)
        entries = whole_word_vocabulary(encoder.tokenizer)
        seen: set[str] = set()
        words: list[str] = []
        # Lower-case spellings first, so a cased model keeps "the" rather than "The" (the
        # surface form restores casing from the input token).
        for _, word in sorted(entries, key=lambda e: (not e[1].islower(), e[0])):
            if word.lower() not in seen:
                seen.add(word.lower())
                words.append(word)
        order = {w: i for i, w in entries[::-1]}
        words.sort(key=order.__getitem__)
        if limit is not None:
            words = words[:limit]
        if not words:
            raise ValueError(f"model {encoder.model_name!r} has no whole-word vocabulary "
                             "entries to index")
        left = template.index("{}")
        vectors = np.empty((len(words), encoder.dim), dtype=np.float32)
        for start in range(0, len(words), VOCAB_BATCH):
            batch = words[start:start + VOCAB_BATCH]
            texts = [template.format(w) for w in batch]
            spans = [np.asarray([[left, left + len(w)]]) for w in batch]
            vecs, found = encoder.encode_spans(texts, spans, precision=INDEX_PRECISION)
            vectors[start:start + len(batch)] = vecs.cpu().numpy()
            if not bool(found.all()):
                raise ValueError("a vocabulary word got no word piece inside the template; "
                                 f"check template={template!r}")
        meta = _meta(encoder, source="vocabulary", template=template, limit=limit)
        return cls(words, vectors, meta)

    @classmethod
    def from_corpus(cls, encoder: ContextualEncoder, texts: Iterable[str], *,
                    min_count: int = 1, nlp: Any = None, batch_size: int = 256,
                    corpus_name: str | None = None) -> ContextualIndex:
        """The real words of a PUBLIC corpus, each the mean of its contextual vectors.

        ``texts`` are tokenized with ``nlp``'s tokenizer (default: the embedded spaCy
        pipeline's), as the privatizer does; word types are lower-cased (one candidate per
        spelling, the surface form restores casing) and kept when they occur ≥ ``min_count``
        times. The corpus must be public: its words become outputs.
        """
        min_count = check_positive_int("min_count", min_count)
        batch_size = check_positive_int("batch_size", batch_size)
        if nlp is None:
            from textdp.defaults import load_pipeline

            nlp = load_pipeline()
        type_ids: dict[str, int] = {}
        sums = torch.zeros((0, encoder.dim), dtype=torch.float64)
        counts = np.zeros(0, dtype=np.int64)
        batch: list[str] = []

        def flush() -> None:
            nonlocal sums, counts
            docs = list(nlp.tokenizer.pipe(batch))
            spans, types = [], []
            for doc in docs:
                keep = [t for t in doc if is_real_word(t.text)]
                spans.append(np.asarray([[t.idx, t.idx + len(t)] for t in keep],
                                        dtype=np.int64).reshape(-1, 2))
                types.extend(type_ids.setdefault(t.text.lower(), len(type_ids)) for t in keep)
            vecs, found = encoder.encode_spans(batch, spans, precision=INDEX_PRECISION)
            ids = torch.as_tensor(types, dtype=torch.int64)
            ok = found.cpu()
            if len(type_ids) > len(counts):
                grow = len(type_ids) - len(counts)
                sums = torch.cat([sums, torch.zeros((grow, encoder.dim), dtype=torch.float64)])
                counts = np.concatenate([counts, np.zeros(grow, dtype=np.int64)])
            sums.index_add_(0, ids[ok], vecs.cpu()[ok].double())
            counts += np.bincount(ids[ok].numpy(), minlength=len(counts))
            batch.clear()

        n_texts = 0
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValueError(f"corpus line {i + 1}: expected a string, got "
                                 f"{type(text).__name__}")
            if text.strip():
                batch.append(text)
                n_texts += 1
            if len(batch) >= batch_size:
                flush()
        if batch:
            flush()
        words = list(type_ids)
        keep = np.nonzero(counts >= min_count)[0]
        if len(keep) == 0:
            raise ValueError(f"the corpus has no real word occurring at least min_count="
                             f"{min_count} times")
        vectors = (sums[keep] / torch.from_numpy(counts[keep]).double()[:, None]).float().numpy()
        meta = _meta(encoder, source="corpus", template=None, limit=None)
        meta.update(corpus=corpus_name, corpus_texts=n_texts, min_count=min_count)
        return cls([words[i] for i in keep], vectors, meta)

    @classmethod
    def default(cls, encoder: ContextualEncoder) -> ContextualIndex:
        """The vocabulary index of ``encoder``'s model and layer (:data:`DEFAULT_TEMPLATE`),
        built once and cached on disk under :func:`textdp.tables.cache_dir` and per process."""
        # The fingerprint covers configuration and vocabulary, not weights: the model name
        # keeps a fine-tuned copy of a base model from sharing the base model's index.
        key = (encoder.fingerprint(), encoder.layer, encoder.model_name)
        index = _DEFAULTS.get(key)
        if index is None:
            index = _DEFAULTS[key] = _default_index(encoder)
        return index

    # ------------------------------------------------------------------ persistence
    def save(self, folder: str | os.PathLike[str]) -> Path:
        """Write ``vectors.npy``, ``words.json`` and ``meta.json`` to ``folder`` (created; the
        files are replaced atomically, so a reader never sees half an index)."""
        path = Path(folder)
        if path.exists() and not path.is_dir():
            raise ValueError(f"contextual index folder {str(path)!r} is a file")
        path.mkdir(parents=True, exist_ok=True)
        meta = {**self.meta, "format": FORMAT_VERSION, "words": len(self), "dim": self.dim}
        for name, write in (
            ("vectors.npy", lambda f: np.save(f, self.vectors)),
            ("words.json", lambda f: f.write(json.dumps(self.words, ensure_ascii=False)
                                             .encode("utf-8"))),
            ("meta.json", lambda f: f.write(json.dumps(meta, indent=1, ensure_ascii=False)
                                            .encode("utf-8"))),
        ):
            # A unique temporary file per writer: processes that build the same default index
            # at once (datasets.map(num_proc=2)) never write into one shared temporary file.
            with atomic_output(path / name, binary=True) as f:
                write(f)
        return path

    @classmethod
    def load(cls, folder: str | os.PathLike[str],
             encoder: ContextualEncoder | None = None) -> ContextualIndex:
        """Load an index saved with :meth:`save`; with ``encoder``, check that it was built
        with the same model and layer (:meth:`check_encoder`)."""
        path = Path(folder)
        meta = read_meta(path)
        try:
            words = json.loads((path / "words.json").read_text(encoding="utf-8"))
            vectors = np.load(path / "vectors.npy", allow_pickle=False)
        except (OSError, ValueError) as err:
            raise ValueError(f"contextual index {str(path)!r} is unreadable: {err}") from None
        index = cls(words, vectors, meta)
        if encoder is not None:
            index.check_encoder(encoder, where=repr(str(path)))
        return index

    def check_encoder(self, encoder: ContextualEncoder, *, where: str = "the index") -> None:
        """Raise ``ValueError`` unless this index was built with ``encoder``'s model (same
        configuration, vocabulary and weights, wherever it is stored) and layer."""
        check_meta(self.meta, encoder, where=where, dim=self.dim)


def read_meta(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata of a saved index folder (``ValueError`` when it is not one)."""
    path = Path(folder) / "meta.json"
    if not path.is_file():
        raise ValueError(f"contextual_index {os.fspath(folder)!r} is not a contextual index "
                         "folder (vectors.npy, words.json, meta.json); build one with "
                         "`textdp build-index --contextual -o FOLDER`")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"contextual index {os.fspath(folder)!r} is unreadable: {err}") \
            from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
        raise ValueError(f"contextual index {os.fspath(folder)!r} is not format "
                         f"{FORMAT_VERSION} (the one this textdp reads): rebuild it")
    return meta


def check_meta(meta: dict[str, Any], encoder: ContextualEncoder, *, where: str,
               dim: int | None = None, weights: bool = True) -> None:
    """Raise ``ValueError`` unless index metadata ``meta`` matches ``encoder``: the layer, the
    model's configuration and vocabulary (fingerprint), the dimension and, with ``weights``,
    the probe vectors (one forward pass of a fixed public sentence)."""
    rebuild = (f"rebuild it: textdp build-index --contextual --model {encoder.model_name} "
               f"--layer {encoder.layer} -o FOLDER")
    if int(meta.get("layer", -1)) != encoder.layer:
        raise ValueError(f"contextual index {where} was built with layer {meta.get('layer')}, "
                         f"but the encoder uses layer {encoder.layer}; {rebuild}")
    if meta.get("fingerprint") != encoder.fingerprint():
        raise ValueError(f"contextual index {where} was built with model "
                         f"{meta.get('model')!r}, which differs from the encoder's model "
                         f"{encoder.model_name!r} (configuration or vocabulary); {rebuild}")
    dim = meta.get("dim") if dim is None else dim
    if dim is not None and dim != encoder.dim:
        raise ValueError(f"contextual index {where} has {dim}-d vectors, the encoder "
                         f"{encoder.dim}-d; {rebuild}")
    if not weights:
        return
    probe = np.asarray(meta.get("probe", []), dtype=np.float32)
    ours = probe_vector(encoder)
    if probe.shape != ours.shape or not np.allclose(
            probe, ours, rtol=PROBE_RTOL, atol=PROBE_RTOL * float(np.abs(ours).max())):
        raise ValueError(f"contextual index {where} was built with other weights than the "
                         f"encoder's model {encoder.model_name!r} (same configuration and "
                         f"vocabulary); {rebuild}")


def _meta(encoder: ContextualEncoder, *, source: str, template: str | None,
          limit: int | None) -> dict[str, Any]:
    return {
        "model": encoder.model_name, "label": model_label(encoder.model_name),
        "fingerprint": encoder.fingerprint(), "layer": encoder.layer,
        "lowercase": encoder.lowercases, "source": source, "template": template,
        "limit": limit, "probe": [float(x) for x in probe_vector(encoder)],
        "textdp_version": _textdp_version(),
    }


# Default indexes of this process, by (model fingerprint, layer, model name).
_DEFAULTS: dict[tuple[str, int, str], ContextualIndex] = {}


def default_index_folder(encoder: ContextualEncoder) -> Path:
    """Where :meth:`ContextualIndex.default` caches ``encoder``'s default index."""
    # The words are part of the key: a change in which vocabulary entries count as words
    # must not serve an index built under the old rule.
    words = "\n".join(w for _, w in whole_word_vocabulary(encoder.tokenizer))
    key = hashlib.sha256(f"{encoder.fingerprint()}|{encoder.layer}|{DEFAULT_TEMPLATE}|"
                         f"{FORMAT_VERSION}|{_textdp_version()}|{words}".encode()
                         ).hexdigest()[:20]
    return cache_dir() / f"contextual-{key}"


def _default_index(encoder: ContextualEncoder) -> ContextualIndex:
    folder = default_index_folder(encoder)
    if (folder / "meta.json").exists():
        try:
            return ContextualIndex.load(folder, encoder)
        except ValueError:
            pass  # same config and vocabulary but other weights: build for these below
    index = ContextualIndex.from_vocabulary(encoder)
    with contextlib.suppress(OSError):  # a read-only home is no reason to fail: rebuilt next time
        index.save(folder)
    return index


def resolve_contextual_index(spec: Any, encoder: ContextualEncoder) -> Any:
    """Validate a ``contextual_index`` eagerly: ``None`` (the model's default vocabulary
    index), a :class:`ContextualIndex`, or the folder of a saved one whose model and layer
    match ``encoder`` (read from its metadata; the weights are checked when it loads)."""
    if spec is None:
        return None
    if isinstance(spec, ContextualIndex):
        spec.check_encoder(encoder)
        return spec
    if isinstance(spec, (str, os.PathLike)):
        folder = os.fspath(spec)
        check_meta(read_meta(folder), encoder, where=repr(folder), weights=False)
        return folder
    raise ValueError(f"contextual_index must be None, a folder or a ContextualIndex, got "
                     f"{type(spec).__name__}")
