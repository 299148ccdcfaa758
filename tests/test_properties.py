"""Property tests (hypothesis) of textdp.privatizer.Privatizer on the embedded defaults.

What the Privatizer guarantees, and what is tested here exactly:

* token level (``privatize_docs``): one output word per spaCy token; tokens that are not
  targets come back unchanged; every target becomes a non-empty public word without
  whitespace; the report counts exactly the targets;
* string level (``privatize``): the whitespace skeleton is kept: the same whitespace runs, in
  the same order, around the same number of non-whitespace runs. Re-tokenising the output is
  *not* guaranteed to give the same token count (a substitute such as "o'clock" may split
  differently), so that is not claimed;
* any Unicode input (combining marks, right-to-left text, emoji, NUL, control characters, very
  long tokens) gives a valid ``str`` that encodes to UTF-8.

The privatizers are module fixtures: loading the defaults takes seconds.
"""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from textdp.privatizer import Privatizer, is_word

SETTINGS = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# Addresses among them: spelt from the names beside them (textdp.addresses) or drawn.
NAMES = ("Alice", "Bob", "Merkel", "Quillonbrae", "O'Neil", "José", "@alice_bob",
         "alice.bob@acme.com", "linkedin.com/in/alice-bob", "https://x.com/Bob/status/1")
ORGS = ("Siemens", "UNESCO")
SPECIAL = ("\x00", "\x07", "e\u0301", "\u0301", "שלום עולם", "مرحبا", "\u202eevil\u202c",
           "😀", "👩‍👩‍👧", "🇩🇪", "\ufeff", "\u200b", "\u00a0", "\u2028", "\r\n", "\t",
           "x" * 5000, "Ωμέγα", "中文字符", "ﬁ", "İstanbul", "ß", "<b>&amp;</b>", "1,000.5",
           "don't", "U.S.", "--", "...", "@jo_doe", "(j.doe@acme.com),", "x.com/jo/status/1",
           "@" * 70 + "a" * 70)
SEPARATORS = ("", " ", "  ", "\n", "\t", " \n ")

unicode_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=80)
pieces = st.one_of(st.sampled_from(SPECIAL), unicode_text)
any_text = st.builds(
    lambda parts, seps: "".join(p + s for p, s in zip(parts, seps)),
    st.lists(pieces, max_size=8), st.lists(st.sampled_from(SEPARATORS), min_size=8, max_size=8))
named_text = st.builds(
    lambda parts, seps: "".join(p + s for p, s in zip(parts, seps)),
    st.lists(st.one_of(st.sampled_from(NAMES + ORGS), pieces), max_size=10),
    st.lists(st.sampled_from(SEPARATORS[1:]), min_size=10, max_size=10))


def known_spans(docs):
    """A deterministic detector: known names are PERSON, known companies ORG."""
    out = []
    for doc in docs:
        spans = []
        for i, tok in enumerate(doc):
            if tok.text in NAMES:
                spans.append((i, i + 1, "PERSON"))
            elif tok.text in ORGS:
                spans.append((i, i + 1, "ORG"))
        out.append(spans)
    return out


@pytest.fixture(scope="module")
def all_words(nlp):
    return Privatizer(seed=0, targets="all", nlp=nlp)


@pytest.fixture(scope="module")
def names_only(nlp):
    return Privatizer(seed=0, detector=known_spans, nlp=nlp)


def skeleton(text: str) -> list[str | None]:
    """Whitespace runs as they are, every non-whitespace run as ``None``."""
    return [run if space else None
            for space, group in itertools.groupby(text, key=str.isspace)
            for run in ["".join(group)]]


def is_substitute(word: str) -> bool:
    return bool(word) and not any(c.isspace() for c in word)


def check_words(doc, new_words, report, targets) -> None:
    """The token-level contract for one doc, ``targets`` being the target token indices."""
    assert len(new_words) == len(doc)
    for i, (tok, new) in enumerate(zip(doc, new_words)):
        if i in targets:
            assert is_substitute(new)
        else:
            assert new == tok.text
    assert report.tokens_replaced == len(targets)


@SETTINGS
@given(text=any_text)
def test_all_mode_keeps_tokens_and_whitespace(all_words, text):
    doc = all_words.nlp.tokenizer(text)
    [(new_words, report)] = all_words.privatize_docs([doc])
    check_words(doc, new_words, report, {i for i, t in enumerate(doc) if is_word(t.text)})
    out = all_words(text).text
    assert skeleton(out) == skeleton(text)


@SETTINGS
@given(text=named_text)
def test_names_only_mode_changes_only_the_targets(names_only, text):
    doc = names_only.nlp.tokenizer(text)
    targets = {i for i, t in enumerate(doc) if t.text in NAMES}
    [(new_words, report)] = names_only.privatize_docs([doc])
    check_words(doc, new_words, report, targets)
    result = names_only(text)
    pattern = "".join((r"\S+" if i in targets else re.escape(tok.text)) + re.escape(tok.whitespace_)
                      for i, tok in enumerate(doc))
    assert re.fullmatch(pattern, result.text, flags=re.DOTALL)
    assert result.report.tokens_replaced == len(targets)
    if not targets:
        assert result.text == text


@SETTINGS
@given(text=any_text)
def test_any_unicode_input_gives_valid_text(all_words, names_only, text):
    for privatizer in (all_words, names_only):
        out = privatizer(text).text
        assert isinstance(out, str)
        out.encode("utf-8")  # no lone surrogates or other unencodable output
        assert skeleton(out) == skeleton(text)
    if not text.strip():
        assert all_words(text).text == text  # empty / whitespace-only: returned as is
