"""``dpmlm``: DP-MLM (Meisenbacher, Chevli, Vladika & Matthes, Findings of ACL 2024).

Each target word is rewritten by a masked-language model that sees its text:

1. the word (all its pieces) is replaced by one mask token. As in the paper's
   contextualization, the model reads the original text and the masked text as a pair
   (``[CLS] text [SEP] masked text [SEP]`` for BERT; ``concat=False`` reads the masked text
   alone); a text longer than the model's window is cut to a window centred on the target;
2. the MLM's logits at the mask are clipped to ``[clip_min, clip_max]`` = [a, b];
3. the replacement is drawn over the model's whole-word vocabulary entries (never ``##``
   pieces, :func:`textdp.contextual.whole_word_vocabulary`) with probability
   ∝ exp(ε · logit / (2(b − a))).

The draw is the Gumbel-max sampler of the other exponential mechanisms
(:func:`textdp.mechanisms.exponential.sample_softmax_rows`): an inverse CDF over float64
totals could never draw a candidate whose probability fell below the totals' rounding, which
from ε ≈ 75 broke pure ε-DP (probability 0 in one context, 0.49 in another).

This is the exponential mechanism with utility in [a, b], whose sensitivity is b − a for any
change of the input, so each replaced token is ε-DP (pure DP, not metric DP) with respect to
its whole text, and the n replaced tokens of a text compose to n·ε (what the report states).
The candidates are the model's vocabulary, public by construction (docs/architecture.md rule 1).

The default clipping range is the paper's, calibrated on ``roberta-base`` logits; for another
model, pass its own range (e.g. percentiles of its mask logits on public text): the guarantee
holds for any range, only the utility depends on it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch

from textdp.contextual import (
    chunk_rows_by_tokens,
    global_spans,
    load_config,
    whole_word_vocabulary,
    window_limit,
)
from textdp.mechanisms.base import ContextMechanism, register_mechanism
from textdp.mechanisms.exponential import sample_softmax_rows
from textdp.model_packages import quiet_transformers
from textdp.rng import RandomSource
from textdp.validation import check_positive_int

# The clipping range of the paper's implementation (github.com/sjmeis/DPMLM), roberta-base.
PAPER_CLIP_MIN = -3.2093127
PAPER_CLIP_MAX = 16.304797887802124
DEFAULT_BATCH_TOKENS = 8_192


@register_mechanism
class DPMLM(ContextMechanism):
    """Mask the word, draw a whole word from the MLM's clipped logits (exponential mechanism).

    Args:
        epsilon: ε per token (pure ε-DP).
        model: a masked-language model (``AutoModelForMaskedLM``) folder or hub name. Required:
            none of textdp's embedded defaults has an MLM head.
        clip_min, clip_max: the logit range [a, b]; the sensitivity is b − a.
        concat: read the original text beside the masked one (the paper's
            contextualization); ``False`` reads the masked text alone.
        max_length: pieces per model input (default: the model's limit).
        batch_tokens: padded positions per forward pass.
    """

    name = "dpmlm"
    description = ("DP-MLM: mask the word, draw a whole word ∝ exp(ε·clip(logit)/(2(b−a))) from "
                   "a masked LM")
    guarantee = ("ε-DP per token (pure DP: exponential mechanism on MLM logits clipped to "
                 "[a, b], sensitivity b − a)")

    def __init__(self, epsilon: float, model: str | os.PathLike[str] | None = None,
                 clip_min: float = PAPER_CLIP_MIN, clip_max: float = PAPER_CLIP_MAX,
                 concat: bool = True, max_length: int | None = None,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS) -> None:
        super().__init__(epsilon)
        if model is None:
            raise ValueError("dpmlm needs model=: the folder or hub name of a masked-language "
                             "model (AutoModelForMaskedLM, e.g. 'roberta-base'); none of "
                             "textdp's embedded defaults has an MLM head")
        if not isinstance(model, (str, os.PathLike)) or not os.fspath(model):
            raise ValueError(f"model must be a masked-language model folder or hub name, got "
                             f"{model!r}")
        for name, value in (("clip_min", clip_min), ("clip_max", clip_max)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if not clip_min < clip_max:
            raise ValueError(f"clip_min must be < clip_max (the sensitivity is clip_max − "
                             f"clip_min > 0), got [{clip_min}, {clip_max}]")
        if not isinstance(concat, bool):
            raise ValueError(f"concat must be true or false, got {concat!r}")
        self.model_name = os.fspath(model)
        self.clip_min = float(clip_min)
        self.clip_max = float(clip_max)
        self.concat = concat
        self.batch_tokens = check_positive_int("batch_tokens", batch_tokens)
        self.max_length = None if max_length is None else \
            check_positive_int("max_length", max_length)
        self.config = load_config(self.model_name)  # checks the model before any text is read
        self._model: Any = None

    @property
    def sensitivity(self) -> float:
        """b − a: how much one input can move any candidate's clipped logit."""
        return self.clip_max - self.clip_min

    def params(self) -> dict[str, Any]:
        # Every constructor argument: a pickled Privatizer rebuilds the mechanism from these,
        # and max_length changes the window the model reads (so the output distribution).
        return {"epsilon": self.epsilon, "model": self.model_name, "clip_min": self.clip_min,
                "clip_max": self.clip_max, "concat": self.concat,
                "max_length": self.max_length, "batch_tokens": self.batch_tokens}

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the settings only; the model reloads in the receiving process."""
        state = dict(self.__dict__)
        for key in ("_model", "tokenizer", "_layout", "_candidate_ids", "words", "_free"):
            state.pop(key, None)
        state["_model"] = None
        return state

    # ------------------------------------------------------------------ loading
    @property
    def prepared(self) -> bool:
        return self._model is not None

    def load(self, device: torch.device) -> None:
        if self._model is not None and self.device == device:
            return
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        with quiet_transformers():
            try:
                tok = AutoTokenizer.from_pretrained(self.model_name)
                model = AutoModelForMaskedLM.from_pretrained(self.model_name)
            except (OSError, ValueError) as err:
                raise ValueError(f"model {self.model_name!r} could not be loaded as a masked-"
                                 f"language model ({err})") from None
        if not getattr(tok, "is_fast", False) or tok.mask_token_id is None:
            raise ValueError(f"model {self.model_name!r} needs a fast tokenizer with a mask "
                             "token")
        limit = window_limit(self.config, tok)
        if self.max_length is not None and not 8 <= self.max_length <= limit:
            raise ValueError(f"max_length must be between 8 and {limit} for this model, got "
                             f"{self.max_length}")
        self.tokenizer = tok
        self.device = device
        self.window = self.max_length or limit
        self._layout = _SpecialLayout(tok)
        vocab = whole_word_vocabulary(tok)
        if not vocab:
            raise ValueError(f"model {self.model_name!r} has no whole-word vocabulary entries")
        self._candidate_ids = torch.tensor([i for i, _ in vocab], dtype=torch.int64,
                                           device=device)
        self.words = [w for _, w in vocab]
        self._model = model.to(device).eval()
        # Draws for targets over a budget: the model's distribution at a lone mask, which
        # depends on no text.
        lone = self._layout.single([tok.mask_token_id])
        self._free = next(self._scores([lone], [self._layout.single_mask_position(0)],
                                       [len(lone)]))[1][0]

    # ------------------------------------------------------------------ drawing
    def probabilities(self, texts: Sequence[str], spans: Sequence[np.ndarray]) -> torch.Tensor:
        """``(Σ n_i, len(words))`` float64 probabilities of every candidate per target (the
        distribution :meth:`sample_in_context` draws from; for audits and tests)."""
        out = []
        for rows, scores in self._target_scores(texts, spans):
            out.append((rows, torch.softmax(scores, dim=1)))
        n = sum(len(r) for r, _ in out)
        probs = torch.empty((n, len(self.words)), dtype=torch.float64, device=self.device)
        for rows, p in out:
            probs[torch.as_tensor(rows, device=self.device)] = p
        return probs

    def sample_in_context(self, texts: Sequence[str], spans: Sequence[np.ndarray],
                          rng: RandomSource) -> list[str]:
        self._require_loaded()
        n = sum(len(np.asarray(s).reshape(-1, 2)) for s in spans)
        out = [""] * n
        for rows, scores in self._target_scores(texts, spans):
            ids = sample_softmax_rows(scores, rng)
            for r, i in zip(rows, ids.tolist()):
                out[r] = self.words[i]
        return out

    def sample_free(self, n: int, rng: RandomSource) -> list[str]:
        self._require_loaded()
        if n == 0:
            return []
        ids = sample_softmax_rows(self._free.expand(n, -1), rng)
        return [self.words[i] for i in ids.tolist()]

    # ------------------------------------------------------------------ internals
    def _require_loaded(self) -> None:
        if self._model is None:
            raise RuntimeError("dpmlm was used before load()")

    def _target_scores(self, texts: Sequence[str], spans: Sequence[np.ndarray]
                       ) -> Iterator[tuple[np.ndarray, torch.Tensor]]:
        """Per forward chunk: target numbers and their scaled, clipped logits (float64)."""
        self._require_loaded()
        global_spans(texts, spans)  # validates the spans
        yield from self._scores(*self._rows(texts, spans))

    def _rows(self, texts: Sequence[str], spans: Sequence[np.ndarray]
              ) -> tuple[list[list[int]], list[int], list[int]]:
        """One model input per target (its text with the target masked), the mask's position
        in it, and the length of its first segment (for segment ids)."""
        enc = self.tokenizer(list(texts), add_special_tokens=False, return_offsets_mapping=True,
                             split_special_tokens=True)
        layout = self._layout
        mask_id = self.tokenizer.mask_token_id
        budget = (self.window - layout.pair_specials - 1) // 2 if self.concat else \
            self.window - layout.single_specials - 1
        rows: list[list[int]] = []
        positions: list[int] = []
        heads: list[int] = []
        for i, text_spans in enumerate(spans):
            ids = enc["input_ids"][i]
            offsets = np.asarray(enc["offset_mapping"][i], dtype=np.int64).reshape(-1, 2)
            for s, e in np.asarray(text_spans, dtype=np.int64).reshape(-1, 2).tolist():
                p0 = int(np.searchsorted(offsets[:, 1], s, side="right"))
                p1 = max(p0, int(np.searchsorted(offsets[:, 0], e, side="left")))
                n = min(len(ids), budget)
                # A window of n pieces centred on the target (never starting after it).
                w0 = max(0, min(p0 - max(0, n - (p1 - p0)) // 2, len(ids) - n))
                ctx = ids[w0:w0 + n]
                masked = [*ids[w0:p0], mask_id, *ids[p1:w0 + n]]
                if self.concat:
                    rows.append(layout.pair(ctx, masked))
                    heads.append(layout.pair_head(len(ctx)))
                    positions.append(heads[-1] + p0 - w0)
                else:
                    rows.append(layout.single(masked))
                    heads.append(len(rows[-1]))
                    positions.append(layout.single_mask_position(p0 - w0))
        return rows, positions, heads

    def _scores(self, rows: list[list[int]], positions: list[int], heads: list[int]
                ) -> Iterator[tuple[np.ndarray, torch.Tensor]]:
        """Per forward chunk of rows: their numbers and scaled, clipped candidate logits."""
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        order = np.argsort(lengths, kind="stable")
        pad = self.tokenizer.pad_token_id or 0
        scale = self.epsilon / (2.0 * self.sensitivity)
        with torch.inference_mode():
            for chunk in chunk_rows_by_tokens(order, lengths, self.batch_tokens):
                width = int(lengths[chunk].max())
                ids = np.full((len(chunk), width), pad, dtype=np.int64)
                attention = np.zeros((len(chunk), width), dtype=np.int64)
                types = np.full((len(chunk), width), self._layout.type_a, dtype=np.int64)
                for j, r in enumerate(chunk.tolist()):
                    ids[j, :lengths[r]] = rows[r]
                    attention[j, :lengths[r]] = 1
                    types[j, heads[r]:lengths[r]] = self._layout.type_b
                logits = _mask_logits(
                    self._model, torch.from_numpy(ids).to(self.device),
                    torch.from_numpy(attention).to(self.device),
                    torch.from_numpy(types).to(self.device) if self._layout.has_types else None,
                    torch.as_tensor([positions[r] for r in chunk.tolist()], device=self.device))
                clipped = logits.index_select(1, self._candidate_ids).double()
                yield chunk, clipped.clamp_(self.clip_min, self.clip_max).mul_(scale)


def _mask_logits(model: Any, ids: torch.Tensor, attention: torch.Tensor,
                 types: torch.Tensor | None, positions: torch.Tensor) -> torch.Tensor:
    """Vocabulary logits at one position per row. The MLM head runs on those positions only
    where the head is a known module (BERT's ``cls``, RoBERTa's ``lm_head``): a full
    vocabulary × length logit tensor per row would cost far more memory than the encoder."""
    inputs: dict[str, torch.Tensor] = {"input_ids": ids, "attention_mask": attention}
    if types is not None:
        inputs["token_type_ids"] = types
    rows = torch.arange(ids.shape[0], device=ids.device)
    head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
    base = getattr(model, "base_model", None)
    if head is not None and base is not None and base is not model:
        hidden = base(**inputs)[0]
        return head(hidden[rows, positions]).float()
    return model(**inputs).logits[rows, positions].float()


class _SpecialLayout:
    """Where a tokenizer puts its special tokens around one text or a pair of texts, read off
    its own encodings of short probe texts (works for BERT's ``[CLS] a [SEP] b [SEP]`` and
    RoBERTa's ``<s> a </s></s> b </s>`` alike), and the segment ids of the two parts."""

    def __init__(self, tok: Any) -> None:
        a = tok("a", add_special_tokens=False)["input_ids"]
        b = tok("b", add_special_tokens=False)["input_ids"]
        pair = tok("a", "b")
        p = pair["input_ids"]
        ia = _find(p, a, 0)
        ib = _find(p, b, ia + len(a))
        self.prefix, self.middle, self.suffix = p[:ia], p[ia + len(a):ib], p[ib + len(b):]
        s = tok("a")["input_ids"]
        i1 = _find(s, a, 0)
        self.prefix1, self.suffix1 = s[:i1], s[i1 + len(a):]
        self.pair_specials = len(self.prefix) + len(self.middle) + len(self.suffix)
        self.single_specials = len(self.prefix1) + len(self.suffix1)
        types = pair.get("token_type_ids")
        # Segment ids: the first part (with its leading and separating specials) gets the
        # first text's id, the rest the second's; models without them get zeros.
        self.has_types = types is not None and any(types)
        self.type_a = int(types[ia]) if self.has_types else 0
        self.type_b = int(types[ib]) if self.has_types else 0

    def pair(self, a: list[int], b: list[int]) -> list[int]:
        """``a`` and ``b`` as one model input."""
        return self.prefix + a + self.middle + b + self.suffix

    def pair_head(self, len_a: int) -> int:
        """Where the second part of a :meth:`pair` row starts."""
        return len(self.prefix) + len_a + len(self.middle)

    def single(self, a: list[int]) -> list[int]:
        """``a`` alone as one model input."""
        return self.prefix1 + a + self.suffix1

    def single_mask_position(self, offset: int) -> int:
        """Position of piece ``offset`` of a :meth:`single` row's text."""
        return len(self.prefix1) + offset


def _find(seq: list[int], sub: list[int], start: int) -> int:
    """First index ≥ ``start`` where ``sub`` occurs in ``seq``."""
    for i in range(start, len(seq) - len(sub) + 1):
        if seq[i:i + len(sub)] == sub:
            return i
    raise ValueError("the tokenizer's special-token layout could not be read")
