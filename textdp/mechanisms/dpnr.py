"""``dpnr``: Differentially Private Neural Representation (Lyu, He & Li, Findings of EMNLP 2020).

DPNR protects a *representation* of a text (e.g. a sentence vector sent to a server), not the
text itself: it is not a substitution mechanism and the :class:`~textdp.privatizer.Privatizer`
cannot use it (see :class:`DPNRMechanism`). The release is

    h  →  word dropout (rate μ, on the input words)  →  encoder  →  normalise(h) ∈ [0, 1]^d
       →  h + z,  z_i ~ Laplace(0, Δ/ε) independently per coordinate.

This module is the mechanism: the functional core (normalisation, noise, calibration, word
dropout, ε accounting, as functions on tensors) and the registered mechanism (so
``textdp mechanisms`` lists it). The torch module, the thinc layer and the training recipes
that use it inside a model are :mod:`textdp.dpnr`, the module users import.

What is proven (and what is not)
--------------------------------
The paper normalises each vector to [0, 1] (min–max over its coordinates) and argues that the
sensitivity is then 1, adding Laplace(0, 1/ε) noise. That argument holds **per coordinate**:
each coordinate lies in [0, 1], so one coordinate of two arbitrary texts differs by at most 1
and its noisy release is ε-LDP. For the whole d-dimensional vector the L1 sensitivity is
d (h = (0, 1, …, 1) and h' = (1, 0, …, 0) are both min–max normalised and ‖h − h'‖₁ = d), so
Laplace(0, 1/ε) per coordinate makes the released vector (d·ε)-LDP, not ε-LDP. Both are
offered here and reported truthfully:

* ``calibration="coordinate"`` (the paper's noise, the default): Laplace(0, 1/ε);
  ε-LDP per coordinate, d·ε-LDP for the vector.
* ``calibration="vector"``: Laplace(0, d/ε); ε-LDP for the whole vector.

The authors' code (github.com/xlhex/dpnlp, ``model.py``) adds *one* scalar Laplace draw per
example to every coordinate, which leaves all differences between coordinates noise-free; it is
not reproduced here: every coordinate gets its own draw.

Word dropout (the paper's "nullification", rate μ) drops each input word with probability μ
before the encoder sees it. Amplification by subsampling (Balle, Barthe & Gaboardi 2018) turns
an ε_v-LDP release into ln(1 + (1 − μ)(e^{ε_v} − 1)) for two texts one word apart
(:func:`amplified_epsilon`), *provided* that dropping the differing word leaves both texts with
the same output. Masking the word's pieces out of the encoder's attention is not enough: the
pieces after it keep position ids that count the dropped pieces, so two texts whose differing
words have different word-piece counts ("good": 1 piece, "unbelievably": 5) still differ after
the drop (measured with all-MiniLM-L6-v2: ‖Δ pooled‖ = 0.76 against ‖pooled‖ ≈ 5.8).
:func:`encoder_word_dropout` therefore returns the position ids as well: the kept tokens are
numbered 0, 1, 2, … as if the dropped words had been removed before tokenization, and the
encoder's output for them (pooled over the kept tokens only) no longer depends on the dropped
word at all, whatever its piece count. The one-word bound holds when all of these hold:

* the two texts' tokenizer words (``word_ids``) are the same except for one substituted word,
  whose word-piece count may differ, and every other word is tokenised the same in both (true
  for tokenizers that pre-split words, like BERT's WordPiece);
* neither text is truncated (truncation would cut the two texts at different words);
* the dropout is :func:`encoder_word_dropout` on the encoder's input (its mask *and* its
  position ids), the encoder depends on a token's place only through ``position_ids``
  (absolute position embeddings, as BERT and MiniLM; not DeBERTa's relative positions), and the
  pooling reads the kept tokens only (:func:`textdp.dpnr.encode_with_word_dropout` does all of
  it).

"The same output" is exact in real arithmetic; in floating point the two pooled vectors agree
up to rounding (≈ 1e-6 against a norm ≈ 5.8 in the example above). Like the floating-point
sampling of the noise (Mironov 2012), that is not hardened here. For texts that differ in more
than one word, and whenever a condition fails, the guarantee stays ε_v.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, ClassVar

import numpy as np
import torch

from textdp.index import NeighbourIndex
from textdp.mechanisms.base import Mechanism, register_mechanism
from textdp.rng import RandomSource
from textdp.validation import check_choice, check_epsilon

#: Word dropout rate by default: none (μ is an option, not part of the base guarantee).
DEFAULT_MU = 0.0
CALIBRATIONS = ("coordinate", "vector")

_NOT_A_SUBSTITUTION = (
    "mechanism 'dpnr' releases noisy representations (vectors), not text: it cannot replace "
    "tokens in a Privatizer. Use textdp.dpnr.DPNR (a torch module) or textdp.dpnr.dpnr_layer "
    "(a thinc layer) inside your model, or DPNRMechanism.release() on vectors")


def check_mu(mu: object) -> float:
    """The word dropout rate μ: a number in [0, 1)."""
    if isinstance(mu, bool) or not isinstance(mu, Real):
        raise ValueError(f"mu (DPNR word dropout rate) must be a number in [0, 1), "
                         f"got {type(mu).__name__}")
    mu = float(mu)
    if not (0.0 <= mu < 1.0):
        raise ValueError(f"mu (DPNR word dropout rate) must be in [0, 1), got {mu!r}")
    return mu


def normalize(h: torch.Tensor) -> torch.Tensor:
    """Min–max normalise every vector (the last axis) to [0, 1].

    A constant vector (max = min) carries no information after normalisation and maps to
    zeros, which keeps the output in [0, 1] without dividing by zero.
    """
    if h.ndim == 0:
        raise ValueError("normalize needs vectors (a tensor with at least one axis)")
    lo = h.amin(dim=-1, keepdim=True)
    span = h.amax(dim=-1, keepdim=True) - lo
    safe = torch.where(span > 0, span, torch.ones_like(span))
    return torch.where(span > 0, (h - lo) / safe, torch.zeros_like(h))


def noise_scale(epsilon: float, dim: int, calibration: str = "coordinate") -> float:
    """The Laplace scale b = Δ/ε: Δ = 1 per coordinate, Δ = ``dim`` for the whole vector."""
    epsilon = check_epsilon(epsilon)
    check_choice("calibration", calibration, CALIBRATIONS)
    return (1.0 if calibration == "coordinate" else float(dim)) / epsilon


def dpnr_noise(h: torch.Tensor, epsilon: float, rng: RandomSource, *,
               calibration: str = "coordinate") -> torch.Tensor:
    """``h`` plus i.i.d. Laplace(0, Δ/ε) noise on every coordinate (same shape and device).

    ``h`` should already be normalised to [0, 1] (:func:`normalize`); the bound rests on it.
    With the default ``calibration="coordinate"`` (the paper's Laplace(0, 1/ε)) each
    coordinate is ε-LDP and a d-dimensional vector (d·ε)-LDP; ``"vector"`` uses
    Laplace(0, d/ε), ε-LDP for the whole vector.
    """
    scale = noise_scale(epsilon, h.shape[-1], calibration)
    dtype = h.dtype if h.dtype in (torch.float32, torch.float64) else torch.float32
    return h + rng.laplace(h.shape, scale, h.device, dtype)


def word_dropout(mask: torch.Tensor, mu: float, rng: RandomSource,
                 word_ids: torch.Tensor | None = None) -> torch.Tensor:
    """Drop each word of a ``(batch, tokens)`` attention mask with probability ``mu``.

    ``word_ids`` (same shape, integer) groups sub-word tokens into words so that all pieces
    of a word are dropped together; tokens whose word id is negative (special tokens such as
    [CLS]/[SEP], padding) are never dropped. Without ``word_ids`` every token is its own word.
    Returns a new mask of the same dtype.

    The mask alone does not give :func:`amplified_epsilon`: the kept pieces after a dropped
    word keep positions that count its pieces. Feed an encoder :func:`encoder_word_dropout`
    (mask and renumbered position ids) for that.
    """
    mu = check_mu(mu)
    if mask.ndim != 2:
        raise ValueError(f"mask must have shape (batch, tokens), got {tuple(mask.shape)}")
    if mu == 0.0:
        return mask.clone()
    if word_ids is None:
        keep = rng.uniform(mask.shape, mask.device) >= mu
    else:
        if word_ids.shape != mask.shape:
            raise ValueError(f"word_ids must have the mask's shape {tuple(mask.shape)}, "
                             f"got {tuple(word_ids.shape)}")
        ids = word_ids.to(mask.device).long()
        n_words = int(ids.max().item()) + 1 if ids.numel() else 0
        keep_word = rng.uniform((mask.shape[0], max(n_words, 1)), mask.device) >= mu
        keep = torch.where(ids >= 0, keep_word.gather(1, ids.clamp_min(0)),
                           torch.ones_like(ids, dtype=torch.bool))
    return mask * keep.to(mask.dtype)


def kept_position_ids(mask: torch.Tensor) -> torch.Tensor:
    """Position ids that number the kept tokens of a ``(batch, tokens)`` mask 0, 1, 2, ….

    A kept token's position is the number of kept tokens before it, the position it would have
    if the dropped tokens had never been there: with these ids the kept tokens see the same
    positions whatever the dropped words' piece counts. Dropped and padding tokens get the
    position of the kept token before them (any valid id: they are masked out). Long dtype.
    """
    if mask.ndim != 2:
        raise ValueError(f"mask must have shape (batch, tokens), got {tuple(mask.shape)}")
    return ((mask != 0).long().cumsum(dim=1) - 1).clamp_min(0)


def encoder_word_dropout(attention_mask: torch.Tensor, word_ids: torch.Tensor, mu: float,
                         rng: RandomSource) -> dict[str, torch.Tensor]:
    """Input word dropout for a transformer encoder: ``{"attention_mask", "position_ids"}``.

    Drops each word (all its pieces, grouped by ``word_ids``; negative ids never dropped) with
    probability ``mu`` (:func:`word_dropout`) and renumbers the kept tokens' positions
    (:func:`kept_position_ids`). Pass both to the encoder with the tokenizer's ``input_ids``
    and pool over the returned mask only: then the output is the one of the text with the
    dropped words removed, so two texts one word apart give the same output whenever their
    differing word is dropped, whatever its word-piece count (the premise of
    :func:`amplified_epsilon`; the conditions are in the module docstring).
    """
    if word_ids is None:
        raise ValueError("encoder_word_dropout needs word_ids: the bound is per word, and a "
                         "word's pieces must be dropped together")
    mask = word_dropout(attention_mask, mu, rng, word_ids)
    return {"attention_mask": mask, "position_ids": kept_position_ids(mask)}


def amplified_epsilon(epsilon: float, mu: float) -> float:
    """ln(1 + (1 − μ)(e^ε − 1)): the ε of an ε-LDP release after input word dropout at rate
    μ, for two texts one word apart (amplification by subsampling).

    It holds only where dropping the differing word makes both texts' outputs equal, i.e.
    (module docstring) the texts' tokenizer words are the same except one substituted word
    (its word-piece count may differ), neither text is truncated, and the dropout is
    :func:`encoder_word_dropout` (mask and renumbered position ids) on an encoder with
    absolute position ids, pooled over the kept tokens. For any other two texts, and for
    dropout on the attention mask alone when the differing words' word-piece counts differ,
    the un-amplified ε applies.
    """
    epsilon = check_epsilon(epsilon)
    mu = check_mu(mu)
    # ln((1 − μ)e^ε + μ) = ε + ln(1 − μ(1 − e^{−ε})): no overflow for large ε.
    return float(epsilon + math.log1p(mu * math.expm1(-epsilon)))


def vector_epsilon(epsilon: float, dim: int, calibration: str = "coordinate") -> float:
    """ε of the whole released d-dimensional vector (any two texts)."""
    epsilon = check_epsilon(epsilon)
    check_choice("calibration", calibration, CALIBRATIONS)
    return epsilon * dim if calibration == "coordinate" else epsilon


@register_mechanism
class DPNRMechanism(Mechanism):
    """DPNR for representation release; registered as ``dpnr``.

    Args:
        epsilon: ε of the Laplace release: per coordinate (``calibration="coordinate"``, the
            paper's noise) or for the whole vector (``"vector"``).
        mu: word dropout rate μ in [0, 1) applied to the input words (0: none). Not part of the
            base guarantee; it amplifies it for texts one word apart when the dropout is
            :func:`encoder_word_dropout` (conditions in the module docstring).
        calibration: ``"coordinate"`` or ``"vector"`` (module docstring).
    """

    name = "dpnr"
    description = ("DPNR: representation release — min-max normalise to [0,1], "
                   "Laplace(0, 1/ε) per coordinate, word dropout μ (not a substitution)")
    guarantee = ("ε-LDP per coordinate of the released vector (sensitivity 1 in [0,1]); "
                 "d·ε-LDP for the d-dim vector, ε with calibration='vector'; "
                 "input word dropout μ: ln(1+(1-μ)(e^ε_v-1)), ε_v the vector's ε, only for "
                 "texts one word apart (tokenizer words equal but one, tokenised alike "
                 "otherwise, any word piece count for that word, neither truncated) with "
                 "encoder_word_dropout (mask and renumbered position ids) on an "
                 "absolute-position encoder pooled over kept tokens; otherwise ε_v")
    #: Not a token substitution: the Privatizer must refuse it at construction.
    substitutes: ClassVar[bool] = False

    def __init__(self, epsilon: float, mu: float = DEFAULT_MU,
                 calibration: str = "coordinate") -> None:
        super().__init__(epsilon)
        self.mu = check_mu(mu)
        self.calibration = check_choice("calibration", calibration, CALIBRATIONS)

    def release(self, h: torch.Tensor, rng: RandomSource) -> torch.Tensor:
        """The released representation: ``normalize(h)`` plus calibrated Laplace noise.

        Word dropout belongs before the encoder (:func:`encoder_word_dropout`: its attention
        mask and position ids); ``h`` here is the encoder's output for the (dropped-out) text.
        """
        return dpnr_noise(normalize(h), self.epsilon, rng, calibration=self.calibration)

    def bound(self, dim: int) -> dict[str, float]:
        """The guarantees of one released ``dim``-dimensional vector.

        ``epsilon_vector`` holds for any two texts. ``epsilon_vector_one_word_apart`` holds
        only for texts one word apart under the conditions of :func:`amplified_epsilon`
        (dropout by :func:`encoder_word_dropout`, no truncation); otherwise ``epsilon_vector``
        applies.
        """
        vec = vector_epsilon(self.epsilon, dim, self.calibration)
        return {"epsilon_per_coordinate": self.epsilon if self.calibration == "coordinate"
                else self.epsilon / dim,
                "epsilon_vector": vec,
                "epsilon_vector_one_word_apart": amplified_epsilon(vec, self.mu)}

    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        """Refused: there are no candidates to decode to (see :meth:`sample`)."""
        raise ValueError(_NOT_A_SUBSTITUTION)

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource
    ) -> torch.Tensor:
        """Refused with a ``ValueError``: DPNR releases vectors, it never picks a word."""
        raise ValueError(_NOT_A_SUBSTITUTION)

    def params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "mu": self.mu, "calibration": self.calibration}
