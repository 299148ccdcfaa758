"""The ``dpmlm`` mechanism (DP-MLM, Meisenbacher et al. 2024) on a tiny random BERT masked-LM
written to a temp folder: its distribution against an independent computation, the sampling
statistically against that distribution, the ε-DP bound, the validation, and the Privatizer's
context-mechanism path (whole words only, budget redaction, determinism, pickling)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import torch
from scipy import stats

from textdp.mechanisms import create_mechanism
from textdp.mechanisms.base import ContextMechanism
from textdp.mechanisms.dpmlm import DPMLM, _mask_logits
from textdp.privatizer import Privatizer
from textdp.rng import RandomSource

WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "john", "smith", "met", "in", "paris",
         "ran", "home", "big", "small", "red", "blue", "house", "car"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "##s", "##er", "##ing", *WORDS]
TEXT = "John Smith met the cats in Paris."
CLIP = (-2.0, 2.0)


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory) -> str:
    """A random 2-layer BertForMaskedLM whose logits spread well beyond ±2."""
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    folder = tmp_path_factory.mktemp("mlm") / "bert"
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=64,
                        initializer_range=0.5)
    BertForMaskedLM(config).save_pretrained(folder)
    BertTokenizer(vocab={w: i for i, w in enumerate(VOCAB)}).save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def mech(tiny_mlm) -> DPMLM:
    m = DPMLM(6.0, model=tiny_mlm, clip_min=CLIP[0], clip_max=CLIP[1])
    m.load(torch.device("cpu"))
    return m


def reference(tiny_mlm, text, span, epsilon, concat=True):
    """The DP-MLM distribution computed directly with transformers: the original text and the
    masked text as a pair, logits at the mask, whole words only, clipped, ε/(2Δ)."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_mlm)
    model = AutoModelForMaskedLM.from_pretrained(tiny_mlm).eval()
    masked = text[:span[0]] + tok.mask_token + text[span[1]:]
    enc = tok(text, masked, return_tensors="pt") if concat else tok(masked, return_tensors="pt")
    pos = int((enc["input_ids"][0] == tok.mask_token_id).nonzero()[0, 0])
    with torch.no_grad():
        logits = model(**enc).logits[0, pos].double()
    ids = torch.tensor([tok.convert_tokens_to_ids(w) for w in WORDS])
    scores = logits[ids].clamp(*CLIP) * epsilon / (2 * (CLIP[1] - CLIP[0]))
    return torch.softmax(scores, dim=0), logits[ids]


def test_candidates_are_whole_words_and_the_distribution_is_dp_mlm(tiny_mlm, mech):
    assert mech.words == WORDS  # no [MASK], "##s", "." or ","
    spans = [np.array([[0, 4], [5, 10], [19, 23]])]
    probs = mech.probabilities([TEXT], spans)
    assert probs.shape == (3, len(WORDS))
    for row, span in enumerate(spans[0].tolist()):
        want, raw = reference(tiny_mlm, TEXT, span, 6.0)
        torch.testing.assert_close(probs[row], want, atol=1e-6, rtol=1e-5)
    assert (raw.abs() > 2.0).any()  # the clipping range was exercised
    alone = DPMLM(6.0, model=tiny_mlm, clip_min=CLIP[0], clip_max=CLIP[1], concat=False)
    alone.load(torch.device("cpu"))
    torch.testing.assert_close(alone.probabilities([TEXT], [np.array([[5, 10]])])[0],
                               reference(tiny_mlm, TEXT, (5, 10), 6.0, concat=False)[0],
                               atol=1e-6, rtol=1e-5)


def test_draws_follow_the_distribution(mech):
    n = 4_000
    probs = mech.probabilities([TEXT], [np.array([[5, 10]])])[0].numpy()
    draws = mech.sample_in_context([TEXT] * n, [np.array([[5, 10]])] * n, RandomSource(7))
    counts = np.array([draws.count(w) for w in WORDS])
    assert counts.sum() == n
    p_value = stats.chisquare(counts, probs * n).pvalue
    assert p_value > 1e-3, p_value
    # The test has power: the same draws reject the uniform distribution.
    assert stats.chisquare(counts, np.full(len(WORDS), n / len(WORDS))).pvalue < 1e-6


def test_each_draw_is_epsilon_dp_for_any_change_of_the_text(mech):
    a = mech.probabilities([TEXT], [np.array([[5, 10]])])[0]
    for other, span in (("Mary Brown met the cats in Paris.", [5, 10]),
                        ("John Smith ran home in a big red car.", [5, 10]), ("x y z", [2, 3])):
        b = mech.probabilities([other], [np.array([span])])[0]
        assert float((a.log() - b.log()).abs().max()) <= 6.0 + 1e-9


def test_the_mlm_head_runs_on_the_mask_positions_only(mech):
    ids = torch.tensor([[2, 17, 18, 4, 3], [2, 4, 12, 3, 0]])
    attention = (ids != 0).long()
    positions = torch.tensor([3, 1])
    with torch.inference_mode():
        full = mech._model(input_ids=ids, attention_mask=attention).logits
        fast = _mask_logits(mech._model, ids, attention, None, positions)
    torch.testing.assert_close(fast, full[torch.arange(2), positions], atol=1e-5, rtol=1e-5)


def test_long_texts_are_cut_to_a_window_around_the_target(mech):
    text = " ".join(WORDS * 6)  # 120 words, the model reads 64 pieces
    start = text.index("paris", len(text) // 2)
    rows, positions, _ = mech._rows([text], [np.array([[start, start + 5]])])
    assert len(rows[0]) <= 64 and rows[0][positions[0]] == 4
    assert rows[0][positions[0] - 1] == VOCAB.index("in")  # the word before the target
    probs = mech.probabilities([text], [np.array([[0, 4], [start, start + 5]])])
    torch.testing.assert_close(probs.sum(dim=1), torch.ones(2, dtype=torch.float64))


def test_literal_special_tokens_in_a_text_are_just_text(mech):
    rows, positions, _ = mech._rows(["the [MASK] cat [SEP] sat"], [np.array([[15, 18]])])
    assert rows[0].count(4) == 1 and rows[0][positions[0]] == 4


def test_parameters_are_validated(tiny_mlm):
    with pytest.raises(ValueError, match="model="):
        create_mechanism("dpmlm", 1.0)
    with pytest.raises(ValueError, match="model"):
        DPMLM(1.0, model="/nonexistent/mlm")
    with pytest.raises(ValueError, match="clip_min"):
        DPMLM(1.0, model=tiny_mlm, clip_min=3.0, clip_max=1.0)
    with pytest.raises(ValueError, match="clip_max"):
        DPMLM(1.0, model=tiny_mlm, clip_max=math.inf)
    with pytest.raises(ValueError, match="epsilon"):
        DPMLM(0.0, model=tiny_mlm)
    m = create_mechanism({"name": "dpmlm", "model": tiny_mlm}, 2.0)
    assert isinstance(m, ContextMechanism)
    assert m.sensitivity == pytest.approx(16.304797887802124 + 3.2093127)  # the paper's range
    assert "ε-DP per token" in m.guarantee and m.delta == 0.0
    with pytest.raises(TypeError, match="sample_in_context"):
        m.sample(torch.zeros(1, 2), torch.zeros(1, dtype=torch.long), RandomSource(0))
    with pytest.raises(ValueError, match="not for mechanism"):
        Privatizer(mechanism={"name": "dpmlm", "model": tiny_mlm}, model="x")


def _privatizer(tiny_mlm, nlp, **kwargs) -> Privatizer:
    spec = {"name": "dpmlm", "model": tiny_mlm, "clip_min": CLIP[0], "clip_max": CLIP[1]}
    return Privatizer(mechanism=spec, epsilon=kwargs.pop("epsilon", 3.0), targets="all",
                      nlp=nlp, **kwargs)


def test_privatizer_writes_whole_vocabulary_words(tiny_mlm, nlp):
    p = _privatizer(tiny_mlm, nlp, seed=0)
    texts = [TEXT, "Quillonbrae ran home!", "", "42 ."]
    docs = [nlp.make_doc(t) for t in texts]
    for doc, (words, report) in zip(docs, p.privatize_docs(docs)):
        assert len(words) == len(doc) and report.representation == "contextual"
        for old, new in zip(doc, words):
            if any(c.isalpha() for c in old.text):
                assert new.lower() in WORDS and new[0].isupper() == old.text[0].isupper()
            else:
                assert new == old.text
    results = _privatizer(tiny_mlm, nlp, seed=0).privatize(texts)
    assert results[2].text == "" and results[3].text == "42 ."
    assert results[0].report.tokens_replaced == 7 and results[0].report.epsilon_total == 21.0
    assert results[0].report.representation == "contextual"
    assert results[0].report.guarantee == DPMLM.guarantee
    assert "Quillonbrae" not in results[1].text
    assert [r.text for r in _privatizer(tiny_mlm, nlp, seed=0).privatize(texts)] == \
        [r.text for r in results]


def test_over_budget_targets_get_text_free_draws(tiny_mlm, nlp):
    p = _privatizer(tiny_mlm, nlp, seed=1, max_epsilon_per_text=6.0)
    res = p(TEXT)
    assert res.report.tokens_replaced == 7  # every target replaced, 2 of them charged
    assert res.report.draws == 2 and res.report.tokens_redacted == 5
    assert res.report.epsilon_total == 6.0


def test_dpmlm_privatizer_pickles_without_the_model(tiny_mlm, nlp):
    p = _privatizer(tiny_mlm, nlp, seed=5)
    first = p(TEXT).text
    clone = pickle.loads(pickle.dumps(p))
    assert clone.mechanism._model is None and clone.mechanism.model_name == tiny_mlm
    clone._nlp = nlp
    assert clone(TEXT).text == _privatizer(tiny_mlm, nlp, seed=5)(TEXT).text == first
    assert pickle.dumps(p) == pickle.dumps(_privatizer(tiny_mlm, nlp, seed=5))


def test_a_pickled_privatizer_keeps_every_mechanism_argument(tiny_mlm, nlp):
    spec = {"name": "dpmlm", "model": tiny_mlm, "clip_min": CLIP[0], "clip_max": CLIP[1],
            "max_length": 32, "batch_tokens": 512}
    p = Privatizer(mechanism=spec, epsilon=3.0, targets="all", nlp=nlp, seed=0)
    p(TEXT)  # prepared: pickling rebuilds the mechanism from its params()
    clone = pickle.loads(pickle.dumps(p)).mechanism
    assert (clone.max_length, clone.batch_tokens) == (32, 512)


class _FavourOne(RandomSource):
    """Random bits that favour candidate ``j``: its uniform is 0 at every refinement level
    (the largest Gumbel the sampler can draw), every other uniform is ½."""

    def __init__(self, j: int) -> None:
        super().__init__(0)
        self.j = j

    def uniform(self, shape, device="cpu", dtype=torch.float32):
        shape = tuple(np.atleast_1d(shape))
        u = torch.full(shape, 0.5, dtype=dtype, device=device)
        if len(shape) == 2:
            u[:, self.j] = 0.0
        else:  # a refinement of the uniforms that were 0: 0 again
            u.zero_()
        return u


def test_every_candidate_is_reachable_at_large_epsilon(tiny_mlm):
    """Issue 34 item 8: a float64 inverse CDF could never draw a candidate whose probability
    was below the rounding of the running total (from ε ≈ 75 in the audit), so its probability
    was 0 in one context and positive in another: pure ε-DP failed. The Gumbel-max sampler
    reaches every candidate: for each one there are random bits that draw it."""
    m = DPMLM(200.0, model=tiny_mlm, clip_min=CLIP[0], clip_max=CLIP[1])
    m.load(torch.device("cpu"))
    span = [np.array([[5, 10]])]
    probs = m.probabilities([TEXT], span)[0]
    assert float(probs.min()) < 1e-30  # below any float64 total's resolution
    for j, word in enumerate(WORDS):
        assert m.sample_in_context([TEXT], span, _FavourOne(j)) == [word]
        assert m.sample_free(1, _FavourOne(j)) == [word]


def test_large_epsilon_draws_follow_the_distribution(tiny_mlm):
    """At ε = 75 the sampled law is still the mechanism's (χ², with a power check)."""
    m = DPMLM(75.0, model=tiny_mlm, clip_min=CLIP[0], clip_max=CLIP[1])
    m.load(torch.device("cpu"))
    n = 2_000
    probs = m.probabilities([TEXT], [np.array([[0, 4]])])[0].numpy()
    draws = m.sample_in_context([TEXT] * n, [np.array([[0, 4]])] * n, RandomSource(3))
    counts = np.array([draws.count(w) for w in WORDS])
    big = probs * n >= 5  # χ² cells with enough mass; the rest pooled
    observed = np.append(counts[big], counts[~big].sum())
    expected = np.append(probs[big], probs[~big].sum()) * n
    keep = expected > 0
    if keep.sum() > 1:
        assert stats.chisquare(observed[keep], expected[keep]).pvalue > 1e-3
    assert counts[probs * n < 1e-6].sum() == 0  # nothing improbable drawn by accident
