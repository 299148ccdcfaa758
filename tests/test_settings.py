"""Every PrivatizerConfig setting is declared once, on its field, and every front end offers it
from there (issue 31): the command line's options and the spaCy factory's config keys are
read back here from argparse and from spaCy's registered factory, and compared with the
fields, so a field added without its metadata, or a front end that restates a default or a
choice, fails.

Nothing here loads a model or reads text.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import typing
from typing import Any, Literal

import pytest

from textdp.config import PrivatizerConfig, front_end_defaults
from textdp.settings import (
    FRONT_END_DEFAULTS,
    FRONT_ENDS,
    Setting,
    choices_of,
    setting,
    setting_of,
    settings_of,
)

FIELDS = {f.name: f for f in dataclasses.fields(PrivatizerConfig)}


def _expected_default(front_end: str, name: str) -> Any:
    """The default ``front_end`` must offer: the field's, or its FRONT_END_DEFAULTS entry;
    tuples as lists (as a spaCy config or JSON holds them)."""
    entry = FRONT_END_DEFAULTS.get(front_end, {}).get(name)
    default = FIELDS[name].default if entry is None else entry[0]
    return list(default) if isinstance(default, tuple) else default


def _not_on(front_end: str) -> set[str]:
    return {name for name, f in FIELDS.items() if front_end in setting_of(f).not_on}


def _subparser(command: str) -> argparse.ArgumentParser:
    from textdp.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _options(command: str) -> dict[str, argparse.Action]:
    """The options of ``command`` that are privatizer settings, by setting name."""
    return {a.dest: a for a in _subparser(command)._actions if a.dest in FIELDS}


# ---------------------------------------------------------------------- the declarations
def test_every_field_declares_its_setting():
    for name, f in FIELDS.items():
        meta = setting_of(f)
        assert isinstance(meta, Setting), name
        assert meta.help.strip(), f"{name}: no help"
        for front_end, reason in meta.not_on.items():
            assert front_end in FRONT_ENDS and reason.strip(), (name, front_end)


def test_a_field_without_its_setting_is_refused():
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Grown:
        declared: int = dataclasses.field(default=1, metadata=setting(help="declared"))
        added: int = 2  # a new field written without setting(...)

    with pytest.raises(TypeError, match="'added' was declared without"):
        settings_of(Grown)


def test_choices_come_from_the_field_or_its_literal_type():
    assert choices_of(PrivatizerConfig, "representation") == ("static", "contextual")
    assert choices_of(PrivatizerConfig, "surface") == ("input", "table")
    assert "float16" in choices_of(PrivatizerConfig, "precision")
    assert choices_of(PrivatizerConfig, "replace") == ("name", "word", "tag")
    assert choices_of(PrivatizerConfig, "epsilon") == ()


@pytest.mark.parametrize("name", [n for n in FIELDS if choices_of(PrivatizerConfig, n)])
def test_the_config_refuses_a_value_outside_a_settings_choices(name):
    with pytest.raises(ValueError, match=f"{name} must be one of"):
        PrivatizerConfig(**{name: "annoy"})
    for value in choices_of(PrivatizerConfig, name):  # each choice is a setting of its own
        assert value in typing.get_args(typing.Literal[choices_of(PrivatizerConfig, name)])


def test_front_end_differences_are_one_table_of_real_differences():
    for front_end, entries in FRONT_END_DEFAULTS.items():
        assert front_end in FRONT_ENDS
        for name, (value, reason) in entries.items():
            assert name in FIELDS and reason.strip(), (front_end, name)
            assert value != FIELDS[name].default, f"{front_end}.{name} restates the default"
    assert front_end_defaults("core") == {
        name: list(f.default) if isinstance(f.default, tuple) else f.default
        for name, f in FIELDS.items()}


# ---------------------------------------------------------------------- the command line
def test_privatize_offers_every_setting_with_the_fields_default_and_choices():
    from textdp.cli.settings import flag_of

    options = _options("privatize")
    assert set(options) == set(FIELDS) - _not_on("cli")
    assert _not_on("cli") == {"keep_original"}  # the list of exclusions, checked
    for name, action in options.items():
        meta = setting_of(FIELDS[name])
        assert action.option_strings == [flag_of(name, meta)], name
        default = action.default
        assert (list(default) if isinstance(default, tuple) else default) == \
            _expected_default("cli", name), name
        assert tuple(action.choices or ()) == choices_of(PrivatizerConfig, name), name
        named = set(re.findall(r"`(\w+)`", action.help or "")) & set(FIELDS)
        assert not named, (name, named)  # settings named in help are spelt as options


def test_the_command_line_runs_at_the_configs_defaults():
    from textdp.cli import build_parser
    from textdp.cli.privatize import config_from_args

    args = build_parser().parse_args(["privatize", "in.jsonl"])
    assert config_from_args(args) == PrivatizerConfig()


@pytest.mark.parametrize("command", ["detect", "mechanisms"])
def test_other_commands_offer_settings_as_privatize_does(command):
    privatize = _options("privatize")
    options = _options(command)
    assert options, command
    for name, action in options.items():
        assert action.option_strings == privatize[name].option_strings, (command, name)
        assert action.choices == privatize[name].choices, (command, name)
        assert privatize[name].help.startswith(action.help), (command, name)  # + its limits
        if command == "detect":
            assert action.default == privatize[name].default, name
        else:  # only the settings given count
            assert action.default is None, name


@pytest.mark.parametrize("command, module", [("build-index", "build_index"),
                                             ("calibrate", "calibrate"),
                                             ("release-table", "release_table")])
def test_commands_with_settings_of_their_own_offer_the_shared_ones_as_privatize_does(
        command, module):
    import importlib

    privatize = _options("privatize")
    options = _options(command)
    for name in importlib.import_module(f"textdp.cli.{module}").SETTINGS:
        action, expected = options[name], privatize[name]
        assert (action.option_strings, action.default, action.choices, action.help) == \
            (expected.option_strings, expected.default, expected.choices, expected.help)


def test_only_the_generated_options_are_read_as_settings(tmp_path):
    from textdp.cli import build_parser
    from textdp.cli.settings import settings_from_args
    from textdp.records import InputError

    parser = build_parser()
    # release-table's --precision is the digits it writes, not the encoder's precision.
    args = parser.parse_args(["release-table", "--epsilon", "5", "--precision", "3", "-o", "x"])
    assert settings_from_args(args) == {"clip_norm": "median", "seed": None}
    # Values read when the command runs: the key file and the excluded words.
    key = tmp_path / "key"
    key.write_bytes(b"0123456789abcdef-secret\n")
    args = parser.parse_args(["privatize", "in.jsonl", "--consistency", "dataset",
                              "--key-file", str(key), "--exclude", "alpha, beta"])
    settings = settings_from_args(args)
    assert settings["key"] == b"0123456789abcdef-secret"
    assert set(settings["exclude"]) == {"alpha", "beta"}
    args = parser.parse_args(["privatize", "in.jsonl", "--key-file", str(tmp_path / "none")])
    with pytest.raises(InputError, match="--key-file"):
        settings_from_args(args)


# ---------------------------------------------------------------------- the spaCy factory
def test_the_spacy_factory_takes_every_setting_with_the_fields_default_and_choices():
    spacy = pytest.importorskip("spacy")
    from spacy.util import registry

    import spacy_textdp  # noqa: F401  (registers the factory)

    nlp = spacy.blank("en")
    default_config = nlp.get_factory_meta("dp_privatizer").default_config
    assert set(default_config) == set(FIELDS) - _not_on("spacy")
    assert _not_on("spacy") == set()  # the list of exclusions, checked
    for name, value in default_config.items():
        assert value == _expected_default("spacy", name), name
    signature = inspect.signature(registry.factories.get("dp_privatizer"))
    for name in default_config:
        assert _literal_choices(signature.parameters[name].annotation) == \
            choices_of(PrivatizerConfig, name), name
        if FIELDS[name].default is None and choices_of(PrivatizerConfig, name):
            assert type(None) in typing.get_args(signature.parameters[name].annotation), name


def _literal_choices(annotation: Any) -> tuple[Any, ...]:
    """The values of a ``Literal[...]`` annotation (or of ``Optional[Literal[...]]``)."""
    if typing.get_origin(annotation) is Literal:
        return typing.get_args(annotation)
    for arg in typing.get_args(annotation):
        if typing.get_origin(arg) is Literal:
            return typing.get_args(arg)
    return ()


def test_spacy_validates_a_settings_choices_before_building_the_component():
    spacy = pytest.importorskip("spacy")
    from confection import ConfigValidationError

    nlp = spacy.blank("en")
    with pytest.raises(ConfigValidationError, match="representation"):
        nlp.add_pipe("dp_privatizer", config={"representation": "dynamic"})
    component = nlp.add_pipe("dp_privatizer", config={"replace": None, "surface": "table"})
    assert component.config.surface == "table"


# ---------------------------------------------------------------------- the other front ends
def test_datasets_and_spark_read_their_device_from_the_table():
    from textdp import spark

    assert FRONT_END_DEFAULTS["spark"]["device"][0] == spark._DEFAULT_DEVICE
    hf_textdp = pytest.importorskip("hf_textdp")
    device = inspect.signature(hf_textdp.Privatizer).parameters["device"].default
    assert device == FRONT_END_DEFAULTS["datasets"]["device"][0]


def test_the_dry_run_defaults_are_the_privatizers():
    from textdp.audit import Auditor

    parameters = inspect.signature(Auditor).parameters
    for name in ("device", "batch_size"):
        assert parameters[name].default == FIELDS[name].default, name


# ---------------------------------------------------------------------- per-mechanism facts
def test_whether_a_mechanism_carries_its_own_epsilon_is_answered_once():
    from textdp.calibration import check_auto
    from textdp.defaults import carried_epsilon, default_epsilon
    from textdp.mechanisms import create_mechanism

    own = {"name": "mlaplace", "epsilon": 4.0}
    for spec, carried in (("mlaplace", None), ({"name": "mlaplace"}, None), (own, 4.0),
                          (create_mechanism("mlaplace", 2.0), 2.0), (None, None)):
        assert carried_epsilon(spec) == carried, spec
        # Each question that depends on it agrees with it.
        assert (default_epsilon("static", spec) is None) == (carried is not None), spec
        if carried is not None:
            with pytest.raises(ValueError, match="epsilon='auto'"):
                check_auto("auto", spec, "static", None)
        else:
            assert check_auto("auto", spec, "static", None)
