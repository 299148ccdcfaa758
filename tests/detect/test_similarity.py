"""The similarity detector: cosine closeness to seed terms, and its ROC in the evaluation."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from textdp.cli import main
from textdp.detect import create_detector
from textdp.detect.similarity import SimilarityDetector, unit_rows
from textdp.tables import EmbeddingTable


@pytest.fixture
def toy_table():
    # Three directions: names (x), places (y), numbers (z); "Maria" leans to names.
    words = ["John", "Mary", "Maria", "Paris", "London", "seven"]
    vectors = np.array([[1, 0, 0], [0.9, 0.1, 0], [0.8, 0.6, 0], [0, 1, 0], [0.1, 1, 0],
                        [0, 0, 1]], dtype=np.float32)
    return EmbeddingTable(words, vectors, name="toy")


def test_scores_are_cosine_to_the_nearest_seed(toy_table):
    det = SimilarityDetector(["John"], table=toy_table, threshold=0.7)
    s = det.token_scores(["John", "Maria", "Paris", "seven", "unknown-token"])
    assert s[0] == pytest.approx(1.0)
    assert s[1] == pytest.approx(0.8)
    assert s[2] == pytest.approx(0.0)
    assert s[3] == pytest.approx(0.0) and s[4] == 0.0  # no vector: score 0
    words = ["John", "Maria", "met", "Mary", "in", "Paris"]
    assert det.spans(words) == [(0, 2, "PERSON"), (3, 4, "PERSON")]
    # Several seeds: the nearest one counts.
    det2 = SimilarityDetector(["John", "Paris"], table=toy_table, threshold=0.99)
    assert det2.spans(["London", "seven", "John"]) == [(0, 1, "PERSON"), (2, 3, "PERSON")]


def test_unit_rows(toy_table):
    u = unit_rows(toy_table)
    assert np.allclose(np.linalg.norm(u, axis=1), 1.0)


def test_capitalised_only_and_label(toy_table):
    det = SimilarityDetector(["John"], table=toy_table, threshold=0.5, label="PER",
                             capitalised_only=True)
    assert det.label == "PERSON"
    assert det.token_scores(["john", "John"]).tolist() == [0.0, pytest.approx(1.0)]


def test_validation(toy_table):
    with pytest.raises(ValueError, match="seeds"):
        SimilarityDetector([], table=toy_table)
    with pytest.raises(ValueError, match="threshold"):
        SimilarityDetector(["John"], table=toy_table, threshold=1.5)
    with pytest.raises(ValueError, match="none of the seed"):
        SimilarityDetector(["nowhere"], table=toy_table).token_scores(["John"])


def test_default_table_and_seeds_flag_names(nlp):
    det = create_detector("similarity")
    doc = nlp.tokenizer("The invoice was signed by Robert Brown on Monday for Marta Kowalska.")
    (spans,) = det([doc])
    assert [doc[s:e].text for s, e, _ in spans] == ["Robert Brown", "Marta Kowalska"]
    again = pickle.loads(pickle.dumps(det))
    assert again([doc]) == [spans]


def test_roc_is_printed(tmp_path, capsys):
    data = tmp_path / "tiny.conll"
    data.write_text("Robert NNP I-NP I-PER\nBrown NNP I-NP I-PER\nvisited VBD I-VP O\n"
                    "Paris NNP I-NP I-LOC\nwith IN I-PP O\nMaria NNP I-NP I-PER\n. . O O\n",
                    encoding="utf-8")
    assert main(["evaluate", "detection", "--data", str(data), "--detector", "similarity",
                 "--seeds", "John,Mary,Smith", "--threshold", "0.4"]) == 0
    out = capsys.readouterr().out
    assert "similarity ROC over word tokens (3 PERSON / 3 other), 3 seeds" in out
    assert "threshold    TPR     FPR" in out and "similarity: PERSON P" in out
