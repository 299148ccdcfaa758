"""textdp.scale: the distances a metric-DP ε multiplies."""

from __future__ import annotations

import numpy as np
import pytest

from textdp.scale import common_name_rows, space_scale
from textdp.tables import EmbeddingTable


def test_scale_of_a_known_table():
    # Three names at the corners of a right triangle (3, 4, 5) and a far non-name.
    words = ["John", "Mary", "Smith", "carburettor"]
    vectors = np.array([[0, 0], [3, 0], [0, 4], [100, 0]], dtype=np.float32)
    table = EmbeddingTable(words, vectors)
    assert sorted(table.row_words[r] for r in common_name_rows(table)) == \
        ["John", "Mary", "Smith"]
    scale = space_scale(table, None)
    assert scale.name_distance == pytest.approx(4.0)  # median of 3, 4, 5
    assert scale.diameter == pytest.approx(200.0)  # twice the longest vector
    assert space_scale(table, 2.5).diameter == pytest.approx(5.0)


def test_uncased_vocabularies_are_found_and_a_table_without_names_has_none():
    lower = EmbeddingTable(["john", "mary", "the"], np.eye(3, dtype=np.float32))
    assert len(common_name_rows(lower)) == 2
    plain = EmbeddingTable(["the", "carburettor"], np.eye(2, dtype=np.float32))
    assert space_scale(plain, None).name_distance is None


def test_default_table_name_distance(default_table):
    radius = default_table.median_norm()
    scale = space_scale(default_table.clipped(radius), radius)
    assert len(common_name_rows(default_table)) > 300
    assert 25 < scale.name_distance < scale.diameter == pytest.approx(2 * radius)
