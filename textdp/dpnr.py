"""DPNR inside a model: a torch module, a thinc layer and the two training recipes.

This is the module users import (``textdp.dpnr.DPNR``). The mechanism itself (the noise, its
calibration, word dropout and the ε accounting, as functions on tensors) is
:mod:`textdp.mechanisms.dpnr`, registered with the other mechanisms.

Lyu, He & Li (Findings of EMNLP 2020) release a text's representation, not its words: the
representation is min–max normalised to [0, 1] and Laplace noise is added to every coordinate
(the functional core and the guarantee are in :mod:`textdp.mechanisms.dpnr`). A model that
consumes such representations is trained on noisy ones so it learns to tolerate the noise:

* **robust** training: the noise of the release is applied during training as well
  (:class:`RobustSchedule`: the same ε every epoch);
* **adaptive** training: the noise grows over the epochs, ε_t = ε₀ / t for epoch t = 1, 2, …
  (:class:`AdaptiveSchedule`).

Word dropout with the one-word amplification bound happens at the encoder's input:
:func:`encode_with_word_dropout` runs a ``transformers`` encoder on a tokenized batch with the
dropped words masked out *and* the kept tokens' position ids renumbered, and mean-pools the
kept tokens (see :mod:`textdp.mechanisms.dpnr` for why both are needed).

Noise is drawn afresh in every forward pass, in training *and* in evaluation, because the
released representation is always noisy (``when="always"``); ``"train"`` or ``"eval"`` restrict
it. Every fresh draw on the same example is another release: when the noisy training vectors
are what a server sees, one example's cost composes over epochs (:meth:`EpsilonSchedule.spent`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from textdp.mechanisms.dpnr import (
    CALIBRATIONS,
    DEFAULT_MU,
    check_mu,
    dpnr_noise,
    encoder_word_dropout,
    normalize,
    vector_epsilon,
    word_dropout,
)
from textdp.rng import RandomSource
from textdp.validation import check_choice, check_epsilon, check_positive_int

WHEN = ("always", "train", "eval")
POOLING = ("mean", "none")


class DPNR(nn.Module):
    """Word dropout → (pooling) → min–max normalisation → Laplace noise, as one layer.

    Input: ``(batch, dim)`` sentence vectors, or ``(batch, tokens, dim)`` token vectors with an
    optional ``mask`` ``(batch, tokens)`` (1 = real token) and ``word_ids`` (sub-word tokens of
    one word share an id; negative = never dropped). Token vectors are pooled by a masked mean
    (``pooling="mean"``) or kept per token (``"none"``, dropped tokens zeroed).

    Word dropout here acts on the tokens the module receives. Dropping *encoder outputs* does
    not remove a word's influence on the other tokens, so the dropout amplification bound of
    :func:`textdp.mechanisms.dpnr.amplified_epsilon` only applies when the dropout is on the
    encoder's input, with the kept tokens' positions renumbered: encode with
    :func:`encode_with_word_dropout` (or feed the encoder
    :func:`textdp.mechanisms.dpnr.encoder_word_dropout`) and give this module ``mu=0``.

    Args:
        epsilon: ε of the Laplace release (per coordinate with ``calibration="coordinate"``).
        mu: word dropout rate in [0, 1) on the token axis (0: none).
        calibration: ``"coordinate"`` (the paper: Laplace(0, 1/ε)) or ``"vector"``
            (Laplace(0, d/ε): ε-LDP for the whole vector).
        pooling: ``"mean"`` or ``"none"`` for token-level input.
        when: ``"always"`` (default: the released representation is noisy in training and
            evaluation), ``"train"`` or ``"eval"``.
        seed: fixed seed (reproducible; NOT private against anyone who knows it).
        secure: draw from the ChaCha20 CSPRNG (:class:`~textdp.rng.RandomSource`).
    """

    def __init__(self, epsilon: float, *, mu: float = DEFAULT_MU,
                 calibration: str = "coordinate", pooling: str = "mean",
                 when: str = "always", seed: int | None = None, secure: bool = False) -> None:
        super().__init__()
        self.epsilon = check_epsilon(epsilon)
        self.mu = check_mu(mu)
        self.calibration = check_choice("calibration", calibration, CALIBRATIONS)
        self.pooling = check_choice("pooling", pooling, POOLING)
        self.when = check_choice("when", when, WHEN)
        self.rng = RandomSource(seed, secure=secure)

    def set_epsilon(self, epsilon: float) -> None:
        """Change ε (used by the training schedules); validated like the constructor's."""
        self.epsilon = check_epsilon(epsilon)

    @property
    def active(self) -> bool:
        """Whether this forward pass adds dropout and noise (depends on ``when`` and mode)."""
        return self.when == "always" or (self.when == "train") == self.training

    def forward(self, h: torch.Tensor, mask: torch.Tensor | None = None,
                word_ids: torch.Tensor | None = None) -> torch.Tensor:
        """The released representation of ``h`` (see the class docstring for shapes)."""
        self.rng.next_batch()  # secure mode: a fresh ChaCha20 key per batch
        if h.ndim == 2:
            if self.mu > 0 or mask is not None or word_ids is not None:
                raise ValueError("mask, word_ids and mu > 0 need token-level input "
                                 f"(batch, tokens, dim); got shape {tuple(h.shape)}")
        elif h.ndim == 3:
            h = self._tokens(h, mask, word_ids)
        else:
            raise ValueError(f"DPNR input must be (batch, dim) or (batch, tokens, dim), "
                             f"got shape {tuple(h.shape)}")
        h = normalize(h)
        if not self.active:
            return h
        return dpnr_noise(h, self.epsilon, self.rng, calibration=self.calibration)

    def _tokens(self, h: torch.Tensor, mask: torch.Tensor | None,
                word_ids: torch.Tensor | None) -> torch.Tensor:
        if mask is None:
            mask = torch.ones(h.shape[:2], dtype=h.dtype, device=h.device)
        elif mask.shape != h.shape[:2]:
            raise ValueError(f"mask must have shape {tuple(h.shape[:2])}, got "
                             f"{tuple(mask.shape)}")
        if self.active and self.mu > 0:
            mask = word_dropout(mask, self.mu, self.rng, word_ids)
        if self.pooling == "none":
            return h * mask.to(h.dtype).unsqueeze(-1)
        return masked_mean(h, mask)

    def bound(self, dim: int) -> float:
        """ε of one released ``dim``-dimensional vector, for any two texts."""
        return vector_epsilon(self.epsilon, dim, self.calibration)

    def extra_repr(self) -> str:
        return (f"epsilon={self.epsilon}, mu={self.mu}, calibration={self.calibration!r}, "
                f"pooling={self.pooling!r}, when={self.when!r}")


def masked_mean(h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of ``(batch, tokens, dim)`` token vectors over the tokens where ``mask`` is non-zero.

    Only kept tokens enter the mean, so a dropped token's vector (still computed by the
    encoder) cannot reach the output. A text whose tokens were all dropped pools to zeros
    (then normalises to zeros).
    """
    weights = (mask != 0).to(h.dtype).unsqueeze(-1)
    return (h * weights).sum(dim=1) / weights.sum(dim=1).clamp_min(1.0)


def word_id_tensor(encoding: Any) -> torch.Tensor:
    """``(batch, tokens)`` word ids of a fast tokenizer's batch output, −1 for special tokens
    and padding (the ``word_ids`` that :func:`~textdp.mechanisms.dpnr.word_dropout` takes)."""
    rows = len(encoding["input_ids"])
    return torch.tensor([[-1 if w is None else w for w in encoding.word_ids(i)]
                         for i in range(rows)], dtype=torch.long)


def encode_with_word_dropout(encoder: nn.Module, encoding: Mapping[str, Any], mu: float,
                             rng: RandomSource,
                             word_ids: torch.Tensor | None = None) -> torch.Tensor:
    """The mean-pooled ``(batch, dim)`` output of ``encoder`` with input word dropout at rate
    ``mu``: the pre-noise representation that DPNR normalises and releases.

    ``encoding`` is a fast tokenizer's output for the batch (``return_tensors="pt"``);
    ``word_ids`` defaults to its words (:func:`word_id_tensor`). The dropped words are masked
    out of attention, the kept tokens' position ids are renumbered
    (:func:`~textdp.mechanisms.dpnr.encoder_word_dropout`) and only kept tokens are pooled, so
    when a word is dropped the output is that of the text without it, whatever its word-piece
    count: what :func:`~textdp.mechanisms.dpnr.amplified_epsilon` needs. ``encoder`` is a
    ``transformers`` model taking ``input_ids``, ``attention_mask``, ``position_ids`` (and
    ``token_type_ids`` when the encoding has them) with absolute position embeddings.

    Raises ``ValueError`` (naming the row, never its text) when ``mu`` > 0 and a text was
    truncated: its lost tail breaks the one-word bound. Runs in the caller's grad mode.
    """
    mu = check_mu(mu)
    if word_ids is None:
        word_ids = word_id_tensor(encoding)
    if mu > 0:
        for row, enc in enumerate(getattr(encoding, "encodings", None) or ()):
            if enc.overflowing:
                raise ValueError(f"row {row} was truncated: the one-word dropout bound needs "
                                 "whole texts (raise max_length or split the text)")
    mask = encoding["attention_mask"]
    inputs = encoder_word_dropout(mask, word_ids.to(mask.device), mu, rng)
    if "token_type_ids" in encoding:
        inputs["token_type_ids"] = encoding["token_type_ids"]
    hidden = encoder(input_ids=encoding["input_ids"], **inputs)[0]
    return masked_mean(hidden, inputs["attention_mask"])


def dpnr_layer(epsilon: float, **kwargs: Any) -> Any:
    """A thinc ``Model`` wrapping :class:`DPNR` (``PyTorchWrapper``) for spaCy/thinc models.

    Takes and returns ``(batch, dim)`` float arrays (numpy or cupy); ``kwargs`` go to
    :class:`DPNR` (token-level input with masks needs the torch module itself).
    """
    from thinc.api import PyTorchWrapper  # thinc comes with spaCy; imported only when used

    return PyTorchWrapper(DPNR(epsilon, **kwargs))


# ---------------------------------------------------------------------- training recipes
@dataclass(frozen=True)
class EpsilonSchedule(ABC):
    """ε per training epoch for the noise applied during training."""

    epsilon0: float
    epochs: int

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon0, "epsilon0")
        check_positive_int("epochs", self.epochs)

    @abstractmethod
    def epsilon(self, epoch: int) -> float:
        """ε for ``epoch`` (1-based)."""

    def __iter__(self) -> Iterator[float]:
        return (self.epsilon(t) for t in range(1, self.epochs + 1))

    def spent(self) -> float:
        """Composed ε per training example when every epoch releases a fresh noisy copy of it
        (basic composition: the sum of the per-epoch ε)."""
        return float(math.fsum(self))


@dataclass(frozen=True)
class RobustSchedule(EpsilonSchedule):
    """Robust training: the release noise in every epoch, ε_t = ε₀."""

    def epsilon(self, epoch: int) -> float:
        return self.epsilon0


@dataclass(frozen=True)
class AdaptiveSchedule(EpsilonSchedule):
    """Adaptive training: ε_t = ε₀ / t, so the noise grows from epoch to epoch.

    The schedule is the one our issue tracker specifies; the authors' code (xlhex/dpnlp) trains
    with a fixed ε, i.e. :class:`RobustSchedule`, and the paper's text was not available to
    check it against. Choosing ε₀ = T·ε ends the last of T epochs at the release ε.
    """

    def epsilon(self, epoch: int) -> float:
        return self.epsilon0 / epoch


def train_on_dpnr(head: nn.Module, features: torch.Tensor, labels: torch.Tensor, *,
                  dpnr: DPNR | None = None, schedule: EpsilonSchedule | None = None,
                  extractor: nn.Module | None = None, epochs: int | None = None,
                  batch_size: int = 128, lr: float = 1e-3, weight_decay: float = 0.0,
                  generator: torch.Generator | None = None) -> nn.Module:
    """Train ``head(dpnr(extractor(features)))`` with cross-entropy; returns it in eval mode.

    ``extractor`` (optional, trained jointly) is the part of the model on the user's side whose
    output is released: training it with the noise in the loop lets it learn a representation
    that survives the noise, as the paper does by fine-tuning its encoder. With ``dpnr`` and
    ``schedule`` every epoch t sets ε_t from the schedule and draws fresh noise for every batch
    (robust or adaptive training). Without them, ``epochs`` epochs on the normalised features
    without noise (the non-private baseline). ``generator`` shuffles the batches (an explicit
    generator, never the global one). The returned model is ``extractor → normalise/DPNR →
    head`` (an ``nn.Sequential``) with the DPNR layer active in eval mode as configured.
    """
    if (dpnr is None) != (schedule is None):
        raise ValueError("dpnr and schedule go together: give both (private training) or "
                         "neither (the non-private baseline)")
    if schedule is None:
        plan: list[float | None] = [None] * check_positive_int("epochs", epochs)
    else:
        if epochs is not None and epochs != schedule.epochs:
            raise ValueError(f"epochs={epochs!r} conflicts with the schedule's "
                             f"{schedule.epochs} epochs; give it once")
        plan = list(schedule)
    check_positive_int("batch_size", batch_size)
    release: nn.Module = dpnr if dpnr is not None else Normalize()
    model = nn.Sequential(extractor if extractor is not None else nn.Identity(), release, head)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for eps in plan:
        if dpnr is not None and eps is not None:
            dpnr.set_epsilon(eps)
        order = torch.randperm(features.shape[0], generator=generator)
        for start in range(0, features.shape[0], batch_size):
            idx = order[start:start + batch_size]
            loss = loss_fn(model(features[idx]), labels[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return model.eval()


class Normalize(nn.Module):
    """Min–max normalisation to [0, 1] alone (DPNR without noise: the non-private baseline)."""

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return normalize(h)
