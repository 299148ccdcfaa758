"""Target selection (textdp.pipeline.selection): one path from tokens to targets for every
front end.

``textdp detect`` (the Auditor), ``privatize(report_spans=True)`` and the spaCy component all
select through :class:`~textdp.pipeline.selection.TargetSelector`, so the dry run shows exactly
what is
replaced: honorifics dropped, a multi-token address or number one target, a name inside an
address left to the address, long texts cut and joined alike.
"""

from __future__ import annotations

import json
import warnings

import pytest
from spacy.tokens import Span

from textdp.cli import main
from textdp.pipeline.selection import ENTITIES, HONORIFICS, TargetSelector, drop_honorifics
from textdp.privatizer import Privatizer

pytestmark = pytest.mark.usefixtures("private_cache")

TARGETS = ["PERSON", "EMAIL", "PHONE"]
# Names, PII over several tokens, honorifics, greetings and chat words beside names, and a
# text of more than two chunks (CHUNK_CHARS = 20,000) with names at every cut.
CORPUS = [
    "Dr. Amara Patel met John Smith; call 555 123 4567 or mail amara.patel@example.com.",
    "Mr Quillonbrae said hi lol. Pt is stable, per Dr Okafor.",
    "omg Sarah!! Sincerely, Tom Lee",
    "No names here.",
    "",
    " ".join(f"Maria Lopez wrote to Dr. Okafor about case {i}, cc Ann Lee." for i in range(700)),
]


def _key(spans):
    return sorted((s["start"], s["end"], s["label"], s["detector"]) for s in spans)


def _scores(spans):
    return [s["score"] for s in sorted(spans, key=lambda s: (s["start"], s["end"], s["label"]))]


@pytest.fixture(scope="module")
def detected(tmp_path_factory):
    """``textdp detect`` on the corpus (the CLI, default detector)."""
    src = tmp_path_factory.mktemp("detect") / "corpus.jsonl"
    src.write_text("".join(json.dumps({"text": t}) + "\n" for t in CORPUS), encoding="utf-8")
    out = src.with_name("spans.jsonl")
    assert main(["detect", str(src), "-o", str(out), "--targets", ",".join(TARGETS)]) == 0
    return [json.loads(line)["spans"] for line in out.read_text("utf-8").splitlines()]


def test_detect_reports_what_privatize_replaces(detected):
    assert len(CORPUS[-1]) > 40_000
    results = Privatizer(targets=TARGETS, report_spans=True, seed=3, replace="tag"
                         ).privatize(CORPUS)
    reported = [r.report.to_dict()["spans"] for r in results]
    for det, rep in zip(detected, reported):
        assert _key(det) == _key(rep)
        assert _scores(det) == pytest.approx(_scores(rep), abs=1e-4)
    found = {(CORPUS[0][s["start"]:s["end"]], s["label"]) for s in detected[0]}
    # "Dr." is no name; the phone number is one target; the address is one EMAIL target.
    assert found == {("Amara Patel", "PERSON"), ("John Smith", "PERSON"),
                     ("555 123 4567", "PHONE"), ("amara.patel@example.com", "EMAIL")}
    words = {CORPUS[1][s["start"]:s["end"]] for s in detected[1]}
    assert words == {"Quillonbrae", "Okafor"}
    long_text = CORPUS[-1]
    found_long = [long_text[s["start"]:s["end"]] for s in detected[-1]]
    # No name is cut in two at a chunk boundary: each "Maria Lopez" is one span.
    assert found_long.count("Maria Lopez") == 700
    assert all(w == "Maria Lopez" for w in found_long if "Lopez" in w or "Maria" in w)


def test_the_spacy_component_selects_as_the_core(detected):
    """The component on a pipeline without NER: the spans of the core and of detect.

    spaCy hands the component whole Docs, so it reads a long text whole where the core cuts
    it into chunks; a tagger that reads context may then see a word at a cut differently.
    On the long text the component is compared with the core on the same whole Doc."""
    from textdp.defaults import fresh_pipeline

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        nlp = fresh_pipeline()
    for name in list(nlp.pipe_names):
        nlp.remove_pipe(name)
    settings = {"targets": TARGETS, "report_spans": True, "seed": 3, "replace": "tag"}
    nlp.add_pipe("dp_privatizer", config=settings)
    docs = list(nlp.pipe(CORPUS))
    for det, doc in zip(detected[:-1], docs[:-1]):
        assert _key(det) == _key(doc._.dp["spans"])
    core = Privatizer(nlp=nlp, **settings)
    whole = core.privatize_docs(core.prepare([nlp.make_doc(CORPUS[-1])]))[0][1]
    assert _key(docs[-1]._.dp["spans"]) == _key(whole.to_dict()["spans"])
    assert len(CORPUS[-1]) > 20_000 and len(docs[-1]._.dp["spans"]) > 2000


def _doc_with_ents(nlp, text, ents):
    doc = nlp.make_doc(text)
    words = [t.text for t in doc]
    doc.ents = [Span(doc, words.index(w), words.index(w) + 1, label="PERSON") for w in ents]
    return doc


def test_pipeline_entities_go_through_the_detectors_filters():
    """doc.ents joins the detector's findings through the same filters: a pipeline's NER
    that takes "Pt", "lol" or "omg" for a name adds no target, and the allow list wins."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"detector": "rules", "replace": "tag",
                                          "allow": ["Paris"], "report_spans": True})
    component = nlp.get_pipe("dp_privatizer")
    text = "Pt seen lol omg Kevin and Paris"
    doc = _doc_with_ents(nlp, text, ["Pt", "lol", "omg", "Kevin", "Paris"])
    out = component(doc)
    assert out.text == "Pt seen lol omg [PERSON] and Paris"
    assert [(s["start"], s["end"], s["detector"]) for s in out._.dp["spans"]] == [
        (16, 21, ENTITIES)]


def test_entities_only_keeps_the_pii_patterns():
    """detector="ents": the pipeline's entities stand in for the name detector, and the PII
    patterns of the targeted labels still run."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"detector": "ents", "replace": "tag",
                                          "targets": ["PERSON", "EMAIL"]})
    doc = _doc_with_ents(nlp, "Kevin wrote to kevin@example.com", ["Kevin"])
    assert nlp.get_pipe("dp_privatizer")(doc).text == "[PERSON] wrote to [EMAIL]"


def test_selection_is_computed_once_and_masks_match_it():
    selector = TargetSelector(("PERSON",), lambda docs: [[(1, 4, "PERSON")] for _ in docs])
    import spacy

    doc = spacy.blank("en")("Dear Dr. Ann Lee")
    selection = selector.select([doc], audit=True)
    assert selection.masks == [[None, None, "PERSON", "PERSON"]]  # "Dr." is dropped
    assert [s[:3] for s in selection.spans[0]] == [(9, 16, "PERSON")]
    assert selector.masks([doc]) == selection.masks


# ===================================== honorifics, allow and deny lists, the audit trail
def test_honorifics_are_not_part_of_the_name():
    words = ["Dear", "Dr.", "Patel", ",", "Mrs", "Emily", "Jones", "Dear", "Prof", "Lee"]
    mask = [None, "PERSON", "PERSON", None, "PERSON", "PERSON", "PERSON", "PERSON", "PERSON",
            "PERSON"]
    assert drop_honorifics(mask, words) == [None, None, "PERSON", None, None, "PERSON",
                                            "PERSON", "PERSON", None, "PERSON"]
    assert {"dr", "mrs", "prof"} <= HONORIFICS


def test_honorific_is_kept_and_the_name_replaced(names_privatizer):
    out = names_privatizer("Dear Dr. Patel, my daughter Emily called.")
    words = out.text.split(" ")
    assert words[:2] == ["Dear", "Dr."] and words[2] != "Patel,"
    assert out.report.draws == 2


def test_allow_and_deny_lists_and_excluded_substitutes():
    out = Privatizer(seed=0, deny=["Zorblat"], allow=["Smith"])("Zorblat and Anna Smith met.")
    words = out.text.split(" ")
    assert words[0] != "Zorblat" and words[3] == "Smith" and words[2] != "Anna"
    with pytest.raises(ValueError, match="targets='all'"):
        Privatizer(targets="all", allow=["x"])
    with pytest.raises(ValueError, match="exclude must be"):
        Privatizer(exclude="none")
    # Excluded words are never written, in names or words.
    p = Privatizer(seed=0, targets="all", replace="word", exclude={"the", "a", "and"},
                   epsilon=50.0)
    outs = p.privatize(["the a and the a and"] * 50)
    assert not {"the", "a", "and"} & {w.lower() for o in outs for w in o.text.split(" ")}
    assert Privatizer().exclude >= {"islam", "qaeda"}


def test_report_spans_are_an_audit_trail_without_text(monkeypatch):
    """report_spans=True: each targeted span as offsets, label, detector and score, in the
    whole text's offsets across chunks; no text in the report."""
    import json

    import textdp.pipeline.chunking as chunking

    monkeypatch.setattr(chunking, "CHUNK_CHARS", 130)
    text = "Dear Dr. Patel, my daughter Emily (emily@example.com) called.\n" * 4
    p = Privatizer(seed=1, report_spans=True, targets=["PERSON", "EMAIL"])
    out = p(text)
    spans = out.report.to_dict()["spans"]
    found = [text[s["start"]:s["end"]] for s in spans]
    for target in ("Patel", "Emily", "emily@example.com"):  # offsets in the whole text
        assert found.count(target) == 4
    assert "Dr." not in found and "Dr. Patel" not in found  # the title is not a target
    assert {s["label"] for s in spans} == {"PERSON", "EMAIL"}
    assert all(s["detector"] for s in spans)
    dumped = json.dumps(out.report.to_dict())
    assert "Patel" not in dumped and "Emily" not in dumped and "example" not in dumped
    assert Privatizer(seed=1)(text).report.spans is None


def test_a_value_that_ends_inside_a_token_is_cut_out_before_selection():
    """spaCy keeps ``LC467115A.`` and ``C-88213,1499.00`` whole: the token is cut at the
    value's ends (pii_cuts), so the full stop and the next field stay as written."""
    import spacy

    from textdp.detect.pii import PIIDetector
    from textdp.pipeline.selection import merge_pii_tokens, pii_cuts

    nlp = spacy.blank("en")
    doc = nlp("NI: LC467115A. Row: INV-1,C-88213,1499.00")
    matches = [m for m in PIIDetector(["UK_NINO"]).matches(doc.text)]
    cuts = pii_cuts(doc, matches)
    assert [doc[k].text for k in cuts] == ["LC467115A."] and list(cuts.values()) == [[9]]
    prepared = merge_pii_tokens([doc], ["UK_NINO"])[0]
    assert prepared.text == doc.text and "LC467115A" in [t.text for t in prepared]
    out = Privatizer(seed=0, targets="pii").privatize(
        ["NI: LC467115A.", "invoice,customer_id,total\nINV-2024-0042,C-88213,1499.00"])
    assert out[0].text.endswith(".") and "LC467115A" not in out[0].text
    assert out[1].text.endswith(",1499.00") and "C-88213" not in out[1].text
