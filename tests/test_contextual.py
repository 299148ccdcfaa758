"""textdp.contextual and textdp.contextual_index: pieces pooled to words, windows, the public
candidate index (build, save/load, mismatch errors, disk cache), and the contextual Privatizer
and spaCy component end to end on the embedded all-MiniLM-L6-v2.

Small models and indexes keep this file fast: a tiny random BERT (written to a temp folder)
where any model will do, and a 1,500-word vocabulary index of MiniLM elsewhere.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from textdp.contextual import ContextualEncoder, whole_word_vocabulary
from textdp.contextual_index import ContextualIndex, default_index_folder
from textdp.index import bf16_matmul_available
from textdp.privatizer import Privatizer, is_word

CANARY = "Quillonbrae"  # an invented word: in no vocabulary, so any echo of it is a leak
SENTENCES = [
    "Arnold Schwarzenegger cannot visit Zürich, don't you know?",
    f"Angela Merkel met John Smith and {CANARY} in Berlin on Tuesday.",
    f"{CANARY} wrote to {CANARY.upper()} about the weather.",
    "The quick brown fox jumps over the lazy dog.",
]
TINY_WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "john", "smith", "met", "in",
              "paris", "ran", "home", "big", "small", "red", "blue", "house", "car", "quick"]


def write_tiny_bert(folder, *, seed: int = 0, words=TINY_WORDS, layers: int = 2):
    """A random 2-layer BERT with a tiny WordPiece vocabulary, saved like a hub model."""
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "##s", "##er", "##ing",
             "x", "ä", *words]
    tok = BertTokenizer(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True)
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=layers,
                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    BertForMaskedLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return str(folder)


def token_spans(doc) -> np.ndarray:
    return np.asarray([[t.idx, t.idx + len(t)] for t in doc], dtype=np.int64).reshape(-1, 2)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    return write_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


@pytest.fixture(scope="module")
def minilm() -> ContextualEncoder:
    """float32: the alignment tests compare vectors across batches and with the model's own
    states to 1e-5, which bfloat16 rounding (precision="auto" on AMX) would not meet."""
    return ContextualEncoder(precision="float32")


@pytest.fixture(scope="module")
def small_index(minilm, tmp_path_factory) -> tuple[ContextualIndex, str]:
    """The first 1,500 whole words of MiniLM's vocabulary, saved to a folder."""
    index = ContextualIndex.from_vocabulary(minilm, limit=1500)
    folder = tmp_path_factory.mktemp("ctx") / "index"
    index.save(folder)
    return index, str(folder)


# ---------------------------------------------------------------------- precision
@pytest.mark.skipif(not bf16_matmul_available(), reason="no CPU bfloat16 matmul in this torch")
def test_bfloat16_vectors_are_float32_vectors_to_within_its_rounding(minilm, nlp):
    docs = [nlp.make_doc(t) for t in SENTENCES]
    texts, spans = [d.text for d in docs], [token_spans(d) for d in docs]
    full, found = minilm.encode_spans(texts, spans, precision="float32")
    fast, found_fast = minilm.encode_spans(texts, spans, precision="bfloat16")
    assert fast.dtype == full.dtype == torch.float32 and torch.equal(found, found_fast)
    cos = torch.nn.functional.cosine_similarity(full[found], fast[found], dim=1)
    assert float(cos.min()) > 0.99, float(cos.min())
    assert not torch.equal(full, fast)  # it did run in bfloat16


def test_precision_auto_follows_the_device_and_the_measurement(monkeypatch):
    import textdp.precision as precision_module

    encoder = ContextualEncoder()
    assert encoder.precision == "auto" and "precision='auto'" in repr(encoder)
    monkeypatch.setattr(precision_module, "bf16_matmul_fast", lambda: True)
    assert encoder.compute_dtype() == torch.bfloat16
    monkeypatch.setattr(precision_module, "bf16_matmul_fast", lambda: False)
    assert encoder.compute_dtype() == torch.float32
    assert encoder.compute_dtype("bfloat16") == torch.bfloat16
    assert ContextualEncoder(precision="float32").compute_dtype() == torch.float32


@pytest.mark.parametrize("precision", ["float16", "half", "fp32", None, 16])
def test_bad_precision_is_refused_before_loading(precision):
    with pytest.raises(ValueError, match="precision"):
        ContextualEncoder(precision=precision, device="cpu")


# ---------------------------------------------------------------------- alignment
def test_pieces_are_mean_pooled_to_spacy_tokens(minilm, nlp):
    text = SENTENCES[0]
    doc = nlp.make_doc(text)
    vecs, found = minilm.encode_spans([text], [token_spans(doc)], precision="float32")
    assert found.all() and vecs.shape == (len(doc), 384)
    enc = minilm.tokenizer(text, return_tensors="pt", return_offsets_mapping=True)
    pieces = minilm.tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
    with torch.inference_mode():
        states = minilm.model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                              output_hidden_states=True).hidden_states[1][0]
    words = [t.text for t in doc]
    # "Schwarzenegger" is three pieces: its vector is their mean.
    i = words.index("Schwarzenegger")
    assert pieces[2:5] == ["schwarz", "##ene", "##gger"]
    torch.testing.assert_close(vecs[i], states[2:5].mean(dim=0), atol=1e-5, rtol=1e-5)
    # spaCy splits "cannot" in two; the one piece "cannot" counts for both tokens.
    assert words[2:4] == ["can", "not"] and pieces[5] == "cannot"
    torch.testing.assert_close(vecs[2], states[5], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(vecs[3], states[5], atol=1e-5, rtol=1e-5)
    # "don't" → spaCy "do" + "n't", pieces "don" + "'" + "t": "don" overlaps both tokens.
    j = words.index("n't")
    assert pieces[9:12] == ["don", "'", "t"]
    torch.testing.assert_close(vecs[j - 1], states[9], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(vecs[j], states[9:12].mean(dim=0), atol=1e-5, rtol=1e-5)


def test_only_the_requested_spans_are_returned_in_order(minilm, nlp):
    texts = SENTENCES[:2]
    docs = [nlp.make_doc(t) for t in texts]
    full = [minilm.encode_spans([t], [token_spans(d)])[0] for t, d in zip(texts, docs)]
    pick = [np.array([1, 4]), np.array([0, 3, 7])]
    spans = [token_spans(d)[p] for d, p in zip(docs, pick)]
    vecs, found = minilm.encode_spans(texts, spans)
    assert found.all() and vecs.shape[0] == 5
    expected = torch.cat([f[p] for f, p in zip(full, pick)])
    torch.testing.assert_close(vecs, expected, atol=1e-4, rtol=1e-4)


def _reference_windows(encoder, text, spans):
    """Independent re-implementation: HF overflow windows, each run alone; each piece takes
    the window where its shorter side has the most context (ties: earlier window)."""
    tok = encoder.tokenizer
    enc = tok(text, truncation=True, max_length=encoder.max_length, stride=encoder.stride,
              return_overflowing_tokens=True, return_offsets_mapping=True,
              return_special_tokens_mask=True)
    best: dict[int, tuple[int, torch.Tensor, int]] = {}
    for w in range(len(enc["input_ids"])):
        ids = torch.tensor([enc["input_ids"][w]])
        with torch.inference_mode():
            states = encoder.model(input_ids=ids, output_hidden_states=True).hidden_states[
                encoder.layer][0]
        real = [p for p, s in enumerate(enc["special_tokens_mask"][w]) if not s]
        for p in real:
            start, end = enc["offset_mapping"][w][p]
            context = min(p - real[0], real[-1] - p)
            if start not in best or context > best[start][0]:
                best[start] = (context, states[p], end)
    out = []
    for s, e in spans:
        hit = [v for start, (_, v, end) in best.items() if start < e and end > s]
        out.append(torch.stack(hit).mean(dim=0))
    return torch.stack(out), len(enc["input_ids"])


def test_a_text_longer_than_the_window_is_read_in_overlapping_windows(nlp):
    encoder = ContextualEncoder(max_length=32, stride=8, precision="float32")
    text = " ".join(SENTENCES * 4)
    doc = nlp.make_doc(text)
    spans = token_spans(doc)
    vecs, found = encoder.encode_spans([text, SENTENCES[3]], [spans, np.zeros((0, 2))])
    assert found.all() and vecs.shape[0] == len(doc)
    expected, windows = _reference_windows(encoder, text, spans)
    assert windows >= 5
    torch.testing.assert_close(vecs, expected, atol=1e-4, rtol=1e-4)
    # The same text in one window gives other (wider-context) vectors: the windows matter.
    one = ContextualEncoder(max_length=512, precision="float32").encode_spans([text],
                                                                              [spans])[0]
    assert not torch.allclose(one, vecs, atol=1e-3)


def test_spans_must_be_sorted_and_inside_their_text(minilm):
    with pytest.raises(ValueError, match="spans of text 1"):
        minilm.encode_spans(["a b", "c d"], [np.array([[0, 1]]), np.array([[2, 3], [0, 1]])])
    with pytest.raises(ValueError, match="spans of text 0"):
        minilm.encode_spans(["a b"], [np.array([[0, 9]])])
    vecs, found = minilm.encode_spans(["a  b"], [np.array([[1, 2], [2, 2]])])
    assert not found.any() and float(vecs.abs().sum()) == 0.0  # whitespace / empty spans


def test_layer_is_checked_and_only_the_needed_layers_run(tiny):
    with pytest.raises(ValueError, match="layer"):
        ContextualEncoder(tiny, layer=3)
    with pytest.raises(ValueError, match="layer"):
        ContextualEncoder(tiny, layer=-1)
    with pytest.raises(ValueError, match="model"):
        ContextualEncoder("/nonexistent/model/folder")
    from transformers import AutoModel

    full = AutoModel.from_pretrained(tiny).eval()
    ids = torch.tensor([[2, 14, 15, 16, 3]])
    for layer in (0, 1, 2):
        encoder = ContextualEncoder(tiny, layer=layer, precision="float32")
        assert len(encoder.model.encoder.layer) == max(1, layer)
        with torch.inference_mode():
            want = full(input_ids=ids, output_hidden_states=True).hidden_states[layer][0, 1:4]
        text = "cat dog sat"
        got, _ = encoder.encode_spans([text], [np.array([[0, 3], [4, 7], [8, 11]])])
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------------- the index
def test_vocabulary_index_holds_whole_real_words_only(tiny, small_index):
    index = ContextualIndex.from_vocabulary(ContextualEncoder(tiny))
    assert index.words == ["x", *TINY_WORDS]  # no specials, "##s", ".", nor the lone "ä"
    assert index.meta["source"] == "vocabulary" and index.meta["layer"] == 1
    big, _ = small_index
    assert len(big) == 1500 and not any(w.startswith("##") or "[" in w for w in big.words)
    assert all(len(w) > 1 or w.isascii() for w in big.words)
    entries = whole_word_vocabulary(ContextualEncoder(tiny).tokenizer)
    assert "x" in [w for _, w in entries] and "ä" not in [w for _, w in entries]


def test_index_save_load_round_trip(small_index, minilm):
    index, folder = small_index
    loaded = ContextualIndex.load(folder, minilm)
    assert loaded.words == index.words
    np.testing.assert_array_equal(loaded.vectors, index.vectors)
    assert loaded.meta["fingerprint"] == minilm.fingerprint()
    assert loaded.meta["layer"] == 1 and loaded.meta["limit"] == 1500
    assert loaded.meta["textdp_version"] and loaded.meta["template"] == "{}"


def test_loading_for_another_model_or_layer_is_an_error(tiny, tmp_path, small_index):
    _, folder = small_index
    with pytest.raises(ValueError, match="layer 1, but the encoder uses layer 2"):
        ContextualIndex.load(folder, ContextualEncoder(layer=2))
    with pytest.raises(ValueError, match="differs from the encoder's model"):
        ContextualIndex.load(folder, ContextualEncoder(tiny))
    # Same configuration and vocabulary, other weights: caught by the probe vectors.
    other = write_tiny_bert(tmp_path / "other", seed=1)
    ContextualIndex.from_vocabulary(ContextualEncoder(tiny)).save(tmp_path / "idx")
    with pytest.raises(ValueError, match="other weights"):
        ContextualIndex.load(tmp_path / "idx", ContextualEncoder(other))
    with pytest.raises(ValueError, match="not a contextual index folder"):
        ContextualIndex.load(tmp_path)


def test_default_index_is_cached_on_disk(tiny, tmp_path, monkeypatch):
    import textdp.contextual_index as ci

    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(ci, "_DEFAULTS", {})
    encoder = ContextualEncoder(tiny)
    built = ContextualIndex.default(encoder)
    assert (default_index_folder(encoder) / "vectors.npy").is_file()
    monkeypatch.setattr(ci, "_DEFAULTS", {})

    def no_build(*args, **kwargs):
        raise AssertionError("the cached index was rebuilt")

    monkeypatch.setattr(ContextualIndex, "from_vocabulary", classmethod(no_build))
    again = ContextualIndex.default(ContextualEncoder(tiny))
    assert again.words == built.words
    np.testing.assert_array_equal(again.vectors, built.vectors)


def test_corpus_index_is_the_mean_vector_of_each_word_type(tiny, nlp):
    encoder = ContextualEncoder(tiny, precision="float32")  # as the index is built
    corpus = ["The cat sat on the mat.", "A big cat ran home.", "", "the x ran 42 times"]
    index = ContextualIndex.from_corpus(encoder, corpus, nlp=nlp)
    assert index.meta["source"] == "corpus" and index.meta["corpus_texts"] == 3
    assert set(index.words) == {"the", "cat", "sat", "on", "mat", "a", "big", "ran", "home",
                                "x", "times"}  # lower-cased real words, no "." or "42"
    vecs = [encoder.encode_spans([t], [np.array([[t.index("cat"), t.index("cat") + 3]])])[0][0]
            for t in corpus[:2]]
    np.testing.assert_allclose(index.vectors[index.words.index("cat")],
                               torch.stack(vecs).mean(dim=0).numpy(), atol=1e-5)
    twice = ContextualIndex.from_corpus(encoder, corpus, nlp=nlp, min_count=2)
    assert set(twice.words) == {"the", "cat", "ran"}
    with pytest.raises(ValueError, match="min_count"):
        ContextualIndex.from_corpus(encoder, ["one two"], nlp=nlp, min_count=5)


def test_template_is_checked(tiny):
    with pytest.raises(ValueError, match="template"):
        ContextualIndex.from_vocabulary(ContextualEncoder(tiny), template="no slot")
    index = ContextualIndex.from_vocabulary(ContextualEncoder(tiny), template="the {} .")
    assert index.meta["template"] == "the {} ."


# ---------------------------------------------------------------------- the Privatizer
@pytest.fixture(scope="module")
def ctx_privatizer(small_index, nlp):
    _, folder = small_index
    return Privatizer(representation="contextual", targets="all", epsilon=8.0, seed=0,
                      contextual_index=folder, nlp=nlp)


def assert_public_substitutes(privatizer, docs, public):
    """Every target became an index word (casing from the input); the rest is unchanged."""
    for doc, (words, report) in zip(docs, privatizer.privatize_docs(docs)):
        assert len(words) == len(doc)
        assert report.tokens_replaced == sum(is_word(t.text) for t in doc)
        for token, new in zip(doc, words):
            if is_word(token.text):
                assert new.lower() in public and "##" not in new
                assert new[0].isupper() == token.text[0].isupper()
            else:
                assert new == token.text


def test_contextual_output_is_whole_public_words_and_never_the_canary(small_index, nlp):
    index, folder = small_index
    public = set(index.words)
    docs = [nlp.make_doc(t) for t in SENTENCES * 3]
    for eps in (2.0, 8.0, 1e4):  # 1e4: essentially no noise, the nearest public word
        p = Privatizer(representation="contextual", targets="all", epsilon=eps, seed=1,
                       contextual_index=folder, nlp=nlp)
        assert_public_substitutes(p, docs, public)
        for res in p.privatize(SENTENCES):
            assert CANARY.lower() not in res.text.lower() and "##" not in res.text
            assert res.report.representation == "contextual"


def test_contextual_is_deterministic_with_a_seed(small_index, nlp):
    _, folder = small_index

    def run(seed):
        return [r.text for r in Privatizer(representation="contextual", targets="all",
                                           epsilon=6.0, seed=seed, contextual_index=folder,
                                           nlp=nlp).privatize(SENTENCES)]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_contextual_names_only_and_other_mechanisms(small_index, nlp):
    _, folder = small_index
    text = "Angela Merkel met John Smith in Berlin."
    p = Privatizer(representation="contextual", epsilon=1.0, seed=0, contextual_index=folder,
                   nlp=nlp)
    words, report = p.privatize_docs([nlp.make_doc(text)],
                                     [[(0, 2, "PERSON"), (3, 5, "PERSON"), (6, 7, "GPE")]])[0]
    assert words[2] == "met" and words[5:] == ["in", "Berlin", "."]
    assert report.tokens_replaced == 4 and "Merkel" not in words
    q = Privatizer(representation="contextual", mechanism="projection", epsilon=5.0, seed=0,
                   contextual_index=folder, nlp=nlp, targets="all")
    out = q(text)
    assert out.report.tokens_replaced == 7 and out.report.mechanism == "projection"
    assert out.report.delta > 0


def test_contextual_options_are_validated_at_construction(small_index, tmp_path):
    _, folder = small_index
    with pytest.raises(ValueError, match="table"):
        Privatizer(representation="contextual", table="some.vec")
    with pytest.raises(ValueError, match="model"):
        Privatizer(model="x")  # static representation
    with pytest.raises(ValueError, match="contextual_index"):
        Privatizer(representation="contextual", contextual_index=str(tmp_path))
    with pytest.raises(ValueError, match="layer 1, but the encoder uses layer 0"):
        Privatizer(representation="contextual", layer=0, contextual_index=folder)
    with pytest.raises(ValueError, match="representation"):
        Privatizer(representation="dynamic")
    assert Privatizer(representation="contextual", contextual_index=folder).epsilon == 2.5


def test_contextual_privatizer_pickles_its_settings_only(ctx_privatizer, small_index, nlp):
    _, folder = small_index
    fresh = Privatizer(representation="contextual", targets="all", epsilon=8.0, seed=0,
                       contextual_index=folder, nlp=nlp)
    before = fresh.privatize(SENTENCES[:2])
    blob = pickle.dumps(fresh)
    assert len(blob) < 200_000  # no model weights, no index vectors
    clone = pickle.loads(blob)
    clone._nlp = nlp
    assert [r.text for r in clone.privatize(SENTENCES[:2])] == [r.text for r in before]
    # A used privatizer pickles exactly like a fresh one (stable datasets.map fingerprints).
    assert blob == pickle.dumps(Privatizer(representation="contextual", targets="all",
                                           epsilon=8.0, seed=0, contextual_index=folder,
                                           nlp=nlp))


def test_spacy_component_contextual(small_index, monkeypatch):
    import spacy

    from textdp.defaults import fresh_pipeline

    index, folder = small_index
    calls = []

    def small_default(cls, encoder):
        calls.append(encoder.layer)
        return index

    # The exact config of the issue; the default index is swapped for the small one.
    monkeypatch.setattr(ContextualIndex, "default", classmethod(small_default))
    nlp = fresh_pipeline()
    nlp.add_pipe("dp_privatizer", config={"representation": "contextual", "epsilon": 5.0,
                                          "seed": 0})
    doc = nlp("Angela Merkel met John Smith in Berlin.")
    assert calls == [1]
    assert doc._.dp["representation"] == "contextual" and doc._.dp["tokens_replaced"] == 4
    assert [doc[i].text for i in (2, 5, 6)] == ["met", "in", "Berlin"]
    assert [e.label_ for e in doc.ents] == ["PERSON", "PERSON", "GPE"]
    assert "Merkel" not in doc.text
    component = nlp.get_pipe("dp_privatizer")
    assert component.cfg["representation"] == "contextual" and component.cfg["layer"] == 1
    blank = spacy.blank("en")
    blank.add_pipe("dp_privatizer", config={"representation": "contextual", "targets": "all",
                                            "epsilon": 8.0, "contextual_index": folder})
    out = blank(f"{CANARY} ran home quickly.")
    assert out._.dp["tokens_replaced"] == 4 and CANARY not in out.text
    with pytest.raises(ValueError, match="layer"):
        spacy.blank("en").add_pipe("dp_privatizer", config={"representation": "contextual",
                                                             "layer": 9})


@pytest.mark.shared_data
def test_conll_dev_sentences_give_whole_public_words_only(shared_data, ctx_privatizer,
                                                          small_index, nlp):
    from bench.common import read_conll

    index, _ = small_index
    sentences = [s.text for s in read_conll("dev", shared_data / "conll2003" / "eng.testa")[:60]]
    assert_public_substitutes(ctx_privatizer, [nlp.make_doc(t) for t in sentences],
                              set(index.words))


# ------------------------------------------------- what one ε covers in contextual mode
SURNAMES = ("Merkel", "Schmidt", "Wojciechowski")


def _first_words(folder, nlp, text, *, keep: int, copies: int = 40, **options):
    """The first ``keep`` output words of ``copies`` draws for ``text``, all drawn in one
    batch with seed 0 (so the noise of each row is the same whatever the text says)."""
    p = Privatizer(representation="contextual", epsilon=10.0, seed=0, contextual_index=folder,
                   nlp=nlp, **options)
    docs = [nlp.make_doc(text)] * copies
    spans = None if p.targets == "all" else [[(0, 2, "PERSON")]] * copies
    return [tuple(words[:keep]) for words, _ in p.privatize_docs(docs, spans)]


@pytest.mark.parametrize("template,options,keep", [
    # names: "Angela" is read with the surname masked
    ("Angela {} met the press today.", {}, 1),
    # names, the surname redacted (over budget)
    ("Angela {} met the press today.", {"max_epsilon_per_text": 10.0}, 1),
    # all tokens, "Angela" and "met" in budget, the surname redacted
    ("Angela met {} today.", {"targets": "all", "max_epsilon_per_text": 20.0}, 2),
], ids=["names", "names-truncated", "all-truncated"])
def test_a_draw_does_not_depend_on_other_or_redacted_targets(small_index, nlp, template,
                                                             options, keep):
    """At ε = 10 "Angela"'s vector read beside the surname moved its substitute with the
    surname (χ² p ≈ 1e-14 in the audit); read in a context where the other targets are
    masked, the same noise gives the same substitute whatever the surname."""
    _, folder = small_index
    first = [_first_words(folder, nlp, template.format(s), keep=keep, **options)
             for s in SURNAMES]
    assert len(set(first[0])) > 1  # the draws vary: the comparison below is not vacuous
    assert first[0] == first[1] == first[2]


def test_all_token_contextual_reports_a_per_text_guarantee(small_index, nlp):
    _, folder = small_index
    text = "Angela Merkel met the press."
    names = Privatizer(representation="contextual", epsilon=2.0, seed=0,
                       contextual_index=folder, nlp=nlp)
    every = Privatizer(representation="contextual", epsilon=2.0, seed=0, targets="all",
                       contextual_index=folder, nlp=nlp)
    spans = [[(0, 2, "PERSON")]]
    assert names.privatize_docs([nlp.make_doc(text)], spans)[0][1].scope == "token"
    report = every(text).report
    assert report.scope == "text" and report.tokens_replaced == 5
    # Every input lies in the ball of the index's clipping radius.
    assert report.diameter == pytest.approx(2 * every.space.radius)
    assert report.epsilon_at_diameter == pytest.approx(2.0 * report.diameter)


@pytest.mark.parametrize("precision", ["bfloat16", "float32"])
def test_a_reduced_precision_states_its_batch_dependence(tiny, nlp, precision):
    """Issue 34: in bfloat16 a contextual target's vector depends, through rounding, on the
    other contexts of its forward batch (0.0095 measured); the report says so exactly where
    the forward pass runs in a reduced precision."""
    index = ContextualIndex.from_vocabulary(ContextualEncoder(tiny, precision="float32"))
    p = Privatizer(representation="contextual", model=tiny, contextual_index=index,
                   precision=precision, epsilon=5.0, seed=0, nlp=nlp)
    report = p.privatize_docs([nlp.make_doc("john met smith")], [[(0, 1, "PERSON")]])[0][1]
    stated = "depends, through rounding, on the other contexts of its forward batch"
    assert (stated in report.holds_between) == (precision == "bfloat16")
    assert ("bfloat16" in report.holds_between) == (precision == "bfloat16")
