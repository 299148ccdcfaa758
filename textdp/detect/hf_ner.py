"""Detector from any Hugging Face ``transformers`` token-classification model.

The model runs through ``pipeline("token-classification", aggregation_strategy="simple",
stride=...)``: entities come back as character spans of the text, whole texts are covered
(long texts are cut into overlapping windows instead of being truncated, so a name after the
model's 512th word piece is still found), and CoNLL-style labels (``PER``, ``B-PER``, ``I-PER``)
become spaCy's ``PERSON`` through :func:`~textdp.detect.base.normalise_label`.

Character spans are mapped to token spans of the spaCy docs with
``doc.char_span(start, end, alignment_mode="expand")``: a span that covers part of a token
marks the whole token, so a name is never half replaced.

Select it with ``Privatizer(detector="hf:/path/to/model")`` or pass an :class:`HFNERDetector`.
Loading by hub name works for users with a network; the tests only use local folders.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from textdp.detect.base import Span, normalise_label
from textdp.detect.registry import register_detector

# tokenizers without a configured limit report a huge model_max_length; windows then use
# the model's position limit (or this, when the config has none).
_FALLBACK_MAX_LENGTH = 512


@register_detector("hf")
class HFNERDetector:
    """Marks entity spans with a ``transformers`` token-classification model.

    Args:
        model: a local folder or hub name of a token-classification model, or a loaded
            ``PreTrainedModel`` (e.g. ``AutoModelForTokenClassification``).
        tokenizer: a folder, hub name or loaded tokenizer; by default the model's own. It must
            be a fast tokenizer (character offsets are needed to align with spaCy tokens).
        stride: word pieces of overlap between the windows a long text is cut into; by default
            a quarter of the tokenizer's maximum length.
        batch_size: texts per forward pass.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"`` (CUDA when available).
        min_score: entities scored below this are ignored (0 keeps every prediction, the
            privacy-safe choice: a missed name is published unchanged).
    """

    def __init__(
        self,
        model: Any,
        *,
        tokenizer: Any = None,
        stride: int | None = None,
        batch_size: int = 16,
        device: str | None = "cpu",
        min_score: float = 0.0,
    ) -> None:
        if model is None or (isinstance(model, str) and not model.strip()):
            raise ValueError("HFNERDetector needs a model (a folder, hub name or loaded model)")
        if stride is not None and (isinstance(stride, bool) or not isinstance(stride, int)
                                   or stride < 0):
            raise ValueError(f"stride must be a non-negative integer or None, got {stride!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if not 0.0 <= float(min_score) <= 1.0:
            raise ValueError(f"min_score must be within [0, 1], got {min_score!r}")
        self.model = os.fspath(model) if isinstance(model, os.PathLike) else model
        self.tokenizer = os.fspath(tokenizer) if isinstance(tokenizer, os.PathLike) \
            else tokenizer
        self.stride = stride
        self.batch_size = batch_size
        self.device = device
        self.min_score = float(min_score)
        self._pipeline: Any = None

    # ------------------------------------------------------------------ lazy state
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the configuration only (the pipeline reloads in the receiving process);
        deterministic, so dataset fingerprints of a privatizer using it are stable."""
        return (_restore, (self.model, self.tokenizer, self.stride, self.batch_size,
                           self.device, self.min_score))

    @property
    def pipeline(self) -> Any:
        """The ``transformers`` token-classification pipeline (built on first use)."""
        if self._pipeline is None:
            self._pipeline = self._build()
        return self._pipeline

    def _build(self) -> Any:
        from transformers import AutoModelForTokenClassification, AutoTokenizer, pipeline

        from textdp.devices import resolve_device

        model = self.model
        if isinstance(model, str):
            model = AutoModelForTokenClassification.from_pretrained(model)
        tokenizer = self.tokenizer
        if tokenizer is None:
            tokenizer = self.model if isinstance(self.model, str) else model.name_or_path
        if isinstance(tokenizer, str):
            tokenizer = AutoTokenizer.from_pretrained(tokenizer)
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("HFNERDetector needs a fast tokenizer (character offsets)")
        limit = getattr(model.config, "max_position_embeddings", None) or _FALLBACK_MAX_LENGTH
        if not tokenizer.model_max_length or tokenizer.model_max_length > limit:
            tokenizer.model_max_length = min(limit, _FALLBACK_MAX_LENGTH)
        stride = self.stride if self.stride is not None else tokenizer.model_max_length // 4
        # Windows hold model_max_length pieces including [CLS]/[SEP]; the overlap must fit.
        stride = min(stride, tokenizer.model_max_length - tokenizer.num_special_tokens_to_add()
                     - 1)
        model.eval()
        return pipeline("token-classification", model=model, tokenizer=tokenizer,
                        aggregation_strategy="simple", stride=max(0, stride),
                        device=resolve_device(self.device))

    # ------------------------------------------------------------------ detection
    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        """Entity spans per doc, in token indices of that doc (end exclusive)."""
        out: list[list[Span]] = [[] for _ in docs]
        live = [i for i, doc in enumerate(docs) if doc.text.strip()]
        if not live:
            return out
        results = self.pipeline([docs[i].text for i in live], batch_size=self.batch_size)
        for i, entities in zip(live, results):
            out[i] = self.spans_of(docs[i], entities)
        return out

    def spans_of(self, doc: Any, entities: Sequence[dict[str, Any]]) -> list[Span]:
        """Token spans of ``doc`` for the pipeline's character-level ``entities``."""
        spans: set[Span] = set()
        for ent in entities:
            start, end = ent.get("start"), ent.get("end")
            if start is None or end is None:
                raise ValueError("the token-classification pipeline returned no character "
                                 "offsets (a fast tokenizer is required)")
            if float(ent.get("score", 1.0)) < self.min_score:
                continue
            label = normalise_label(str(ent.get("entity_group", ent.get("entity", ""))))
            if not label or label == "O":
                continue
            span = doc.char_span(int(start), int(end), alignment_mode="expand")
            if span is None or len(span) == 0:
                continue  # only whitespace was covered
            spans.add((span.start, span.end, label))
        return sorted(spans)

    def __repr__(self) -> str:
        name = self.model if isinstance(self.model, str) else type(self.model).__name__
        return f"HFNERDetector(model={name!r}, device={self.device!r})"


def _restore(model: Any, tokenizer: Any, stride: int | None, batch_size: int,
             device: str | None, min_score: float) -> HFNERDetector:
    return HFNERDetector(model, tokenizer=tokenizer, stride=stride, batch_size=batch_size,
                         device=device, min_score=min_score)
