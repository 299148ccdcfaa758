"""Calibration: exit radii, P(unchanged) estimates, bisection to known ε, cache, command."""

from __future__ import annotations

import argparse
import json
import math
import string
from itertools import product

import numpy as np
import pytest
import torch
from scipy.optimize import brentq
from scipy.stats import norm

from textdp.calibration import (
    UnchangedEstimator,
    bisect_epsilon,
    calibrate_epsilon,
    exit_radii,
    sample_rows,
)
from textdp.cli.calibrate import add_parser
from textdp.index import NeighbourIndex
from textdp.mechanisms import create_mechanism
from textdp.mechanisms.gaussian import analytic_gaussian_sigma
from textdp.release import write_word2vec
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable

WORDS = ["".join(p) for p in product(string.ascii_lowercase[:8], repeat=2)]


pytestmark = pytest.mark.usefixtures("private_cache")


def _random_table(n: int = 40, dim: int = 6, seed: int = 0) -> EmbeddingTable:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return EmbeddingTable(WORDS[:n], vectors, name="random")


def test_exit_radii_match_a_search_along_the_ray():
    table = _random_table()
    space = table.vectors
    index = NeighbourIndex(space, backend="exact")
    rows = np.array([0, 5, 17])
    dirs = torch.randn(3, 8, space.shape[1], generator=torch.Generator().manual_seed(0))
    radii = exit_radii(space, space[rows], rows, dirs)
    for i, row in enumerate(rows):
        for j in range(8):
            t = radii[i, j]
            assert 0 < t < math.inf
            inside = space[row] + (t * 0.999) * dirs[i, j].numpy()
            outside = space[row] + (t * 1.001) * dirs[i, j].numpy()
            found = index.search(torch.from_numpy(np.stack([inside, outside])), 1)[1][:, 0]
            assert int(found[0]) == row and int(found[1]) != row


def test_radial_estimate_agrees_with_the_mechanism_draws():
    table = _random_table()
    rows = sample_rows(table, 10, seed=0)
    for name, eps in (("mlaplace", 2.0), ("mahalanobis", 2.0), ("gaussian", 100.0),
                      ("nadp", 50.0), ("projection", 5.0)):
        estimator = UnchangedEstimator(name, table, rows, n_draws=400, seed=1)
        assert estimator.method == "radial"
        radial = estimator.probabilities(eps)
        mech = create_mechanism(name, eps)
        mech.prepare(table.vectors, estimator.index, RandomSource(99))
        inverse = torch.arange(len(rows)).repeat_interleave(2000)
        ids = mech.sample(torch.from_numpy(table.vectors[rows]), inverse, RandomSource(7))
        sampled = (ids.numpy().reshape(len(rows), 2000) == rows[:, None]).mean(axis=1)
        assert 0.05 < sampled.mean() < 0.95, name  # a regime where the test can fail
        assert abs(radial.mean() - sampled.mean()) < 0.03, name


def test_mlaplace_on_two_points_calibrates_to_the_closed_form():
    # In one dimension, 0 is replaced by 1 iff the Laplace noise exceeds 1/2:
    # P(unchanged) = 1 − e^{−ε/2} / 2, so P = 0.6 at ε = 2 ln 1.25.
    table = EmbeddingTable(["zero", "one"], np.array([[0.0], [1.0]], np.float32))
    result = calibrate_epsilon("mlaplace", table, target_unchanged=0.6, statistic="mean",
                               n_draws=20000, clip_norm=None, tol=1e-3)
    assert result.method == "radial"
    assert result.epsilon == pytest.approx(2 * math.log(1.25), rel=0.05)
    assert result.achieved <= 0.6


def test_gaussian_on_two_points_calibrates_to_the_closed_form():
    # Two words at distance D: P(unchanged) = Φ(D / 2σ(ε)), σ from the analytic mechanism.
    dim, d = 5, 4.0
    vectors = np.zeros((2, dim), np.float32)
    vectors[1, 0] = d
    table = EmbeddingTable(["left", "right"], vectors)
    target = 0.9
    sigma = d / (2 * norm.ppf(target))
    expected = brentq(lambda e: analytic_gaussian_sigma(e, 1e-6, d) - sigma, 1e-3, 1e3)
    result = calibrate_epsilon({"name": "gaussian", "sensitivity": d}, table,
                               target_unchanged=target, n_draws=4000, clip_norm=None,
                               tol=1e-3)
    assert result.epsilon == pytest.approx(expected, rel=0.05)


def test_sampled_mechanisms_use_common_random_numbers():
    table = _random_table(24)
    rows = sample_rows(table, 8, seed=0)
    estimator = UnchangedEstimator("vickrey", table, rows, n_draws=200, seed=0)
    assert estimator.method == "sampled"
    values = [estimator.probabilities(e).mean() for e in (0.5, 2.0, 8.0, 32.0)]
    assert values == sorted(values) and values[-1] > values[0]
    np.testing.assert_array_equal(estimator.probabilities(2.0), estimator.probabilities(2.0))
    result = calibrate_epsilon("vickrey", table, target_unchanged=0.5, n_words=8,
                               n_draws=200, clip_norm=None, tol=0.05)
    assert result.method == "sampled" and result.achieved <= 0.5


def test_bisection_returns_the_conservative_side():
    eps, value, calls = bisect_epsilon(lambda e: 1 - math.exp(-e), 0.5, tol=1e-4)
    assert eps == pytest.approx(math.log(2), rel=1e-4) and value <= 0.5 and calls < 40
    with pytest.raises(ValueError, match="not reached"):
        bisect_epsilon(lambda e: 0.9, 0.5)
    with pytest.raises(ValueError, match="almost never kept"):
        bisect_epsilon(lambda e: 0.0, 0.5)


def test_results_are_cached_per_target(tmp_path):
    table = _random_table()
    first = calibrate_epsilon("mlaplace", table, target_unchanged=0.2, n_words=10, n_draws=50)
    again = calibrate_epsilon("mlaplace", table, target_unchanged=0.2, n_words=10, n_draws=50)
    other = calibrate_epsilon("mlaplace", table, target_unchanged=0.3, n_words=10, n_draws=50)
    assert not first.cached and again.cached and not other.cached
    assert again.epsilon == first.epsilon and other.epsilon > first.epsilon
    assert len(list((tmp_path / "cache" / "calibration").glob("*.json"))) == 2


@pytest.mark.parametrize("kwargs, name", [
    ({"target_unchanged": 0.0}, "target_unchanged"), ({"target_unchanged": 1.0},
                                                      "target_unchanged"),
    ({"statistic": "max"}, "statistic"), ({"statistic": 1.5}, "quantile"),
    ({"mechanism": "nope"}, "mechanism"), ({"n_draws": 0}, "n_draws"),
    ({"words": ["not-in-table"]}, "words"),
])
def test_bad_parameters_are_rejected(kwargs, name):
    with pytest.raises(ValueError, match=name):
        calibrate_epsilon(**{"table": _random_table(), **kwargs})


def test_command_prints_epsilon_and_statistic(tmp_path, capsys):
    table = _random_table()
    path = tmp_path / "table.vec"
    with open(path, "w", encoding="utf-8") as f:
        write_word2vec(f, table.words, table.vectors)
    parser = argparse.ArgumentParser(prog="textdp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["calibrate", "--table", str(path), "--target-unchanged", "0.1",
                              "--quantile", "0.5", "--n-words", "12", "--n-draws", "40",
                              "--json"])
    assert args.handler(args) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["statistic"] == "quantile=0.5" and shown["epsilon"] > 0
    assert shown["achieved"] <= 0.1 and shown["mechanism"] == {"name": "mlaplace"}


# ================================================================= epsilon="auto" in the front ends
def test_privatizer_epsilon_auto_calibrates_on_its_table():
    import spacy

    from textdp.calibration import calibrate_epsilon
    from textdp.privatizer import Privatizer

    table = _random_table()
    p = Privatizer(epsilon="auto", target_unchanged=0.2, targets="all", table=table,
                   nlp=spacy.blank("en"), seed=0)
    expected = calibrate_epsilon("mlaplace", table, target_unchanged=0.2)
    assert p.epsilon == pytest.approx(expected.epsilon) and p.mechanism.epsilon == p.epsilon
    assert p.calibration.achieved <= 0.2
    # a larger target allows a larger ε
    looser = Privatizer(epsilon="auto", target_unchanged=0.6, targets="all", table=table,
                        nlp=spacy.blank("en"))
    assert looser.epsilon > p.epsilon
    assert p("aa bb cc").report.epsilon == p.epsilon


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": "big"}, "epsilon"),
    ({"epsilon": 1.0, "target_unchanged": 0.1}, "target_unchanged"),
    ({"epsilon": "auto", "target_unchanged": 1.5}, "target_unchanged"),
    ({"epsilon": "auto", "mechanism": {"name": "mlaplace", "epsilon": 2}}, "auto"),
    ({"epsilon": "auto", "representation": "contextual"}, "auto"),
])
def test_privatizer_epsilon_auto_bad_parameters(kwargs, match):
    from textdp.privatizer import Privatizer

    with pytest.raises(ValueError, match=match):
        Privatizer(targets="all", table=_random_table(), **kwargs)


def test_hf_privatizer_keeps_auto_in_its_configuration():
    import pickle

    pytest.importorskip("datasets")
    from hf_textdp import Privatizer

    p = Privatizer(epsilon="auto", target_unchanged=0.2, targets="all", table=_random_table(),
                   device="cpu")
    assert p.options()["epsilon"] == "auto"
    q = pickle.loads(pickle.dumps(p))
    assert q.core.epsilon == pytest.approx(p.core.epsilon)
