"""Privatize at the tokenizer: before text becomes ids, or on the ids themselves.

* :class:`PrivatizingTokenizer` wraps any ``transformers`` tokenizer: every text it is given
  (a string, a list of strings, pairs, targets, pre-split words) goes through a textdp
  privatizer first, so the ids it returns never encode the original targets.
* :func:`privatize_input_ids` substitutes word pieces in a model's own vocabulary: the input
  embedding row of each piece gets calibrated noise (or an exponential-mechanism draw) and the
  nearest row of the same matrix is written back. The vocabulary is public (rule 1 of
  docs/architecture.md);
  special tokens and padding are never touched; ε is per replaced word piece.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms import MechanismSpec, create_mechanism
from textdp.privatizer import Privatizer as CorePrivatizer
from textdp.rng import RandomSource

# Tokenizer methods whose text arguments are privatized before delegating.
_TEXT_ARGUMENTS = ("text", "text_pair", "text_target", "text_pair_target")
# Methods that take text in a shape this wrapper does not privatize: refused, never passed on.
_REFUSED = frozenset({"apply_chat_template", "prepare_seq2seq_batch", "_call_one",
                      "_encode_plus", "_batch_encode_plus"})


def _core_of(privatizer: Any) -> CorePrivatizer:
    """The core privatizer behind a textdp or hf_textdp privatizer (default: embedded)."""
    if privatizer is None:
        return CorePrivatizer()
    if isinstance(privatizer, CorePrivatizer):
        return privatizer
    core = getattr(privatizer, "core", None)
    if isinstance(core, CorePrivatizer):
        return core
    raise ValueError("privatizer must be a textdp.Privatizer or hf_textdp.Privatizer, got "
                     f"{type(privatizer).__name__}")


class PrivatizingTokenizer:
    """A tokenizer that privatizes its text inputs first; everything else passes through.

    ``__call__``, ``encode``, ``encode_plus``, ``batch_encode_plus`` and ``tokenize``
    privatize ``text``, ``text_pair``, ``text_target`` and ``text_pair_target`` (strings,
    lists of strings, or pre-split words with ``is_split_into_words=True``) and then call the
    wrapped tokenizer. ``decode``, ``batch_decode``, ``save_pretrained`` and every other
    attribute are the wrapped tokenizer's (a saved tokenizer holds no privacy state). Methods
    that take text in other shapes (``apply_chat_template``) are refused rather than passed on
    unprivatized: privatize such text with the privatizer first.

    Args:
        tokenizer: any ``transformers`` tokenizer.
        privatizer: a :class:`textdp.Privatizer` or :class:`hf_textdp.Privatizer` (its core
            is used); ``None`` for the embedded defaults.
    """

    def __init__(self, tokenizer: Any, privatizer: Any = None) -> None:
        if tokenizer is None or not callable(tokenizer):
            raise ValueError("tokenizer must be a callable transformers tokenizer")
        self.tokenizer = tokenizer
        self.privatizer = _core_of(privatizer)

    # ------------------------------------------------------------------ privatized entry points
    def __call__(self, text: Any = None, text_pair: Any = None, text_target: Any = None,
                 text_pair_target: Any = None, **kwargs: Any) -> Any:
        """Privatize the texts, then tokenize them exactly as the wrapped tokenizer would."""
        if text_target is not None:
            kwargs["text_target"] = text_target
        if text_pair_target is not None:
            kwargs["text_pair_target"] = text_pair_target
        text, text_pair, kwargs = self._privatize_arguments(text, text_pair, kwargs)
        return self.tokenizer(text, text_pair, **kwargs)

    def encode(self, text: Any, text_pair: Any = None, *args: Any, **kwargs: Any) -> Any:
        text, text_pair, kwargs = self._privatize_arguments(text, text_pair, kwargs)
        return self.tokenizer.encode(text, text_pair, *args, **kwargs)

    def encode_plus(self, text: Any, text_pair: Any = None, *args: Any, **kwargs: Any) -> Any:
        text, text_pair, kwargs = self._privatize_arguments(text, text_pair, kwargs)
        return self.tokenizer.encode_plus(text, text_pair, *args, **kwargs)

    def batch_encode_plus(self, batch_text_or_text_pairs: Any, *args: Any, **kwargs: Any) -> Any:
        items = list(batch_text_or_text_pairs)
        split = bool(kwargs.get("is_split_into_words", False))
        if items and isinstance(items[0], tuple):
            firsts = self._privatize([a for a, _ in items], split)
            seconds = self._privatize([b for _, b in items], split)
            items = list(zip(firsts, seconds))
        else:
            items = self._privatize(items, split)
        return self.tokenizer.batch_encode_plus(items, *args, **kwargs)

    def tokenize(self, text: str, pair: str | None = None, *args: Any, **kwargs: Any
                 ) -> list[str]:
        return self.tokenizer.tokenize(self._privatize(text, False),
                                       self._privatize(pair, False), *args, **kwargs)

    # ------------------------------------------------------------------ passthrough
    def decode(self, *args: Any, **kwargs: Any) -> Any:
        return self.tokenizer.decode(*args, **kwargs)

    def batch_decode(self, *args: Any, **kwargs: Any) -> Any:
        return self.tokenizer.batch_decode(*args, **kwargs)

    def save_pretrained(self, *args: Any, **kwargs: Any) -> Any:
        return self.tokenizer.save_pretrained(*args, **kwargs)

    def __len__(self) -> int:
        return len(self.tokenizer)

    def __getattr__(self, name: str) -> Any:
        # Only called for names not found on the wrapper; guard the wrapper's own fields so
        # unpickling (which runs before __init__) cannot recurse.
        if name in ("tokenizer", "privatizer") or name.startswith("__"):
            raise AttributeError(name)
        if name in _REFUSED:
            raise AttributeError(f"PrivatizingTokenizer does not privatize {name}(); privatize "
                                 f"the text with the privatizer first, then call "
                                 f"tokenizer.tokenizer.{name}()")
        return getattr(self.tokenizer, name)

    def __repr__(self) -> str:
        return f"PrivatizingTokenizer({type(self.tokenizer).__name__}, {self.privatizer!r})"

    # ------------------------------------------------------------------ internals
    def _privatize_arguments(self, text: Any, text_pair: Any, kwargs: dict[str, Any]
                             ) -> tuple[Any, Any, dict[str, Any]]:
        split = bool(kwargs.get("is_split_into_words", False))
        kwargs = dict(kwargs)
        for name in _TEXT_ARGUMENTS[2:]:
            if kwargs.get(name) is not None:
                kwargs[name] = self._privatize(kwargs[name], split)
        return self._privatize(text, split), self._privatize(text_pair, split), kwargs

    def _privatize(self, value: Any, split: bool) -> Any:
        """Privatized copy of a text argument in the same shape (``None`` stays ``None``)."""
        if value is None:
            return None
        if split:
            # One pre-split text (list of words) or a batch of them.
            if value and all(isinstance(w, str) for w in value):
                return self._privatize_words([list(value)])[0]
            return self._privatize_words([list(ws) for ws in value])
        if isinstance(value, str):
            return self.privatizer.privatize([value])[0].text
        if isinstance(value, (list, tuple)):
            return [r.text for r in self.privatizer.privatize(list(value))]
        raise ValueError(f"text must be a string or a list of strings, got "
                         f"{type(value).__name__}")

    def _privatize_words(self, batch: list[list[str]]) -> list[list[str]]:
        from spacy.tokens import Doc

        core = self.privatizer
        for i, words in enumerate(batch):
            if not all(isinstance(w, str) for w in words):
                raise ValueError(f"row {i}: pre-split words must be strings")
        live = [i for i, ws in enumerate(batch) if ws]
        out = [list(ws) for ws in batch]
        if live:
            docs = [Doc(core.nlp.vocab, words=batch[i]) for i in live]
            # One word per word given: each token of a place is a target of its own.
            for i, (words, _report) in zip(live, core.privatize_docs(docs, whole_units=False)):
                out[i] = words
        return out


# ---------------------------------------------------------------------- word-piece substitution
def _embedding_matrix(embeddings: Any) -> torch.Tensor:
    """The ``(V, d)`` input-embedding matrix of a tensor, ``nn.Embedding`` or model."""
    if isinstance(embeddings, torch.Tensor):
        weight = embeddings
    elif isinstance(embeddings, torch.nn.Embedding):
        weight = embeddings.weight
    elif hasattr(embeddings, "get_input_embeddings"):
        weight = embeddings.get_input_embeddings().weight
    else:
        raise ValueError("embeddings must be a (V, d) tensor, an nn.Embedding or a model with "
                         f"get_input_embeddings(), got {type(embeddings).__name__}")
    if weight.ndim != 2 or weight.shape[0] < 2 or weight.shape[1] < 1:
        raise ValueError(f"embeddings must be a (V, d) matrix, got shape {tuple(weight.shape)}")
    return weight.detach()


def _id_list(name: str, ids: Any, vocab_size: int) -> list[int]:
    if hasattr(ids, "all_special_ids"):  # a tokenizer
        ids = ids.all_special_ids
    if isinstance(ids, torch.Tensor):
        ids = ids.flatten().tolist()
    out = sorted({int(i) for i in ids})
    if out and (out[0] < 0 or out[-1] >= vocab_size):
        raise ValueError(f"{name} must be ids in [0, {vocab_size}), got {out[0]}..{out[-1]}")
    return out


class InputIdPrivatizer:
    """Word-piece substitution in a model's own vocabulary, reusable across batches.

    Built once per embedding matrix (the mechanism's precomputation and the neighbour index
    live on ``device``); call it on ``input_ids`` as often as needed. See
    :func:`privatize_input_ids` for the arguments.
    """

    def __init__(
        self,
        embeddings: Any,
        epsilon: float,
        mechanism: MechanismSpec = "mlaplace",
        *,
        special_ids: Iterable[int] | Any,
        candidate_ids: Iterable[int] | None = None,
        seed: int | None = None,
        device: str | torch.device | None = None,
    ) -> None:
        self.mechanism = create_mechanism(mechanism, epsilon)
        self.rng = RandomSource(seed)
        weight = _embedding_matrix(embeddings)
        vocab = int(weight.shape[0])
        if special_ids is None:
            raise ValueError("special_ids is required (e.g. tokenizer.all_special_ids): special "
                             "tokens and padding must never be replaced")
        special = _id_list("special_ids", special_ids, vocab)
        allowed = range(vocab) if candidate_ids is None else \
            _id_list("candidate_ids", candidate_ids, vocab)
        # Candidates: public vocabulary rows, never a special token (rule 1; and no [PAD]
        # or [SEP] may appear where a word piece was).
        cand = np.setdiff1d(np.asarray(list(allowed), dtype=np.int64),
                            np.asarray(special, dtype=np.int64))
        if cand.size == 0:
            raise ValueError("no candidate ids are left after removing special_ids")
        self.device = torch.device(device) if device is not None else weight.device
        self.weight = weight.float().to(self.device)
        cand_vectors = self.weight[torch.from_numpy(cand).to(self.device)].cpu().numpy()
        self.index = NeighbourIndex(cand_vectors, backend="exact", device=self.device)
        self.mechanism.prepare(cand_vectors, self.index, self.rng)
        self.candidate_ids = torch.from_numpy(cand).to(self.device)
        self.special_ids = torch.as_tensor(special, dtype=torch.int64, device=self.device)

    @property
    def epsilon(self) -> float:
        """ε per replaced word piece."""
        return self.mechanism.epsilon

    def target_mask(self, input_ids: torch.Tensor,
                    attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        """``True`` where a piece will be replaced: not special, not padding. Its sum is the
        number of pieces that each cost ε (the composed bound is that count × ε)."""
        ids = input_ids.to(self.device)
        mask = ~torch.isin(ids, self.special_ids)
        if attention_mask is not None:
            if tuple(attention_mask.shape) != tuple(input_ids.shape):
                raise ValueError(f"attention_mask shape {tuple(attention_mask.shape)} does not "
                                 f"match input_ids shape {tuple(input_ids.shape)}")
            mask &= attention_mask.to(self.device) != 0
        return mask

    def __call__(self, input_ids: torch.Tensor,
                 attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        """New ids of the same shape, dtype and device; special tokens and padding kept."""
        if not isinstance(input_ids, torch.Tensor):
            input_ids = torch.as_tensor(input_ids)
        if input_ids.dtype.is_floating_point or input_ids.dtype == torch.bool:
            raise ValueError(f"input_ids must be an integer tensor, got {input_ids.dtype}")
        vocab = self.weight.shape[0]
        if input_ids.numel() and (int(input_ids.min()) < 0 or int(input_ids.max()) >= vocab):
            raise ValueError(f"input_ids must lie in [0, {vocab}) (the embedding rows)")
        ids = input_ids.to(self.device)
        mask = self.target_mask(ids, attention_mask)
        out = ids.clone()
        if bool(mask.any()):
            self.rng.next_batch()
            uniq, inverse = torch.unique(ids[mask], return_inverse=True)
            with torch.inference_mode():
                drawn = self.mechanism.sample(self.weight[uniq], inverse, self.rng)
            out[mask] = self.candidate_ids[drawn.to(self.device)].to(out.dtype)
        return out.to(input_ids.device)

    def __repr__(self) -> str:
        return (f"InputIdPrivatizer(mechanism={self.mechanism!r}, "
                f"candidates={len(self.candidate_ids)}, device={self.device})")


def privatize_input_ids(
    input_ids: torch.Tensor,
    embeddings: Any,
    epsilon: float,
    mechanism: MechanismSpec = "mlaplace",
    *,
    special_ids: Iterable[int] | Any,
    attention_mask: torch.Tensor | None = None,
    seed: int | None = None,
    candidate_ids: Sequence[int] | None = None,
) -> torch.Tensor:
    """Replace every non-special, non-padding word piece by a DP draw from the vocabulary.

    Each piece's input-embedding row gets the mechanism's noise (or an exponential draw) and
    the nearest row of the same matrix, on the device where ``input_ids`` are, is written back.
    ε is per replaced piece (metric DP in the embedding space); the composed bound of a
    sequence is ε × the number of replaced pieces (:meth:`InputIdPrivatizer.target_mask`).

    Args:
        input_ids: integer tensor of any shape (usually ``(batch, seq)``).
        embeddings: the model's input-embedding matrix ``(V, d)`` (or the ``nn.Embedding``, or
            the model itself).
        epsilon: ε per replaced word piece.
        mechanism: a registered mechanism name or ``{"name": ..., **args}``.
        special_ids: ids never replaced and never written (``tokenizer.all_special_ids``, or
            the tokenizer itself). Required.
        attention_mask: positions where it is 0 (padding) are never replaced; unchanged.
        seed: fixed seed for reproducible output; NOT private against anyone who knows it.
        candidate_ids: restrict the pieces that may be written (default: every non-special id).

    Returns:
        New ids with the shape, dtype and device of ``input_ids``.

    For repeated calls build an :class:`InputIdPrivatizer` once and call it per batch.
    """
    device = input_ids.device if isinstance(input_ids, torch.Tensor) else None
    return InputIdPrivatizer(embeddings, epsilon, mechanism, special_ids=special_ids,
                             candidate_ids=candidate_ids, seed=seed,
                             device=device)(input_ids, attention_mask)
