"""textdp.tokenization: punctuation glued between words is split off names."""

from __future__ import annotations

import pytest

from textdp.privatizer import Privatizer
from textdp.tokenization import split_glued_punctuation


@pytest.mark.parametrize("text,tokens", [
    ("(Angela Merkel)met[John Smith]in Berlin.",
     ["(", "Angela", "Merkel", ")", "met", "[", "John", "Smith", "]", "in", "Berlin", "."]),
    ('Bob;Alice said"hi"to{Mary}', ["Bob", ";", "Alice", "said", '"', "hi", '"', "to", "{",
                                    "Mary", "}"]),
    ("at 12:30 don't e-mail", ["at", "12:30", "do", "n't", "e", "-", "mail"]),
])
def test_glued_punctuation_is_split_and_the_text_kept(nlp, text, tokens):
    split_glued_punctuation(nlp)
    doc = nlp.make_doc(text)
    assert [t.text for t in doc] == tokens and doc.text == text


def test_adding_the_rule_twice_changes_nothing(nlp):
    finditer = split_glued_punctuation(nlp).tokenizer.infix_finditer
    assert split_glued_punctuation(nlp).tokenizer.infix_finditer == finditer


def test_glued_names_are_replaced_and_their_neighbours_kept():
    text = "(Angela Merkel)met[John Smith]in Berlin."
    for res in Privatizer(seed=3).privatize([text] * 20):
        out = res.text
        assert out.startswith("(") and ")met[" in out and "]in Berlin." in out
        assert not any(name in out for name in ("Angela", "Merkel", "John", "Smith"))
