"""Strict options (issue 20): unknown target labels, detector names and mechanism parameters
fail before any work, naming the valid values, in the core and on the command line."""

from __future__ import annotations

import pytest

from textdp.detect.pii import IDENTIFIER_LABELS
from textdp.targets import (
    DEFAULT_TARGETS,
    PII_LABELS,
    SPACY_LABELS,
    VALID_LABELS,
    is_word,
    resolve_targets,
    valid_labels,
)


def test_names_stay_importable_from_the_privatizer():
    from textdp import privatizer

    assert privatizer.DEFAULT_TARGETS == DEFAULT_TARGETS == ("PERSON",)
    assert privatizer.is_word is is_word


@pytest.mark.parametrize("given, expected", [
    (None, ("PERSON",)),
    ("all", "all"),
    (" ALL ", "all"),
    ("PER", ("PERSON",)),
    ("person, org", ("PERSON", "ORG")),
    (["B-PER", "I-LOC", "MISC"], ("PERSON", "LOC", "MISC")),
    (["PERSON", "EMAIL", "credit_card"], ("PERSON", "EMAIL", "CREDIT_CARD")),
    (("GPE", "GPE"), ("GPE",)),
    ("names", ("PERSON",)),
    (" Names ", ("PERSON",)),
    ("pii", ("PERSON", *IDENTIFIER_LABELS)),
    ("pii,ORG", ("PERSON", *IDENTIFIER_LABELS, "ORG")),
    (["EMAIL", "names"], ("EMAIL", "PERSON")),
    ("quasi", ("PERSON", *IDENTIFIER_LABELS, "DATE", "AGE", "GPE", "LOC", "FAC", "POSTCODE",
               "STREET_ADDRESS", "COORDINATES")),
])
def test_valid_targets_resolve(given, expected):
    assert resolve_targets(given) == expected


@pytest.mark.parametrize("given, unknown", [
    ("PERSONS", "'PERSONS'"),
    (["PERSON", "NAME"], "'NAME'"),
    ("EMAILS,PHONES", "'EMAILS', 'PHONES'"),
])
def test_unknown_labels_are_refused_naming_the_valid_ones(given, unknown):
    with pytest.raises(ValueError) as err:
        resolve_targets(given)
    message = str(err.value)
    assert unknown in message
    for label in ("PERSON", "ORG", "EMAIL", "CREDIT_CARD", "'all'", "names", "pii"):
        assert label in message


def test_all_cannot_be_combined_with_labels():
    with pytest.raises(ValueError, match="stands alone"):
        resolve_targets(["all", "PERSON"])


def test_extra_labels_of_a_custom_pipeline_are_accepted():
    with pytest.raises(ValueError):
        resolve_targets("DRUG")
    assert resolve_targets("DRUG,PERSON", extra_labels=["drug"]) == ("DRUG", "PERSON")
    assert "DRUG" in valid_labels(["drug"]) and "DRUG" not in valid_labels()


def test_valid_labels_cover_spacy_conll_and_pii():
    assert set(SPACY_LABELS) | {"MISC"} | set(PII_LABELS) == VALID_LABELS
    assert set(IDENTIFIER_LABELS) == {
        "EMAIL", "PHONE", "URL", "HANDLE", "IP", "CREDIT_CARD", "IBAN", "US_SSN", "US_ITIN",
        "UK_NHS", "UK_NINO", "CRYPTO", "US_PASSPORT", "PASSPORT", "US_DRIVER_LICENSE",
        "US_BANK_NUMBER", "UK_SORT_CODE", "MEDICAL_LICENSE", "MAC_ADDRESS", "MEDICAL_RECORD",
        "NATIONAL_ID", "BIC", "VIN", "LICENSE_PLATE", "DATE_OF_BIRTH", "PASSWORD",
        "PERSONAL_ID"}
    assert set(PII_LABELS) == set(IDENTIFIER_LABELS) | {"DATE", "AGE", "POSTCODE",
                                                        "STREET_ADDRESS", "COORDINATES"}


def test_presets_reach_every_front_end(tmp_path, capsys):
    """The presets are values of the one `targets` setting: the config, the command line
    and the spaCy factory read them through it (docs/architecture.md, "Settings")."""
    import spacy

    from textdp import PrivatizerConfig
    from textdp.cli import main

    assert PrivatizerConfig(targets="pii").targets == ("PERSON", *IDENTIFIER_LABELS)
    src = tmp_path / "in.txt"
    src.write_text("Mail anna@example.com or call 555-123-4567 about passport 912803456.\n")
    out = tmp_path / "out.txt"
    assert main(["privatize", str(src), "-o", str(out), "--targets", "pii", "--seed", "0"]) == 0
    text = out.read_text()
    assert "anna@example.com" not in text and "555-123-4567" not in text
    assert "912803456" not in text
    nlp = spacy.blank("en")
    component = nlp.add_pipe("dp_privatizer", config={"targets": "pii", "seed": 0})
    assert component.privatizer.config.targets == ("PERSON", *IDENTIFIER_LABELS)


def test_privatizer_refuses_a_misspelt_target_before_loading_anything(monkeypatch):
    from textdp import defaults
    from textdp.privatizer import Privatizer

    def no_load():
        raise AssertionError("loaded the pipeline before validating targets")

    monkeypatch.setattr(defaults, "load_pipeline", no_load)
    with pytest.raises(ValueError, match="unknown target label 'PERSONS'"):
        Privatizer(targets="PERSONS")


# ------------------------------------------------------------------ detectors
@pytest.mark.parametrize("spec, unknown", [
    ("ensembel", "'ensembel'"),
    ("minilm+rulez", "'rulez'"),
    ("en_core_web_xx_not_installed", "'en_core_web_xx_not_installed'"),
])
def test_unknown_detector_names_are_refused_naming_the_valid_ones(spec, unknown):
    from textdp.detect import create_detector

    with pytest.raises(ValueError) as err:
        create_detector(spec)
    message = str(err.value)
    assert unknown in message
    for name in ("minilm", "rules", "handles", "spacy"):
        assert name in message


def test_a_pipeline_folder_is_still_a_detector(tmp_path):
    from textdp.detect import SpacyNERDetector, create_detector

    assert isinstance(create_detector(str(tmp_path)), SpacyNERDetector)  # loaded lazily


# ------------------------------------------------------------------ mechanisms
@pytest.mark.parametrize("spec, unknown, valid", [
    ({"name": "mahalanobis", "lamda": 0.2}, "'lamda'", "epsilon, lam"),
    ({"name": "mlaplace", "sigma": 1.0}, "'sigma'", "epsilon"),
])
def test_unknown_mechanism_parameters_are_refused_naming_the_valid_ones(spec, unknown, valid):
    from textdp.mechanisms import create_mechanism

    with pytest.raises(ValueError) as err:
        create_mechanism(spec, 1.0)
    assert unknown in str(err.value) and f"valid: {valid}" in str(err.value)


def test_known_mechanism_parameters_still_work():
    from textdp.mechanisms import create_mechanism

    assert create_mechanism({"name": "mahalanobis", "lam": 0.2}, 1.0).lam == 0.2


# ------------------------------------------------------------------ command line
@pytest.mark.parametrize("args, expected", [
    (["--targets", "PERSONS"], "unknown target label 'PERSONS'"),
    (["--detector", "ensembel"], "unknown detector 'ensembel'"),
    (["--mechanism", '{"name": "mahalanobis", "lamda": 0.2}'], "unknown parameter 'lamda'"),
])
def test_cli_refuses_unknown_options_before_reading(tmp_path, capsys, args, expected):
    from textdp.cli import main

    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "Anna Smith called."}\n', encoding="utf-8")
    assert main(["privatize", str(src), "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Anna" not in err
    assert not (tmp_path / "in.private.jsonl").exists()


@pytest.mark.parametrize("token", ["'s", "’s", "n't", "'re", "'ll", "'S"])
def test_clitics_are_not_words_to_replace(token):
    """A substitute glued in place of "'s" ("Macroninsists aide") would read as garbage."""
    assert not is_word(token)


@pytest.mark.parametrize("token", ["Merkel", "o'clock", "O'Neil", "x2", "naïve"])
def test_words_with_letters_are_words(token):
    assert is_word(token)
