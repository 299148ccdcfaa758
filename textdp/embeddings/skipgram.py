"""Skip-gram with negative sampling over subword n-grams, with PolarizedText's polarization.

The model is fastText's skip-gram: the input vector of a centre word ``w`` is the mean of its
own row and its n-gram rows, ``h_w = (v_w + Σ_{g ∈ G(w)} z_g) / (1 + |G(w)|)``, and each
(centre, context) pair with ``k`` negatives costs

    −log σ(u_c · h_w) − Σ_n log σ(−u_n · h_w).

PolarizedText adds, for every centre word of a document with label ``ℓ``, the polarization term

    λ · log(1 + exp(−h_w · μ_ℓ)),

where ``μ_ℓ`` is the label's fixed direction (:func:`~textdp.embeddings.subword.label_directions`:
one coordinate axis per label, so the directions are orthogonal). It is an external field per
label: it pulls the words of a labelled document towards their label's direction, more for
words that occur mostly under that label. Unlabelled documents add nothing; ``λ = 0`` is plain
subword skip-gram.

Everything runs batched in torch (sparse gradients; CPU or GPU); the training loop is
:mod:`textdp.embeddings.train`.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F


def polarization_loss(h: torch.Tensor, directions: torch.Tensor,
                      labels: torch.Tensor) -> torch.Tensor:
    """Per-row ``log(1 + exp(−h · μ_label))``, 0 where ``labels < 0`` (unlabelled).

    ``h``: ``(B, d)`` input vectors; ``directions``: ``(L, d)``; ``labels``: ``(B,)`` indices.
    """
    labelled = labels >= 0
    mu = directions[labels.clamp(min=0)] if directions.shape[0] else torch.zeros_like(h)
    term = F.softplus(-(h * mu).sum(dim=-1))
    return torch.where(labelled, term, torch.zeros_like(term))


def polarization_grad(h: torch.Tensor, directions: torch.Tensor,
                      labels: torch.Tensor) -> torch.Tensor:
    """Analytic gradient of ``polarization_loss(...).sum()`` with respect to ``h``:
    ``−σ(−h · μ) μ`` for labelled rows, 0 for the others."""
    labelled = (labels >= 0).to(h.dtype).unsqueeze(-1)
    mu = directions[labels.clamp(min=0)] if directions.shape[0] else torch.zeros_like(h)
    return -torch.sigmoid(-(h * mu).sum(dim=-1, keepdim=True)) * mu * labelled


class SubwordSkipGram:
    """Input rows (words, then n-gram buckets) composed by mean; output rows per word.

    Trained by :meth:`step`, fastText's way: stochastic gradient descent in which every
    (centre, context) pair and its negatives contribute their gradient, summed over a batch of
    centres (duplicate rows add up, as in fastText's lock-free updates), and every row of a
    centre's bag receives the gradient of ``h`` itself (fastText's skip-gram does not divide it
    by the bag's size). Only the rows a batch touches are read and written.

    Args:
        n_words: vocabulary size ``V`` (input rows ``0..V-1`` are the words' own rows).
        n_ngrams: number of distinct n-gram buckets (input rows ``V..V+n_ngrams-1``).
        dim: vector dimension.
        directions: ``(L, d)`` label directions (fixed, not trained).
        polarization: λ, the weight of the polarization term (0: plain skip-gram).
        device: torch device of the matrices.
        generator: torch generator of the initialisation.
    """

    def __init__(self, n_words: int, n_ngrams: int, dim: int, *,
                 directions: torch.Tensor | None = None, polarization: float = 0.0,
                 device: torch.device | str = "cpu",
                 generator: torch.Generator | None = None) -> None:
        self.n_words, self.dim = n_words, dim
        # fastText's initialisation: inputs uniform in ±1/d, outputs zero.
        self.inputs = ((torch.rand(n_words + n_ngrams, dim, generator=generator) * 2 - 1)
                       / dim).to(device)
        self.outputs = torch.zeros(n_words, dim, device=device)
        if directions is None:
            directions = torch.zeros(0, dim)
        self.directions = directions.float().to(device)
        self.polarization = float(polarization)

    def loss(self, h: torch.Tensor, contexts: torch.Tensor, mask: torch.Tensor,
             pool: torch.Tensor, negatives: int, labels: torch.Tensor) -> torch.Tensor:
        """Summed loss of a batch of centres.

        ``h``: ``(B, d)`` centre vectors; ``contexts``: ``(B, C, d)`` output rows of up to
        ``C`` contexts; ``mask``: ``(B, C)`` which contexts exist; ``pool``: ``(P, d)`` output
        rows of negatives drawn for the whole batch; ``negatives``: ``k``, the negatives per
        pair; ``labels``: ``(B,)`` label index of the centre's document (``-1``: none).

        A pair's negative term does not depend on its context, so the ``k`` negatives of each
        of a centre's ``n`` pairs are replaced by the batch's pool weighted ``n k / P``: the
        same expectation as ``k`` draws per pair, as one matrix product. The polarization term
        counts once per centre occurrence.
        """
        pos = torch.einsum("bcd,bd->bc", contexts, h)
        positive = (F.softplus(-pos) * mask).sum()
        weight = mask.sum(dim=1) * (negatives / pool.shape[0])
        negative = (F.softplus(h @ pool.T).sum(dim=1) * weight).sum()
        total = positive + negative
        if self.polarization:
            total = total + self.polarization * polarization_loss(
                h, self.directions, labels).sum()
        return total

    def step(self, bag_rows: torch.Tensor, bag_of_row: torch.Tensor, bag_sizes: torch.Tensor,
             contexts: torch.Tensor, mask: torch.Tensor, pool: torch.Tensor, negatives: int,
             labels: torch.Tensor, lr: float) -> float:
        """One SGD step on a batch of ``B`` centres; returns the batch's summed loss.

        ``bag_rows``: input rows of all bags, concatenated; ``bag_of_row``: the centre each
        belongs to; ``bag_sizes``: ``(B,)``; ``contexts``: ``(B, C)`` word ids; ``pool``:
        ``(P,)`` word ids of the batch's negatives; the rest as in :meth:`loss`.
        """
        b = bag_sizes.numel()
        h = torch.zeros(b, self.dim, device=self.inputs.device)
        h.index_add_(0, bag_of_row, self.inputs[bag_rows])
        h = (h / bag_sizes.unsqueeze(-1).to(h.dtype)).requires_grad_(True)
        ctx = self.outputs[contexts].requires_grad_(True)
        neg = self.outputs[pool].requires_grad_(True)
        loss = self.loss(h, ctx, mask.to(h.dtype), neg, negatives, labels)
        grad_h, grad_ctx, grad_neg = torch.autograd.grad(loss, (h, ctx, neg))
        with torch.no_grad():
            self.inputs.index_add_(0, bag_rows, grad_h[bag_of_row], alpha=-lr)
            self.outputs.index_add_(0, contexts.reshape(-1), grad_ctx.reshape(-1, self.dim),
                                    alpha=-lr)
            self.outputs.index_add_(0, pool, grad_neg, alpha=-lr)
        return float(loss.detach())
