"""DPNR (Lyu et al. 2020): textdp.mechanisms.dpnr (functional core, registered mechanism) and
textdp.dpnr (torch module, thinc layer, training recipes)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats
from torch import nn

from textdp.cli import main as cli_main
from textdp.dpnr import (
    DPNR,
    AdaptiveSchedule,
    Normalize,
    RobustSchedule,
    dpnr_layer,
    encode_with_word_dropout,
    train_on_dpnr,
    word_id_tensor,
)
from textdp.mechanisms import available, create_mechanism
from textdp.mechanisms.dpnr import (
    DPNRMechanism,
    amplified_epsilon,
    dpnr_noise,
    encoder_word_dropout,
    kept_position_ids,
    noise_scale,
    normalize,
    vector_epsilon,
    word_dropout,
)
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable

ALPHA = 1e-3  # KS significance level (fixed seeds: these outcomes are deterministic)


def _noise(epsilon: float, n: int, dim: int, seed: int, **kwargs) -> np.ndarray:
    h = torch.zeros((n, dim), dtype=torch.float64)
    return dpnr_noise(h, epsilon, RandomSource(seed), **kwargs).numpy().ravel()


# ================================================================= noise
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
def test_noise_is_laplace_with_scale_one_over_epsilon(epsilon):
    z = _noise(epsilon, 500, 40, seed=3)  # 20 000 coordinates
    assert stats.kstest(z, stats.laplace(scale=1.0 / epsilon).cdf).pvalue > ALPHA


def test_ks_test_catches_a_wrong_scale():
    """Positive control: the same test rejects noise that is 20 % too small."""
    z = _noise(1.0, 500, 40, seed=3)
    assert stats.kstest(z, stats.laplace(scale=1.2).cdf).pvalue < ALPHA
    assert stats.kstest(z, stats.norm(scale=math.sqrt(2)).cdf).pvalue < ALPHA  # same variance


def test_vector_calibration_scales_noise_by_the_dimension():
    z = _noise(2.0, 400, 25, seed=4, calibration="vector")
    assert stats.kstest(z, stats.laplace(scale=25 / 2.0).cdf).pvalue > ALPHA
    assert noise_scale(2.0, 25, "vector") == 12.5 and noise_scale(2.0, 25) == 0.5


def test_noise_coordinates_are_independent_not_one_scalar_per_vector():
    """The authors' code adds one draw per example to every coordinate; ours must not."""
    z = dpnr_noise(torch.zeros(200, 16), 1.0, RandomSource(5))
    assert (z.std(dim=1) > 0.1).all()
    corr = np.corrcoef(z[:, 0].numpy(), z[:, 1].numpy())[0, 1]
    assert abs(corr) < 0.25


def test_noise_keeps_shape_dtype_device_and_adds_to_h():
    h = torch.rand(3, 5, 7, dtype=torch.float64)
    out = dpnr_noise(h, 50.0, RandomSource(1))
    assert out.shape == h.shape and out.dtype == h.dtype and out.device == h.device
    assert torch.allclose(out, h, atol=1.0) and not torch.equal(out, h)


@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf")])
def test_noise_rejects_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        dpnr_noise(torch.zeros(2, 2), eps, RandomSource(0))


def test_noise_rejects_unknown_calibration():
    with pytest.raises(ValueError, match="calibration"):
        dpnr_noise(torch.zeros(2, 2), 1.0, RandomSource(0), calibration="l2")


# ================================================================= normalisation
def test_normalize_maps_every_vector_onto_zero_one():
    h = torch.randn(64, 30) * 50 + 7
    out = normalize(h)
    assert out.shape == h.shape
    assert out.min() >= 0 and out.max() <= 1
    assert torch.allclose(out.amin(dim=1), torch.zeros(64))
    assert torch.allclose(out.amax(dim=1), torch.ones(64))


def test_normalize_is_per_vector_and_affine_invariant():
    h = torch.randn(4, 6, 10)
    out = normalize(h)
    assert torch.allclose(out, normalize(3.0 * h - 11.0), atol=1e-6)
    assert torch.allclose(out[1, 2], normalize(h[1, 2]), atol=1e-6)


def test_normalize_maps_constant_vectors_to_zeros():
    h = torch.tensor([[2.0, 2.0, 2.0], [0.0, 1.0, 3.0]])
    out = normalize(h)
    assert torch.equal(out[0], torch.zeros(3))
    assert torch.allclose(out[1], torch.tensor([0.0, 1 / 3, 1.0]))
    assert torch.isfinite(out).all()


# ================================================================= word dropout
def test_word_dropout_rate_is_within_binomial_tolerance():
    mask = torch.ones(200, 500, dtype=torch.long)
    mu, n = 0.3, mask.numel()
    out = word_dropout(mask, mu, RandomSource(6))
    dropped = int((out == 0).sum())
    sd = math.sqrt(n * mu * (1 - mu))
    assert abs(dropped - n * mu) < 5 * sd
    assert out.dtype == mask.dtype and set(out.unique().tolist()) <= {0, 1}


def test_word_dropout_drops_word_pieces_together_and_never_specials():
    word_ids = torch.tensor([[-1, 0, 0, 0, 1, 2, 2, -1]]).repeat(2000, 1)
    mask = torch.ones_like(word_ids)
    out = word_dropout(mask, 0.5, RandomSource(7), word_ids)
    assert (out[:, 0] == 1).all() and (out[:, -1] == 1).all()  # [CLS], [SEP]
    assert (out[:, 1] == out[:, 2]).all() and (out[:, 2] == out[:, 3]).all()
    assert (out[:, 5] == out[:, 6]).all()
    # Words are dropped independently of each other, each with probability ~0.5.
    rates = [(out[:, k] == 0).float().mean().item() for k in (1, 4, 5)]
    assert all(0.44 < r < 0.56 for r in rates)
    assert not (out[:, 1] == out[:, 4]).all()


def test_word_dropout_keeps_padding_dropped_and_mu_zero_is_identity():
    mask = torch.tensor([[1, 1, 1, 0, 0]])
    assert torch.equal(word_dropout(mask, 0.0, RandomSource(0)), mask)
    assert (word_dropout(mask.repeat(100, 1), 0.9, RandomSource(0))[:, 3:] == 0).all()


@pytest.mark.parametrize("mu", [-0.1, 1.0, 1.5, float("nan"), True, "0.1"])
def test_word_dropout_rejects_bad_mu(mu):
    with pytest.raises(ValueError, match="mu"):
        word_dropout(torch.ones(2, 3), mu, RandomSource(0))


def test_word_dropout_rejects_bad_shapes():
    with pytest.raises(ValueError, match="mask"):
        word_dropout(torch.ones(3), 0.1, RandomSource(0))
    with pytest.raises(ValueError, match="word_ids"):
        word_dropout(torch.ones(2, 3), 0.1, RandomSource(0), torch.zeros(2, 4, dtype=torch.long))


# ================================================================= bounds
def test_vector_epsilon_is_d_times_epsilon_for_the_papers_noise():
    assert vector_epsilon(0.5, 384) == 192.0
    assert vector_epsilon(0.5, 384, "vector") == 0.5


def test_vector_sensitivity_is_d_not_one():
    """Two min-max normalised vectors can be d apart in L1: the reason for vector_epsilon."""
    d = 8
    a = normalize(torch.tensor([0.0] + [1.0] * (d - 1)))
    b = normalize(torch.tensor([1.0] + [0.0] * (d - 1)))
    assert float((a - b).abs().sum()) == d


def test_amplified_epsilon():
    assert amplified_epsilon(1.0, 0.0) == pytest.approx(1.0)
    assert amplified_epsilon(1.0, 0.5) == pytest.approx(math.log(0.5 * math.e + 0.5))
    assert amplified_epsilon(2.0, 0.3) < 2.0
    assert amplified_epsilon(5000.0, 0.1) == pytest.approx(5000.0 + math.log(0.9))  # no overflow


# ================================================================= dropout at the encoder input
# Two texts one word apart: "good" is one word piece, like "great"; "unbelievably" is five
# (un ##bel ##ie ##va ##bly), which shifts the positions of every later piece.
SENTENCE = "the film was {} and the actors were fine"
DIFFERING_WORD = 3  # the tokenizer's word id of the slot


class _ForcedDropout(RandomSource):
    """A source whose uniform draws drop exactly one word id (or none): forces the mask."""

    def __init__(self, word: int | None) -> None:
        super().__init__(0)
        self.word = word

    def uniform(self, shape, device="cpu", dtype=torch.float32):
        draws = torch.ones(shape, device=device, dtype=dtype)
        if self.word is not None:
            draws[:, self.word] = 0.0  # 0 < mu: dropped
        return draws


@pytest.fixture(scope="module")
def encoder():
    """The embedded all-MiniLM-L6-v2 (offline): tokenizer and frozen encoder."""
    transformers = pytest.importorskip("transformers")
    from textdp.defaults import transformer_path

    path = transformer_path()
    return (transformers.AutoTokenizer.from_pretrained(path),
            transformers.AutoModel.from_pretrained(path).eval())


def test_kept_position_ids_number_the_kept_tokens_consecutively():
    mask = torch.tensor([[1, 1, 0, 0, 1, 1, 0], [0, 0, 1, 1, 1, 1, 1]])  # right / left padding
    pos = kept_position_ids(mask)
    assert pos[0, mask[0].bool()].tolist() == [0, 1, 2, 3]
    assert pos[1, mask[1].bool()].tolist() == [0, 1, 2, 3, 4]
    assert pos.dtype == torch.long and (pos >= 0).all()


def test_encoder_word_dropout_masks_whole_words_and_renumbers_positions():
    word_ids = torch.tensor([[-1, 0, 1, 1, 1, 2, -1]])
    out = encoder_word_dropout(torch.ones_like(word_ids), word_ids, 0.5, _ForcedDropout(1))
    assert out["attention_mask"].tolist() == [[1, 1, 0, 0, 0, 1, 1]]
    assert out["position_ids"][0, [0, 1, 5, 6]].tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="word_ids"):
        encoder_word_dropout(torch.ones(1, 3), None, 0.5, RandomSource(0))


@pytest.mark.parametrize("other", ["great", "unbelievably"])
def test_dropping_the_differing_word_makes_one_word_neighbours_equal(encoder, other):
    """The premise of amplified_epsilon, for equal and for different word-piece counts: with
    the differing word dropped, both texts give the same pre-noise pooled representation."""
    tokenizer, model = encoder
    enc = tokenizer([SENTENCE.format("good"), SENTENCE.format(other)], padding=True,
                    return_tensors="pt")
    with torch.inference_mode():
        dropped = encode_with_word_dropout(model, enc, 0.5, _ForcedDropout(DIFFERING_WORD))
        kept = encode_with_word_dropout(model, enc, 0.5, _ForcedDropout(None))
        removed = encode_with_word_dropout(
            model, tokenizer([SENTENCE.format("").replace("  ", " ")], return_tensors="pt"),
            0.0, RandomSource(0))
    assert float((kept[0] - kept[1]).norm()) > 0.1  # the word matters when it is kept
    # Equal up to float rounding (≈ 1e-6 against a norm ≈ 5.6), and equal to the text with the
    # word removed before tokenization: nothing of the dropped word is left.
    torch.testing.assert_close(dropped[0], dropped[1], atol=1e-5, rtol=0)
    torch.testing.assert_close(dropped[0], removed[0], atol=1e-5, rtol=0)


def test_mask_dropout_alone_leaks_the_dropped_words_piece_count(encoder):
    """Control (the audit finding): masking the word without renumbering the positions leaves
    the later pieces at positions that depend on the dropped word's length."""
    tokenizer, model = encoder
    enc = tokenizer([SENTENCE.format("good"), SENTENCE.format("unbelievably")], padding=True,
                    return_tensors="pt")
    mask = word_dropout(enc["attention_mask"], 0.5, _ForcedDropout(DIFFERING_WORD),
                        word_id_tensor(enc))
    with torch.inference_mode():
        hidden = model(input_ids=enc["input_ids"], attention_mask=mask).last_hidden_state
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(1) / weights.sum(1)
    assert float((pooled[0] - pooled[1]).norm()) > 0.1


def test_encode_with_word_dropout_refuses_truncated_texts(encoder):
    tokenizer, model = encoder
    enc = tokenizer([SENTENCE.format("good")], truncation=True, max_length=6,
                    return_tensors="pt")
    with pytest.raises(ValueError, match=r"row 0 .*truncated") as err:
        encode_with_word_dropout(model, enc, 0.1, RandomSource(0))
    assert "film" not in str(err.value)  # never the text


def test_the_one_word_bound_states_its_conditions():
    for text in (DPNRMechanism.guarantee, amplified_epsilon.__doc__):
        assert "encoder_word_dropout" in text and "truncat" in text
        assert "piece" in text  # the differing words' piece counts may differ


# ================================================================= mechanism
def test_dpnr_is_registered_and_listed(capsys):
    assert "dpnr" in available()
    m = create_mechanism({"name": "dpnr", "mu": 0.1}, epsilon=2.0)
    assert isinstance(m, DPNRMechanism) and m.substitutes is False
    assert m.describe()["mechanism"] == "dpnr" and m.params() == {
        "epsilon": 2.0, "mu": 0.1, "calibration": "coordinate"}
    assert cli_main(["mechanisms"]) == 0
    out = capsys.readouterr().out
    assert "dpnr" in out and "d·ε-LDP" in out


@pytest.mark.parametrize(("kwargs", "name"), [
    (dict(epsilon=0), "epsilon"), (dict(epsilon=1, mu=1.0), "mu"),
    (dict(epsilon=1, calibration="l2"), "calibration"),
])
def test_mechanism_validates_parameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        create_mechanism({"name": "dpnr", **kwargs})


def test_mechanism_release_and_bound():
    m = DPNRMechanism(4.0, mu=0.2)
    h = torch.randn(50, 12) * 9
    out = m.release(h, RandomSource(2))
    assert out.shape == h.shape
    assert torch.allclose(out - (out - normalize(h)), normalize(h), atol=1e-5)
    bound = m.bound(12)
    assert bound["epsilon_per_coordinate"] == 4.0 and bound["epsilon_vector"] == 48.0
    assert bound["epsilon_vector_one_word_apart"] == pytest.approx(amplified_epsilon(48.0, 0.2))


def test_mechanism_sample_and_prepare_refuse_with_a_clear_error():
    m = DPNRMechanism(1.0)
    with pytest.raises(ValueError, match="releases noisy representations"):
        m.sample(torch.zeros(1, 3), torch.zeros(1, dtype=torch.long), RandomSource(0))
    with pytest.raises(ValueError, match=r"textdp\.dpnr\.DPNR"):
        m.prepare(np.zeros((2, 3), np.float32), None, RandomSource(0))


def test_privatizer_with_dpnr_raises_the_documented_error():
    import spacy

    from textdp.privatizer import Privatizer

    rng = np.random.default_rng(0)
    table = EmbeddingTable(["alpha", "beta", "gamma"], rng.normal(size=(3, 4)))
    # Refused at construction, before any text is read (docs/architecture.md rule 5).
    with pytest.raises(ValueError, match=r"releases representations.*textdp\.dpnr\.DPNR"):
        Privatizer(mechanism="dpnr", epsilon=1.0, targets="all", table=table,
                   nlp=spacy.blank("en"), seed=0)
    # The mechanism itself refuses too, should anything call it directly.
    with pytest.raises(ValueError, match="releases noisy representations"):
        create_mechanism("dpnr", 1.0).sample(torch.zeros(1, 4), torch.zeros(1, dtype=torch.long),
                                             RandomSource(0))


# ================================================================= torch module
def test_module_is_noisy_in_train_and_eval_by_default():
    m = DPNR(5.0, seed=1)
    h = torch.randn(8, 16)
    for mode in (m.train, m.eval):
        mode()
        a, b = m(h), m(h)
        assert a.shape == (8, 16) and not torch.equal(a, b)  # fresh noise per pass
        assert not torch.allclose(a, normalize(h))


@pytest.mark.parametrize(("when", "noisy_in_train", "noisy_in_eval"),
                         [("train", True, False), ("eval", False, True)])
def test_module_when(when, noisy_in_train, noisy_in_eval):
    m = DPNR(1.0, when=when, seed=2)
    h = torch.randn(4, 10)
    m.train()
    assert torch.equal(m(h), normalize(h)) is not noisy_in_train
    m.eval()
    assert torch.equal(m(h), normalize(h)) is not noisy_in_eval


def test_module_token_input_pools_the_unmasked_tokens():
    m = DPNR(1.0, when="train", seed=3).eval()  # eval: no noise, no dropout
    h = torch.randn(2, 5, 6)
    mask = torch.tensor([[1, 1, 0, 0, 0], [1, 1, 1, 1, 1]])
    out = m(h, mask)
    assert torch.allclose(out[0], normalize(h[0, :2].mean(0)), atol=1e-6)
    assert torch.allclose(out[1], normalize(h[1].mean(0)), atol=1e-6)
    per_token = DPNR(1.0, pooling="none", when="train", seed=3).eval()(h, mask)
    assert per_token.shape == h.shape and torch.equal(per_token[0, 2:], torch.zeros(3, 6))


def test_module_dropout_on_tokens_and_all_dropped_text():
    m = DPNR(1e6, mu=0.5, seed=4)  # huge ε: the noise is negligible, dropout is visible
    h = torch.randn(1, 4, 3).repeat(400, 1, 1)
    outs = m(h)
    assert len({tuple(np.round(o.numpy(), 3)) for o in outs}) > 5  # different token subsets
    m_all = DPNR(1e6, mu=0.999999, seed=4)
    assert torch.allclose(m_all(torch.randn(3, 4, 3)), torch.zeros(3, 3), atol=1e-4)


def test_module_gradients_flow_through():
    m = DPNR(2.0, seed=5)
    h = torch.randn(4, 8, requires_grad=True)
    m(h).sum().backward()
    assert h.grad is not None and torch.isfinite(h.grad).all()


def test_module_validates_arguments_and_shapes():
    for kwargs, name in [(dict(epsilon=0), "epsilon"), (dict(epsilon=1, mu=2), "mu"),
                         (dict(epsilon=1, when="never"), "when"),
                         (dict(epsilon=1, pooling="max"), "pooling"),
                         (dict(epsilon=1, seed=1, secure=True), "seed")]:
        with pytest.raises(ValueError, match=name):
            DPNR(**kwargs)
    with pytest.raises(ValueError, match="token-level"):
        DPNR(1.0, mu=0.1)(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="shape"):
        DPNR(1.0)(torch.zeros(2, 3, 4, 5))
    with pytest.raises(ValueError, match="mask"):
        DPNR(1.0)(torch.zeros(2, 3, 4), torch.ones(2, 4))
    with pytest.raises(ValueError, match="epsilon"):
        DPNR(1.0).set_epsilon(float("nan"))


def test_module_seeded_is_reproducible_and_secure_is_not():
    h = torch.randn(5, 7)
    assert torch.equal(DPNR(1.0, seed=9)(h), DPNR(1.0, seed=9)(h))
    assert not torch.equal(DPNR(1.0, secure=True)(h), DPNR(1.0, secure=True)(h))
    assert DPNR(1.0).bound(384) == 384.0


# ================================================================= thinc layer
def test_thinc_layer_round_trip():
    x = np.random.default_rng(0).normal(size=(6, 10)).astype("float32")
    quiet = dpnr_layer(1.0, when="train", seed=0)  # thinc's predict runs eval mode: no noise
    quiet.initialize(X=x)
    y = quiet.predict(x)
    assert isinstance(y, np.ndarray) and y.shape == x.shape
    np.testing.assert_allclose(y, normalize(torch.from_numpy(x)).numpy(), atol=1e-6)

    noisy = dpnr_layer(1.0, seed=0)
    noisy.initialize(X=x)
    y1, backprop = noisy.begin_update(x)
    assert y1.shape == x.shape and not np.allclose(y1, y)
    dx = backprop(np.ones_like(y1))
    assert dx.shape == x.shape and np.isfinite(dx).all()


# ================================================================= training recipes
def test_schedules():
    assert list(RobustSchedule(0.5, 3)) == [0.5, 0.5, 0.5]
    assert RobustSchedule(0.5, 3).spent() == pytest.approx(1.5)
    assert list(AdaptiveSchedule(6.0, 3)) == [6.0, 3.0, 2.0]
    assert AdaptiveSchedule(6.0, 3).spent() == pytest.approx(11.0)
    with pytest.raises(ValueError, match="epsilon0"):
        AdaptiveSchedule(0.0, 3)
    with pytest.raises(ValueError, match="epochs"):
        RobustSchedule(1.0, 0)


def _separable(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 2, (n,), generator=gen)
    x = torch.randn((n, 8), generator=gen)
    x[:, 0] = torch.where(y == 1, 5.0, -5.0)  # one coordinate carries the label
    return x, y


def test_training_recipes_learn_through_the_noise():
    x, y = _separable(384, 0)
    xt, yt = _separable(256, 1)
    for schedule in (RobustSchedule(5.0, 8), AdaptiveSchedule(40.0, 8)):
        head = nn.Linear(8, 2)
        dpnr = DPNR(5.0, seed=1)
        model = train_on_dpnr(head, x, y, dpnr=dpnr, schedule=schedule, lr=0.05,
                              generator=torch.Generator().manual_seed(0))
        assert not model.training and dpnr.epsilon == schedule.epsilon(8)
        with torch.inference_mode():
            acc = (model(xt).argmax(1) == yt).float().mean().item()
        assert acc > 0.8, (schedule, acc)


def test_training_baseline_and_argument_checks():
    x, y = _separable(200, 2)
    model = train_on_dpnr(nn.Linear(8, 2), x, y, epochs=5, lr=0.05,
                          extractor=nn.Identity(), generator=torch.Generator().manual_seed(0))
    assert isinstance(model[1], Normalize)
    with pytest.raises(ValueError, match="dpnr and schedule"):
        train_on_dpnr(nn.Linear(8, 2), x, y, dpnr=DPNR(1.0), epochs=2)
    with pytest.raises(ValueError, match="epochs"):
        train_on_dpnr(nn.Linear(8, 2), x, y)
    with pytest.raises(ValueError, match="conflicts"):
        train_on_dpnr(nn.Linear(8, 2), x, y, dpnr=DPNR(1.0), schedule=RobustSchedule(1.0, 2),
                      epochs=3)
