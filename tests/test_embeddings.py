"""textdp.embeddings: subword n-grams, the polarization term, training, the file format, and
the refusal of private embeddings as a substitution table."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from textdp.embeddings import SubwordEmbeddings, label_directions, load_embeddings
from textdp.embeddings.skipgram import SubwordSkipGram, polarization_grad, polarization_loss
from textdp.embeddings.subword import char_ngrams, ngram_hash
from textdp.embeddings.train import TrainingConfig, read_corpus, tokenize, train_embeddings
from textdp.tables import EmbeddingTable, PrivateEmbeddingsError, is_private_embeddings

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"]
THINGS = ["table", "chair", "lamp", "sofa", "shelf", "desk", "stool", "bench"]


def toy_corpus(n: int = 400, seed: int = 0) -> tuple[list[list[str]], list[str]]:
    """Sentences about people (label ``person``) and about furniture (label ``other``)."""
    rng = np.random.default_rng(seed)
    docs, labels = [], []
    for k in range(n):
        if k % 2 == 0:
            a, b = rng.choice(NAMES, 2, replace=False)
            docs.append([str(a), "met", str(b), "and", "spoke", "with", str(a), "."])
            labels.append("person")
        else:
            a, b = rng.choice(THINGS, 2, replace=False)
            docs.append(["the", str(a), "stood", "near", "the", str(b), "in", "the", "room",
                         "."])
            labels.append("other")
    return docs, labels


# ---------------------------------------------------------------------------------- n-grams
def test_ngram_hash_is_fasttexts() -> None:
    """FNV-1a with fastText's signed-byte cast; gensim's ft_hash_bytes when it is installed."""
    assert ngram_hash("") == 2166136261
    # Reference values of 32-bit FNV-1a (ASCII: the signed cast changes nothing).
    assert ngram_hash("a") == 0xE40C292C
    assert ngram_hash("foobar") == 0xBF9CF968
    gensim = pytest.importorskip("gensim.models.fasttext_inner")
    for gram in ("<Jo", "Joé", "<Müller>", "東京", "x"):
        assert ngram_hash(gram) == gensim.ft_hash_bytes(gram.encode("utf-8"))


def test_char_ngrams() -> None:
    assert char_ngrams("ab", 3, 4) == ["<ab", "ab>", "<ab>"]
    assert char_ngrams("", 3, 6) == []
    assert set(char_ngrams("Joé", 3, 4)) == {"<Jo", "Joé", "oé>", "<Joé", "Joé>"}
    with pytest.raises(ValueError, match="minn"):
        char_ngrams("word", 4, 3)


def test_label_directions_are_orthogonal() -> None:
    d = label_directions(3, 10, strength=2.5)
    assert d.shape == (3, 10)
    np.testing.assert_allclose(d @ d.T, 2.5**2 * np.eye(3), atol=1e-6)
    assert label_directions(0, 4).shape == (0, 4)
    with pytest.raises(ValueError, match="dimensions"):
        label_directions(5, 4)
    with pytest.raises(ValueError, match="positive"):
        label_directions(2, 4, strength=0.0)


def test_trained_label_directions_are_orthogonal_and_saved(tmp_path) -> None:
    docs, labels = toy_corpus(60)
    emb = train_embeddings(docs, labels, dim=16, epochs=1, polarization=1.0, seed=0,
                           progress=False, threads=1)
    assert emb.labels == ["other", "person"]
    gram = emb.directions @ emb.directions.T
    np.testing.assert_allclose(gram, np.eye(2), atol=1e-6)
    path = tmp_path / "emb.npz"
    emb.save(path)
    back = load_embeddings(path)
    np.testing.assert_array_equal(back.directions, emb.directions)
    assert back.labels == emb.labels


# ---------------------------------------------------------------------------------- polarization
def test_polarization_gradient_matches_finite_differences() -> None:
    """Autograd and the analytic gradient of Σ log(1 + e^(−h·μ)) agree with central finite
    differences (float64)."""
    gen = torch.Generator().manual_seed(0)
    h = torch.randn(6, 5, generator=gen, dtype=torch.float64)
    directions = torch.from_numpy(label_directions(3, 5, strength=1.7)).double()
    labels = torch.tensor([0, 2, -1, 1, 0, -1])

    def f(x: torch.Tensor) -> float:
        return float(polarization_loss(x, directions, labels).sum())

    x = h.clone().requires_grad_(True)
    polarization_loss(x, directions, labels).sum().backward()
    analytic = polarization_grad(h, directions, labels)
    numeric = torch.zeros_like(h)
    step = 1e-6
    for i in range(h.shape[0]):
        for j in range(h.shape[1]):
            e = torch.zeros_like(h)
            e[i, j] = step
            numeric[i, j] = (f(h + e) - f(h - e)) / (2 * step)
    torch.testing.assert_close(x.grad, numeric, rtol=1e-6, atol=1e-8)
    torch.testing.assert_close(analytic, numeric, rtol=1e-6, atol=1e-8)
    # Unlabelled rows get no gradient; labelled rows are pulled along their own axis only.
    assert torch.all(numeric[labels < 0] == 0)
    assert numeric[1, 2] < 0 and torch.all(numeric[1, [0, 1, 3, 4]] == 0)


def test_polarization_gradient_through_the_model() -> None:
    """The model's loss, differentiated with respect to the word and n-gram rows that form h,
    matches finite differences (float64, λ = 0.7)."""
    torch.manual_seed(0)
    model = SubwordSkipGram(4, 6, 5, directions=torch.from_numpy(label_directions(2, 5)),
                            polarization=0.7)
    model.inputs = model.inputs.double() * 50
    model.outputs = torch.randn(4, 5, dtype=torch.float64)
    model.directions = model.directions.double()
    bag_rows = torch.tensor([0, 4, 5, 1, 6, 7, 8])
    bag_of_row = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    sizes = torch.tensor([3, 4])
    contexts = torch.tensor([[1, 2], [3, 0]])
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
    pool = torch.tensor([2, 3, 0])
    labels = torch.tensor([1, 0])

    def loss(weights: torch.Tensor) -> torch.Tensor:
        h = torch.zeros(2, 5, dtype=torch.float64).index_add(0, bag_of_row, weights[bag_rows])
        h = h / sizes.unsqueeze(-1)
        return model.loss(h, model.outputs[contexts], mask, model.outputs[pool], 5, labels)

    w = model.inputs.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(loss(w), w)
    numeric = torch.zeros_like(w)
    for r in range(w.shape[0]):
        for c in range(w.shape[1]):
            e = torch.zeros_like(w)
            e[r, c] = 1e-6
            numeric[r, c] = (loss(model.inputs + e) - loss(model.inputs - e)) / 2e-6
    torch.testing.assert_close(grad, numeric, rtol=1e-5, atol=1e-8)
    assert torch.all(grad[[2, 3, 9]] == 0)  # rows in no bag


def test_polarization_pulls_labelled_words_towards_their_direction() -> None:
    """Names (only in ``person`` documents) end up closer to the person direction with the
    polarization term than without it, and furniture closer to ``other``."""
    docs, labels = toy_corpus()
    common = dict(dim=16, epochs=3, seed=1, progress=False, threads=1, min_count=1)
    plain = train_embeddings(docs, labels, polarization=0.0, **common)
    polar = train_embeddings(docs, labels, polarization=2.0, **common)

    def cos(emb: SubwordEmbeddings, words: list[str], label: str) -> float:
        v = emb.vectors(words)
        d = polar.label_direction(label)
        return float(np.mean(v @ d / np.linalg.norm(v, axis=1) / np.linalg.norm(d)))

    assert cos(polar, NAMES, "person") > cos(plain, NAMES, "person") + 0.2
    assert cos(polar, THINGS, "other") > cos(plain, THINGS, "other") + 0.2
    assert cos(polar, NAMES, "person") > cos(polar, THINGS, "person") + 0.2


# ---------------------------------------------------------------------------------- vectors
def test_out_of_vocabulary_spellings_get_subword_vectors() -> None:
    docs, labels = toy_corpus()
    emb = train_embeddings(docs, labels, dim=16, epochs=2, seed=0, progress=False, threads=1,
                           polarization=1.0, min_count=1)
    assert "Alicee" not in emb.word_index and "Frankk" not in emb.word_index
    v = emb.vectors(["Alicee", "Frankk", "Alice", "zzqx", ""])
    assert np.linalg.norm(v[0]) > 0 and np.linalg.norm(v[1]) > 0
    np.testing.assert_array_equal(v[3], 0)  # no trained n-gram at all
    np.testing.assert_array_equal(v[4], 0)
    np.testing.assert_allclose(v[2], emb.vocab_vectors()[emb.word_index["Alice"]], rtol=1e-6)
    # A typo of a name is nearer that name than any furniture word is.
    unit = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    things = emb.vectors(THINGS)
    things /= np.linalg.norm(things, axis=1, keepdims=True)
    assert unit[0] @ unit[2] > (things @ unit[0]).max()
    # The OOV vector is the mean of its trained n-gram rows.
    rows = [emb._bucket_row[ngram_hash(g) % emb.buckets] for g in char_ngrams("Alicee", 3, 6)
            if ngram_hash(g) % emb.buckets in emb._bucket_row]
    np.testing.assert_allclose(v[0], emb.bucket_rows[rows].mean(axis=0), rtol=1e-5)


def test_similarity_detector_with_private_embeddings_and_directions(tmp_path) -> None:
    from textdp.detect.similarity import SimilarityDetector

    docs, labels = toy_corpus()
    emb = train_embeddings(docs, labels, dim=16, epochs=3, seed=0, progress=False, threads=1,
                           polarization=2.0, min_count=1)
    path = tmp_path / "emb.npz"
    emb.save(path)
    words = ["Heidi", "met", "the", "Heidii", "lamp", "."]
    by_seed = SimilarityDetector(["Alice", "Bob"], embeddings=path, threshold=0.5)
    scores = by_seed.token_scores(words)
    assert scores[0] > 0.5 and scores[3] > 0.5  # a name and its unseen misspelling
    assert scores[4] < scores[0]
    by_direction = SimilarityDetector(embeddings=emb, directions=["person"], threshold=0.3)
    d = by_direction.token_scores(words)
    assert d[0] > d[4] and d[3] > d[4]
    assert "<private>" in repr(by_direction)
    with pytest.raises(ValueError, match="not one of"):
        SimilarityDetector(embeddings=emb, directions=["nobody"])
    with pytest.raises(ValueError, match="either seeds or directions"):
        SimilarityDetector(["Alice"], embeddings=emb, directions=["person"])
    with pytest.raises(ValueError, match="give embeddings too"):
        SimilarityDetector(directions=["person"])


# ---------------------------------------------------------------------------------- privacy
def test_private_embeddings_are_refused_as_a_substitution_table(tmp_path) -> None:
    docs, labels = toy_corpus(40)
    emb = train_embeddings(docs, labels, dim=8, epochs=1, seed=0, progress=False, threads=1,
                           polarization=1.0)
    path = tmp_path / "private.npz"
    emb.save(path)
    assert is_private_embeddings(path)
    with pytest.raises(PrivateEmbeddingsError, match="private"):
        EmbeddingTable.from_word2vec(path)
    # The same file under a .vec name is refused too: the marker decides, not the name.
    disguised = tmp_path / "vectors.vec"
    disguised.write_bytes(path.read_bytes())
    with pytest.raises(PrivateEmbeddingsError):
        EmbeddingTable.from_word2vec(disguised)
    # A real word2vec file is not mistaken for one.
    plain = tmp_path / "plain.vec"
    plain.write_text("2 3\nalpha 1 0 0\nbeta 0 1 0\n", encoding="utf-8")
    assert not is_private_embeddings(plain)
    assert len(EmbeddingTable.from_word2vec(plain, cache=False)) == 2


def test_privatizer_refuses_private_embeddings(tmp_path) -> None:
    from textdp.privatizer import Privatizer

    docs, labels = toy_corpus(40)
    emb = train_embeddings(docs, labels, dim=8, epochs=1, seed=0, progress=False, threads=1)
    path = tmp_path / "private.npz"
    emb.save(path)
    with pytest.raises(ValueError):
        Privatizer(table=emb, targets="all")
    with pytest.raises(PrivateEmbeddingsError, match="private"):  # at construction
        Privatizer(table=path, targets="all", seed=0)


def test_cli_refuses_private_embeddings_as_table(tmp_path, capsys) -> None:
    from textdp.cli import main

    docs, labels = toy_corpus(40)
    emb = train_embeddings(docs, labels, dim=8, epochs=1, seed=0, progress=False, threads=1)
    path = tmp_path / "private.npz"
    emb.save(path)
    data = tmp_path / "in.txt"
    data.write_text("Alice met Bob in the kitchen.\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    rc = main(["privatize", str(data), "-o", str(out), "--table", str(path), "--targets", "all",
               "--no-progress", "--seed", "0"])
    err = capsys.readouterr().err
    assert rc == 2 and "private" in err and "Alice" not in err
    assert not out.exists()


# ---------------------------------------------------------------------------------- training
def test_training_is_reproducible_and_lowers_the_loss() -> None:
    docs, _ = toy_corpus(200)
    cfg = TrainingConfig(dim=12, epochs=4, seed=3, threads=1, min_count=1)
    a = train_embeddings(docs, config=cfg, progress=False)
    b = train_embeddings(docs, config=cfg, progress=False)
    np.testing.assert_array_equal(a.word_rows, b.word_rows)
    losses = a.meta["loss_per_pair"]
    assert losses[-1] < losses[0]


def test_training_validates_its_settings() -> None:
    docs, _ = toy_corpus(10)
    with pytest.raises(ValueError, match="dim"):
        TrainingConfig(dim=0)
    with pytest.raises(ValueError, match="maxn"):
        TrainingConfig(minn=5, maxn=3)
    with pytest.raises(ValueError, match="lr"):
        TrainingConfig(lr=float("nan"))
    with pytest.raises(ValueError, match="labelled"):
        train_embeddings(docs, polarization=1.0, progress=False)
    with pytest.raises(ValueError, match="labels for"):
        train_embeddings(docs, ["person"], progress=False)
    with pytest.raises(ValueError, match="min_count"):
        train_embeddings([["a"]], min_count=2, progress=False)


def test_gensim_fasttext_converts_row_for_row() -> None:
    """gensim's FastText, converted: vocabulary words get exactly gensim's vectors."""
    pytest.importorskip("gensim")
    from gensim.models import FastText

    from textdp.embeddings.train import train_gensim_fasttext

    docs, _ = toy_corpus(100)
    emb = train_gensim_fasttext(docs, dim=8, epochs=1, seed=0, min_count=1, buckets=5000,
                                workers=1)
    ref = FastText(sentences=docs, sg=1, vector_size=8, window=5, negative=5, epochs=1,
                   min_count=1, min_n=3, max_n=6, bucket=5000, sample=1e-4, seed=0, workers=1)
    for word in ("Alice", "table", "."):
        np.testing.assert_allclose(emb.vectors([word])[0], ref.wv[word], rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------------------------- corpus/CLI
def test_tokenize_keeps_case_and_splits_punctuation() -> None:
    assert tokenize("Dr. O'Neil met Jean-Luc, twice!") == \
        ["Dr", ".", "O'Neil", "met", "Jean-Luc", ",", "twice", "!"]


def test_read_corpus_labels_and_errors(tmp_path) -> None:
    jl = tmp_path / "c.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in [
        {"text": "Alice met Bob.", "label": "person"},
        {"text": "A lamp.", "label": ""},
        {"text": "A desk.", "label": None},
        {"text": "Carol.", "label": 3},
        {"text": "No label."}]) + "\n", encoding="utf-8")
    docs, labels = read_corpus(str(jl), label_field="label")
    assert docs[0] == ["Alice", "met", "Bob", "."]
    assert labels == ["person", None, None, "3", None]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"text": "Secret Name", "label": ["x"]}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 1.*label") as err:
        read_corpus(str(bad), label_field="label")
    assert "Secret" not in str(err.value)
    csv_path = tmp_path / "c.csv"
    csv_path.write_text("text,label\nAlice met Bob,person\nA lamp,\n", encoding="utf-8")
    docs, labels = read_corpus(str(csv_path), label_field="label")
    assert labels == ["person", None]
    with pytest.raises(ValueError, match="no column 'kind'"):
        read_corpus(str(csv_path), label_field="kind")
    txt = tmp_path / "c.txt"
    txt.write_text("one line\n", encoding="utf-8")
    with pytest.raises(ValueError, match="label column"):
        read_corpus(str(txt), label_field="label")


def test_cli_train_embeddings(tmp_path, capsys) -> None:
    from textdp.cli import main

    docs, labels = toy_corpus(60)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"text": " ".join(d), "kind": lab}) + "\n"
                              for d, lab in zip(docs, labels)), encoding="utf-8")
    out = tmp_path / "emb.npz"
    rc = main(["train-embeddings", str(corpus), "-o", str(out), "--label-field", "kind",
               "--dim", "8", "--epochs", "1", "--seed", "0", "--threads", "1",
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 0 and "PRIVATE" in err and "Alice" not in err
    emb = load_embeddings(out)
    assert emb.labels == ["other", "person"] and emb.meta["polarization"] == 1.0
    assert main(["train-embeddings", str(corpus), "-o", str(out), "--polarization", "1",
                 "--no-progress"]) == 2
    assert "--label-field" in capsys.readouterr().err


def test_load_embeddings_refuses_other_files(tmp_path) -> None:
    other = tmp_path / "x.npz"
    np.savez(other, a=np.zeros(2))
    with pytest.raises(ValueError, match="not a textdp subword-embeddings file"):
        load_embeddings(other)
    with pytest.raises(ValueError, match="does not exist"):
        load_embeddings(tmp_path / "missing.npz")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_training_on_gpu() -> None:
    docs, labels = toy_corpus(200)
    emb = train_embeddings(docs, labels, dim=12, epochs=3, seed=0, device="cuda",
                           polarization=1.0, progress=False, min_count=1)
    assert emb.word_rows.dtype == np.float32 and np.isfinite(emb.word_rows).all()
    assert emb.meta["loss_per_pair"][-1] < emb.meta["loss_per_pair"][0]
