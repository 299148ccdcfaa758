"""textdp.tokenization: punctuation glued between words is split off names; the tokenizer
warmed with public words tokenizes as before and keeps nothing of a text."""

from __future__ import annotations

import pytest

from textdp.privatizer import Privatizer
from textdp.tokenization import (
    merge_tokens,
    split_glued_punctuation,
    transient_strings,
    warm_tokenizer,
)


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


WARM_WORDS = ["the", "of", "don't", "U.S.", "e-mail", "said", "Merkel", "12:30", "can",
              "not", "met", "in", "Berlin", ":)", "http://t.co", "hi", "mr", "Mr.", "a", "n't"]
MESSY = ("The U.S. said:Hi (Angela Merkel)met[John Smith]in Berlin at 12:30 -- don't "
         "e-mail mr. Lee @kim_jo #tbt http://t.co/x :) The the THE cannot can't Mr. Said")


def _blank() -> object:
    import spacy

    return split_glued_punctuation(spacy.blank("en"))


def test_warming_changes_no_token_and_keeps_only_public_words():
    """A warmed tokenizer gives the tokens of a cold one, inside a memory zone as outside;
    the warmed words keep their lexemes after a zone, a word first seen in the zone does
    not (the privacy of transient_strings holds)."""
    cold, warm = _blank(), _blank()
    forms = warm_tokenizer(warm, WARM_WORDS)
    # 20 words and a title form of the 14 lower-case ones that start with a letter (not of
    # "U.S.", "Merkel", "12:30", ":)", "Berlin", "Mr.").
    assert forms == 34
    assert warm.tokenizer.max_cache_size >= 2 * forms
    assert "Hi" in warm.vocab.strings and "Xylofrob" not in warm.vocab.strings
    for _ in range(2):  # the second round reads the cache the first one may have filled
        expected = [t.text for t in cold.make_doc(MESSY)]
        assert [t.text for t in warm.make_doc(MESSY)] == expected
        with transient_strings(warm):
            assert [t.text for t in warm.make_doc(MESSY + " Xylofrob")] == \
                [*expected, "Xylofrob"]
    assert "Xylofrob" not in warm.vocab.strings
    lexemes = {lex.orth_ for lex in warm.vocab}
    assert {"the", "The", "Merkel", "Hi"} <= lexemes and "Xylofrob" not in lexemes


def test_warming_inside_a_zone_is_refused():
    nlp = _blank()
    with transient_strings(nlp), pytest.raises(RuntimeError, match="memory zone"):
        warm_tokenizer(nlp, ["the"])


def test_the_shared_pipeline_is_warmed_with_its_vector_words(nlp):
    from textdp.tables import spacy_row_keys

    first_of_row, _ = spacy_row_keys(nlp.vocab)
    assert len(first_of_row) >= 20_000  # en_core_web_md: 20,000 rows, one word each
    assert spacy_row_keys(nlp.vocab, extra_keys=False) == (first_of_row, {})  # early stop
    lexemes = {lex.orth_ for lex in nlp.vocab}
    assert {"the", "The", "government", "Government"} <= lexemes
    assert nlp.tokenizer.max_cache_size >= 2 * len(first_of_row)


# ====================================================================== merge_tokens
def test_merged_tokens_keep_the_text_and_annotations_and_leave_no_vector():
    """The retokenizer would store each merged token's vector in the vocab; merge_tokens
    builds a new doc that keeps what the old one knew, token by token."""
    from spacy.strings import hash_string
    from spacy.tokens import Doc, Span

    from textdp.defaults import fresh_pipeline

    nlp = fresh_pipeline()
    vectors = nlp.vocab.vectors
    shape, keys = vectors.shape, len(vectors.key2row)
    doc = nlp("Call Ann Lee at 555 123 4567 now. Thanks!")
    doc.spans["sc"] = [Span(doc, 1, 3, label="NAME"), Span(doc, 4, 7, label="NUM"),
                       Span(doc, 7, 9, label="END")]
    doc.cats = {"urgent": 1.0}
    merged = merge_tokens(doc, {4: 7})
    assert isinstance(merged, Doc) and merged.text == doc.text
    assert [t.text for t in merged] == ["Call", "Ann", "Lee", "at", "555 123 4567", "now", ".",
                                        "Thanks", "!"]
    for old, new in ((0, 0), (1, 1), (3, 3), (4, 4), (7, 5), (9, 7)):
        a, b = doc[old], merged[new]
        assert (a.tag_, a.pos_, str(a.morph), a.lemma_, a.norm_, a.is_sent_start) == \
            (b.tag_, b.pos_, str(b.morph), b.lemma_, b.norm_, b.is_sent_start)
    assert [(e.text, e.label_) for e in merged.ents] == \
        [(e.text, e.label_) for e in doc.ents]
    assert [(s.text, s.label_) for s in merged.spans["sc"]] == \
        [("Ann Lee", "NAME"), ("555 123 4567", "NUM"), ("now.", "END")]
    assert merged.cats == {"urgent": 1.0} and len(list(merged.sents)) == 2
    assert (vectors.shape, len(vectors.key2row)) == (shape, keys)
    assert hash_string("555 123 4567") not in vectors.key2row
    assert merge_tokens(doc, {}).text == doc.text  # nothing to merge: a copy


def test_a_merge_that_starts_inside_an_entity_begins_it():
    from spacy.tokens import Doc

    from textdp.defaults import load_pipeline

    vocab = load_pipeline().vocab
    doc = Doc(vocab, words=["a", "b", "c", "d"], ents=["B-ORG", "I-ORG", "I-ORG", "O"])
    merged = merge_tokens(doc, {1: 3})
    assert [t.text for t in merged] == ["a", "b c", "d"]
    assert [(e.text, e.label_) for e in merged.ents] == [("a b c", "ORG")]
    # The merged token takes its first token's entity (none): the rest of it begins anew.
    split = merge_tokens(Doc(vocab, words=["a", "b", "c"], ents=["O", "B-ORG", "I-ORG"]),
                         {0: 2})
    assert [(e.text, e.label_) for e in split.ents] == [("c", "ORG")]


def test_a_second_thread_waits_for_the_zone_of_the_first():
    """Issue 37: the second thread used to see the first one's zone, run inside it and have
    its strings freed under it. It must wait until the first thread's block has ended."""
    import threading

    nlp = _blank()
    inside, entered, release = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with transient_strings(nlp):
            inside.set()
            release.wait(10)

    def second() -> None:
        inside.wait(10)
        with transient_strings(nlp):
            entered.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    assert inside.wait(10)
    assert not entered.wait(0.5)  # still inside the first thread's zone: the second waits
    release.set()
    for thread in threads:
        thread.join(10)
    assert entered.is_set() and not nlp.vocab.in_memory_zone


def test_a_block_nested_in_the_same_thread_runs_in_the_open_zone():
    nlp = _blank()
    with transient_strings(nlp):
        with transient_strings(nlp):  # a detector's pipeline inside the privatizer's zone
            assert nlp.vocab.in_memory_zone
            nlp.make_doc("Xylofrob")
        assert nlp.vocab.in_memory_zone
    assert not nlp.vocab.in_memory_zone and "Xylofrob" not in nlp.vocab.strings


# Issue 37: strings without whitespace that spaCy strips one affix at a time. The suffix
# regex was searched over the whole rest of the string each time (quadratic: 12 s for
# 10,000 "#"); the tail search must give the same result as the regex. Times are measured by
# bench/crafted.py, not here.
CRAFTED_RUNS = ["#" * 5000, "\N{GRINNING FACE}" * 5000, "a:" * 2500, "(" * 5000,
                "https://x.com/" + ")" * 5000, "a" + "." * 5000, "x" + "..." * 1500 + "!",
                "5km", "U.S.", "....", "'s", "a\n"]


@pytest.mark.parametrize("string", CRAFTED_RUNS)
def test_tail_suffix_search_finds_what_the_regex_finds(nlp, string):
    from textdp.tokenization import TailSearch

    search = nlp.tokenizer.suffix_search
    assert isinstance(search.__self__, TailSearch)
    regex = search.__self__.regex
    for k in (0, 1, len(string) // 2, len(string) - 2):
        part = string[k:]
        expected, found = regex.search(part), search(part)
        assert (expected and expected.span()) == (found and found.span())


def test_a_long_run_of_affixes_tokenizes_into_one_token_each(nlp):
    assert [t.text for t in nlp.make_doc("#" * 5000)] == ["#"] * 5000
    doc = nlp.make_doc("\N{GRINNING FACE}" * 3000)
    assert len(doc) == 3000 and doc.text == "\N{GRINNING FACE}" * 3000


def test_the_tail_search_serialises_and_pickles_as_the_regex(nlp):
    import pickle

    pattern = nlp.tokenizer.suffix_search.__self__.pattern
    copy = pickle.loads(pickle.dumps(nlp.tokenizer))
    assert copy.suffix_search.__self__.pattern == pattern
    assert [t.text for t in copy("(#a...)")] == [t.text for t in nlp.make_doc("(#a...)")]
    blank = _blank()
    blank.tokenizer.from_bytes(nlp.tokenizer.to_bytes(exclude=["vocab"]),
                               exclude=["vocab"])
    assert blank.tokenizer.suffix_search.__self__.pattern == pattern


@pytest.mark.parametrize("string", ["a:" * 2500, "1:" * 2500, "a:" * 2500 + "@",
                                    "user:pw@example.com/a", "http://x.org", "a@b.co",
                                    "https://x.com/" + "(" * 2000, "12:30"])
def test_url_match_answers_as_the_regex(nlp, string):
    """Issue 37: spaCy's URL pattern backtracked over every colon ("a:" * 10000: 3.8 s)."""
    from textdp.tokenization import UrlMatch

    url_match = nlp.tokenizer.url_match
    assert isinstance(url_match.__self__, UrlMatch)
    assert bool(url_match(string)) == bool(url_match.__self__.regex.match(string))
