"""The substitute-vocabulary filter (EmbeddingTable.without) and the shipped default list."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from textdp.tables import (
    EXCLUDED_SUBSTITUTES_FILE,
    EmbeddingTable,
    default_excluded_substitutes,
)


def small_table() -> EmbeddingTable:
    words = ["Anna", "Islam", "violent", "berlin", "Maria", "Sex"]
    vectors = np.arange(len(words) * 3, dtype=np.float32).reshape(len(words), 3) + 1.0
    return EmbeddingTable(words, vectors, name="small")


def test_without_drops_candidates_case_insensitively_and_keeps_the_lookup():
    table = small_table()
    out = table.without({"islam", "VIOLENT", "ｓｅｘ"})  # fullwidth: compared after NFKC
    assert out.words == ["Anna", "berlin", "Maria"]
    assert out.vectors.shape == (3, 3)
    np.testing.assert_array_equal(out.vectors, table.vectors[[0, 3, 4]])
    # Inputs keep their vectors: only what may be written out shrinks.
    assert out.lookup(["Islam"])[0] == table.lookup(["Islam"])[0] >= 0
    assert out.fingerprint() != table.fingerprint() and out.name != table.name
    assert table.words == ["Anna", "Islam", "violent", "berlin", "Maria", "Sex"]  # unchanged
    assert table.without(["nothing", "here"]) is table
    clipped = out.clipped(5.0)
    assert clipped.words == out.words and np.linalg.norm(clipped.vectors, axis=1).max() <= 5.0


def test_without_everything_is_refused():
    table = small_table()
    with pytest.raises(ValueError, match="without candidates"):
        table.without(w.upper() for w in table.words)


def test_default_list_holds_the_loaded_terms_and_its_licence():
    words = default_excluded_substitutes()
    for w in ("islam", "qaeda", "sex", "violent"):
        assert w in words
    assert all(w == w.lower() and w.strip() == w and "#" not in w for w in words)
    assert len(words) > 800  # the better-profanity words and the curated terms
    licence = Path(EXCLUDED_SUBSTITUTES_FILE).with_name("LICENSE_excluded_substitutes.md")
    text = licence.read_text(encoding="utf-8")
    assert "better-profanity" in text and "MIT" in text and "Permission is hereby granted" in text


def test_a_filtered_table_never_writes_an_excluded_word():
    """The nearest candidate of every input is "islam" here; without it, the privatizer
    writes another word in every draw (and is unchanged otherwise)."""
    from textdp.privatizer import Privatizer

    words = ["islam", "anna", "maria", "john", "peter"]
    vectors = np.array([[0, 0], [10, 0], [0, 10], [-10, 0], [0, -10]], dtype=np.float32)
    table = EmbeddingTable(words, vectors, name="toy")
    texts = ["islam"] * 200
    full = Privatizer(table=table, targets="all", epsilon=5.0, seed=1, clip_norm=None,
                      replace="word", exclude=None)  # nothing excluded
    assert "islam" in Privatizer(table=table, targets="all").exclude  # excluded by default
    assert sum(r.text == "islam" for r in full.privatize(texts)) > 150
    filtered = Privatizer(table=table.without({"Islam"}), targets="all", epsilon=5.0, seed=1,
                          clip_norm=None, replace="word", exclude=None)
    outs = {r.text for r in filtered.privatize(texts)}
    assert "islam" not in outs and outs <= {"anna", "maria", "john", "peter"}


def test_the_default_exclusion_applies_to_the_privatizer():
    words = ["islam", "anna", "maria", "john", "peter"]
    vectors = np.array([[0, 0], [10, 0], [0, 10], [-10, 0], [0, -10]], dtype=np.float32)
    table = EmbeddingTable(words, vectors, name="toy")
    from textdp.privatizer import Privatizer

    outs = {r.text for r in Privatizer(table=table, targets="all", epsilon=5.0, seed=1,
                                       clip_norm=None).privatize(["islam"] * 200)}
    assert "islam" not in outs and outs <= {"anna", "maria", "john", "peter"}
