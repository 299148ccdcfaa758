"""The public name vocabulary: names become census or multi-origin names of the table, of
their kind (textdp.name_vocabulary)."""

from __future__ import annotations

import numpy as np
import pytest
from name_detectors import PERSONS, TEXT
from scipy import stats

from textdp import Privatizer
from textdp.detect import lexicon
from textdp.evaluate.pseudonyms import is_lexicon_name, unchanged_rates
from textdp.name_vocabulary import (
    NAMES_DIR,
    ORIGIN_GROUPS,
    lexicon_kind,
    listed_names,
    name_key,
    name_spaces,
)


@pytest.mark.parametrize("token", ["Merkel", "MERKEL", "merkel's", "Merkel’s", "ＭＥＲＫＥＬ"])
def test_name_key_ignores_case_possessive_and_width(token):
    assert name_key(token) == "merkel"


def test_lexicon_kind_prefers_first_names_and_knows_surnames():
    assert lexicon_kind("mary") == "first"
    assert lexicon_kind("james") == "first"  # in both lists: a first name
    assert lexicon_kind("hutchinson") == "last"
    assert lexicon_kind("qwzx") is None


def test_name_vocabulary_is_public_names_of_the_table(names_privatizer):
    spaces = name_spaces(names_privatizer.candidates)
    first, last = set(spaces.first.words), set(spaces.last.words)
    assert len(first | last) >= 5000 and len(last) > 3000
    assert first.isdisjoint(last)
    assert set(spaces.any.words) == first | last
    assert all(w[0].isupper() and w.isalpha() for w in first | last)
    listed = listed_names()
    assert all(lexicon.is_first_name(w) or "first" in listed[name_key(w)].kinds for w in first)
    assert all(lexicon.is_surname(w) or "last" in listed[name_key(w)].kinds for w in last)
    # Names of many origins; words that read as words, not names, are left out.
    assert {"Aditya", "Kwame", "Mateo", "Mary"} <= first
    assert {"Smith", "Nakamura", "Okafor"} & last
    assert not {"In", "January", "China", "Lady", "Judge", "Will"} & (first | last)


def test_vocabulary_has_eight_origin_groups_and_states_its_licence(names_privatizer):
    spaces = name_spaces(names_privatizer.candidates)
    groups = {group for _, group in spaces.by_kind["any"].values()}
    assert set(ORIGIN_GROUPS) == groups and len(groups) >= 8
    for group in groups:  # every group offers names of both kinds
        assert len(spaces.get("first", group)) >= 40 and len(spaces.get("last", group)) >= 40
    licence = (NAMES_DIR / "LICENSE.md").read_text(encoding="utf-8")
    assert "Faker" in licence and "MIT" in licence and "Census" in licence


def test_a_vocabulary_name_reads_the_vector_a_target_of_that_name_reads(names_privatizer):
    """The space is one public function of the spelling: EmbeddingTable.lookup gives a
    person target its row, and every vocabulary name sits at that very row."""
    table = names_privatizer.candidates
    for kind in ("first", "last"):
        name_set = name_spaces(table)[kind]
        for row, names in zip(name_set.table.candidate_rows.tolist(), name_set.names):
            assert set(table.lookup(list(names)).tolist()) == {row}


def test_shipped_lists_are_what_the_generator_builds():
    pytest.importorskip("faker")
    from textdp.training.name_lists import build

    vocabulary, apart = build()
    shipped = [tuple(line.split("\t")) for line in (NAMES_DIR / "vocabulary.tsv").read_text(
        encoding="utf-8").splitlines() if not line.startswith("#")]
    assert shipped == vocabulary
    assert not {n for n, _, _ in apart} & {n for n, _, _ in vocabulary}


def test_replaced_person_tokens_are_names_of_the_lexicon(names_privatizer):
    outs = names_privatizer.privatize([TEXT] * 200)
    replaced = [o.text.split(" ")[i] for o in outs for i in PERSONS]
    assert np.mean([is_lexicon_name(w) for w in replaced]) == 1.0
    # ... and not always the same ones.
    assert len(set(replaced)) > 150


@pytest.mark.parametrize("word, kind", [("John", "first"), ("Smith", "last"),
                                        ("Angela", "first"), ("Merkel", "last"),
                                        ("Aditya", "first"), ("Kwame", "first"),
                                        ("Nakamura", "last")])
def test_a_name_comes_back_unchanged_in_under_one_percent(names_privatizer, word, kind):
    """P(unchanged) < 1 % at the default ε: one-sided binomial test on 20,000 draws decoded
    exactly as the privatizer decodes (rejecting p ≥ 1 % at the 0.1 % level)."""
    rate = unchanged_rates(names_privatizer, [word], [kind], 20_000, seed=3)[0]
    hits = round(rate * 20_000)
    assert stats.binomtest(hits, 20_000, 0.01, alternative="less").pvalue < 1e-3


def test_a_table_without_names_falls_back_to_words_unless_names_were_asked_for():
    from textdp.tables import EmbeddingTable

    rng = np.random.default_rng(0)
    table = EmbeddingTable(["alpha", "beta", "gamma", "delta"], rng.normal(size=(4, 8)),
                           name="tiny")
    out = Privatizer(seed=0, table=table, targets="all")("alpha beta")
    assert out.report.replace == "word"
    with pytest.raises(ValueError, match="no public name vocabulary"):
        Privatizer(seed=0, table=table, targets="all", replace="name")("alpha beta")


def test_the_vocabulary_is_cached_by_everything_it_is_computed_from(private_cache):
    from textdp import name_vocabulary
    from textdp.defaults import default_table

    table = default_table()
    table.__dict__.pop("_name_spaces", None)
    computed = name_vocabulary.name_spaces(table).by_kind
    path = name_vocabulary._cache_path(table, frozenset())
    assert path.parent == private_cache / "names" and path.is_file()
    table.__dict__.pop("_name_spaces")
    assert name_vocabulary.name_spaces(table).by_kind == computed  # read back
    # another exclusion is another entry; an unreadable entry is computed again
    assert name_vocabulary._cache_path(table, frozenset({"anna"})) != path
    path.write_text("{not json", encoding="utf-8")
    table.__dict__.pop("_name_spaces")
    assert name_vocabulary._read_cached(table, frozenset()) is None
    assert name_vocabulary.name_spaces(table).by_kind == computed
    table.__dict__.pop("_name_spaces")  # leave no memo computed under a test's cache
