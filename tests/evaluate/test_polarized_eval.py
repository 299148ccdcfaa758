"""textdp.evaluate.polarized: the ROC arithmetic, and the evaluation on a tiny CoNLL corpus."""

from __future__ import annotations

import json

import numpy as np
import pytest

from textdp.evaluate.polarized import (
    Settings,
    auc,
    capitalised,
    evaluate,
    format_table,
    load_conll,
    operating_point,
    plot,
    roc_curve,
)


def test_roc_curve_counts_ties_together() -> None:
    scores = np.array([0.9, 0.8, 0.8, 0.3, 0.1])
    positive = np.array([True, True, False, False, True])
    fpr, tpr, thr = roc_curve(scores, positive)
    np.testing.assert_allclose(fpr, [0, 0, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(tpr, [0, 1 / 3, 2 / 3, 2 / 3, 1.0])
    assert thr[0] == np.inf and list(thr[1:]) == [0.9, 0.8, 0.3, 0.1]
    # (positive, negative) pairs ranked correctly: 3 of 6, and one tie worth a half.
    assert auc(fpr, tpr) == pytest.approx(3.5 / 6)


def test_auc_is_the_mann_whitney_statistic() -> None:
    rng = np.random.default_rng(0)
    scores = np.round(rng.normal(size=500), 1)  # many ties
    positive = rng.random(500) < 0.3
    scores[positive] += 0.5
    pos, neg = scores[positive], scores[~positive]
    pairs = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    fpr, tpr, _ = roc_curve(scores, positive)
    assert auc(fpr, tpr) == pytest.approx(pairs, abs=1e-12)
    metrics = pytest.importorskip("sklearn.metrics")
    assert auc(fpr, tpr) == pytest.approx(metrics.roc_auc_score(positive, scores), abs=1e-12)


def test_never_flagged_tokens_and_operating_point() -> None:
    scores = np.array([0.9, -np.inf, 0.5, -np.inf, 0.2, 0.7])
    positive = np.array([True, True, False, False, False, True])
    fpr, tpr, thr = roc_curve(scores, positive)
    assert fpr[-1] == 1.0 and tpr[-1] == 1.0
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    # Sorted: 0.9 P, 0.7 P, 0.5 N, 0.2 N, then the never-flagged P and N together.
    np.testing.assert_allclose(fpr, [0, 0, 0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(tpr, [0, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1])
    point = operating_point(fpr, tpr, thr, 0.34)
    assert point["threshold"] == 0.5 and point["fpr"] == pytest.approx(1 / 3)
    assert point["tpr"] == pytest.approx(2 / 3)
    assert operating_point(fpr, tpr, thr, 0.0)["threshold"] == 0.7
    with pytest.raises(ValueError, match="positive and negative"):
        roc_curve(np.zeros(3), np.zeros(3, dtype=bool))
    with pytest.raises(ValueError, match="NaN"):
        roc_curve(np.array([np.nan, 1.0]), np.array([True, False]))


def _write_conll(path, sentences) -> None:
    lines = ["-DOCSTART- -X- -X- O", ""]
    for sent in sentences:
        lines += [f"{tok} NN O {tag}" for tok, tag in sent] + [""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def tiny_conll(tmp_path):
    """A synthetic CoNLL-2003 folder: sentences with two people and a thing, and sentences
    with two things; only the names (and "met") are particular to the person sentences."""
    rng = np.random.default_rng(0)
    names = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan"]
    things = ["table", "chair", "lamp", "sofa", "shelf", "desk", "stool", "bench"]

    def sentences(n):
        out = []
        for k in range(n):
            if k % 2 == 0:
                a, b = rng.choice(names, 2, replace=False)
                out.append([(str(a), "I-PER"), ("met", "O"), (str(b), "I-PER"), ("near", "O"),
                            ("the", "O"), (str(rng.choice(things)), "O"), (".", "O")])
            else:
                a, b = rng.choice(things, 2, replace=False)
                out.append([("The", "O"), (str(a), "O"), ("stood", "O"), ("near", "O"),
                            ("the", "O"), (str(b), "O"), (".", "O")])
        return out

    folder = tmp_path / "data" / "conll2003"
    folder.mkdir(parents=True)
    _write_conll(folder / "eng.train", sentences(300))
    _write_conll(folder / "eng.testa", sentences(40))
    return tmp_path / "data"


def test_load_conll_labels_sentences(tiny_conll) -> None:
    train = load_conll(tiny_conll, "train")
    assert len(train.sentences) == 300
    assert train.sentence_labels[:2] == ["person", "other"]
    dev = load_conll(tiny_conll, "dev")
    assert dev.person_tokens.sum() == 40 and dev.person_tokens.size == 40 * 7
    assert capitalised(dev.sentences).sum() == 20 * 2 + 20  # names and "The"


def test_evaluate_on_a_tiny_corpus(tiny_conll, tmp_path) -> None:
    settings = Settings(dim=16, epochs=3, seeds=(0, 1), threads=1,
                        variants=("skipgram", "polarized-seeds", "polarized-direction"))
    results = evaluate(settings, tiny_conll, progress=False)
    by = {(r.name, r.gated): r for r in results}
    assert set(by) == {(v, g) for v in settings.variants for g in (False, True)}
    for r in results:
        assert len(r.aucs) == 2 and all(0.0 <= a <= 1.0 for a in r.aucs)
        assert r.curve is not None
    # Names live only in person sentences, "The" only in the others: among capitalised
    # tokens the person direction ranks the names first (a direction that did not would
    # leave about a third of them above 3 % false positives, and an AUC near 0.875).
    direction = by[("polarized-direction", True)].summary()
    assert direction["tpr_at_3pct_fpr"] > 0.6 and direction["auc_mean"] > 0.95
    table = format_table(results)
    assert "polarized-direction" in table and "TPR@3%FPR" in table
    summary = by[("skipgram", True)].summary()
    assert summary["runs"] == 2 and summary["auc_min"] <= summary["auc_mean"] <= \
        summary["auc_max"]
    png = tmp_path / "roc.png"
    plot(results, png, "tiny")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_evaluate_polarized(tiny_conll, tmp_path, capsys) -> None:
    from textdp.cli import main

    out = tmp_path / "report"
    rc = main(["evaluate", "polarized", "--data", str(tiny_conll), "--quick", "--dim", "8",
               "--epochs", "1", "--variants", "skipgram,polarized-direction", "-o", str(out),
               "--no-progress"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "skipgram" in printed and "polarized-direction" in printed
    payload = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {r["variant"] for r in payload["results"]} == {"skipgram", "polarized-direction"}
    assert (out / "roc.png").is_file()
    assert main(["evaluate", "polarized", "--data", str(tiny_conll), "--variants", "nope",
                 "--no-progress"]) == 2


def test_conll_reading_on_the_shared_data(shared_data) -> None:
    train = load_conll(shared_data, "train")
    dev = load_conll(shared_data, "dev")
    assert len(train.sentences) == 14041
    assert train.sentence_labels.count("person") == 4373
    assert dev.person_tokens.size == 51362 and int(dev.person_tokens.sum()) == 3149
