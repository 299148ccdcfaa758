"""Representation (textdp.pipeline.representation): the vector each draw starts from, on the
toy table: a target's own row, or a public stand-in that does not depend on it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from textdp.mechanisms import create_mechanism
from textdp.pipeline.candidates import CandidateSpace
from textdp.pipeline.representation import static_inputs
from textdp.rng import RandomSource

CPU = torch.device("cpu")


@pytest.fixture
def space(toy_table):
    return CandidateSpace(toy_table, create_mechanism("mlaplace", 1.0), clip_norm=None,
                          exclude=frozenset(), index_backend="exact", device=CPU,
                          rng=RandomSource(0), replace="word", name_required=False)


def test_static_inputs_read_rows_and_public_stand_ins(space, toy_table):
    tokens = ["alpha", "Alpha", "zorblat", "qwerty", "beta", "gamma"]
    labels = ["PERSON", "PERSON", "PERSON", "*", "PERSON", "*"]
    over = np.array([False, False, False, False, True, True])
    vecs, inverse = static_inputs(space, tokens, labels, over, CPU)
    got = vecs[inverse].numpy()
    alpha = toy_table.lookup_vectors[toy_table.lookup(["alpha"])[0]]
    np.testing.assert_array_equal(got[0], alpha)
    assert inverse[0] == inverse[1]  # one row read once (Alpha falls back to alpha's row)
    # Out of vocabulary or over budget: the person stand-in (mean of John and Mary) for a
    # person, the table's mean for any other target; never the target's own row.
    np.testing.assert_allclose(got[2], space.fallback["PERSON"])
    np.testing.assert_allclose(got[4], space.fallback["PERSON"])
    np.testing.assert_allclose(got[3], space.fallback["*"])
    np.testing.assert_allclose(got[5], space.fallback["*"])
    assert not np.allclose(space.fallback["PERSON"], space.fallback["*"])
    assert len(vecs) == 3  # alpha, the person stand-in, the general stand-in


def test_the_person_stand_in_is_the_mean_of_the_public_name_anchors(space, toy_table):
    rows = toy_table.lookup(["John", "Mary"])
    np.testing.assert_allclose(space.fallback["PERSON"],
                               toy_table.lookup_vectors[rows].mean(axis=0))
    np.testing.assert_allclose(space.fallback["*"], toy_table.vectors.mean(axis=0))
