"""PrivatizerConfig: every setting once, validated once, before anything is loaded or read."""

from __future__ import annotations

import json
import pickle

import pytest

from textdp.config import PrivatizerConfig, from_mapping
from textdp.defaults import DEFAULT_CONTEXTUAL_EPSILON, DEFAULT_EPSILON
from textdp.mechanisms import create_mechanism
from textdp.privatizer import Privatizer


@pytest.fixture
def nothing_loads(monkeypatch):
    """Loading the embedded table or pipeline fails the test: a config loads nothing."""
    import textdp.defaults as defaults

    def refuse(*args, **kwargs):
        raise AssertionError("a model or table was loaded")

    monkeypatch.setattr(defaults, "default_table", refuse)
    monkeypatch.setattr(defaults, "load_pipeline", refuse)


def test_defaults_are_resolved_per_representation(nothing_loads):
    assert PrivatizerConfig().epsilon == DEFAULT_EPSILON
    assert PrivatizerConfig(representation="contextual").epsilon == DEFAULT_CONTEXTUAL_EPSILON
    assert PrivatizerConfig(mechanism={"name": "mlaplace", "epsilon": 4.0}).epsilon == 4.0
    assert PrivatizerConfig(epsilon="auto").epsilon == "auto"
    config = PrivatizerConfig(targets="per, org", table="default")
    assert config.targets == ("PERSON", "ORG") and config.table is None
    assert config.effective_replace == "name"
    # a mechanism that draws from its own vocabulary cannot decode to names
    assert PrivatizerConfig(mechanism="custext").effective_replace == "word"


@pytest.mark.parametrize(("settings", "message"), [
    ({"epsilon": -1}, "epsilon"),
    ({"epsilon": "lots"}, "epsilon"),
    ({"mechanism": "laplace9"}, "mechanism"),
    ({"targets": ["PERSN"]}, "PERSN"),
    ({"representation": "dynamic"}, "representation"),
    ({"index": "kd-tree"}, "index"),
    ({"batch_size": 0}, "batch_size"),
    ({"clip_norm": -2.0}, "clip_norm"),
    ({"budget_policy": "ignore"}, "budget_policy"),
    ({"surface": "upper"}, "surface"),
    ({"replace": "emoji"}, "replace"),
    ({"consistency": "global"}, "consistency"),
    ({"key": "k" * 16}, "key is the secret"),
    ({"consistency": "dataset", "key": "short"}, "16 bytes"),
    ({"consistency": "dataset", "representation": "contextual"}, "consistency='dataset'"),
    ({"targets": "all", "allow": ["Ann"]}, "allow, deny and threshold"),
    ({"layer": 3}, "only for representation='contextual'"),
    ({"precision": "bfloat16"}, "only for representation='contextual'"),
    ({"precision": "half", "representation": "contextual"}, "precision"),
    ({"representation": "contextual", "mechanism": "nadp"}, "words of its table only"),
    ({"epsilon": "auto", "representation": "contextual"}, "static table"),
    ({"target_unchanged": 0.1}, "target_unchanged"),
    ({"table": "/no/such/table.txt"}, "does not exist"),
])
def test_bad_settings_fail_at_construction_naming_the_setting(nothing_loads, settings,
                                                              message):
    with pytest.raises(ValueError, match=message):
        PrivatizerConfig(**settings)


def test_an_unknown_setting_is_named_never_ignored(nothing_loads):
    with pytest.raises(TypeError, match=r"'epsilonn'.*the settings are allow"):
        from_mapping({"epsilonn": 1.0})
    with pytest.raises(TypeError, match="epsilonn"):
        Privatizer(epsilonn=1.0)


def test_dict_round_trip_and_copies_with_changes(nothing_loads):
    config = PrivatizerConfig(epsilon=2.0, mechanism={"name": "projection", "beta": 0.8},
                              targets=["PERSON", "EMAIL"], seed=3, surface="table")
    assert PrivatizerConfig.from_dict(config.to_dict()) == config
    assert pickle.loads(pickle.dumps(config)) == config
    changed = config.with_changes(epsilon=1.0)
    assert changed.epsilon == 1.0 and changed.mechanism == config.mechanism
    assert changed != config and config.epsilon == 2.0  # frozen: the original is unchanged
    with pytest.raises(ValueError, match="surface"):
        config.with_changes(surface="loud")
    with pytest.raises(AttributeError):
        config.epsilon = 5.0  # type: ignore[misc]


def test_one_spelling_one_fingerprint(nothing_loads):
    """Equal settings spelled differently (a name, a mapping, a versioned name, an instance
    of the registered class) are one config; any change to what is released changes it."""
    spellings = [
        PrivatizerConfig(epsilon=0.5),
        PrivatizerConfig(epsilon=0.5, mechanism={"name": "mlaplace"}),
        PrivatizerConfig(mechanism={"name": "mlaplace", "epsilon": 0.5}),
        PrivatizerConfig(mechanism="textdp.mlaplace.v1", epsilon=0.5),
        PrivatizerConfig(mechanism=create_mechanism("mlaplace", 0.5)),
        PrivatizerConfig(epsilon=0.5, targets="PER", table="default"),
    ]
    assert len({c.fingerprint() for c in spellings}) == 1
    assert all(c == spellings[0] for c in spellings)
    base = spellings[0]
    others = [base.with_changes(epsilon=0.6), base.with_changes(seed=1),
              base.with_changes(mechanism="mahalanobis"), base.with_changes(targets="all"),
              base.with_changes(replace="tag"), base.with_changes(consistency="mention")]
    assert len({c.fingerprint() for c in [base, *others]}) == len(others) + 1


def test_describe_is_plain_json_and_never_holds_the_key(nothing_loads):
    secret = "a-secret-key-of-twenty-chars"
    config = PrivatizerConfig(consistency="dataset", key=secret,
                              mechanism=create_mechanism("tem", 2.0), exclude=["b", "a"])
    described = config.describe()
    blob = json.dumps(described)
    assert secret not in blob and described["key"].startswith("sha256:")
    assert described["mechanism"] == {"name": "tem", "beta": 0.001}
    assert described["exclude"] == ["a", "b"] and described["epsilon"] == 2.0
    assert "secret" not in repr(config) and "twenty" not in repr(config)


def test_the_privatizer_wires_its_config(nothing_loads):
    config = PrivatizerConfig(epsilon=1.5, surface="table", seed=4)
    privatizer = Privatizer(config)
    assert privatizer.config is config and privatizer.epsilon == 1.5
    assert privatizer.surface == "table" and privatizer.seed == 4  # settings as attributes
    assert Privatizer(epsilon=1.5, surface="table", seed=4).config == config
    assert Privatizer(config, seed=5).config == config.with_changes(seed=5)
    assert not privatizer.loaded  # nothing loaded before the first batch
    with pytest.raises(AttributeError, match="no attribute 'surfaces'"):
        privatizer.surfaces  # noqa: B018


# Issue 37: "false" is truthy; a switch given as a string or a number used to keep the
# original (keep_original="false") or turn the option on.
@pytest.mark.parametrize("name", ["keep_original", "secure", "report_spans"])
@pytest.mark.parametrize("value", ["false", "no", "0", "", 1, 0, None])
def test_switches_must_be_real_bools(name, value):
    with pytest.raises(ValueError, match=f"{name} must be True or False"):
        Privatizer(**{name: value})


def test_numpy_bools_are_switches():
    import numpy as np

    assert PrivatizerConfig(report_spans=np.bool_(True)).report_spans is True


@pytest.mark.parametrize("epsilon", [1e-300, 1e-40, 1e-13])
def test_an_epsilon_whose_noise_overflows_float32_is_refused(epsilon):
    """Issue 37: at epsilon=1e-300 mlaplace's radius overflowed to ∞ and every token became
    one constant word."""
    with pytest.raises(ValueError, match="epsilon must be at least 1e-12"):
        Privatizer(epsilon=epsilon)
    with pytest.raises(ValueError, match="epsilon must be at least"):
        Privatizer(mechanism={"name": "gaussian", "epsilon": epsilon})


def test_the_smallest_epsilon_still_gives_varied_words():
    privatizer = Privatizer(epsilon=1e-12, targets="all", seed=0)
    words = privatizer("the cat sat on the mat with John and Mary today").text.split()
    assert len(set(w.lower() for w in words)) >= 8  # not one constant word
