"""dp_privatizer: what the new Doc may carry of the original (issues 34 and 37).

Memory zones reused across texts, labels an earlier component chose, accent-stripped copies
of a name in carried values, and the pickled Doc.
"""

from __future__ import annotations

import pickle
import warnings

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span

LETTER = "Hi Anna,\n\nthanks.\n\nBest,\nJohn Smith"

if not Doc.has_extension("privacy_test_note"):
    Doc.set_extension("privacy_test_note", default=None)


@Language.component("privacy_test_labels")
def _label_names(doc: Doc) -> Doc:
    """An earlier component that marks the first two tokens as a PERSON and labels spans,
    entities and categories with the name itself (as an entity linker might)."""
    name = doc[0:2].text
    doc.ents = [Span(doc, 0, 2, label="PERSON"), Span(doc, len(doc) - 2, len(doc) - 1,
                                                      label=doc[1].text)]
    doc.spans["people"] = [Span(doc, 0, 2, label=name), Span(doc, 0, 1, label="PERSON")]
    doc.spans[doc[1].text] = [Span(doc, 0, 2, label="PERSON")]
    doc.cats = {doc[0].text: 1.0, "letter": 0.5}
    return doc


@Language.component("privacy_test_note")
def _note(doc: Doc) -> Doc:
    """An earlier component that keeps an accent-stripped, lower-cased copy of the name."""
    doc._.privacy_test_note = "from zoe muller"
    doc.user_data["signature"] = "ZOE MULLER"
    doc.ents = [Span(doc, 0, 2, label="PERSON")]
    return doc


@pytest.fixture(scope="module")
def embedded():
    """The embedded pipeline (its own copy) with the default dp_privatizer."""
    from textdp.defaults import fresh_pipeline

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        nlp = fresh_pipeline()
    nlp.add_pipe("dp_privatizer", config={"seed": 0})
    return nlp


def _blank(first: str) -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe(first)
    nlp.add_pipe("dp_privatizer", config={"seed": 0, "detector": "ents"})
    return nlp


def test_memory_zones_in_a_row_keep_working_on_texts_with_blank_lines(embedded):
    """Issue 34 item 10: the normalised view's tokenizer, built inside the first zone, kept
    special cases the zone freed; every later zone raised E031 (empty string)."""
    outs = []
    for _ in range(3):
        with embedded.memory_zone():
            doc = embedded(LETTER)
            outs.append((doc.text, doc._.dp["tokens_replaced"]))
    for text, replaced in outs:
        assert replaced >= 2 and "John Smith" not in text
        assert text.count("\n\n") == 2 and "thanks." in text


def test_labels_naming_a_replaced_token_are_dropped():
    """Issue 37: span, entity and category labels an earlier component set to the name
    survived on the new Doc."""
    nlp = _blank("privacy_test_labels")
    doc = nlp("Zephyrine Quibbleton met the press in Berlin today.")
    assert doc._.dp["tokens_replaced"] == 2
    strings = [e.label_ for e in doc.ents] + list(doc.spans) + list(doc.cats) + \
        [s.label_ for group in doc.spans.values() for s in group]
    assert not any(n in s.lower() for s in strings for n in ("zephyrine", "quibbleton"))
    # What names no replaced token is kept.
    assert [(e.start, e.end, e.label_) for e in doc.ents] == [(0, 2, "PERSON")]
    assert [(s.start, s.end, s.label_) for s in doc.spans["people"]] == [(0, 1, "PERSON")]
    assert doc.cats == {"letter": 0.5}


def test_an_accent_stripped_copy_of_a_name_is_screened_out():
    """Issue 37: "zoe muller" for "Zoë Müller" passed the carry-over screen."""
    nlp = _blank("privacy_test_note")
    doc = nlp("Zoë Müller wrote to the board.")
    assert doc._.dp["tokens_replaced"] == 2 and "Zoë" not in doc.text
    assert doc._.privacy_test_note is None
    assert "signature" not in doc.user_data


def test_a_pickled_doc_carries_no_original_string_even_in_a_memory_zone():
    """Issue 37: spaCy pickles a Doc with its vocabulary, whose string store (inside a memory
    zone) held every string of the original text."""
    nlp = _blank("privacy_test_labels")
    with nlp.memory_zone():
        doc = nlp("Zephyrine Quibbleton met the press in Berlin today.")
        data = pickle.dumps(doc)
        want = doc.text, doc._.dp, [(t.text, t.whitespace_) for t in doc]
    assert b"Zephyrine" not in data and b"Quibbleton" not in data
    back = pickle.loads(data)  # a plain Doc on its own vocabulary, valid after the zone
    assert (back.text, back._.dp, [(t.text, t.whitespace_) for t in back]) == want
    assert [(e.start, e.end, e.label_) for e in back.ents] == [(0, 2, "PERSON")]
