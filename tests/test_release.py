"""release-table: noisy tables from releasable mechanisms, word2vec text, atomic writes."""

from __future__ import annotations

import argparse
import io
import string
from itertools import product

import numpy as np
import pytest

from textdp.cli.release_table import add_parser
from textdp.mechanisms import create_mechanism
from textdp.mechanisms.gaussian import analytic_gaussian_sigma
from textdp.release import can_release, release_table, write_word2vec
from textdp.tables import EmbeddingTable

WORDS = ["".join(p) for p in product(string.ascii_lowercase[:8], repeat=2)][:48]


pytestmark = pytest.mark.usefixtures("private_cache")


@pytest.fixture()
def table() -> EmbeddingTable:
    vectors = np.random.default_rng(0).standard_normal((len(WORDS), 12)).astype(np.float32)
    return EmbeddingTable(WORDS, vectors * 2, name="synthetic")


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="textdp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


def test_gaussian_release_has_the_calibrated_noise(table):
    words, noisy = release_table({"name": "gaussian", "sensitivity": 3.0}, 2.0, table,
                                 clip_norm=None, seed=0)
    assert words == table.words and noisy.shape == table.vectors.shape
    sigma = analytic_gaussian_sigma(2.0, 1e-6, 3.0)
    assert float((noisy - table.vectors).std()) == pytest.approx(sigma, rel=0.05)


def test_release_is_reproducible_only_with_a_seed(table):
    a = release_table("mlaplace", 1.0, table, seed=3)[1]
    b = release_table("mlaplace", 1.0, table, seed=3)[1]
    c = release_table("mlaplace", 1.0, table)[1]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_mechanisms_that_decode_cannot_release(table):
    assert can_release(create_mechanism("nadp", 1.0))
    assert not can_release(create_mechanism("tem", 1.0))
    with pytest.raises(ValueError, match="cannot release"):
        release_table("tem", 1.0, table)
    # dpnr has a release() for model representations, not for table rows.
    assert not can_release(create_mechanism("dpnr", 1.0))
    with pytest.raises(ValueError, match="cannot release"):
        release_table("dpnr", 1.0, table)


def test_word2vec_writer_rejects_bad_words():
    with pytest.raises(ValueError, match="whitespace"):
        write_word2vec(io.StringIO(), ["two words"], np.zeros((1, 2), np.float32))
    with pytest.raises(ValueError, match="1 words but 2"):
        write_word2vec(io.StringIO(), ["one"], np.zeros((2, 2), np.float32))


def test_command_writes_a_loadable_table(table, tmp_path, capsys):
    source = tmp_path / "table.vec"
    with open(source, "w", encoding="utf-8") as f:
        write_word2vec(f, table.words, table.vectors)
    out = tmp_path / "new" / "noisy.vec"
    assert _run(["release-table", "--mechanism", "nadp", "--epsilon", "50", "--table",
                 str(source), "--seed", "1", "-o", str(out)]) == 0
    assert "48 noisy vectors" in capsys.readouterr().out
    loaded = EmbeddingTable.from_word2vec(out, cache=False)
    assert loaded.words == table.words and loaded.vectors.shape == (48, 12)
    clipped = table.clipped(table.median_norm()).vectors
    assert not np.allclose(loaded.vectors, clipped)
    assert list(out.parent.iterdir()) == [out]  # no temporary file left behind


def test_command_validates_before_writing(tmp_path):
    out = tmp_path / "noisy.vec"
    with pytest.raises(ValueError, match="cannot release"):
        _run(["release-table", "--mechanism", "santext", "--epsilon", "1", "-o", str(out)])
    with pytest.raises(ValueError, match="epsilon"):
        _run(["release-table", "--mechanism", "nadp", "--epsilon", "0", "-o", str(out)])
    assert not out.exists()
