"""The packaged spaCy name tagger: loads from the package, tags names; training runs."""

from __future__ import annotations

import json
import pickle

import pytest

from textdp.cli import main
from textdp.detect.trained import (
    DEFAULT_MODEL,
    MODEL_FILE,
    RECALL_BIAS,
    TrainedNERDetector,
    conll_words,
    load_trained,
    model_meta,
    model_path,
    packaged_models,
)

INVOICE = "The invoice was signed by Oluwaseun Adeyemi and sent to Marta Kowalska."
MAX_PACKAGE_BYTES = 25 * 1024 * 1024


def test_packaged_model_is_small_and_has_no_vectors():
    assert DEFAULT_MODEL in packaged_models()
    folder = model_path(DEFAULT_MODEL)
    total = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
    assert total <= MAX_PACKAGE_BYTES
    assert (folder / MODEL_FILE).stat().st_size < 20000 * 300 * 4  # smaller than the vectors
    meta = model_meta()
    # Trained on every domain's training split; dev splits chose the epoch; no test set.
    assert meta["train"]["conll"] == ["conll2003/eng.train"]
    assert "btc/b.conll" not in meta["train"]["btc"] and meta["dev"]["btc"] == "btc/b.conll"
    assert meta["dev"]["wnut17"] == "wnut17/emerging.dev.conll"
    # dev_per_f1 is the mean over the domains; newswire alone stays above 0.9.
    best = meta["history"][meta["best_epoch"] - 1]
    assert best["dev"]["conll"]["f1"] > 0.9 and meta["dev_per_f1"] > 0.7


def test_vectors_are_reattached_from_the_md_pipeline():
    nlp = load_trained()
    assert nlp.pipe_names == ["ner"]
    assert nlp.vocab.vectors.shape == (20000, 300)
    assert "PERSON" in nlp.get_pipe("ner").labels


def test_tags_the_invoice_names(nlp):
    det = TrainedNERDetector()
    doc = nlp.tokenizer(INVOICE)
    (spans,) = det([doc])
    persons = [doc[s:e].text for s, e, lab in spans if lab == "PERSON"]
    assert persons == ["Oluwaseun Adeyemi", "Marta Kowalska"]
    assert len(doc.ents) == 0  # the caller's doc is left as it was


def test_docs_from_another_vocab_and_empty_docs():
    import spacy

    blank = spacy.blank("en")
    docs = [blank("Angela Merkel met John Smith in Berlin."), blank("")]
    spans = TrainedNERDetector()(docs)
    words = [t.text for t in docs[0]]
    assert [" ".join(words[s:e]) for s, e, lab in spans[0] if lab == "PERSON"] == \
        ["Angela Merkel", "John Smith"]
    assert spans[1] == []


def test_conll_words_rejoin_hyphenated_pieces(nlp):
    doc = nlp.tokenizer("Jean-Baptiste Kouassi, 1996-08-30 - re- do")
    words, spaces, starts = conll_words(doc)
    assert words == ["Jean-Baptiste", "Kouassi", ",", "1996-08-30", "-", "re-", "do"]
    assert spaces == [True, False, True, True, True, True, False]
    assert [doc[i].text for i in starts] == ["Jean", "Kouassi", ",", "1996", "-", "re-", "do"]


def test_hyphenated_name_is_one_span(nlp):
    doc = nlp.tokenizer("Please call Jean-Baptiste Kouassi today.")
    (spans,) = TrainedNERDetector()([doc])
    assert [doc[s:e].text for s, e, lab in spans if lab == "PERSON"] == \
        ["Jean-Baptiste Kouassi"]


def test_recall_bias(nlp):
    plain = load_trained(DEFAULT_MODEL, 0.0)
    biased = load_trained(DEFAULT_MODEL, RECALL_BIAS)
    assert plain is not biased and plain is load_trained()  # cached per (model, bias)
    ner, ner_b = plain.get_pipe("ner"), biased.get_pipe("ner")
    names = [ner.moves.get_class_name(i) for i in range(ner.moves.n_moves)]
    diff = ner_b.model.get_ref("upper").get_param("b") - ner.model.get_ref("upper").get_param("b")
    assert {names[i] for i in range(len(names)) if diff[i]} == {"B-PERSON", "U-PERSON"}
    assert diff.max() == pytest.approx(RECALL_BIAS)
    det = TrainedNERDetector(recall_bias=0)
    assert det.nlp is plain and "recall_bias=0.0" in repr(det)
    with pytest.raises(ValueError, match="recall_bias"):
        TrainedNERDetector(recall_bias=float("nan"))
    # More bias never finds fewer person tokens.
    doc = nlp.tokenizer("Reviewed by Aleksandr Petrov and Ximena Quispe Huamán, Treasurer.")
    (a,) = det([doc])
    (b,) = TrainedNERDetector(recall_bias=8.0)([doc])
    tokens = [{k for s, e, lab in x if lab == "PERSON" for k in range(s, e)} for x in (a, b)]
    assert tokens[0] <= tokens[1]


def test_pickle_and_missing_model(tmp_path):
    det = pickle.loads(pickle.dumps(TrainedNERDetector(recall_bias=1.5)))
    assert det._nlp is None and det.model == DEFAULT_MODEL and det.recall_bias == 1.5
    with pytest.raises(FileNotFoundError, match="no trained detector"):
        TrainedNERDetector(tmp_path / "nothing")


def test_train_detector_command(conll_file, tmp_path, capsys):
    data = conll_file
    out = tmp_path / "model"
    assert main(["train-detector", "--train", str(data), "--dev", str(data), "-o", str(out),
                 "--init", "scratch", "--width", "16", "--depth", "1", "--hidden", "16",
                 "--max-epochs", "2", "--seed", "1"]) == 0
    printed = capsys.readouterr().out
    assert "epoch  1:" in printed and "best epoch" in printed
    meta = json.loads((out / "meta.json").read_text())
    assert meta["settings"]["width"] == 16 and len(meta["history"]) == 2
    det = TrainedNERDetector(out)
    import spacy

    assert len(det([spacy.blank("en")("John Smith")])) == 1


def test_the_taggers_own_vocab_keeps_no_word_of_the_texts(nlp):
    """The trained tagger re-creates each doc in its own vocab; outside a memory zone of that
    vocab every word (names among them) would stay in its string store, batch after batch.
    The same holds for a spaCy NER detector reading docs of another tokenizer."""
    from textdp.defaults import fresh_pipeline
    from textdp.detect.spacy_ner import SpacyNERDetector

    names = ["Vandrozelle", "Quibbletorn"]  # used by no other test
    doc = nlp.tokenizer(f"The invoice was signed by {names[0]} {names[1]} yesterday.")
    trained = TrainedNERDetector()
    other = SpacyNERDetector(fresh_pipeline())
    for detector in (trained, other):
        (spans,) = detector([doc])
        assert (5, 7, "PERSON") in spans  # still found
        assert not any(n in detector.nlp.vocab.strings for n in names)
