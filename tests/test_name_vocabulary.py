"""The public name vocabulary: names become census names of the table, of their kind
(textdp.name_vocabulary)."""

from __future__ import annotations

import numpy as np
import pytest
from name_detectors import PERSONS, TEXT
from scipy import stats

from textdp import Privatizer
from textdp.detect import lexicon
from textdp.evaluate.pseudonyms import is_lexicon_name, unchanged_rates
from textdp.name_vocabulary import lexicon_kind, name_key, name_spaces


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
    assert len(first) > 500 and len(last) > 300
    assert first.isdisjoint(last)
    assert set(spaces.any.words) == first | last
    assert all(w[0].isupper() and w[1:].islower() for w in first | last)
    assert all(lexicon.is_first_name(w) for w in first)
    assert all(lexicon.is_surname(w) for w in last)
    # Words that read as words, not names, are left out.
    assert not {"In", "January", "China", "Lady", "Judge"} & (first | last)


def test_replaced_person_tokens_are_names_of_the_lexicon(names_privatizer):
    outs = names_privatizer.privatize([TEXT] * 200)
    replaced = [o.text.split(" ")[i] for o in outs for i in PERSONS]
    assert np.mean([is_lexicon_name(w) for w in replaced]) == 1.0
    # ... and not always the same ones.
    assert len(set(replaced)) > 150


@pytest.mark.parametrize("word, kind", [("John", "first"), ("Smith", "last"),
                                        ("Angela", "first"), ("Merkel", "last")])
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
