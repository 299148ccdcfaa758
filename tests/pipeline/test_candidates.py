"""The candidate space and its candidate sets (textdp.pipeline.candidates): the whole table,
the name kinds, and the spreading of a decoded name among its nearest names."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from textdp.detect import lexicon
from textdp.mechanisms import create_mechanism
from textdp.name_vocabulary import lexicon_kind
from textdp.pipeline.candidates import NAME_SPREAD, CandidateSet, CandidateSpace
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable

CPU = torch.device("cpu")


def test_spreading_moves_each_draw_among_its_nearest_names(names_privatizer):
    spread = names_privatizer.space.decoder("first").spread
    assert spread.shape[1] == NAME_SPREAD
    assert not (spread == np.arange(len(spread))[:, None]).any()  # never itself


# ====================================================================== on toy tables
def _space(table, replace="word", name_required=False, mechanism=None):
    """The candidate space of ``table`` (``mechanism``: mlaplace at ε = 1000 by default,
    prepared here)."""
    return CandidateSpace(table, mechanism or create_mechanism("mlaplace", 1000.0),
                          clip_norm=None, exclude=frozenset(), index_backend="exact",
                          device=CPU, rng=RandomSource(0), replace=replace,
                          name_required=name_required)


@pytest.fixture(scope="module")
def census_table():
    """The most common census first names and surnames, title case, their vectors close to
    one direction (cosine about 0.9 to the names' mean), so all pass the vocabulary's cuts."""
    lists = lexicon.census_lists()
    first = [e.name.title() for kind in ("female", "male") for e in lists[kind][:120]]
    last = [e.name.title() for e in lists["last"][:300]
            if lexicon_kind(e.name.casefold()) == "last"][:150]
    words = list(dict.fromkeys(first + last))
    rng = np.random.default_rng(0)
    vectors = np.ones((len(words), 16)) + 0.3 * rng.normal(size=(len(words), 16))
    return EmbeddingTable(words, vectors, name="census-toy")


def test_word_draws_decode_to_the_whole_table_and_name_kinds_need_names(toy_table):
    space = _space(toy_table)
    assert space.decoder("word").table is space.table and space.decoder("word").index is None
    with pytest.raises(ValueError, match="replace='name'"):
        space.decoder("first")
    # The toy table has no name vocabulary: names fall back to words unless asked for.
    assert _space(toy_table, replace="name").replace == "word"
    with pytest.raises(ValueError, match="no public name vocabulary"):
        _space(toy_table, replace="name", name_required=True)


def test_a_candidate_set_spreads_each_decoded_candidate_among_its_neighbours(toy_table):
    mechanism = create_mechanism("mlaplace", 1000.0)
    space = _space(toy_table, mechanism=mechanism)
    words = space.table.words
    n = len(words)
    vectors = torch.from_numpy(space.table.vectors)
    inverse = torch.arange(n)
    plain = CandidateSet(space.table).draw(mechanism, vectors, inverse, RandomSource(1))
    assert plain == words  # at this ε each vector decodes to its own word
    # A spread table that sends every candidate to the next one.
    shift = np.repeat(((np.arange(n) + 1) % n)[:, None], 3, axis=1)
    moved = CandidateSet(space.table, spread=shift).draw(mechanism, vectors, inverse,
                                                          RandomSource(1))
    assert moved == [words[(i + 1) % n] for i in range(n)]


def test_the_spread_table_holds_each_rows_nearest_others_never_itself(private_cache):
    from textdp.pipeline.candidates import spread_table

    points = np.array([[0.0], [1.0], [3.0], [7.0]], dtype=np.float32)
    assert spread_table(points, CPU, k=2).tolist() == [[1, 2], [0, 2], [1, 0], [2, 1]]
    assert spread_table(points, CPU, k=10).shape == (4, 3)  # fewer rows than k
    assert spread_table(points[:1], CPU).tolist() == [[0]]  # a lone row is its own
    # Duplicates of a row may crowd it out of its own k + 1 nearest: it is still left out.
    same = np.zeros((5, 2), dtype=np.float32)
    spread = spread_table(same, CPU, k=2)
    assert spread.shape == (5, 2) and not (spread == np.arange(5)[:, None]).any()


def test_the_spread_table_is_cached_and_a_bad_cache_is_recomputed(private_cache):
    from textdp.pipeline import candidates

    rng = np.random.default_rng(0)
    points = rng.normal(size=(300, 8)).astype(np.float32)
    first = candidates.spread_table(points, CPU, k=5)
    files = list((private_cache / "spread").glob("*.npy"))
    assert len(files) == 1
    np.testing.assert_array_equal(np.load(files[0]), first)
    computed = candidates._nearest_others
    try:  # read back, not searched again
        candidates._nearest_others = None
        np.testing.assert_array_equal(candidates.spread_table(points, CPU, k=5), first)
    finally:
        candidates._nearest_others = computed
    files[0].write_bytes(b"not an array")  # unreadable: searched again and rewritten
    np.testing.assert_array_equal(candidates.spread_table(points, CPU, k=5), first)
    np.testing.assert_array_equal(np.load(files[0]), first)
    # other vectors or another k are another key
    assert candidates.spread_table(points[:-1], CPU, k=5).shape == (299, 5)
    assert len(list((private_cache / "spread").glob("*.npy"))) == 2


def test_name_candidates_are_the_kinds_names_with_their_nearest_names(census_table):
    mechanism = create_mechanism("mlaplace", 1000.0)
    space = _space(census_table, replace="name", mechanism=mechanism)
    assert space.replace == "name"
    first, last = space.decoder("first"), space.decoder("last")
    assert set(first.table.words).isdisjoint(last.table.words)
    assert set(space.decoder("any").table.words) == set(first.table.words) | \
        set(last.table.words)
    assert all(lexicon_kind(w.casefold()) == "first" for w in first.table.words)
    assert all(lexicon_kind(w.casefold()) == "last" for w in last.table.words)
    for names in (first, last):
        assert names.spread.shape == (len(names.table), NAME_SPREAD)
        # Its nearest other names, in order of distance, never itself.
        vecs = names.table.vectors
        d = np.linalg.norm(vecs[:, None] - vecs[None], axis=2)
        np.fill_diagonal(d, np.inf)
        near = np.take_along_axis(d, names.spread, axis=1)
        assert np.isfinite(near).all()
        assert (np.diff(near, axis=1) >= -1e-5).all()
        assert np.allclose(near[:, -1], np.sort(d, axis=1)[:, NAME_SPREAD - 1], atol=1e-5)
    # A first name's draw at a large ε decodes among its own nearest first names.
    row = 0
    drawn = first.draw(mechanism, torch.from_numpy(first.table.vectors[[row]]),
                       torch.zeros(200, dtype=torch.int64), RandomSource(2))
    assert set(drawn) <= {first.table.words[i] for i in first.spread[row]}
    assert len(set(drawn)) > NAME_SPREAD // 2


def test_the_whole_table_index_is_built_only_when_a_draw_decodes_to_it(names_privatizer):
    """Names-only with replace="name" decodes persons to the name sets: the whole table's
    index (its auto timing and its copies of the table) is never built. replace="word"
    decodes to the whole table, which builds it on the first draw, with the same seeded
    outputs as an index built up front."""
    from name_detectors import TEXT, names

    from textdp import Privatizer

    out = names_privatizer(TEXT)
    assert out.text != TEXT and names_privatizer.replace == "name"
    assert not names_privatizer.space.index.built
    word = Privatizer(seed=11, detector=names, replace="word")
    lazy = word(TEXT).text
    assert word.space.index.built
    eager = Privatizer(seed=11, detector=names, replace="word")
    eager.space.index.search(np.zeros((1, eager.space.table.vectors.shape[1]), np.float32))
    assert eager.space.index.built and eager(TEXT).text == lazy
