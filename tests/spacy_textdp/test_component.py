"""The dp_privatizer component: targets, output Doc, report, batching, serialization.

The embedded pipeline is loaded once for this module (a fresh copy, since components are added
to it); the blank-pipeline tests share the process-wide default table and neighbour index.
"""

from __future__ import annotations

import json
import warnings
import zlib

import numpy as np
import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_textdp.component import DPPrivatizer
from textdp.defaults import DEFAULT_EPSILON

SNIPPET = "Angela Merkel met John Smith in Berlin."
NAME_TOKENS = (0, 1, 3, 4)
# A person name no table holds: it must be replaced by a draw that does not depend on it.
CANARY = "Qorvathzembrowski"
CANARY_TEXT = f"Angela {CANARY} met John Smith in Berlin."


def _quiet_load(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        return spacy.load(*args, **kwargs)


@pytest.fixture(scope="module")
def md_nlp():
    """The embedded default pipeline (a copy of its own) + the default dp_privatizer."""
    from textdp.defaults import fresh_pipeline

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        nlp = fresh_pipeline()
    nlp.add_pipe("dp_privatizer")
    return nlp


@pytest.fixture(scope="module")
def reference(md_nlp):
    """The snippet through the same pipeline without the privatizer."""
    with md_nlp.select_pipes(disable=["dp_privatizer"]):
        return md_nlp(SNIPPET)


@pytest.fixture(scope="module")
def blank_all():
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"targets": "all", "seed": 7})
    return nlp


def _changed_names(doc: Doc, reference: Doc) -> int:
    return sum(doc[i].text != reference[i].text for i in NAME_TOKENS)


def _assert_names_replaced(doc: Doc, reference: Doc) -> None:
    """Names went through the mechanism, everything else is as it was."""
    assert len(doc) == len(reference)
    for i, (new, old) in enumerate(zip(doc, reference)):
        assert new.whitespace_ == old.whitespace_
        if i not in NAME_TOKENS:
            assert new.text == old.text
    assert [(e.start, e.end, e.label_) for e in doc.ents] == \
        [(0, 2, "PERSON"), (3, 5, "PERSON"), (6, 7, "GPE")]
    assert doc.ents[2].text == "Berlin"
    report = doc._.dp
    assert report["tokens_replaced"] == 4
    assert report["epsilon"] == pytest.approx(DEFAULT_EPSILON)
    assert report["epsilon_total"] == pytest.approx(4 * DEFAULT_EPSILON)
    assert report["mechanism"] == "mlaplace"


# ---------------------------------------------------------------------- the snippet
def test_default_pipeline_replaces_the_four_name_tokens(md_nlp, reference):
    # A draw may return the input word itself (rarely at the default ε; the calibration is the
    # core's to test): three draws must give one in which all four names changed, and every
    # draw must keep the rest.
    docs = [md_nlp(SNIPPET) for _ in range(3)]
    for doc in docs:
        _assert_names_replaced(doc, reference)
        assert doc is not reference and doc.vocab is md_nlp.vocab
    assert max(_changed_names(doc, reference) for doc in docs) == 4


def test_uses_the_pipelines_own_vectors(md_nlp):
    table = md_nlp.get_pipe("dp_privatizer").table
    assert table.dim == md_nlp.vocab.vectors.shape[1] == 300
    assert len(table) > 10_000


def test_to_disk_then_spacy_load_behaves_the_same(md_nlp, reference, tmp_path):
    md_nlp.to_disk(tmp_path / "pipeline")
    assert (tmp_path / "pipeline" / "dp_privatizer" / "cfg").exists()
    loaded = _quiet_load(tmp_path / "pipeline")
    assert loaded.pipe_names == md_nlp.pipe_names
    assert loaded.get_pipe_config("dp_privatizer") == md_nlp.get_pipe_config("dp_privatizer")
    assert loaded.get_pipe("dp_privatizer").cfg == md_nlp.get_pipe("dp_privatizer").cfg
    docs = [loaded(SNIPPET) for _ in range(3)]
    for doc in docs:
        _assert_names_replaced(doc, reference)
    assert max(_changed_names(doc, reference) for doc in docs) == 4


# ---------------------------------------------------------------------- the output Doc
def test_whitespace_and_entity_spans_are_preserved(md_nlp):
    text = "  Angela  Merkel\n\nmet John Smith in Berlin .\tShe left\n"
    with md_nlp.select_pipes(disable=["dp_privatizer"]):
        before = md_nlp(text)
    doc = md_nlp(text)
    assert len(doc) == len(before)
    assert [t.whitespace_ for t in doc] == [t.whitespace_ for t in before]
    assert [(e.start, e.end, e.label_) for e in doc.ents] == \
        [(e.start, e.end, e.label_) for e in before.ents]
    persons = {i for e in before.ents if e.label_ == "PERSON" for i in range(e.start, e.end)}
    assert persons
    for i, (new, old) in enumerate(zip(doc, before)):
        if i not in persons:
            assert new.text == old.text  # spaces, newlines, tabs, punctuation untouched
    assert doc._.dp["tokens_replaced"] == sum(before[i].text.isalpha() for i in persons)


def test_annotations_of_kept_tokens_are_carried_and_of_replaced_ones_not(md_nlp):
    doc = md_nlp("Angela Merkel met John Smith in Berlin. She left early.")
    assert len(list(doc.sents)) == 2
    met = doc[2]
    assert (met.text, met.lemma_, met.tag_, met.pos_) == ("met", "meet", "VBD", "VERB")
    assert doc[6].tag_ == "NNP" and doc[6].lemma_ == "Berlin"
    for i in NAME_TOKENS:
        token = doc[i]
        # The lemma is the substitute itself; tags and morphology described the original.
        assert token.lemma_ == token.text
        assert token.tag_ == "" and token.pos_ == "" and str(token.morph) == ""
    assert not doc.has_annotation("DEP")  # arcs linked the replaced tokens: not carried
    assert doc.tensor.size == 0  # contextual features of the original text: not carried


def test_original_text_is_kept_nowhere(md_nlp, blank_all):
    docs = [md_nlp(CANARY_TEXT), blank_all(CANARY_TEXT)]
    for doc in docs:
        assert CANARY not in doc.text
        for token in doc:
            for value in (token.text, token.lemma_, token.norm_, token.ent_kb_id_,
                          token.ent_id_, token.whitespace_):
                assert CANARY not in value
        assert CANARY not in json.dumps(doc.to_json())
        assert CANARY.encode() not in doc.to_bytes()
        assert CANARY not in repr(doc.user_data) and CANARY not in json.dumps(doc._.dp)
        assert all(CANARY not in s.text for group in doc.spans.values() for s in group)
        docbin = DocBin(store_user_data=True, docs=[doc])
        assert CANARY.encode() not in zlib.decompress(docbin.to_bytes())
        assert doc._.dp_original is None


def test_keep_original_stores_the_input_text():
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"targets": "all", "keep_original": True, "seed": 1})
    doc = nlp(CANARY_TEXT)
    assert doc._.dp_original == CANARY_TEXT and CANARY not in doc.text


# ---------------------------------------------------------------------- targets
def test_blank_pipeline_with_targets_all_replaces_every_word(blank_all):
    text = "Hello, world!  42 cats\n\nran 3.5 km -- fast?"
    before = blank_all.make_doc(text)
    doc = blank_all(text)
    words = [i for i, t in enumerate(before) if any(c.isalpha() for c in t.text)]
    assert doc._.dp["tokens_replaced"] == len(words) == 6
    for i, (new, old) in enumerate(zip(doc, before)):
        assert new.whitespace_ == old.whitespace_
        if i not in words:  # punctuation, numbers, whitespace tokens
            assert new.text == old.text
    changed = sum(doc[i].text != before[i].text for i in words)
    assert changed >= len(words) - 1  # at the default ε a word survives a draw only rarely
    assert not doc.ents


def test_blank_pipeline_table_is_the_embedded_default(blank_all):
    from textdp.defaults import default_table

    assert blank_all.get_pipe("dp_privatizer").table is default_table()


def test_blank_pipeline_names_only_runs_the_embedded_detector():
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"seed": 3})
    before = nlp.make_doc(SNIPPET)
    doc = nlp(SNIPPET)
    assert doc._.dp["tokens_replaced"] == 4
    assert _changed_names(doc, before) >= 3
    assert [doc[i].text for i in (2, 5, 6, 7)] == ["met", "in", "Berlin", "."]


def test_pipeline_with_own_vectors_draws_only_from_them():
    nlp = spacy.blank("en")
    own = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    for k, word in enumerate(own):
        nlp.vocab.set_vector(word, np.asarray([k, k % 2, 1.0], dtype=np.float32))
    nlp.add_pipe("dp_privatizer", config={"targets": "all", "seed": 0})
    doc = nlp("One two three four five six seven.")
    assert {t.text.lower() for t in doc[:-1]} <= set(own)
    assert doc[-1].text == "."


def test_epsilon_auto_calibrates_on_the_table_and_survives_serialization(tmp_path,
                                                                          monkeypatch):
    from textdp.calibration import calibrate_epsilon

    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    words = [f"w{a}{b}" for a in "abcdef" for b in "abcdef"]
    table = tmp_path / "tiny.vec"
    table.write_text(f"{len(words)} 4\n" + "".join(
        f"{w} {' '.join(f'{x:.4f}' for x in rng.normal(size=4))}\n" for w in words))
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"epsilon": "auto", "target_unchanged": 0.3,
                                          "table": str(table), "targets": "all", "seed": 0})
    component = nlp.get_pipe("dp_privatizer")
    expected = calibrate_epsilon("mlaplace", str(table), target_unchanged=0.3).epsilon
    assert component.epsilon == pytest.approx(expected)
    assert nlp.config["components"]["dp_privatizer"]["epsilon"] == "auto"
    assert component.cfg["epsilon"] == "auto" and "epsilon" not in component.cfg["mechanism"]
    doc = nlp("waa wab wac")
    assert doc._.dp["epsilon"] == pytest.approx(expected)
    nlp.to_disk(tmp_path / "pipeline")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the saved settings agree with the config
        again = spacy.load(tmp_path / "pipeline")
    assert again.get_pipe("dp_privatizer").epsilon == pytest.approx(expected)


def test_per_text_budget_truncates(blank_all):
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"targets": "all", "epsilon": 1.0, "seed": 2,
                                          "max_epsilon_per_text": 2.0})
    doc = nlp("one two three four five, six.")
    report = doc._.dp
    assert report["tokens_replaced"] == 6 and report["draws"] == 2
    assert report["epsilon_total"] == 2.0
    assert report["tokens_redacted"] == 4
    assert [t.text for t in doc if not t.is_alpha] == [",", "."]
    with pytest.raises(ValueError, match="budget_policy"):
        nlp.add_pipe("dp_privatizer", name="bad", config={"budget_policy": "nope"})


# ---------------------------------------------------------------------- batching
def test_pipe_makes_one_privatizer_call_per_minibatch(md_nlp, monkeypatch):
    component = md_nlp.get_pipe("dp_privatizer")
    privatizer = component._ready()
    calls, selections = [], []
    original, select = privatizer.privatize_docs, privatizer.selector.select

    def counting(docs, spans=None, **kwargs):
        calls.append(len(docs))
        return original(docs, spans, **kwargs)

    def selecting(docs, *args, **kwargs):
        selections.append(len(docs))
        return select(docs, *args, **kwargs)

    monkeypatch.setattr(privatizer, "privatize_docs", counting)
    monkeypatch.setattr(privatizer.selector, "select", selecting)
    docs = list(md_nlp.pipe([SNIPPET] * 10, batch_size=4))
    assert calls == [4, 4, 2]
    # Targets are chosen once per minibatch, by the core's selection stage.
    assert selections == [4, 4, 2]
    assert all(d._.dp["tokens_replaced"] == 4 for d in docs)


def test_as_tuples_keeps_the_context(md_nlp):
    pairs = [(SNIPPET, {"id": 1}), ("Nothing here.", {"id": 2})]
    out = list(md_nlp.pipe(pairs, as_tuples=True))
    assert [c for _, c in out] == [{"id": 1}, {"id": 2}]
    assert out[1][0].text == "Nothing here." and out[1][0]._.dp["tokens_replaced"] == 0


@pytest.mark.slow
def test_n_process_2(md_nlp, reference):
    texts = [SNIPPET] * 4
    docs = list(md_nlp.pipe(texts, n_process=2, batch_size=1))
    assert len(docs) == 4
    for doc in docs:
        _assert_names_replaced(doc, reference)
    # Batches 0 and 1 went to different processes, each at the start of its stream: forked
    # children must not share their parent's generator state.
    names = [tuple(doc[i].text for i in NAME_TOKENS) for doc in docs]
    assert names[0] != names[1] and names[2] != names[3]
    assert max(_changed_names(doc, reference) for doc in docs) == 4


def test_docbin_round_trip(md_nlp):
    docs = list(md_nlp.pipe([SNIPPET, "Mary went home.\n\nShe slept."]))
    data = DocBin(store_user_data=True, docs=docs).to_bytes()
    back = list(DocBin().from_bytes(data).get_docs(md_nlp.vocab))
    for a, b in zip(docs, back):
        assert b.text == a.text
        assert [(e.start, e.end, e.label_) for e in b.ents] == \
            [(e.start, e.end, e.label_) for e in a.ents]
        assert b._.dp == a._.dp
        assert [s.text for s in b.sents] == [s.text for s in a.sents]


# ---------------------------------------------------------------------- config and analysis
def test_analyze_pipes_explains_the_component(md_nlp):
    analysis = md_nlp.analyze_pipes()
    summary = analysis["summary"]["dp_privatizer"]
    assert "doc._.dp" in summary["assigns"] and "token.text" in summary["assigns"]
    assert summary["retokenizes"] is False
    assert analysis["problems"]["dp_privatizer"] == []


@pytest.mark.parametrize("config, message", [
    ({"epsilon": -1.0}, "epsilon"),
    ({"epsilon": float("inf")}, "epsilon"),
    ({"targets": []}, "targets"),
    ({"mechanism": "no_such_mechanism"}, "mechanism"),
    ({"epsilon": 1.0,
      "mechanism": {"@misc": "textdp.mechanism.v1", "name": "mlaplace", "epsilon": 3.0}},
     "epsilon"),
    ({"index": "nope"}, "index"),
    ({"seed": -2}, "seed"),
])
def test_bad_settings_are_rejected_at_add_pipe(config, message):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=message):
        nlp.add_pipe("dp_privatizer", config=config)


def test_mechanism_epsilon_applies_when_the_component_gives_none():
    # As for the core Privatizer and every other front end (tests/test_front_ends.py): null
    # takes the mechanism's own ε; the config shows it once, and cfg (what is saved) too.
    nlp = spacy.blank("en")
    mech = {"@misc": "textdp.mechanism.v1", "name": "mlaplace", "epsilon": 3.0}
    component = nlp.add_pipe("dp_privatizer", config={"mechanism": mech})
    assert component.epsilon == 3.0 and component.cfg["epsilon"] == 3.0


def test_mechanism_reference_with_its_own_arguments(blank_all):
    nlp = spacy.blank("en")
    mech = {"@misc": "textdp.mechanism.v1", "name": "mahalanobis", "args": {"lam": 0.5}}
    nlp.add_pipe("dp_privatizer", config={"targets": "all", "epsilon": 2.0, "mechanism": mech})
    component = nlp.get_pipe("dp_privatizer")
    assert component.cfg["mechanism"] == {"name": "mahalanobis", "lam": 0.5}
    doc = nlp("Some words here.")
    assert doc._.dp["mechanism"] == "mahalanobis" and doc._.dp["epsilon"] == 2.0


# ---------------------------------------------------------------------- serialization
def test_to_bytes_is_deterministic_and_round_trips_standalone(md_nlp):
    component = md_nlp.get_pipe("dp_privatizer")
    data = component.to_bytes()
    assert data == component.to_bytes()
    twin = DPPrivatizer(md_nlp, "dp_privatizer")
    assert twin.to_bytes() == data
    other = DPPrivatizer(md_nlp, "other", epsilon=2.0, targets=["PERSON", "ORG"], seed=5,
                         mechanism={"name": "mahalanobis", "lam": 0.3})
    twin.from_bytes(other.to_bytes())  # not part of a pipeline: takes the saved settings
    assert twin.cfg == other.cfg
    assert twin.epsilon == 2.0 and twin.targets == ("PERSON", "ORG")
    assert twin.to_bytes() == other.to_bytes()


def test_component_to_disk_from_disk(md_nlp, tmp_path):
    source = DPPrivatizer(md_nlp, "x", epsilon=1.5, targets="all", keep_original=True)
    source.to_disk(tmp_path / "component")
    target = DPPrivatizer(md_nlp, "x").from_disk(tmp_path / "component")
    assert target.cfg == source.cfg and target.keep_original


def test_in_a_pipeline_the_config_wins_over_saved_settings(md_nlp):
    component = md_nlp.get_pipe("dp_privatizer")
    other = DPPrivatizer(md_nlp, "other", epsilon=3.0)
    before = component.cfg
    with pytest.warns(UserWarning, match="epsilon"):
        component.from_bytes(other.to_bytes())
    assert component.cfg == before


def test_default_detector_unites_with_ents_and_ents_only_is_the_pipelines_ner():
    """Default: the ensemble runs in a pipeline with NER too ("anna", lower case in a chat
    line, which en_core_web_md's NER misses, is replaced); detector="ents": the pipeline's
    entities alone (faster; "anna" survives)."""
    from textdp.defaults import fresh_pipeline

    text = "thx anna!! see u at 5"
    union = fresh_pipeline()
    union.add_pipe("dp_privatizer", config={"seed": 0})
    ents = fresh_pipeline()
    ents.add_pipe("dp_privatizer", config={"seed": 0, "detector": "ents"})
    plain = fresh_pipeline()(text)
    assert plain[1].text == "anna" and plain[1].ent_type_ == ""  # the NER misses it
    assert union(text)[1].text != "anna"
    assert ents(text)[1].text == "anna"
    assert ents.get_pipe("dp_privatizer").cfg["detector"] == "ents"


def test_a_phone_number_is_one_target_and_leaves_nothing_in_the_vocab():
    """The component merges a value over several tokens into one token (one surrogate), keeps
    the annotations of the other tokens, and stores no vector of the value in the user's
    vocab (spaCy's retokenizer would: nlp.to_disk would write its hash)."""
    from spacy.strings import hash_string

    from textdp.defaults import fresh_pipeline

    nlp = fresh_pipeline()
    nlp.add_pipe("dp_privatizer", config={"targets": ["PERSON", "PHONE"], "seed": 3})
    vectors = nlp.vocab.vectors
    shape, keys = vectors.shape, len(vectors.key2row)
    doc = nlp("Please call Angela Merkel at 555 123 4567 today.")
    assert "555 123 4567" not in doc.text and "Merkel" not in doc.text
    assert doc._.dp["tokens_replaced"] == 3  # Angela, Merkel and the number, one token
    call = next(t for t in doc if t.text == "call")
    assert (call.lemma_, call.tag_) == ("call", "VB")
    assert (vectors.shape, len(vectors.key2row)) == (shape, keys)
    assert hash_string("555 123 4567") not in vectors.key2row


def test_a_value_inside_a_longer_token_is_cut_out_and_replaced_alone():
    """A CSV line's tokens hold a value and its neighbours (``SH326304C,40`` is one spaCy
    token): the token is cut at the value's ends, so the value alone is replaced and the
    other fields stay as written (whole tokens were replaced, and a NINO's surrogate once
    ran out of places and failed the batch)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"targets": "pii", "seed": 0})
    values = ("SH326304C", "536-22-8726", "943 476 5919", "GB82WEST12345698765432")
    text = "id,dept,value,code\n" + "\n".join(f"row{i},Finance,{v},40-1"
                                              for i, v in enumerate(values))
    out = nlp(text).text
    lines = out.split("\n")
    assert len(lines) == len(values) + 1
    for line, v in zip(lines[1:], values):
        assert v not in line and line.endswith(",Finance," + line.split(",")[2] + ",40-1")
