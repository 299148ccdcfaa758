"""The detector registry: versioned names and aliases, third-party detectors by name (registered
or from the ``textdp_detectors`` entry points), unions of them, and clear errors."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import re

import catalogue
import pytest

from textdp.detect import (
    available,
    build_detector,
    create_detector,
    parse_detector_spec,
    registry,
)
from textdp.detect.base import detector_name
from textdp.detect.ensemble import EnsembleDetector
from textdp.detect.handles import HandleDetector
from textdp.detect.normalise import NormalisedView
from textdp.detect.rules import NameRules

BUILT_IN = ["ensemble", "glued", "handles", "hf", "minilm", "rules", "similarity", "spacy",
            "trained"]
# "hf" needs a model after the colon; it is checked on its own below.
BUILDS_ALONE = [n for n in BUILT_IN if n != "hf"]
# The module that defines (and registers) each built-in.
DEFINED_IN = {"ensemble": "ensemble", "glued": "glued", "handles": "handles", "hf": "hf_ner",
              "minilm": "transformer", "rules": "rules", "similarity": "similarity",
              "spacy": "spacy_ner", "trained": "trained"}


class Toy:
    """A third-party detector: every doc's first token is a person."""

    def __init__(self, model: str | None = None, device: str = "cpu") -> None:
        self.model = model
        self.device = device

    def __call__(self, docs):
        return [[(0, 1, "PERSON")] if len(doc) else [] for doc in docs]


def make_plain():
    """A factory that takes neither a model nor a device."""
    return Toy()


@pytest.fixture
def toy():
    registry.register_versioned("acme.toy.v1", Toy, alias="toy")
    registry.register_versioned("acme.plain.v1", make_plain)
    registry.register_versioned("acme.broken.v1", lambda: "not a detector")
    yield Toy
    for name in ("toy", "acme.plain.v1", "acme.broken.v1"):
        registry.unregister(name)


def test_available_lists_each_built_in_once_by_its_short_name():
    assert available() == BUILT_IN


@pytest.mark.parametrize("name", BUILDS_ALONE)
def test_every_registered_name_builds(name):
    detector = create_detector(name)
    assert callable(detector)
    if name != "ensemble":  # the ensemble is a union on the normalised view
        assert detector_name(detector) == name  # what audits report, from the class itself


@pytest.mark.parametrize("name", available())
def test_every_registered_name_resolves(name):
    spec = parse_detector_spec(f"{name}:x" if name == "hf" else name)
    assert [m.name for m in spec.members] == [name]


@pytest.mark.parametrize("name", BUILT_IN)
def test_each_detector_registers_in_the_module_that_defines_it(name):
    """No name map or wrapper module: the registered object is the detector class (or a
    factory beside it) of the module that defines the detector, and it registers there."""
    factory = registry.get(name)
    module = f"textdp.detect.{DEFINED_IN[name]}"
    assert factory.__module__ == module
    assert getattr(importlib.import_module(module), factory.__name__) is factory
    source = inspect.getsource(importlib.import_module(module))
    assert f'@register_detector("{name}")' in source
    if inspect.isclass(factory):
        assert factory.name == name


def test_a_registered_class_keeps_one_name():
    from textdp.detect import register_detector

    class Named:
        name = "one"

        def __call__(self, docs):
            return [[] for _ in docs]

    with pytest.raises(ValueError, match="named 'one' but registered as 'two'"):
        register_detector("two")(Named)
    assert "two" not in registry


@pytest.mark.parametrize("name", BUILDS_ALONE)
def test_an_alias_and_its_versioned_name_build_the_same_class(name):
    versioned = f"textdp.{name}.v1"
    assert registry.versioned(name) == versioned and registry.get(versioned) is registry.get(name)
    assert type(create_detector(versioned)) is type(create_detector(name))


def test_versioned_names_join_unions_and_take_models():
    view = create_detector("textdp.handles.v1+textdp.rules.v1")
    assert isinstance(view, NormalisedView) and isinstance(view.inner, EnsembleDetector)
    assert isinstance(view.inner.detectors[0], HandleDetector) and view.inner.rules is not None
    assert isinstance(create_detector("textdp.rules.v1"), NameRules)
    assert create_detector("textdp.trained.v1:names_ner").model == "names_ner"


def test_hf_needs_a_model():
    with pytest.raises(ValueError, match=r"'hf' needs a model: 'hf:<model>'"):
        create_detector("hf")


def test_a_third_party_detector_is_found_by_name(toy, nlp):
    doc = nlp.tokenizer("Quillon met the board .")
    for name in ("toy", "acme.toy.v1"):
        det = create_detector(name, device="cuda:1")
        assert isinstance(det, Toy) and det.device == "cuda:1" and det.model is None
        assert det([doc]) == [[(0, 1, "PERSON")]]
    assert create_detector("toy:/models/names").model == "/models/names"
    assert isinstance(create_detector("acme.plain.v1"), Toy)
    # In a union, with the rules on top, and through the whole detection stage.
    union = create_detector("toy+handles+rules")
    assert isinstance(union.inner.detectors[0], Toy) and union.inner.rules is not None
    assert isinstance(build_detector("toy", targets="PERSON"), Toy)
    assert "toy" in available() and "acme.plain.v1" in available()
    assert "acme.toy.v1" not in available()  # listed once, by its alias


def test_a_third_party_detector_is_found_in_the_entry_points(monkeypatch):
    point = importlib.metadata.EntryPoint(
        name="acme.handles.v1", value="textdp.detect.handles:HandleDetector",
        group="textdp_detectors")
    monkeypatch.setattr(catalogue, "AVAILABLE_ENTRY_POINTS",
                        importlib.metadata.EntryPoints([point]))
    assert "acme.handles.v1" in available()
    assert isinstance(create_detector("acme.handles.v1"), HandleDetector)
    assert isinstance(create_detector("acme.handles.v1+rules").inner, EnsembleDetector)


def test_registry_left_clean():
    assert available() == BUILT_IN
    assert "toy" not in registry and "acme.toy.v1" not in registry


@pytest.mark.parametrize("spec, message", [
    ("ensembel", "unknown detector 'ensembel': not a registered name"),
    ("textdp.rules.v9", "unknown detector 'textdp.rules.v9'"),
    ("minilm+rulez", "unknown detector 'rulez' in the union 'minilm+rulez'"),
    ("rules:folder", "detector 'rules' takes no model"),
    ("ensemble+rules", "'ensemble' cannot be a member of a union"),
])
def test_unknown_or_misused_names_are_refused_naming_the_valid_ones(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        create_detector(spec)
    if "unknown" in message:
        for name in ("minilm", "rules", "handles", "spacy", "trained"):
            assert name in str(err.value)


def test_errors_name_third_party_detectors_too(toy):
    with pytest.raises(ValueError, match="unknown detector 'toyy'") as err:
        create_detector("toyy")
    assert "toy" in str(err.value).split("valid:")[1]
    with pytest.raises(ValueError, match=r"'acme\.plain\.v1' takes no model"):
        create_detector("acme.plain.v1:folder")
    with pytest.raises(ValueError, match=r"'acme\.broken\.v1' did not build a detector"):
        create_detector("acme.broken.v1")
