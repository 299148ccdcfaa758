"""What each setting of :class:`~textdp.config.PrivatizerConfig` is, declared once on its field.

A setting's default lives in its dataclass field; everything else a front end needs to offer it
(its help, its allowed values, its command-line flag, whether the spaCy factory takes it) lives
in the same field's metadata, as a :class:`Setting`. The front ends generate what they offer
from it: ``textdp.cli.settings`` turns the fields into argparse options, the spaCy factory
(``spacy_textdp.component``) its ``default_config`` and signature. Nothing restates a default
or a choice (docs/architecture.md, "Settings").

The few deliberate differences between front ends (where a front end computes by default, how
many Docs a spaCy minibatch holds) are one table, :data:`FRONT_END_DEFAULTS`, each with its
reason; a setting a front end does not offer says so, with its reason, in :attr:`Setting.not_on`.

Adding a setting is one change: a field of ``PrivatizerConfig``,
``name: type = field(default=..., metadata=setting(help=...))``.

This module imports nothing of textdp: the configuration layer builds on it.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The key of a field's :class:`Setting` in ``dataclasses.Field.metadata``.
METADATA_KEY = "textdp.setting"

#: The front ends that offer settings: the Python core (``Privatizer(**settings)``), the
#: command line, the spaCy component, ``hf_textdp`` (datasets) and Spark.
FRONT_ENDS = ("core", "cli", "spacy", "datasets", "spark")

#: Where a front end's default deliberately differs from the config's, and why. Every front end
#: reads its defaults through :func:`front_end_default` (or the config's
#: ``front_end_defaults``), so no front end restates one.
FRONT_END_DEFAULTS: Mapping[str, Mapping[str, tuple[Any, str]]] = {
    "spacy": {
        "batch_size": (256, "Docs per minibatch of the component's own pipe() when it is "
                            "given no batch size; nlp.pipe passes its own"),
    },
    "datasets": {
        "device": ("auto", "a map runs where the data is: CUDA when the process has it, one "
                           "GPU per rank with with_rank=True"),
    },
    "spark": {
        "device": ("auto", "resolved on each executor: the GPU Spark gives the task, else "
                           "the CPU"),
    },
}


@dataclass(frozen=True)
class Setting:
    """What a front end needs to offer one setting, besides its default.

    help: one sentence or two on what the setting does, as ``--help`` shows it. A setting
        named between backquotes (```epsilon```) is written the way each front end spells it
        (``--epsilon`` on the command line).
    choices: the values allowed (``None`` besides, where the field's default is ``None``);
        empty: from the field's ``Literal[...]`` type, else any value. The config checks them
        (unless ``check`` is false).
    check: whether the config checks ``choices`` with the generic message (``False``: a check
        of its own says more, e.g. ``replace`` names the mechanism).
    flag: the command-line option; ``""`` for ``--`` and the name with dashes.
    parse: the name of the command-line value parser (``textdp.cli.settings.PARSERS``), for a
        value a string does not give as it is (``"auto"`` ε, JSON mechanisms, ``@file`` lists,
        a key read from a file); ``None``: the type of the field (int, float, str, a switch
        for a bool).
    metavar: the placeholder ``--help`` shows for the value.
    not_on: the front ends that do not offer the setting, each with its reason (the spaCy
        component and the command line are checked against this by tests/test_settings.py).
    """

    help: str
    choices: tuple[Any, ...] = ()
    check: bool = True
    flag: str = ""
    parse: str | None = None
    metavar: str | None = None
    not_on: Mapping[str, str] = field(default_factory=dict)

    def offered_on(self, front_end: str) -> bool:
        """Whether ``front_end`` (one of :data:`FRONT_ENDS`) offers this setting."""
        return front_end not in self.not_on


def setting(*, help: str, choices: tuple[Any, ...] = (), check: bool = True,
            flag: str = "", parse: str | None = None, metavar: str | None = None,
            not_on: Mapping[str, str] | None = None) -> dict[str, Setting]:
    """The metadata of a config field: ``field(default=..., metadata=setting(help=...))``
    declares a setting in one place (see :class:`Setting` for the arguments)."""
    return {METADATA_KEY: Setting(help=help, choices=tuple(choices), check=check, flag=flag,
                                  parse=parse, metavar=metavar, not_on=dict(not_on or {}))}


def setting_of(f: dataclasses.Field[Any]) -> Setting:
    """The :class:`Setting` of a config field; a field declared without one is an error (every
    setting states its help and front ends: tests/test_settings.py)."""
    try:
        return f.metadata[METADATA_KEY]
    except KeyError:
        raise TypeError(f"setting {f.name!r} was declared without textdp.settings.setting(): "
                        "give it its help (and its choices, flag) there") from None


def settings_of(cls: type) -> dict[str, tuple[dataclasses.Field[Any], Setting]]:
    """Every field of the dataclass ``cls`` with its :class:`Setting`, in declaration order."""
    return {f.name: (f, setting_of(f)) for f in dataclasses.fields(cls)}


def choices_of(cls: type, name: str) -> tuple[Any, ...]:
    """The allowed values of setting ``name`` of ``cls``: its ``choices``, else the values of
    its ``Literal[...]`` type (``None`` left out), else ``()`` (any value)."""
    meta = settings_of(cls)[name][1]
    if meta.choices:
        return meta.choices
    hint = typing.get_type_hints(cls)[name]
    return _literal_values(hint)


def _literal_values(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) is typing.Literal:
        return typing.get_args(hint)
    values: tuple[Any, ...] = ()
    for arg in typing.get_args(hint):  # Literal[...] | None
        values += _literal_values(arg)
    return values


def value_type(cls: type, name: str) -> type | None:
    """The plain type a string of setting ``name`` is read as (``bool``, ``int``, ``float``,
    ``str``), from its annotation; ``None`` where the annotation admits several (``Any``, ``float
    | str``), which a :attr:`Setting.parse` then reads."""
    hint = typing.get_type_hints(cls)[name]
    args = [a for a in (typing.get_args(hint) or (hint,)) if a is not type(None)]
    if typing.get_origin(hint) is typing.Literal or all(
            typing.get_origin(a) is typing.Literal for a in args):
        return str
    if len(args) == 1 and args[0] in (bool, int, float, str):
        return args[0]
    return None


def front_end_default(front_end: str, name: str, default: Any) -> Any:
    """The default of setting ``name`` on ``front_end``: its entry in
    :data:`FRONT_END_DEFAULTS`, else ``default`` (the config's)."""
    if front_end not in FRONT_ENDS:
        raise ValueError(f"front end must be one of {', '.join(FRONT_ENDS)}, got {front_end!r}")
    entry = FRONT_END_DEFAULTS.get(front_end, {}).get(name)
    return default if entry is None else entry[0]


__all__ = ["FRONT_ENDS", "FRONT_END_DEFAULTS", "METADATA_KEY", "Setting", "choices_of",
           "front_end_default", "setting", "setting_of", "settings_of", "value_type"]
