"""Privacy evaluation: N_w / S_w, geometry, recovery skewness, name leak, report command."""

from __future__ import annotations

import argparse
import json
import math
import string
from itertools import product

import numpy as np
import pytest
from scipy.stats import skew

from textdp.cli.evaluate.privacy import add_parser
from textdp.evaluate.privacy import (
    DEFAULT_EPSILONS,
    _load_sentences,
    epsilon_grid,
    evaluate_privacy,
    name_leak,
    neighbour_distances,
    noisy_geometry,
    plausible_deniability,
    skewness,
)
from textdp.index import NeighbourIndex
from textdp.mechanisms import create_mechanism
from textdp.release import write_word2vec
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable

WORDS = ["".join(p) for p in product(string.ascii_lowercase[:8], repeat=2)]


pytestmark = pytest.mark.usefixtures("private_cache")


def _prepared(name: str, epsilon: float, vectors: np.ndarray):
    mech = create_mechanism(name, epsilon)
    mech.prepare(vectors, NeighbourIndex(vectors, backend="exact"), RandomSource(0))
    return mech


def _random(n: int = 40, dim: int = 16) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((n, dim)).astype(np.float32) * 4


def test_huge_epsilon_keeps_every_word():
    vectors = _random()
    rows = np.arange(len(vectors))
    mech = _prepared("mlaplace", 1e7, vectors)
    n_same, n_distinct = plausible_deniability(mech, vectors, rows, 30, RandomSource(0))
    assert (n_same == 30).all() and (n_distinct == 1).all()


def test_tiny_epsilon_spreads_draws_evenly_over_a_symmetric_table():
    # The 16 vertices of the cross-polytope in 8 d are all alike: with overwhelming noise
    # every word comes out with probability 1/16, so N_w ≈ n/16 and every word is reached.
    dim = 8
    vectors = np.concatenate([np.eye(dim), -np.eye(dim)]).astype(np.float32)
    rows = np.arange(2 * dim)
    mech = _prepared("mlaplace", 1e-6, vectors)
    n = 4000
    n_same, n_distinct = plausible_deniability(mech, vectors, rows, n, RandomSource(1))
    assert n_same.mean() / n == pytest.approx(1 / 16, abs=0.006)
    assert (n_distinct == 16).all()
    # Each N_w is Binomial(n, 1/16): within 5 standard deviations of n/16.
    assert (np.abs(n_same - n / 16) < 5 * math.sqrt(n / 16 * 15 / 16)).all()


def test_geometry_of_the_cross_polytope():
    dim = 8
    vectors = np.concatenate([np.eye(dim), -np.eye(dim)]).astype(np.float32) * 10
    rows = np.arange(2 * dim)
    mech = _prepared("mlaplace", 2.0, vectors)
    nn1, knn, own = neighbour_distances(mech, rows, k=10)
    # Every vertex is 10·√2 from 14 others and 20 from its antipode.
    np.testing.assert_allclose(nn1, 10 * math.sqrt(2), rtol=1e-5)
    np.testing.assert_allclose(knn, 10 * math.sqrt(2), rtol=1e-5)
    assert (own[:, 0] == rows).all()
    distance, recovery = noisy_geometry(mech, vectors, rows, own, 400, RandomSource(2))
    # The multivariate Laplace radius is Gamma(d, 1/ε): mean d/ε = 4.
    assert distance.mean() == pytest.approx(dim / 2.0, rel=0.03)
    assert ((recovery >= 0) & (recovery <= 1)).all()


def test_recovery_is_certain_without_noise_and_rare_with_much():
    vectors = _random()
    rows = np.arange(len(vectors))
    quiet = _prepared("mlaplace", 1e7, vectors)
    own = neighbour_distances(quiet, rows)[2]
    recovery = noisy_geometry(quiet, vectors, rows, own, 5, RandomSource(0))[1]
    np.testing.assert_allclose(recovery, 1.0)
    loud = _prepared("mlaplace", 1e-3, vectors)
    recovery = noisy_geometry(loud, vectors, rows, own, 20, RandomSource(0))[1]
    # Far noise decodes to hull words at random: about k/|V| of the list is shared.
    assert recovery.mean() < 0.5


def test_skewness():
    assert skewness(np.array([0, 0, 0, 1.0])) == pytest.approx(2 / math.sqrt(3))
    assert skewness(np.array([0, 0, 0, 1.0])) == pytest.approx(skew([0, 0, 0, 1.0]))
    assert skewness(np.array([1, 2, 3.0])) == pytest.approx(0.0)
    assert skewness(np.array([0, 1, 1, 1.0])) < 0
    assert skewness(np.full(5, 0.3)) is None


def test_epsilon_grid_reads_the_grid_grammar_with_these_defaults():
    mechs = ["mlaplace", "nadp"]
    assert epsilon_grid(mechs, "0.5,1") == {"mlaplace": [0.5, 1.0], "nadp": [0.5, 1.0]}
    assert epsilon_grid(mechs, ["0.5,1", "nadp:20,50"]) == {"mlaplace": [0.5, 1.0],
                                                            "nadp": [20.0, 50.0]}
    # A mechanism without values keeps its default grid (the same rule as evaluate utility).
    assert epsilon_grid(mechs, ["nadp=20"]) == {"mlaplace": list(DEFAULT_EPSILONS["*"]),
                                                "nadp": [20.0]}
    assert epsilon_grid(mechs)["nadp"] == list(DEFAULT_EPSILONS["nadp"])
    with pytest.raises(ValueError, match="epsilon"):
        epsilon_grid(mechs, "1,x")
    with pytest.raises(ValueError, match="epsilon"):
        epsilon_grid(mechs, "-1")
    with pytest.raises(ValueError, match="epsilon is given for tem"):
        epsilon_grid(mechs, "tem:1")


def test_mechanisms_without_table_substitution_are_refused_before_any_work():
    for name in ("dpnr", "dpmlm"):
        with pytest.raises(ValueError, match=f"mechanism '{name}' does not substitute"):
            evaluate_privacy([name], [1.0], table="/nonexistent/table.vec")


def test_evaluate_rows_and_json(tmp_path):
    table = EmbeddingTable(WORDS[:48], _random(48), name="random")
    evaluation = evaluate_privacy(["mlaplace", "nadp", "tem"], {"*": [1.0, 10.0],
                                                                "nadp": [100.0]},
                                  table=table, n_words=12, n_draws=10, seed=0)
    assert [(r["mechanism"], r["epsilon"]) for r in evaluation.rows] == [
        ("mlaplace", 1.0), ("mlaplace", 10.0), ("nadp", 100.0), ("tem", 1.0), ("tem", 10.0)]
    assert len(evaluation.words) == 12
    for row in evaluation.rows:
        figures = evaluation.per_word[(row["mechanism"], row["epsilon"])]
        assert figures.n_same.shape == (12,)
        assert row["n_same_mean"] == pytest.approx(figures.n_same.mean())
        assert 1 <= row["n_distinct_median"] <= 10
    assert "neighbourhoods" in evaluation.rows[2]
    assert "noise_distance_mean" not in evaluation.rows[3]  # tem adds no noise
    low, high = evaluation.rows[0], evaluation.rows[1]
    assert low["unchanged_mean"] <= high["unchanged_mean"]
    assert low["noise_distance_mean"] > high["noise_distance_mean"]
    json.dumps(evaluation.to_json())  # everything is JSON-able


def test_command_writes_the_report_section(tmp_path, capsys):
    table = EmbeddingTable(WORDS[:48], _random(48), name="random")
    source = tmp_path / "table.vec"
    with open(source, "w", encoding="utf-8") as f:
        write_word2vec(f, table.words, table.vectors)
    out = tmp_path / "report"
    parser = argparse.ArgumentParser(prog="textdp")
    add_parser(parser.add_subparsers(dest="what", required=True))
    args = parser.parse_args(["privacy", "--mechanism", "mlaplace,mahalanobis", "--epsilon",
                              "1,5", "--table", str(source), "--quick", "--data",
                              str(tmp_path / "absent"), "-o", str(out)])
    assert args.handler(args) == 0
    page = (out / "privacy.md").read_text(encoding="utf-8")
    assert "## Plausible deniability" in page and "Name leak not measured" in page
    for png in ("privacy_nw_vs_epsilon.png", "privacy_hist_nw.png", "privacy_hist_sw.png",
                "privacy_geometry.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"
    data = json.loads((out / "privacy.json").read_text(encoding="utf-8"))
    assert len(data["data"]["rows"]) == 4 and "versions" in data
    assert "privacy.md" in (out / "index.md").read_text(encoding="utf-8")


def test_sentence_limit_cuts_documents(tmp_path):
    path = tmp_path / "mini.conll"
    doc = "-DOCSTART- -X- -X- O\n\n" + "".join(
        f"Word{i} NN I-NP O\nJohn NNP I-NP I-PER\n\n" for i in range(3))
    path.write_text(doc * 2, encoding="utf-8")
    kept = _load_sentences(path, 4)
    assert [len(d) for d in kept] == [3, 1]
    assert sum(len(d) for d in _load_sentences(path, None)) == 6


@pytest.mark.shared_data
def test_name_leak_on_conll_dev(shared_data, default_table):
    conll = shared_data / "conll2003" / "eng.testa"
    rows = name_leak(["mlaplace"], [1e-3, 1e4], conll, table=default_table, sentences=60)
    tiny, huge = rows
    assert tiny["gold_person_tokens"] > 20
    for row in rows:
        assert row["leak_rate"] == pytest.approx(row["missed_rate"] + row["kept_rate"])
    # With overwhelming noise a name survives with probability ~1/|V|; with almost none,
    # every targeted in-vocabulary name stays.
    assert tiny["kept"] <= 1 and huge["kept"] > tiny["kept"] + 5
