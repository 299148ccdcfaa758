"""The one parser of the detector spec grammar (textdp.detect.spec): good specs give a typed
value, bad ones an error naming the parameter and the part at fault."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from textdp.detect import create_detector
from textdp.detect.spec import (
    DEFAULT_DETECTOR,
    DetectorMember,
    DetectorSpec,
    parse_detector_spec,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("spec, expected", [
    (None, DetectorSpec((DetectorMember("ensemble"),), text="ensemble")),
    ("rules", DetectorSpec((DetectorMember("rules"),), text="rules")),
    ("  textdp.rules.v1 ", DetectorSpec((DetectorMember("textdp.rules.v1"),),
                                        text="textdp.rules.v1")),
    ("trained:names_ner", DetectorSpec((DetectorMember("trained", "names_ner"),),
                                       text="trained:names_ner")),
    ("hf:org/model", DetectorSpec((DetectorMember("hf", "org/model"),), text="hf:org/model")),
    # rules in a union expand the others' names instead of running as a member
    ("trained+spacy+rules", DetectorSpec((DetectorMember("trained"), DetectorMember("spacy")),
                                         rules=True, text="trained+spacy+rules")),
    ("minilm + handles", DetectorSpec((DetectorMember("minilm"), DetectorMember("handles")),
                                      text="minilm + handles")),
    ("rules+textdp.rules.v1", DetectorSpec((DetectorMember("rules"),),
                                           text="rules+textdp.rules.v1")),
])
def test_good_specs_parse_to_their_members(spec, expected):
    assert parse_detector_spec(spec) == expected


def test_union_or_not():
    assert not parse_detector_spec("minilm").is_union
    assert parse_detector_spec("minilm+rules").is_union
    assert parse_detector_spec("minilm+glued").is_union
    assert str(DetectorMember("trained", "/m")) == "trained:/m"
    assert parse_detector_spec(None) == parse_detector_spec(DEFAULT_DETECTOR)


def test_an_installed_spacy_package_is_its_pipelines_ner(monkeypatch):
    import spacy.util

    monkeypatch.setattr(spacy.util, "is_package", lambda name: name == "en_core_web_sm")
    assert parse_detector_spec("en_core_web_sm") == DetectorSpec(
        (DetectorMember("spacy", "en_core_web_sm"),), text="en_core_web_sm")


def test_a_folder_is_a_spacy_pipeline_even_with_a_plus(tmp_path):
    folder = tmp_path / "ner+v2"
    folder.mkdir()
    assert parse_detector_spec(str(folder)).members == (DetectorMember("spacy", str(folder)),)


@pytest.mark.parametrize("spec, part", [
    ("", "is empty"),
    ("   ", "is empty"),
    ("ensembel", "unknown detector 'ensembel': not a registered name"),
    ("textdp.rules.v9", "unknown detector 'textdp.rules.v9'"),
    ("minilm+rulez", "unknown detector 'rulez' in the union 'minilm+rulez'"),
    ("rulez+minilm+handlez", "unknown detectors 'rulez', 'handlez' in the union"),
    ("minilm++rules", "'minilm++rules': an empty member in the union"),
    ("minilm+", "'minilm+': an empty member in the union"),
    ("rules:folder", "detector 'rules' takes no model ('rules:folder')"),
    ("minilm+glued:x", "detector 'glued' takes no model ('glued:x')"),
    ("hf", "detector 'hf' needs a model: 'hf:<model>'"),
    ("trained:", "'trained:' names no model after ':'"),
    ("ensemble+rules", "'ensemble' cannot be a member of a union"),
    ("textdp.ensemble.v1+minilm", "'ensemble' cannot be a member of a union"),
])
def test_bad_specs_name_the_parameter_and_the_part(spec, part):
    with pytest.raises(ValueError, match=re.escape(part)) as err:
        parse_detector_spec(spec, param="--detector")
    assert str(err.value).startswith("--detector")


def test_a_spec_must_be_a_string():
    with pytest.raises(ValueError, match="detector must be a detector spec string, got int"):
        parse_detector_spec(3)


def test_errors_come_before_any_model_loads(monkeypatch):
    """A bad member is refused at parse time even when a good one would load a model."""
    from textdp.detect import transformer

    def no_load(*args, **kwargs):
        raise AssertionError("loaded a model before the spec was checked")

    monkeypatch.setattr(transformer, "load_config", no_load)
    with pytest.raises(ValueError, match="'rulez'"):
        create_detector("minilm+rulez")


def test_the_config_checks_the_spec_when_it_is_built():
    from textdp.config import PrivatizerConfig

    with pytest.raises(ValueError, match=r"^detector: unknown detector 'rulez'"):
        PrivatizerConfig(detector="minilm+rulez")
    assert PrivatizerConfig(detector="trained+rules").detector == "trained+rules"


# Modules that split at "+" something other than a spec: the detector attribution of a
# finding ("minilm+rules", the members that found it).
SPLITS_ATTRIBUTIONS = {"textdp/detect/base.py", "textdp/report.py"}


def test_no_other_module_splits_a_spec():
    """The grammar is parsed in textdp.detect.spec only: no other module splits at '+'."""
    offenders = []
    for package in ("textdp", "spacy_textdp", "hf_textdp"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "textdp/detect/spec.py" or rel in SPLITS_ATTRIBUTIONS:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in ("split", "partition") and node.args \
                        and isinstance(node.args[0], ast.Constant) \
                        and node.args[0].value == "+":
                    offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []
