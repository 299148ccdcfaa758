"""Every front end resolves the same effective config (ε included) for the same inputs
(issue 19).

The default ε is chosen in one place, :func:`textdp.defaults.default_epsilon`: the core
Privatizer, the spaCy component (``epsilon = null``), ``hf_textdp.Privatizer``, the Spark front
end's driver-side validation and ``textdp privatize`` all take it from there. Nothing here loads
a model or reads text: the privatizers are built, not run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from textdp.config import PrivatizerConfig
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
    pytest.param({"mechanism": "mahalanobis", "epsilon": 2.0, "targets": ["PERSON", "EMAIL"],
                  "consistency": "mention", "replace": "word", "seed": 3, "index": "exact",
                  "max_epsilon_per_text": 8.0, "budget_policy": "refuse", "exclude": None,
                  "surface": "table", "clip_norm": 3.5},
                 ["--mechanism", "mahalanobis", "--epsilon", "2", "--targets", "PERSON,EMAIL",
                  "--consistency", "mention", "--replace", "word", "--seed", "3",
                  "--index", "exact", "--max-epsilon-per-text", "8",
                  "--budget-policy", "refuse", "--exclude", "none", "--surface", "table",
                  "--clip-norm", "3.5"], 2.0,
                 id="many-settings"),
]


def _core(settings: dict[str, Any], flags: list[str]) -> PrivatizerConfig:
    return Privatizer(**settings).config


def _spacy(settings: dict[str, Any], flags: list[str]) -> PrivatizerConfig:
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    component = nlp.add_pipe("dp_privatizer", config=settings)
    assert component.cfg["epsilon"] == component.epsilon  # what to_disk saves
    return component.config


def _hf(settings: dict[str, Any], flags: list[str]) -> PrivatizerConfig:
    hf_textdp = pytest.importorskip("hf_textdp")
    privatizer = hf_textdp.Privatizer(device="cpu", **settings)
    assert privatizer.options()["epsilon"] == privatizer.core.epsilon  # what is pickled
    return privatizer.config


def _spark(settings: dict[str, Any], flags: list[str]) -> PrivatizerConfig:
    # The config privatize_column validates on the driver and ships to every executor (which
    # builds its privatizer from it); no Spark session is needed for that step.
    from textdp.spark import _validated_config

    return Privatizer(_validated_config({**settings, "device": "cpu"})).config  # an executor's


def _cli(settings: dict[str, Any], flags: list[str]) -> PrivatizerConfig:
    from textdp.cli import build_parser, privatizer_from_args

    args = build_parser().parse_args(["privatize", "in.jsonl", *flags])
    return privatizer_from_args(args).config


FRONT_ENDS = {"core": _core, "spacy": _spacy, "hf": _hf, "spark": _spark, "cli": _cli}
# What a front end may set its own way: where it computes and how many texts a call takes.
PER_FRONT_END = ("device", "batch_size")


@pytest.mark.parametrize(("settings", "flags", "expected"), CASES)
def test_every_front_end_resolves_the_same_effective_config(settings, flags, expected):
    configs = {name: front_end(settings, flags) for name, front_end in FRONT_ENDS.items()}
    found = {name: config.epsilon for name, config in configs.items()}
    assert found == dict.fromkeys(FRONT_ENDS, pytest.approx(expected))
    effective = {name: {k: v for k, v in config.describe().items() if k not in PER_FRONT_END}
                 for name, config in configs.items()}
    for name, described in effective.items():
        assert described == effective["core"], name


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
