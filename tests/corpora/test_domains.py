"""The domains and their splits, the Enron reader (textdp.corpora.domains)."""

from __future__ import annotations

import pytest


def test_corpora_splits_and_bad_names(tiny_corpora):
    from textdp.corpora.domains import DOMAINS, load_split, resolve_domains, sentences

    assert [d.name for d in resolve_domains(None)] == ["conll", "wnut17", "btc", "enron"]
    assert [d.name for d in resolve_domains("btc,conll")] == ["btc", "conll"]
    with pytest.raises(ValueError, match="unknown domain"):
        resolve_domains("news")
    with pytest.raises(ValueError, match="split"):
        load_split(DOMAINS["conll"], "test", tiny_corpora)
    # BTC's held-out section b is its dev split and never among its training files.
    assert DOMAINS["btc"].dev == "btc/b.conll" and "btc/b.conll" not in DOMAINS["btc"].train
    train = sentences(load_split(DOMAINS["btc"], "train", tiny_corpora))
    assert len(train) == 4 and train[0].spans == [(0, 2, "PERSON")]
    dev = sentences(load_split(DOMAINS["wnut17"], "dev", tiny_corpora))
    assert dev[0].tokens == ("lol", "jessica") and dev[0].spans == [(1, 2, "PERSON")]


def test_enron_threads_are_one_text_each_with_their_names(tiny_corpora):
    """Issue 33: the Enron e-mail threads are a dev domain (never trained on): a thread is
    one text, lines kept apart, and the gold names are the name words and addresses of
    person mentions."""
    from textdp.corpora.domains import DOMAINS, EVAL_DOMAINS, load_split, sentences

    assert "enron" not in DOMAINS and EVAL_DOMAINS["enron"].train == ()
    (thread,) = sentences(load_split(EVAL_DOMAINS["enron"], "dev", tiny_corpora))
    assert thread.tokens == ("From", ":", "ann.lee@x.com", "\n", "Thanks", "Ann")
    assert thread.spans == [(2, 3, "PERSON"), (5, 6, "PERSON")]


def test_enron_reader_keeps_pronouns_groups_and_titles_out(tmp_path):
    from textdp.corpora.domains import read_enron

    rows = [("I", "(P0)"), ("met", "-"), ("Mr.", "(P1"), ("Donoho", "P1)"), ("and", "-"),
            ("the", "(P2"), ("Natural", "-"), ("Gas", "-"), ("Group", "P2)"), (",", "-"),
            ("Donoho", "(P1|(O3)"), ("Corp", "-")]
    (tmp_path / "t.conll").write_text(
        "".join(f"{w}\tX\t{m}\t-\n" for w, m in rows), encoding="utf-8")
    (thread,) = read_enron(tmp_path)
    names = [thread.tokens[k] for s, e, _ in thread.spans for k in range(s, e)]
    # "I" is a pronoun, "Mr." a title, "the Natural Gas Group" not written as a name; a
    # mention that never closes (the last "Donoho") is no mention.
    assert names == ["Donoho"]


def test_enron_reader_counts_initials_and_names_the_census_lacks(tmp_path):
    """Names of any origin are names (the census lists know neither ``Zhiyong`` nor
    ``Soykok``), a middle initial inside a name is a name word (not the article "a"), and a
    chain whose mentions name a group or a distribution list is not."""
    from textdp.corpora.domains import read_enron

    rows = [("Sheri", "(P0"), ("A.", "-"), ("Righi", "P0)"), ("asked", "-"),
            ("Zhiyong", "(P1)"), ("and", "-"), ("Gulay", "(P2"), ("Soykok", "P2)"),
            ("to", "-"), ("write", "-"), ("a", "-"), ("note", "-"), ("to", "-"),
            ("DL", "(P3"), ("-", "-"), ("IT", "-"), ("Calgary", "P3)"), ("and", "-"),
            ("Mommy", "(P4)")]
    (tmp_path / "t.conll").write_text(
        "".join(f"{w}\tX\t{m}\t-\n" for w, m in rows), encoding="utf-8")
    (thread,) = read_enron(tmp_path)
    names = [thread.tokens[k] for s, e, _ in thread.spans for k in range(s, e)]
    assert names == ["Sheri", "A.", "Righi", "Zhiyong", "Gulay", "Soykok"]
