"""The ensemble (union with recall priority + rules), the default detector, and the names."""

from __future__ import annotations

import pickle

import pytest
from doubles import Fixed

from textdp.detect import create_detector
from textdp.detect.ensemble import DEFAULT_ENSEMBLE, EnsembleDetector, union_spans
from textdp.detect.glued import GluedNameDetector
from textdp.detect.handles import HandleDetector
from textdp.detect.normalise import NormalisedView
from textdp.detect.rules import NameRules
from textdp.detect.trained import TrainedNERDetector
from textdp.detect.transformer import TransformerNameDetector

INVOICE = "The invoice was signed by Oluwaseun Adeyemi and sent to Marta Kowalska."


def test_union_of_person_tokens_split_at_primary_boundaries():
    primary = [(0, 1, "PERSON"), (1, 3, "PERSON"), (6, 7, "ORG")]
    other = [(2, 4, "PERSON"), (6, 7, "PERSON"), (9, 10, "GPE")]
    # Tokens 0..3 are persons; the primary's touching spans split them at 1; the ORG at 6
    # gives way to the person reading (recall first); the GPE is kept.
    assert union_spans([primary, other]) == [(0, 1, "PERSON"), (1, 4, "PERSON"),
                                             (6, 7, "PERSON"), (9, 10, "GPE")]
    assert union_spans([]) == []
    assert union_spans([[], [(3, 5, "PERSON")]]) == [(3, 5, "PERSON")]


def test_ensemble_unites_members_then_applies_rules(nlp):
    doc = nlp.tokenizer("Anna Lee met Mr Brown . Later Lee and Brown left .")
    a = Fixed([(0, 1, "PERSON")])
    b = Fixed([(1, 2, "PERSON")])
    (spans,) = EnsembleDetector([a, b])([doc])
    assert [doc[s:e].text for s, e, lab in spans] == ["Anna Lee", "Brown", "Lee", "Brown"]
    (plain,) = EnsembleDetector([a, b], rules=None)([doc])
    assert plain == [(0, 2, "PERSON")]
    with pytest.raises(ValueError):
        EnsembleDetector([], rules=None)


def test_names():
    assert isinstance(create_detector("rules"), NameRules)
    assert isinstance(create_detector("trained"), TrainedNERDetector)
    assert isinstance(create_detector("handles"), HandleDetector)
    # A union runs on the normalised view; a single member stays as it is.
    view = create_detector("trained+rules")
    assert isinstance(view, NormalisedView)
    ens = view.inner
    assert isinstance(ens, EnsembleDetector) and ens.rules is not None
    assert isinstance(ens.detectors[0], TrainedNERDetector)
    both = create_detector("trained+similarity").inner
    assert len(both.detectors) == 2 and both.rules is None
    with pytest.raises(ValueError, match="ensemble"):
        create_detector("ensemble+rules")
    # The tagger members may change; the rules, the handles and glued names stay in it.
    assert DEFAULT_ENSEMBLE.split("+")[-3:] == ["rules", "handles", "glued"]


def test_default_detector_is_the_ensemble_on_the_normalised_view():
    for spec in (None, "ensemble"):
        det = create_detector(spec)
        assert isinstance(det, NormalisedView)
        ens = det.inner
        assert isinstance(ens, EnsembleDetector)
        assert isinstance(ens.detectors[0], TransformerNameDetector)
        assert isinstance(ens.detectors[-2], HandleDetector)
        assert isinstance(ens.detectors[-1], GluedNameDetector)
        assert isinstance(ens.rules, NameRules)
        assert repr(det).startswith("NormalisedView(EnsembleDetector([")


def test_invoice_names_found_through_the_privatizer_tokenization():
    from textdp.privatizer import Privatizer

    p = Privatizer(seed=3)
    docs = list(p.nlp.tokenizer.pipe([INVOICE]))
    (spans,) = p.selector.detector(docs)
    persons = [docs[0][s:e].text for s, e, lab in spans if lab == "PERSON"]
    assert "Oluwaseun Adeyemi" in persons and "Marta Kowalska" in persons
    (out,) = p.privatize([INVOICE])
    assert out.report.tokens_replaced >= 4
    for name in ("Oluwaseun", "Adeyemi", "Marta", "Kowalska"):
        assert name not in out.text
    assert out.text.startswith("The invoice was signed by ")


def test_later_mentions_and_titles(nlp):
    det = create_detector(None)
    text = ("Oluwaseun Adeyemi chairs the board. Dr. Kowalska disagreed, but Adeyemi's "
            "motion passed and Kowalska resigned.")
    doc = nlp.tokenizer(text)
    (spans,) = det([doc])
    persons = {doc[s:e].text for s, e, lab in spans if lab == "PERSON"}
    assert {"Oluwaseun Adeyemi", "Kowalska", "Adeyemi"} <= persons
    # The caller's docs are not annotated by the detector.
    assert len(doc.ents) == 0


def test_ensemble_pickles():
    det = create_detector(None)
    again = pickle.loads(pickle.dumps(det))
    assert isinstance(again, NormalisedView) and isinstance(again.inner, EnsembleDetector)
    assert again.inner.detectors[0].model == det.inner.detectors[0].model
    assert repr(again) == repr(det)


# Casing the taggers must not depend on: chat without capitals, shouted text, titles.
CASED_FORMS = [
    ("hey mike did u see jessica at the mall", ["mike", "jessica"]),
    ("lol ok ill ask sarah and tom tomorrow", ["sarah", "tom"]),
    ("ANGELA MERKEL MET JOHN SMITH IN BERLIN", ["ANGELA", "MERKEL", "JOHN", "SMITH"]),
    ("Interview With Angela Merkel And John Smith", ["Angela", "Merkel", "John", "Smith"]),
]


@pytest.fixture(scope="module")
def default_privatizer():
    from textdp.privatizer import Privatizer

    return Privatizer(seed=0)


@pytest.mark.parametrize("text, names", CASED_FORMS)
def test_names_in_any_casing_do_not_survive(default_privatizer, text, names):
    out = default_privatizer(text).text.split()
    for name in names:
        assert name.casefold() not in {w.casefold() for w in out}


# A letter and a chat: the names go, the greetings and sign-offs stay where they stood.
ADDRESSED = [
    ("Dear Mr. Nakamura, thank you for your letter. Sincerely, Ingrid Bergström",
     ["Nakamura", "Ingrid", "Bergström"], ["Dear", "Mr.", "Sincerely,"]),
    ("Hi John,\n\nThanks for the update.\n\nCheers,\nSarah", ["John", "Sarah"],
     ["Hi", "Thanks", "Cheers,"]),
    ("lol kevin said that 😂 ask jenna", ["kevin", "jenna"], ["lol"]),
]


@pytest.mark.parametrize("text, names, kept", ADDRESSED)
def test_greetings_and_sign_offs_stay_while_names_go(default_privatizer, text, names, kept):
    out = default_privatizer(text).text.split()
    for name in names:
        assert name.casefold() not in {w.casefold().strip(",") for w in out}
    for word in kept:
        assert word in out
