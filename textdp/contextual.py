"""Contextual word vectors: a transformer layer's hidden states pooled to words.

:class:`ContextualEncoder` turns texts and the character spans of their words (spaCy tokens,
or any words with offsets) into one vector per word:

* every text is cut into word pieces by the model's *fast* tokenizer, whose ``offset_mapping``
  gives each piece's characters; literal special-token strings in a text (``"[SEP]"``) are
  split like any other text, so a text cannot inject structure;
* a text longer than the model's window is processed in overlapping windows (``stride`` pieces
  shared by neighbouring windows); each piece takes its hidden state from the window where it
  has the most context on both sides (as BERT's reading-comprehension scripts do);
* the windows of a batch go through the model sorted by length, a padded forward pass per
  minibatch of at most ``batch_tokens`` padded positions, under ``torch.inference_mode()`` on
  the configured device;
* a word's vector is the mean of the hidden states of the pieces that overlap its characters
  (``index_add`` over piece→word pairs found with ``searchsorted``; no Python loop per piece);
* the forward pass runs under autocast in ``precision``: ``"auto"`` is bfloat16 on a GPU that
  has it (float16 on one that has not) and on a CPU where a bfloat16 matmul is measured faster
  than float32 (AMX: a layer's linear maps ran 7× faster), float32 elsewhere. Word vectors are
  returned in float32 either way. Privatization vectors get noise far larger than bfloat16's
  rounding (~0.4 %), and the noise is what the guarantee is about; candidate indexes are built
  in float32 (``precision="float32"``), so an index does not depend on the machine that built
  it.

Layer indexing follows ``transformers``' ``hidden_states``: ``0`` is the input-embedding output
(word + position + segment embeddings, normalised), ``1`` the output of the first transformer
layer (the default: the research notebook found it the closest to the static space), up to
``num_hidden_layers``. Only the layers up to the chosen one are loaded and run: the model is
built with ``num_hidden_layers = layer`` (a layer's output does not depend on later ones), which
made layer 1 of all-MiniLM-L6-v2 ~6× faster than running all six layers.

The vectors are computed from the text being privatized; they are inputs to a mechanism, never
candidates. Candidates come from :mod:`textdp.contextual_index` (docs/architecture.md rule 1).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch

from textdp.devices import resolve_device
from textdp.model_packages import quiet_transformers
from textdp.precision import check_precision, compute_dtype
from textdp.tables import is_real_word
from textdp.validation import check_positive_int

DEFAULT_LAYER = 1
# Padded positions per forward pass (rows × longest row): bounds activation memory (attention
# is rows × heads × length²) while keeping the matrices large enough to run efficiently.
DEFAULT_BATCH_TOKENS = 16_384
# Config keys that say nothing about the vectors a model computes.
_VOLATILE_CONFIG_KEYS = (
    "_name_or_path", "name_or_path", "transformers_version", "torch_dtype", "dtype",
    "architectures", "_commit_hash", "use_cache", "output_hidden_states", "return_dict",
    "_attn_implementation_autoset", "_attn_implementation", "id2label", "label2id", "num_labels",
)


def model_label(model: str | os.PathLike[str]) -> str:
    """A short label for a model path or hub name: its last path component, or the folder
    above a generic ``model`` folder (as packaged models have)."""
    path = os.path.normpath(os.fspath(model))
    label = os.path.basename(path)
    if label.lower() in ("model", "models") and os.path.basename(os.path.dirname(path)):
        label = os.path.basename(os.path.dirname(path))
    return label or os.fspath(model)


def whole_word_vocabulary(tokenizer: Any) -> list[tuple[int, str]]:
    """``(token id, word)`` for the vocabulary entries that are whole real words.

    WordPiece vocabularies mark continuation pieces with ``##``; byte-level BPE (``Ġword``) and
    SentencePiece (``▁word``) vocabularies mark word *starts* instead, so there only the marked
    entries are words. Special tokens, ``[unusedN]`` slots, entries that are not real words
    (:func:`textdp.tables.is_real_word`: punctuation, digits, fragments) and single non-ASCII
    characters are left out.
    """
    vocab = tokenizer.get_vocab()
    special = set(tokenizer.all_special_tokens)
    if any(t.startswith("##") for t in vocab):
        def word_of(t: str) -> str | None:
            return None if t.startswith("##") else t
    else:
        marker = "Ġ" if sum(t.startswith("Ġ") for t in vocab) > len(vocab) // 10 else "▁"

        def word_of(t: str) -> str | None:
            return t[1:] if t.startswith(marker) else None
    out = []
    for token, i in sorted(vocab.items(), key=lambda kv: kv[1]):
        if token in special or (token.startswith("[") and token.endswith("]")):
            continue
        word = word_of(token)
        # Single non-ASCII characters are WordPiece's character alphabet (IPA symbols, kana,
        # CJK ideographs: 745 of all-MiniLM-L6-v2's entries), not words of the text.
        if word and is_real_word(word) and (len(word) > 1 or word.isascii()):
            out.append((int(i), word))
    return out


def lowercases(tokenizer: Any) -> bool:
    """Whether the tokenizer lower-cases its input (an uncased model)."""
    pieces = tokenizer("Word", add_special_tokens=False)["input_ids"]
    return pieces == tokenizer("word", add_special_tokens=False)["input_ids"]


def model_fingerprint(config: Any, tokenizer: Any) -> str:
    """A digest of a model's configuration and vocabulary: two models with the same
    fingerprint tokenize alike and have the same architecture (weights are checked apart,
    see :mod:`textdp.contextual_index`)."""
    cfg = {k: v for k, v in config.to_dict().items() if k not in _VOLATILE_CONFIG_KEYS}
    h = hashlib.sha256()
    h.update(json.dumps(cfg, sort_keys=True, default=str).encode("utf-8"))
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])
    h.update("\n".join(t for t, _ in vocab).encode("utf-8"))
    return h.hexdigest()[:16]


class ContextualEncoder:
    """Hidden states of one layer of a ``transformers`` encoder, pooled to words.

    Args:
        model: a local model folder or a hub name (``AutoModel`` + a fast ``AutoTokenizer``);
            ``None`` for the embedded all-MiniLM-L6-v2 (offline).
        layer: which hidden state: ``0`` the input embeddings, ``1`` (default) the first
            transformer layer, … ``num_hidden_layers`` the last.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"``.
        max_length: pieces per window including special tokens (default: the model's limit).
        stride: pieces shared by neighbouring windows of a long text (default: a quarter of
            the window).
        batch_tokens: padded positions per forward pass.
        precision: ``"auto"`` (see the module docstring), ``"float32"``, ``"bfloat16"`` or
            ``"float16"`` (GPU only): the autocast type of the forward pass.

    The configuration and tokenizer load (and the arguments are checked) here; the weights
    load on first use.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        layer: int = DEFAULT_LAYER,
        device: str | torch.device | None = "cpu",
        max_length: int | None = None,
        stride: int | None = None,
        batch_tokens: int = DEFAULT_BATCH_TOKENS,
        precision: str = "auto",
    ) -> None:
        if model is None:
            from textdp.defaults import transformer_path

            model = transformer_path()
        if not isinstance(model, (str, os.PathLike)) or not os.fspath(model):
            raise ValueError(f"model must be a model folder or hub name, got {model!r}")
        self.model_name = os.fspath(model)
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or layer < 0:
            raise ValueError(f"layer must be an integer >= 0 (0 = input embeddings), got "
                             f"{layer!r}")
        self.layer = int(layer)
        self.device = resolve_device(device)
        self.batch_tokens = check_positive_int("batch_tokens", batch_tokens)
        self.precision = check_precision(precision, self.device)
        self.config = load_config(self.model_name)
        n_layers = getattr(self.config, "num_hidden_layers", None)
        if n_layers is not None and self.layer > n_layers:
            raise ValueError(f"layer must be between 0 and {n_layers} for model "
                             f"{model_label(self.model_name)!r}, got {self.layer}")
        self._tokenizer: Any = None
        self._model: Any = None
        self._fingerprint: str | None = None
        limit = window_limit(self.config, self.tokenizer)
        if max_length is not None:
            max_length = check_positive_int("max_length", max_length)
            if not 8 <= max_length <= limit:
                raise ValueError(f"max_length must be between 8 and {limit} for this model, "
                                 f"got {max_length}")
        self.max_length = max_length or limit
        if stride is None:
            stride = self.max_length // 4
        if isinstance(stride, bool) or not isinstance(stride, int) or \
                not 0 <= stride < self.max_length // 2:
            raise ValueError(f"stride must be an integer in [0, {self.max_length // 2}) "
                             f"(pieces shared by neighbouring windows), got {stride!r}")
        self.stride = stride

    # ------------------------------------------------------------------ loading
    @property
    def tokenizer(self) -> Any:
        """The model's fast tokenizer (loaded on first use, shared in the process)."""
        if self._tokenizer is None:
            self._tokenizer = _tokenizer(self.model_name)
        return self._tokenizer

    @property
    def model(self) -> Any:
        """The encoder truncated after ``layer`` (loaded on first use, on ``device``; shared
        by the encoders of the process with the same model, layer and device)."""
        if self._model is None:
            self._model = _truncated_model(self.model_name, self.layer, str(self.device))
        return self._model

    @property
    def dim(self) -> int:
        """Dimension of the vectors."""
        return int(self.config.hidden_size)

    def fingerprint(self) -> str:
        """See :func:`model_fingerprint` (computed once)."""
        if self._fingerprint is None:
            self._fingerprint = model_fingerprint(self.config, self.tokenizer)
        return self._fingerprint

    @property
    def lowercases(self) -> bool:
        """Whether the model is uncased (its tokenizer lower-cases text)."""
        return lowercases(self.tokenizer)

    def compute_dtype(self, precision: str | None = None) -> torch.dtype:
        """The autocast type of a forward pass in ``precision`` (default: the encoder's;
        :func:`textdp.precision.compute_dtype`)."""
        return compute_dtype(precision or self.precision, self.device)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the settings only; the model reloads in the receiving process."""
        state = dict(self.__dict__)
        state.update(_tokenizer=None, _model=None, _fingerprint=None)
        return state

    def __repr__(self) -> str:
        return (f"ContextualEncoder(model={model_label(self.model_name)!r}, "
                f"layer={self.layer}, device={str(self.device)!r}, "
                f"precision={self.precision!r})")

    # ------------------------------------------------------------------ encoding
    def encode_spans(self, texts: Sequence[str], spans: Sequence[np.ndarray], *,
                     precision: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Vectors of the words at ``spans`` (character offsets) in ``texts``.

        Args:
            texts: the texts.
            spans: per text, an integer array ``(n_i, 2)`` of ``[start, end)`` character
                offsets, sorted and non-overlapping (spaCy tokens are).
            precision: this call's forward-pass precision (default: the encoder's).

        Returns:
            ``(vectors, found)``: ``(Σ n_i, dim)`` float32 vectors in text and span order on
            the encoder's device, and a bool mask, false for a span that no piece overlaps
            (an empty span, or characters the tokenizer drops), whose vector is zero.
        """
        if len(spans) != len(texts):
            raise ValueError(f"spans has {len(spans)} entries for {len(texts)} texts")
        starts, ends, base = global_spans(texts, spans)
        n_words = len(starts)
        out = torch.zeros((n_words, self.dim), dtype=torch.float32, device=self.device)
        found = torch.zeros(n_words, dtype=torch.bool, device=self.device)
        if n_words == 0 or not texts:
            return out, found
        piece_vecs, piece_starts, piece_ends = self._piece_states(
            texts, base, self.compute_dtype(precision))
        # Piece → word pairs: the words whose characters the piece overlaps (usually one; a
        # piece spanning two spaCy tokens, like "cannot" → "can" + "not", counts for both).
        lo = np.searchsorted(ends, piece_starts, side="right")
        hi = np.searchsorted(starts, piece_ends, side="left")
        counts = np.maximum(hi - lo, 0)
        piece_of_pair = np.repeat(np.arange(len(lo)), counts)
        first = np.cumsum(counts) - counts
        word_of_pair = lo[piece_of_pair] + (np.arange(len(piece_of_pair)) -
                                            first[piece_of_pair])
        pieces = torch.from_numpy(piece_of_pair).to(self.device)
        words = torch.from_numpy(word_of_pair).to(self.device)
        out.index_add_(0, words, piece_vecs.index_select(0, pieces))
        n = torch.bincount(words, minlength=n_words).to(out.dtype)
        found = n > 0
        out /= n.clamp_min(1.0)[:, None]
        return out, found

    def _piece_states(self, texts: Sequence[str], base: np.ndarray, dtype: torch.dtype
                      ) -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
        """Hidden states of every piece (one window each) and its global character span."""
        tok = self.tokenizer
        enc = tok(list(texts), add_special_tokens=True, truncation=True,
                  max_length=self.max_length, stride=self.stride,
                  return_overflowing_tokens=True, return_offsets_mapping=True,
                  return_special_tokens_mask=True, split_special_tokens=True,
                  padding="longest", return_tensors="np")
        ids = enc["input_ids"]
        attention = enc["attention_mask"].astype(bool)
        offsets = enc["offset_mapping"].astype(np.int64)
        sample = np.asarray(enc["overflow_to_sample_mapping"], dtype=np.int64) \
            if "overflow_to_sample_mapping" in enc else np.arange(len(ids))
        keep = attention & ~enc["special_tokens_mask"].astype(bool)
        if len(ids) > len(texts):  # some text has several windows
            keep &= _max_context(keep, offsets[:, :, 0], sample, base)
        lengths = attention.sum(axis=1)
        order = np.argsort(lengths, kind="stable")
        vecs: list[torch.Tensor] = []
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        model = self.model
        with torch.inference_mode(), torch.autocast(self.device.type, dtype=dtype,
                                                    enabled=dtype != torch.float32):
            for chunk in chunk_rows_by_tokens(order, lengths, self.batch_tokens):
                width = int(lengths[chunk].max())
                chunk_keep = keep[chunk, :width]
                r, c = np.nonzero(chunk_keep)
                if len(r) == 0:
                    continue
                input_ids = torch.from_numpy(ids[chunk, :width]).to(self.device)
                mask = torch.from_numpy(attention[chunk, :width]).to(self.device)
                states = model(input_ids=input_ids, attention_mask=mask,
                               output_hidden_states=True).hidden_states[self.layer]
                vecs.append(states[torch.from_numpy(r).to(self.device),
                                   torch.from_numpy(c).to(self.device)].float())
                rows.append(chunk[r])
                cols.append(c)
        if not vecs:
            empty = np.zeros(0, dtype=np.int64)
            return torch.zeros((0, self.dim), device=self.device), empty, empty
        row = np.concatenate(rows)
        col = np.concatenate(cols)
        shift = base[sample[row]]
        return torch.cat(vecs), offsets[row, col, 0] + shift, offsets[row, col, 1] + shift


@functools.lru_cache(maxsize=4)
def _tokenizer(model: str) -> Any:
    from transformers import AutoTokenizer

    with quiet_transformers():
        try:
            tok = AutoTokenizer.from_pretrained(model)
        except (OSError, ValueError) as err:
            raise ValueError(f"model {model!r}: no tokenizer could be loaded "
                             f"({err.__class__.__name__})") from None
    if not getattr(tok, "is_fast", False):
        raise ValueError(f"model {model!r} has no fast tokenizer: character offsets are needed "
                         "to align pieces to words")
    return tok


# Models are read-only at inference, so the privatizers, components and indexes of a process
# that name the same model, layer and device share one copy.
@functools.lru_cache(maxsize=4)
def _truncated_model(model: str, layer: int, device: str) -> Any:
    from transformers import AutoModel

    config = load_config(model)
    if getattr(config, "num_hidden_layers", None) is not None:
        config.num_hidden_layers = max(1, layer)
    with quiet_transformers():
        loaded = AutoModel.from_pretrained(model, config=config)
    return loaded.to(torch.device(device)).eval()


def load_config(model: str) -> Any:
    """A model's ``transformers`` configuration; ``ValueError`` naming the model when there
    is none (a wrong folder, or a hub name neither cached nor reachable)."""
    from transformers import AutoConfig

    with quiet_transformers():
        try:
            return AutoConfig.from_pretrained(model)
        except (OSError, ValueError) as err:
            raise ValueError(f"model {model!r} could not be loaded: give a local model folder "
                             f"or a hub name that is cached or reachable "
                             f"({err.__class__.__name__})") from None


def window_limit(config: Any, tokenizer: Any) -> int:
    """Pieces per window, special tokens included: the tokenizer's limit, else the position
    table's (RoBERTa-style models offset positions by the padding index, hence the margin)."""
    limit = getattr(tokenizer, "model_max_length", None)
    positions = getattr(config, "max_position_embeddings", None)
    if not isinstance(limit, int) or limit > 1_000_000:
        limit = (positions - 2) if positions else 512
    return int(min(limit, positions)) if positions else int(limit)


def global_spans(texts: Sequence[str], spans: Sequence[np.ndarray]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Spans of all texts on one character axis (text ``i`` starts at ``base[i]``, with a gap
    of one character between texts so no piece of one text overlaps a word of another);
    ``ValueError`` naming the text whose spans are not sorted, non-overlapping and inside it."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    base = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64)
    arrays = []
    for i, s in enumerate(spans):
        a = np.asarray(s, dtype=np.int64).reshape(-1, 2)
        if len(a) and (a.min() < 0 or a[:, 1].max() > lengths[i] or (a[:, 1] < a[:, 0]).any()
                       or (a[1:, 0] < a[:-1, 1]).any()):
            raise ValueError(f"spans of text {i} must be sorted, non-overlapping [start, end) "
                             f"character offsets within the text")
        arrays.append(a + base[i])
    flat = np.concatenate(arrays) if arrays else np.zeros((0, 2), dtype=np.int64)
    return flat[:, 0].copy(), flat[:, 1].copy(), base


def _max_context(keep: np.ndarray, piece_starts: np.ndarray, sample: np.ndarray,
                 base: np.ndarray) -> np.ndarray:
    """Of the windows that hold the same piece, keep the one where the piece has the most
    context on its shorter side (ties: the earlier window)."""
    rows, width = keep.shape
    pos = np.arange(width)[None, :]
    first = np.where(keep.any(axis=1), keep.argmax(axis=1), 0)[:, None]
    last = (width - 1 - keep[:, ::-1].argmax(axis=1))[:, None]
    context = np.minimum(pos - first, last - pos)
    r, c = np.nonzero(keep)
    key = base[sample[r]] + piece_starts[r, c]
    score = context[r, c] * (rows + 1) + (rows - r)  # ties broken by the earlier window
    order = np.lexsort((-score, key))
    best = np.zeros(len(r), dtype=bool)
    best[order[np.r_[True, key[order][1:] != key[order][:-1]]]] = True
    out = np.zeros_like(keep)
    out[r[best], c[best]] = True
    return out


def chunk_rows_by_tokens(order: np.ndarray, lengths: np.ndarray, budget: int
                      ) -> Iterator[np.ndarray]:
    """Consecutive runs of ``order`` (rows sorted by length) whose padded size
    (rows × longest) stays within ``budget`` (at least one row each)."""
    start = 0
    n = len(order)
    while start < n:
        stop = start + 1
        while stop < n and (stop + 1 - start) * int(lengths[order[stop]]) <= budget:
            stop += 1
        yield order[start:stop]
        start = stop
