"""Training subword embeddings (plain or PolarizedText), for ``textdp train-embeddings``
(:mod:`textdp.cli.train_embeddings`).

    textdp train-embeddings notes.jsonl -o notes.emb.npz --label-field label --polarization 1
    textdp train-embeddings notes.txt -o notes.emb.npz                # plain subword skip-gram
    textdp train-embeddings notes.txt -o notes.emb.npz --backend gensim   # gensim's FastText

The corpus is one document per TXT line, JSONL record or CSV row (``--text-field``), with an
optional label (``--label-field``; a missing, null or empty label leaves the document
unlabelled). Texts are split into words and punctuation by a regular expression, case kept.

Plain fastText training is gensim's ``FastText`` (``--backend gensim``, when gensim is
installed; it is not a dependency of textdp), converted to the same file; the torch model
(:mod:`textdp.embeddings.skipgram`) is the one with the polarization term, which no library
has, and with ``--polarization 0`` it is the plain objective under the same optimiser, for a
controlled comparison.

**The output is private**: the embeddings are trained on your documents. They feed
:class:`~textdp.detect.similarity.SimilarityDetector` and nothing else; the privatizer refuses
the file as a substitution table. Do not publish it. Nothing here prints or logs the texts (or
the labels): messages name files, lines and counts.
"""

from __future__ import annotations

import math
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from textdp.embeddings.subword import (
    DEFAULT_BUCKETS,
    DEFAULT_MAXN,
    DEFAULT_MINN,
    SubwordEmbeddings,
    char_ngrams,
    label_directions,
    ngram_hash,
)
from textdp.records import FORMATS, InputError, RecordReader, detect_format

_TOKEN = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]")
BACKENDS = ("torch", "gensim")
# Negatives drawn per batch and shared by its pairs, each pair's k weighted k / NEGATIVE_POOL
# (SubwordSkipGram.loss): the expectation of k draws per pair in one matrix product.
NEGATIVE_POOL = 1024


def tokenize(text: str) -> list[str]:
    """Words (letters/digits, inner ``'``/``-`` kept) and single punctuation marks, case kept."""
    return _TOKEN.findall(text)


@dataclass(frozen=True)
class TrainingConfig:
    """Settings of one training run (all saved in the embeddings' ``meta``).

    Args:
        dim: vector dimension.
        window: largest context window; each centre draws its window from ``1..window``.
        negatives: negative samples per pair (from the unigram distribution ^ 0.75; the torch
            model draws a pool per batch and weights it to ``negatives`` per pair).
        epochs: passes over the corpus.
        min_count: words rarer than this are left out of training (their spellings still
            get vectors from n-grams).
        minn, maxn: character n-gram lengths.
        buckets: hash buckets of the n-grams.
        subsample: fastText's frequent-word subsampling threshold ``t`` (0: none).
        polarization: λ, the weight of the polarization term (0: plain skip-gram).
        field: length of each label direction ``μ`` (the field strength).
        lr: initial learning rate (decays linearly to 0).
        batch_size: centre words per step (each with up to ``2 * window`` contexts).
        seed: seed of initialisation, sampling and shuffling (``None``: from the OS).
        device: ``cpu``, ``cuda``, ``cuda:N`` or ``auto``.
        threads: torch CPU threads while training (``None``: torch's setting). The steps are
            many small operations: on a busy machine 1 thread can be many times faster.
    """

    dim: int = 100
    window: int = 5
    negatives: int = 5
    epochs: int = 5
    min_count: int = 2
    minn: int = DEFAULT_MINN
    maxn: int = DEFAULT_MAXN
    buckets: int = DEFAULT_BUCKETS
    subsample: float = 1e-4
    polarization: float = 0.0
    field: float = 1.0
    lr: float = 0.05
    batch_size: int = 512
    seed: int | None = None
    device: str = "cpu"
    threads: int | None = None

    def __post_init__(self) -> None:
        for name in ("dim", "window", "negatives", "epochs", "min_count", "minn", "maxn",
                     "buckets", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.threads is not None and (not isinstance(self.threads, int) or
                                         isinstance(self.threads, bool) or self.threads < 1):
            raise ValueError(f"threads must be a positive integer or None, got {self.threads!r}")
        if self.maxn < self.minn:
            raise ValueError(f"maxn ({self.maxn}) must be at least minn ({self.minn})")
        for name, low_ok in (("subsample", True), ("polarization", True), ("field", False),
                             ("lr", False)):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0 \
                    or (value == 0 and not low_ok):
                raise ValueError(f"{name} must be a finite number {'>=' if low_ok else '>'} 0, "
                                 f"got {value!r}")


# ---------------------------------------------------------------------------------- corpus
def read_corpus(path: str, *, fmt: str | None = None, text_field: str = "text",
                label_field: str | None = None, errors: str = "strict",
                ) -> tuple[list[list[str]], list[str | None]]:
    """Tokenized documents and their labels (``None``: unlabelled) from a TXT/JSONL/CSV file
    (``-``: JSONL on standard input). Errors name the file, line and field, never the text."""
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "txt" and label_field is not None:
        raise ValueError("a .txt corpus has no label column; use JSONL or CSV for labels")
    documents: list[list[str]] = []
    labels: list[str | None] = []
    stream: Any = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    try:
        reader = RecordReader(stream, fmt, text_field, path, errors)
        for lineno, record in reader:
            if isinstance(record, str):
                documents.append(tokenize(record))
                labels.append(None)
                continue
            if label_field is not None and reader.columns is not None and \
                    label_field not in reader.columns:
                raise InputError(f"{path}: no column {label_field!r} in the CSV header (set "
                                 "--label-field)")
            documents.append(tokenize(record[text_field]))
            labels.append(_label(record, label_field, path, lineno))
    finally:
        if path != "-":
            stream.close()
    return documents, labels


def _label(record: dict[str, Any], field: str | None, name: str, lineno: int) -> str | None:
    if field is None or record.get(field) is None:
        return None
    value = record[field]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{name}, line {lineno}: label field {field!r} is "
                         f"{type(value).__name__}; expected a string or an integer")
    value = str(value).strip()
    return value or None


# ---------------------------------------------------------------------------------- training
@dataclass
class _Vocabulary:
    words: list[str]
    counts: np.ndarray          # (V,)
    ptr: np.ndarray             # (V + 1,) CSR pointers into rows
    rows: np.ndarray            # input rows of each word's bag: its own row, then n-gram rows
    bucket_ids: np.ndarray      # (K,) bucket id of input row V + k


def _vocabulary(documents: Sequence[Sequence[str]], cfg: TrainingConfig) -> _Vocabulary:
    counts = Counter(w for doc in documents for w in doc)
    kept = sorted((w for w, c in counts.items() if c >= cfg.min_count),
                  key=lambda w: (-counts[w], w))
    if not kept:
        raise ValueError(f"no word occurs at least min_count={cfg.min_count} times in the "
                         "corpus; lower --min-count or give more text")
    n = len(kept)
    compact: dict[int, int] = {}
    memo: dict[str, int] = {}
    ptr = np.zeros(n + 1, dtype=np.int64)
    rows: list[int] = []
    for i, w in enumerate(kept):
        rows.append(i)
        for g in char_ngrams(w, cfg.minn, cfg.maxn):
            b = memo[g] if g in memo else memo.setdefault(g, ngram_hash(g) % cfg.buckets)
            rows.append(n + compact.setdefault(b, len(compact)))
        ptr[i + 1] = len(rows)
    bucket_ids = np.fromiter(compact.keys(), dtype=np.int64, count=len(compact))
    return _Vocabulary(kept, np.array([counts[w] for w in kept], dtype=np.int64), ptr,
                       np.asarray(rows, dtype=np.int64), bucket_ids)


def _label_index(labels: Sequence[str | None] | None, n_docs: int
                 ) -> tuple[list[str], np.ndarray]:
    if labels is None:
        return [], np.full(n_docs, -1, dtype=np.int64)
    if len(labels) != n_docs:
        raise ValueError(f"{len(labels)} labels for {n_docs} documents; they must match")
    names = sorted({lab for lab in labels if lab is not None})
    index = {lab: k for k, lab in enumerate(names)}
    return names, np.array([-1 if lab is None else index[lab] for lab in labels],
                           dtype=np.int64)


def _epoch_centres(ids: np.ndarray, doc: np.ndarray, keep_prob: np.ndarray, window: int,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One epoch's centres and their contexts, shuffled: frequent words subsampled (fastText's
    rule), each centre's window drawn from ``1..window``. Returns centre positions ``(n,)`` and
    context positions ``(n, 2 * window)`` (``-1`` where there is none); centres without any
    context are dropped."""
    kept = np.flatnonzero(rng.random(ids.size) < keep_prob[ids])
    d = doc[kept]
    reach = rng.integers(1, window + 1, size=kept.size)
    n = kept.size
    ctx = np.full((n, 2 * window), -1, dtype=np.int64)
    for j, o in enumerate([*range(-window, 0), *range(1, window + 1)]):
        k = np.arange(max(0, -o), min(n, n - o))
        ok = (d[k + o] == d[k]) & (abs(o) <= reach[k])
        ctx[k[ok], j] = kept[k[ok] + o]
    has = (ctx >= 0).any(axis=1)
    centres, ctx = kept[has], ctx[has]
    order = rng.permutation(centres.size)
    return centres[order], ctx[order]


def train_embeddings(documents: Sequence[Sequence[str]],
                     labels: Sequence[str | None] | None = None, *,
                     config: TrainingConfig | None = None, progress: bool = True,
                     **settings: Any) -> SubwordEmbeddings:
    """Train subword skip-gram embeddings on tokenized ``documents``; with labels and
    ``polarization > 0``, PolarizedText (module docstring of :mod:`textdp.embeddings.skipgram`).

    ``settings`` are :class:`TrainingConfig` fields (or pass ``config``). **The result is
    private** (trained on these documents): use it for detection only.
    """
    import torch

    if config is not None and settings:
        raise ValueError("give either config or settings, not both")
    cfg = config if config is not None else TrainingConfig(**settings)
    if cfg.threads is None:
        return _train(documents, labels, cfg, progress)
    before = torch.get_num_threads()
    torch.set_num_threads(cfg.threads)
    try:
        return _train(documents, labels, cfg, progress)
    finally:
        torch.set_num_threads(before)


def _train(documents: Sequence[Sequence[str]], labels: Sequence[str | None] | None,
           cfg: TrainingConfig, progress: bool) -> SubwordEmbeddings:
    import torch
    from tqdm.auto import tqdm

    from textdp.devices import resolve_device
    from textdp.embeddings.skipgram import SubwordSkipGram

    device = resolve_device(cfg.device)
    label_names, doc_label = _label_index(labels, len(documents))
    if cfg.polarization and not label_names:
        raise ValueError("polarization > 0 needs labelled documents (give labels)")
    vocab = _vocabulary(documents, cfg)
    n_words = len(vocab.words)
    directions = label_directions(len(label_names), cfg.dim, cfg.field)

    index = {w: i for i, w in enumerate(vocab.words)}
    ids_list, doc_list = [], []
    for k, tokens in enumerate(documents):
        row = [index[w] for w in tokens if w in index]
        ids_list.append(np.asarray(row, dtype=np.int64))
        doc_list.append(np.full(len(row), k, dtype=np.int64))
    ids = np.concatenate(ids_list) if ids_list else np.zeros(0, dtype=np.int64)
    doc = np.concatenate(doc_list) if doc_list else np.zeros(0, dtype=np.int64)
    freq = vocab.counts / max(int(vocab.counts.sum()), 1)
    keep_prob = np.ones(n_words) if cfg.subsample == 0 else \
        np.minimum(1.0, np.sqrt(cfg.subsample / freq) + cfg.subsample / freq)

    rng = np.random.default_rng(cfg.seed)
    gen = torch.Generator(device="cpu")
    gen.manual_seed(int(rng.integers(2**62)))
    model = SubwordSkipGram(n_words, vocab.bucket_ids.size, cfg.dim,
                            directions=torch.from_numpy(directions),
                            polarization=cfg.polarization, device=device, generator=gen)
    ptr = torch.from_numpy(vocab.ptr).to(device)
    bag_rows_all = torch.from_numpy(vocab.rows).to(device)
    noise = torch.from_numpy(np.cumsum(vocab.counts ** 0.75) /
                             np.sum(vocab.counts ** 0.75)).to(device)
    word_of = torch.from_numpy(np.append(ids, 0)).to(device)  # position -1 -> a masked id
    label_of = torch.from_numpy(np.append(doc_label[doc], -1)).to(device)

    # The number of centres varies with subsampling; the first epoch's count sizes the bar and
    # the learning-rate schedule (linear decay to 0, as fastText).
    epochs = [_epoch_centres(ids, doc, keep_prob, cfg.window, rng)]
    per_epoch = max(1, math.ceil(epochs[0][0].size / cfg.batch_size))
    total = per_epoch * cfg.epochs
    step = 0
    losses: list[float] = []
    bar = tqdm(total=total, disable=not progress, desc="train-embeddings", unit="batch",
               file=sys.stderr)
    started = time.perf_counter()
    for epoch in range(cfg.epochs):
        centres_np, ctx_np = epochs.pop() if epochs else \
            _epoch_centres(ids, doc, keep_prob, cfg.window, rng)
        centres_all = torch.from_numpy(centres_np).to(device)
        ctx_all = torch.from_numpy(ctx_np).to(device)
        epoch_loss, pairs = 0.0, 0
        for start in range(0, centres_all.numel(), cfg.batch_size):
            pos = centres_all[start:start + cfg.batch_size]
            ctx_pos = ctx_all[start:start + cfg.batch_size]
            mask = ctx_pos >= 0
            centre = word_of[pos]
            contexts = word_of[ctx_pos]  # -1 indexes the appended masked id
            sizes = ptr[centre + 1] - ptr[centre]
            offsets = torch.cumsum(sizes, 0) - sizes
            bag_of_row = torch.repeat_interleave(torch.arange(centre.numel(), device=device),
                                                 sizes)
            rows = bag_rows_all[ptr[centre][bag_of_row] +
                                torch.arange(bag_of_row.numel(), device=device) -
                                offsets[bag_of_row]]
            u = torch.rand(NEGATIVE_POOL, generator=gen).to(device)
            pool = torch.searchsorted(noise, u).clamp(max=n_words - 1)
            lr = cfg.lr * max(1.0 - step / total, 1e-4)
            epoch_loss += model.step(rows, bag_of_row, sizes, contexts, mask, pool,
                                     cfg.negatives, label_of[pos], lr)
            pairs += int(mask.sum())
            step += 1
            bar.update(1)
        losses.append(epoch_loss / max(pairs, 1))
        bar.set_postfix(epoch=epoch + 1, loss=f"{losses[-1]:.4f}")
    bar.close()

    weight = model.inputs.float().cpu().numpy()
    meta = {"backend": "torch", **asdict(cfg), "loss_per_pair": losses, "documents":
            len(documents), "tokens": int(ids.size), "labelled_documents":
            int((doc_label >= 0).sum()), "seconds": round(time.perf_counter() - started, 2)}
    return SubwordEmbeddings(vocab.words, weight[:n_words], vocab.bucket_ids, weight[n_words:],
                             minn=cfg.minn, maxn=cfg.maxn, buckets=cfg.buckets,
                             labels=label_names, directions=directions, meta=meta)


def train_gensim_fasttext(documents: Sequence[Sequence[str]], *,
                          config: TrainingConfig | None = None, workers: int = 2,
                          **settings: Any) -> SubwordEmbeddings:
    """Plain fastText skip-gram by gensim's ``FastText`` (gensim is optional: ``pip install
    gensim``), converted to :class:`SubwordEmbeddings`. gensim hashes n-grams with fastText's
    function, which :func:`~textdp.embeddings.subword.ngram_hash` is, so vectors agree.
    ``lr`` is not passed on (gensim's SGD has its own scale; its default 0.025 is used).
    **The result is private.**"""
    try:
        from gensim.models import FastText
    except ImportError as err:
        raise ValueError("backend 'gensim' needs gensim: pip install gensim") from err

    cfg = config if config is not None else TrainingConfig(**settings)
    if cfg.polarization:
        raise ValueError("gensim trains plain fastText; polarization needs backend 'torch'")
    started = time.perf_counter()
    seed = cfg.seed if cfg.seed is not None else int(np.random.default_rng().integers(2**31))
    model = FastText(sentences=[list(d) for d in documents], sg=1, vector_size=cfg.dim,
                     window=cfg.window, negative=cfg.negatives, epochs=cfg.epochs,
                     min_count=cfg.min_count, min_n=cfg.minn, max_n=cfg.maxn,
                     bucket=cfg.buckets, sample=cfg.subsample, seed=seed, workers=workers)
    wv = model.wv
    words = list(wv.index_to_key)
    used = np.unique(np.asarray(
        [ngram_hash(g) % cfg.buckets for w in words for g in char_ngrams(w, cfg.minn, cfg.maxn)]
        or [0], dtype=np.int64))
    meta = {"backend": "gensim", **asdict(cfg), "documents": len(documents),
            "seconds": round(time.perf_counter() - started, 2)}
    return SubwordEmbeddings(words, wv.vectors_vocab, used, wv.vectors_ngrams[used],
                             minn=cfg.minn, maxn=cfg.maxn, buckets=cfg.buckets, meta=meta)
