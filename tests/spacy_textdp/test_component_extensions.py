"""The dp_privatizer component carries ``doc.user_data`` and extension values set by earlier
components over to the new Doc: moved to the new tokens' offsets, screened for the original text
(issue 22).

A blank pipeline whose first component sets the entities, so no entity recognizer is loaded;
the substitutes come from the process-wide default table.
"""

from __future__ import annotations

import numpy as np
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from spacy_textdp.component import _fold, _may_hold

SNIPPET = "Angela Merkel met John Smith in Berlin."
NAME_TOKENS = (0, 1, 3, 4)
NAME_WORDS = ("angela", "merkel", "john", "smith")
SEED = 2

for _cls, _name in ((Doc, "xt_source"), (Doc, "xt_people"), (Doc, "xt_main"),
                    (Doc, "xt_counts"), (Token, "xt_norm_text"), (Token, "xt_position"),
                    (Span, "xt_score"), (Span, "xt_entity_text")):
    if not _cls.has_extension(_name):
        _cls.set_extension(_name, default=None)


@Language.component("xt_annotate")
def _annotate(doc: Doc) -> Doc:
    """An earlier component: entities, and values of every kind on the Doc, tokens and spans."""
    doc.ents = [Span(doc, 0, 2, "PERSON"), Span(doc, 3, 5, "PERSON"), Span(doc, 6, 7, "GPE")]
    doc._.xt_source = "ticket-42"
    doc._.xt_counts = {"persons": 2, "places": [1]}
    doc._.xt_people = ["Angela Merkel", "John Smith"]  # holds the names
    doc._.xt_main = doc[0:2]  # a Span of the input Doc: not plain data
    for token in doc:
        token._.xt_norm_text = token.text.lower()
        token._.xt_position = token.i
    for ent in doc.ents:
        ent._.xt_score = 0.5 + ent.start / 10
        ent._.xt_entity_text = ent.text
    doc[2:6]._.xt_score = 0.25  # "met John Smith in": covers names, holds no text
    doc.user_data["xt_plain"] = {"batch": 7, "tags": ("a", "b")}
    doc.user_data["xt_whose"] = "MERKEL, Angela"  # the name in another casing
    doc.user_data[("xt", "Smith")] = 1  # the name in the key
    # A span value whose offsets are not token boundaries ("ngela M"): cannot be placed.
    doc.user_data[("._.", "xt_score", 1, 8)] = 0.1
    doc._.dp = {"tokens_replaced": 99}  # an earlier privatizer's: replaced, not carried
    doc._.dp_original = doc.text
    return doc


def _pipeline(**config) -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("xt_annotate")
    nlp.add_pipe("dp_privatizer", config={"seed": SEED, **config})
    return nlp


@pytest.fixture(scope="module")
def nlp() -> Language:
    return _pipeline()


@pytest.fixture(scope="module")
def before(nlp) -> Doc:
    with nlp.select_pipes(disable=["dp_privatizer"]):
        return nlp(SNIPPET)


@pytest.fixture(scope="module")
def doc(nlp) -> Doc:
    return nlp(SNIPPET)


def _moved(doc: Doc, before: Doc) -> bool:
    """Whether the substitutes differ in length from the names, so that the offsets after
    them moved: values are then only found if they were moved with their tokens."""
    return doc[2].idx != before[2].idx and doc[6].idx != before[6].idx


def _assert_carried(doc: Doc, before: Doc) -> None:
    assert doc._.dp["tokens_replaced"] == 4
    assert doc._.xt_source == "ticket-42"
    assert doc._.xt_counts == {"persons": 2, "places": [1]}
    assert doc.user_data["xt_plain"] == {"batch": 7, "tags": ("a", "b")}
    for i, token in enumerate(doc):
        if i in NAME_TOKENS:
            assert token._.xt_norm_text is None and token._.xt_position is None
        else:
            assert token._.xt_norm_text == before[i].text.lower() == token.text.lower()
            assert token._.xt_position == i
    ents = doc.ents
    assert [(e.start, e.end, e.label_) for e in ents] == \
        [(0, 2, "PERSON"), (3, 5, "PERSON"), (6, 7, "GPE")]
    assert [e._.xt_score for e in ents] == [0.5, 0.8, 1.1]
    assert doc[2:6]._.xt_score == 0.25
    # The entity texts of the names are not carried; the kept entity's text is.
    assert [e._.xt_entity_text for e in ents] == [None, None, "Berlin"]


def test_values_are_carried_to_the_new_tokens_offsets(doc, before):
    assert _moved(doc, before)  # the seed was chosen for it
    _assert_carried(doc, before)


def test_values_holding_a_replaced_name_are_not_carried(doc):
    assert doc._.xt_people is None
    assert doc._.xt_main is None
    assert "xt_whose" not in doc.user_data and ("xt", "Smith") not in doc.user_data
    # Nothing the earlier component stored brings a name back, under any key.
    dumped = repr(doc.user_data).casefold()
    assert not any(word in dumped for word in NAME_WORDS)
    assert not any(word in doc.text.casefold() for word in NAME_WORDS)


def test_values_that_cannot_be_placed_are_dropped(doc):
    assert all(key[2:] != (1, 8) for key in doc.user_data if isinstance(key, tuple))
    extension_keys = [k for k in doc.user_data if isinstance(k, tuple) and k[0] == "._."]
    offsets = {t.idx for t in doc}
    ends = {t.idx + len(t) for t in doc}
    for _, _, start, end in extension_keys:
        assert start is None or start in offsets
        assert end is None or end in ends


def test_dp_and_dp_original_are_the_components_own(doc, nlp):
    assert doc._.dp["tokens_replaced"] == 4 and doc._.dp_original is None
    keeping = _pipeline(keep_original=True)
    kept = keeping(SNIPPET)
    assert kept._.dp_original == SNIPPET and kept._.dp["tokens_replaced"] == 4
    assert kept._.xt_source == "ticket-42"


def test_the_input_docs_values_are_not_shared(nlp):
    with nlp.select_pipes(disable=["dp_privatizer"]):
        source = nlp(SNIPPET)
    doc = nlp.get_pipe("dp_privatizer")(source)
    doc._.xt_counts["places"].append(2)
    assert source._.xt_counts == {"persons": 2, "places": [1]}


def test_pipe_with_batches_carries_every_docs_values(nlp, before):
    docs = list(nlp.pipe([SNIPPET] * 5, batch_size=2, n_process=1))
    assert len(docs) == 5
    assert sum(_moved(doc, before) for doc in docs) >= 3  # one seeded stream: fixed draws
    for doc in docs:
        _assert_carried(doc, before)
        assert doc._.xt_people is None
    # Carried values travel with the Doc's own serialization (what n_process uses).
    back = Doc(nlp.vocab).from_bytes(docs[0].to_bytes())
    assert back._.xt_source == "ticket-42" and back[6]._.xt_norm_text == "berlin"


def test_no_replacement_carries_everything_plain():
    nlp = spacy.blank("en")
    nlp.add_pipe("xt_annotate")
    nlp.add_pipe("dp_privatizer", config={"seed": SEED, "targets": ["ORG"]})
    doc = nlp(SNIPPET)
    assert doc.text == SNIPPET and doc._.dp["tokens_replaced"] == 0
    assert doc._.xt_people == ["Angela Merkel", "John Smith"]
    assert doc[0]._.xt_norm_text == "angela" and doc.ents[0]._.xt_entity_text == "Angela Merkel"
    assert doc._.xt_main is None  # a Span of the input Doc is never carried
    assert doc._.dp_original is None


# ---------------------------------------------------------------------- the screen
NEEDLES = frozenset(_fold(w) for w in ("Angela", "Merkel"))


@pytest.mark.parametrize("value", [
    None, True, 3, 2.5, np.float32(1.0), np.arange(3), "ticket-42", b"ticket", ("a", 1),
    {"k": [1, {"x": None}]}, {1, 2}, np.array(["x", "y"]),
])
def test_screen_passes_plain_values_without_the_names(value):
    assert not _may_hold(value, NEEDLES)


class _Holder:
    def __init__(self, text: str) -> None:
        self.text = text


def _self_referencing() -> list:
    cycle: list = []
    cycle.append(cycle)
    return cycle


@pytest.mark.parametrize("value", [
    "Angela", "ms. MERKEL said", "Mer\u200bkel", "\uff2d\uff45\uff52\uff4b\uff45\uff4c",
    ["x", ("y", {"z": "angela"})], {"Angela": 1}, b"from Merkel", np.array(["merkel"]),
    _Holder("harmless"), object(), _self_referencing(),
])
def test_screen_drops_values_with_a_name_or_unchecked_content(value):
    assert _may_hold(value, NEEDLES)
