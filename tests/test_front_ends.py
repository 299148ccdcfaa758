"""Every front end resolves the same effective ε for the same inputs (issue 19).

The default ε is chosen in one place, :func:`textdp.defaults.default_epsilon`: the core
Privatizer, the spaCy component (``epsilon = null``), ``hf_textdp.Privatizer``, the Spark front
end's driver-side validation and ``textdp privatize`` all take it from there. Nothing here loads
a model or reads text: the privatizers are built, not run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from textdp.defaults import DEFAULT_CONTEXTUAL_EPSILON, DEFAULT_EPSILON, default_epsilon
from textdp.privatizer import Privatizer

OWN = {"name": "mlaplace", "epsilon": 4.0}
# (the settings every front end is given, the same as `textdp privatize` flags, the ε expected)
CASES = [
    pytest.param({}, [], DEFAULT_EPSILON, id="static-default"),
    pytest.param({"representation": "contextual"}, ["--representation", "contextual"],
                 DEFAULT_CONTEXTUAL_EPSILON, id="contextual-default"),
    pytest.param({"mechanism": OWN}, ["--mechanism", json.dumps(OWN)], 4.0,
                 id="mechanism-own-epsilon"),
    pytest.param({"representation": "contextual", "epsilon": 1.5},
                 ["--representation", "contextual", "--epsilon", "1.5"], 1.5,
                 id="contextual-explicit"),
]


def _core(settings: dict[str, Any], flags: list[str]) -> float:
    return Privatizer(**settings).epsilon


def _spacy(settings: dict[str, Any], flags: list[str]) -> float:
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    component = nlp.add_pipe("dp_privatizer", config=settings)
    assert component.cfg["epsilon"] == component.epsilon  # what to_disk saves
    return component.epsilon


def _hf(settings: dict[str, Any], flags: list[str]) -> float:
    hf_textdp = pytest.importorskip("hf_textdp")
    privatizer = hf_textdp.Privatizer(device="cpu", **settings)
    assert privatizer.options()["epsilon"] == privatizer.core.epsilon  # what is pickled
    return privatizer.core.epsilon


def _spark(settings: dict[str, Any], flags: list[str]) -> float:
    # The options privatize_column validates on the driver and ships to every executor (which
    # builds its privatizer from them); no Spark session is needed for that step.
    from textdp.spark import _validated_options

    options, driver = _validated_options({**settings, "device": "cpu"})
    assert Privatizer(**options).epsilon == driver.epsilon  # an executor's
    return driver.epsilon


def _cli(settings: dict[str, Any], flags: list[str]) -> float:
    from textdp.cli import build_parser, privatizer_from_args

    args = build_parser().parse_args(["privatize", "in.jsonl", *flags])
    return privatizer_from_args(args).epsilon


FRONT_ENDS = {"core": _core, "spacy": _spacy, "hf": _hf, "spark": _spark, "cli": _cli}


@pytest.mark.parametrize(("settings", "flags", "expected"), CASES)
def test_every_front_end_resolves_the_same_epsilon(settings, flags, expected):
    found = {name: front_end(settings, flags) for name, front_end in FRONT_ENDS.items()}
    assert found == dict.fromkeys(FRONT_ENDS, pytest.approx(expected))


def test_default_epsilon_is_chosen_per_representation_unless_the_mechanism_has_one():
    assert default_epsilon() == default_epsilon("static") == DEFAULT_EPSILON
    assert default_epsilon("contextual") == DEFAULT_CONTEXTUAL_EPSILON
    assert default_epsilon("contextual", "mahalanobis") == DEFAULT_CONTEXTUAL_EPSILON
    assert default_epsilon("static", {"name": "mlaplace"}) == DEFAULT_EPSILON
    assert default_epsilon("static", OWN) is None
    assert default_epsilon("contextual", Privatizer(mechanism=OWN).mechanism) is None
    with pytest.raises(ValueError, match="representation"):
        default_epsilon("dynamic")


def test_spacy_config_default_is_null():
    pytest.importorskip("spacy")
    from spacy_textdp.component import DEFAULT_CONFIG

    assert DEFAULT_CONFIG["epsilon"] is None


# ---------------------------------------------------------------------- the same detection
# Rows of the kinds users bring (chat, e-mail, notes, ALL CAPS), names in varied casing.
SAMPLE = [
    "hey mike, did sarah send the file?",
    "Dear Dr. Patel, my daughter Emily has a fever.",
    "MEETING WITH JOHN SMITH MOVED TO FRIDAY",
    "Angela Merkel met John Smith in Berlin on Tuesday.",
    "ping @maria_lopez or write to maria.lopez@example.com",
    "Patient: Robert Brown, 54, seen by Nurse Kelly.",
    "thx anna!! see u at 5",
    "The committee under Carlos Ruiz approved the budget.",
]


def test_spacy_component_targets_at_least_what_every_other_front_end_targets():
    """One default detector everywhere: the spaCy component in the embedded pipeline (which
    has its own NER) replaces every token the core Privatizer (so the CLI, hf_textdp and
    Spark, which run it) targets, plus what the pipeline's own entities add (a union, never a
    replacement). Seeded: the draws are fixed."""
    from textdp.defaults import fresh_pipeline

    core = Privatizer(seed=0)
    nlp = fresh_pipeline()
    nlp.add_pipe("dp_privatizer", config={"seed": 0})
    docs = [core.nlp.make_doc(t) for t in SAMPLE]
    masks = core.target_masks(docs)
    assert sum(label is not None for m in masks for label in m) >= 15
    for text, doc, mask in zip(SAMPLE, docs, masks):
        out = nlp(text)
        assert [t.text for t in out] != [t.text for t in doc]
        assert len(out) == len(doc)  # one token per token
        for original, new, label in zip(doc, out, mask):
            if label is not None:
                assert new.text != original.text
