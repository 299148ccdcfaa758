"""Tests for textdp.mechanisms.exponential: the exponential-mechanism sampler of tem/santext.

Two kinds of test. Statistical ones (fixed seeds, α = 1e-3) check that draws follow
softmax(logits). Reachability cannot be seen by sampling (the candidates at stake have
probabilities such as 1e-20), so those tests script the uniforms: each gives the candidate in
question the most favourable uniform the sampler can receive, and asserts it is drawn. A
sampler under which some uniforms draw a candidate gives it a probability > 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pytest
import torch
from scipy import stats

import textdp.mechanisms.exponential as exponential_module
from textdp.index import NeighbourIndex
from textdp.mechanisms.exponential import sample_from_logits
from textdp.rng import RandomSource, Shape

CPU = torch.device("cpu")
ALPHA = 1e-3


class ScriptedSource(RandomSource):
    """Uniforms chosen by the test: ``low`` (0.0, the smallest value a draw can take) at the
    favoured (token, choice) cells, ``fill`` elsewhere.

    ``stages[i]`` lists the favoured cells of the i-th (tokens × choices) draw: the Gumbel-max
    stages (blocks, then candidates within the chosen block). One-dimensional draws after the
    first are refinements of the favoured cells' uniforms and get ``low`` throughout. A first
    draw that is one-dimensional (one uniform per token, as inverse-CDF sampling draws) gets
    ``low`` for the tokens of ``stages[0]``. Either way the favoured token's draws are as far
    towards its rare candidate as any draws can be.
    """

    def __init__(self, *stages: Iterable[tuple[int, int]], fill: float = 0.5,
                 low: float = 0.0) -> None:
        super().__init__(0)
        self.stages = [list(cells) for cells in stages]
        self.fill, self.low = fill, low
        self.calls = self.stage = 0

    def uniform(self, shape: Shape, device: torch.device | str = "cpu",
                dtype: torch.dtype = torch.float32) -> torch.Tensor:
        size = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
        self.calls += 1
        if len(size) == 1 and self.calls > 1:
            return torch.full(size, self.low, dtype=dtype, device=device)
        out = torch.full(size, self.fill, dtype=dtype, device=device)
        cells = self.stages[self.stage] if self.stage < len(self.stages) else []
        self.stage += 1
        for token, choice in cells:
            if len(size) == 1:
                out[token] = self.low
            else:
                out[token, choice] = self.low
        return out


def line_index(n: int) -> NeighbourIndex:
    """Candidates at 0, 1, …, n − 1 on a line (distances from an input on it are exact)."""
    return NeighbourIndex(np.arange(n, dtype=np.float32)[:, None], backend="exact")


def draw(index: NeighbourIndex, inputs: list[float], inverse: torch.Tensor, logits,
         rng: RandomSource) -> np.ndarray:
    vectors = torch.tensor(inputs, dtype=torch.float32)[:, None]
    return sample_from_logits(vectors, inverse, index, logits, rng).numpy()


# ================================================================= reachability
@pytest.mark.parametrize("gap", [46.0, 600.0, 720.0])
def test_a_candidate_far_below_the_best_can_be_drawn(gap):
    """Logits [0, −gap]: candidate 1 has probability e^−gap (1e-20 … 1e-313), finite logit.

    Inverse-CDF on float64 gave it probability 0: the CDF is [1.0, 1.0], so no uniform reached
    it, and P(1 | x) = 0 < e^(−ε·d)·P(1 | x') breaks the guarantee. Gumbel-max reaches it when
    its Gumbel is large, which the refined tail of the uniforms allows up to a gap of 725.
    """
    index = line_index(2)
    logits = lambda d: -gap * d  # noqa: E731 - input at 0: logits [0, −gap]
    inverse = torch.tensor([0])
    assert draw(index, [0.0], inverse, logits, ScriptedSource([(0, 1)])).tolist() == [1]
    # Without the favourable uniform the best candidate wins, as it should.
    assert draw(index, [0.0], inverse, logits, ScriptedSource()).tolist() == [0]


@pytest.mark.parametrize("rare_block", [False, True])
def test_a_candidate_far_below_the_best_can_be_drawn_through_both_stages(rare_block):
    """Nine candidates: blocks {0, 1, 2}, {3, 4, 5}, {6, 7, 8}. Candidate 8 is 715 below the
    rest (alone, or with its whole block: then the block's own logit is far below too)."""
    index = line_index(9)
    low_from = 5.5 if rare_block else 7.5

    def logits(d: torch.Tensor) -> torch.Tensor:  # input at 0: d_j = j
        return torch.where(d > low_from, -715.0, 0.0)

    favoured = ScriptedSource([(0, 2)], [(0, 2)])  # block 2, then its third candidate
    assert draw(index, [0.0], torch.tensor([0]), logits, favoured).tolist() == [8]
    assert draw(index, [0.0], torch.tensor([0]), logits, ScriptedSource()).tolist() != [8]


def test_the_reach_ends_only_where_float64_probabilities_do():
    """A gap of 730 (true probability e^−730 ≈ 1e-317, a subnormal) is out of reach."""
    index = line_index(2)
    assert draw(index, [0.0], torch.tensor([0]), lambda d: -730.0 * d,
                ScriptedSource([(0, 1)])).tolist() == [0]


def test_a_rows_reach_does_not_depend_on_its_position_in_the_batch():
    """The same row (logits [−46, 0]: candidate 0 has probability 1e-20) alone, and after
    1000 other rows. Inverse-CDF on one flat float64 CDF offset by the row's position reached
    candidate 0 alone (u = 0) but not at position 1000, where 1000 + 1e-20 rounds to 1000,
    the end of the row before: for every uniform. Gumbel-max treats every row alike."""
    index = line_index(2)
    logits = lambda d: -46.0 * d  # noqa: E731 - input at 1: logits [−46, 0]
    alone = draw(index, [1.0], torch.tensor([0]), logits, ScriptedSource([(0, 0)]))
    assert alone.tolist() == [0]
    n = 1001
    late = draw(index, [1.0] * n, torch.arange(n), logits, ScriptedSource([(n - 1, 0)]))
    assert late[-1] == 0
    assert (late[:-1] == 1).all()  # the others drew the best candidate


def test_a_small_probability_is_drawn_at_its_rate_after_many_rows():
    """p = 5e-3 for one candidate of 300, behind a dominant one, for a row placed after 1000
    other rows; 200k draws (expected 1000, sd 31.5)."""
    p = 5e-3
    q = math.log(p / (1 - p))
    index = line_index(300)

    def logits(d: torch.Tensor) -> torch.Tensor:
        # input at 0: candidate 0 dominant, candidate 150 at log-odds q, the rest at −30
        return torch.where(d < 0.5, 0.0, torch.where((d - 150).abs() < 0.5, q, -30.0))

    n_draws, before = 200_000, 1000
    inverse = torch.full((n_draws,), before)
    ids = draw(index, [0.0] * (before + 1), inverse, logits, RandomSource(31))
    hits = int((ids == 150).sum())
    odds = p / (1 - p)
    want = odds / (1 + odds + 298 * math.exp(-30))  # the other 298 share ~3e-11
    assert stats.binomtest(hits, n_draws, want).pvalue > ALPHA
    assert set(np.unique(ids).tolist()) <= {0, 150}


# ================================================================= the law
def softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max())
    return z / z.sum()


def test_draws_follow_softmax_of_the_logits():
    """10 candidates with logits 0, −0.45, …, −4 (probabilities 0.36 … 0.0067); 200k draws
    over two inputs, tokens interleaved."""
    index = line_index(10)
    logits = lambda d: -0.45 * d  # noqa: E731
    n = 100_000
    inverse = torch.arange(2).repeat(n)
    ids = draw(index, [0.0, 9.0], inverse, logits, RandomSource(32))
    assert ids.min() >= 0 and ids.max() <= 9  # blocks of 4: the last is padded, never drawn
    for row, x in enumerate([0.0, 9.0]):
        want = softmax(-0.45 * np.abs(np.arange(10) - x))
        counts = np.bincount(ids[inverse.numpy() == row], minlength=10)
        assert stats.chisquare(counts, want * n).pvalue > ALPHA
        # power: a 10 % error in the logits' scale is rejected
        wrong = softmax(-0.45 * 1.1 * np.abs(np.arange(10) - x))
        assert stats.chisquare(counts, wrong * n).pvalue < ALPHA


def test_draws_follow_softmax_across_small_chunks(monkeypatch):
    """Scores of 4 rows of 4 candidates per chunk, tokens drawn 4 at a time (2 blocks of 2)."""
    monkeypatch.setattr(exponential_module, "_CHUNK_CELLS", 16)
    monkeypatch.setattr(exponential_module, "_TOKEN_CELLS", 8, raising=False)
    index = line_index(4)
    inputs = [0.0, 1.0, 2.0, 3.0, 1.5, 0.5]
    inverse = torch.arange(len(inputs)).repeat(4000)
    ids = draw(index, inputs, inverse, lambda d: -d, RandomSource(33))
    for row, x in enumerate(inputs):
        want = softmax(-np.abs(np.arange(4) - x))
        counts = np.bincount(ids[inverse.numpy() == row], minlength=4)
        assert stats.chisquare(counts, want * 4000).pvalue > ALPHA


def test_secure_source_and_seeds_govern_the_draws():
    index = line_index(10)
    inverse = torch.zeros(50, dtype=torch.int64)
    a = draw(index, [4.0], inverse, lambda d: -d, RandomSource(7))
    b = draw(index, [4.0], inverse, lambda d: -d, RandomSource(7))
    assert (a == b).all()
    secure = draw(index, [4.0], inverse, lambda d: -d, RandomSource(secure=True))
    assert secure.shape == (50,) and secure.min() >= 0 and secure.max() < 10
    assert len(set(secure.tolist())) > 1


# ================================================================= the Gumbel noise
def test_gumbel_noise_has_the_standard_gumbel_law():
    g = exponential_module.gumbel_noise((400, 500), RandomSource(34), CPU)
    assert g.dtype == torch.float64 and g.shape == (400, 500)
    assert stats.kstest(g.numpy().ravel(), stats.gumbel_r.cdf).pvalue > ALPHA


@pytest.mark.parametrize("u, want", [
    (0.0, 1041 * math.log(2)),  # V refined down to 2^-1041: G = −log(−log(1 − 2^-1041))
    (1 - 2**-53, -math.log(53 * math.log(2))),  # V = 1 − 2^-53: G = −log(53·ln 2)
])
def test_gumbel_noise_is_finite_at_the_extreme_uniforms(u, want):
    """Uniforms of exactly 0 and the largest float64 below 1 map inside the open interval."""
    g = exponential_module.gumbel_noise((3, 4), ScriptedSource(fill=u, low=u), CPU)
    assert torch.isfinite(g).all()
    assert g.numpy() == pytest.approx(np.full((3, 4), want), rel=1e-12)
