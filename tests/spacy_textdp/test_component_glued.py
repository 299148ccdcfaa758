"""The dp_privatizer component on names glued to their neighbours (issue 37): the user's
tokenizer reads ``C:\\Users\\John.Smith\\Desktop\\notes.txt`` or ``John<john@acme.com>`` as
one token; the component cuts the name out of it (as the core does,
:func:`textdp.detect.glued.split_glued`) and replaces only the name's characters, through
``nlp.add_pipe("dp_privatizer")`` on the real embedded pipeline."""

from __future__ import annotations

import warnings

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


@pytest.fixture(scope="module")
def glued_nlp():
    """The embedded default pipeline (a copy of its own: tagger, parser, NER) + a seeded
    dp_privatizer that reports its spans."""
    from textdp.defaults import fresh_pipeline

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        nlp = fresh_pipeline()
    nlp.add_pipe("dp_privatizer", config={"seed": 11, "report_spans": True})
    return nlp


@pytest.mark.parametrize("text,kept", KEPT_AROUND_NAMES)
def test_the_component_replaces_a_glued_name_and_keeps_its_neighbours(glued_nlp, text, kept):
    doc = glued_nlp(text)
    assert_kept_in_order(doc.text, kept)
    assert doc.text == "".join(t.text_with_ws for t in doc)


def test_the_component_targets_what_the_core_targets(glued_nlp):
    """The component replaces the characters the core replaces (one selection path; the
    pipeline's entities join through the same filters)."""
    from textdp import Privatizer

    core = Privatizer(seed=11, report_spans=True)
    for text, _ in KEPT_AROUND_NAMES:
        spans = glued_nlp(text)._.dp["spans"]
        # (a span both the detector and the pipeline's NER found is reported by each)
        assert {(s["start"], s["end"]) for s in spans} == \
            {(s, e) for s, e, *_ in core(text).report.spans}, text


def test_a_cut_token_keeps_its_tag_and_gives_its_entity_to_its_words_only(glued_nlp):
    """The pipeline's NER reads ``Smith</i`` as one PERSON token. Cut, the name piece keeps
    the entity and the tag piece leaves it (a tag is never part of a name); the pieces left
    alone keep their token's tag and POS, and no lemma or norm of the output holds a name."""
    text = "See <b>John</b> <i>Smith</i> now"
    with glued_nlp.select_pipes(disable=["dp_privatizer"]):
        before = glued_nlp(text)
    assert "Smith</i" in [e.text for e in before.ents if e.label_ == "PERSON"]
    doc = glued_nlp(text)
    words = [t.text for t in doc]
    assert words[:4] == ["See", "<", "b", ">"] and words[-3:] == ["</i", ">", "now"]
    assert [(e.start, e.end) for e in doc.ents if e.label_ == "PERSON"] == [(10, 11)]
    assert all(e.text.isalpha() for e in doc.ents)
    left_alone = [t for t in doc if t.i not in (4, 10)]
    assert all(t.tag_ and t.pos_ for t in left_alone)
    assert not {"John", "Smith"} & ({t.lemma_ for t in doc} | {t.norm_ for t in doc})


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(left=st.sampled_from(LEFT), join=st.sampled_from(JOIN), right=st.sampled_from(RIGHT),
       name=st.sampled_from(FULL_NAMES))
def test_the_component_changes_no_character_outside_the_name(glued_nlp, left, join, right,
                                                             name):
    """The core's property (tests/test_tokenization.py) through ``nlp(text)``: whatever is
    glued around a name, the Doc's text is the input with the name's characters replaced
    and its neighbours kept byte for byte."""
    doc = glued_nlp(f"{left}{name[0]}{join}{name[1]}{right}")
    assert_only_the_name_changed(left, name, join, right, doc.text,
                                 [(s["start"], s["end"]) for s in doc._.dp["spans"]])
