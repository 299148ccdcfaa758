"""The command-line options of the privatizer's settings, generated from the config's fields.

Every option a command offers for a :class:`~textdp.config.PrivatizerConfig` setting is made
here from the setting's field (:mod:`textdp.settings`): its flag, help, default and choices
are the field's, and its value parser the one the field names in :data:`PARSERS`. A command
says which settings it takes (:func:`add_setting_arguments`) and reads them back
(:func:`settings_from_args`); none restates a default or a choice.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from textdp.cli.args import clip_norm_arg, epsilon_or_auto_arg, exclude_arg, mechanism_arg
from textdp.config import PrivatizerConfig, front_end_defaults
from textdp.records import InputError
from textdp.settings import Setting, choices_of, settings_of, value_type


def read_key_file(path: str) -> bytes:
    """``--key-file``: the secret key in ``path`` (its bytes, without a final newline); its
    content is never printed."""
    try:
        with open(path, "rb") as f:
            return f.read().rstrip(b"\r\n")
    except OSError as err:
        raise InputError(f"--key-file {path}: cannot read it ({err.strerror})") from None


class Parser(NamedTuple):
    """A command-line value parser: ``read`` turns the string into the setting's value;
    ``when_run``: read when the command runs, not while the arguments are parsed (a file it
    names is opened then, and an unreadable one is the command's error, not a usage error)."""

    read: Callable[[str], Any]
    when_run: bool = False


#: The value parsers a setting names in :attr:`textdp.settings.Setting.parse`.
PARSERS: Mapping[str, Parser] = {
    "epsilon": Parser(epsilon_or_auto_arg),
    "mechanism": Parser(mechanism_arg),
    "clip_norm": Parser(clip_norm_arg),
    "exclude": Parser(exclude_arg, when_run=True),
    "key_file": Parser(read_key_file, when_run=True),
}

# The parsed arguments' attribute that lists the options add_setting_arguments added.
_NAMES = "textdp_settings"
_REFERENCE = re.compile(r"`([a-z_]+)`")


def flag_of(name: str, meta: Setting) -> str:
    """The option of setting ``name``: its own flag, else ``--`` and the name with dashes."""
    return meta.flag or "--" + name.replace("_", "-")


def help_of(name: str, meta: Setting, default: Any) -> str:
    """The setting's help with the settings it names spelt as options, and its default."""
    fields = settings_of(PrivatizerConfig)

    def spell(m: re.Match[str]) -> str:
        other = fields.get(m.group(1))
        return flag_of(m.group(1), other[1]) if other else m.group(1)

    text = _REFERENCE.sub(spell, meta.help)
    if default not in (None, False) and "(default" not in text:
        shown = ",".join(map(str, default)) if isinstance(default, (list, tuple)) else default
        text += f" (default: {shown})"
    return text.replace("%", "%%")  # argparse formats help with %


def add_setting_arguments(p: argparse.ArgumentParser | Any, names: Iterable[str], *,
                          with_defaults: bool = True, help_suffix: Mapping[str, str] = {}
                          ) -> None:
    """Add the options of the settings ``names`` (in that order) to ``p``.

    with_defaults: the config's defaults (as ``textdp privatize`` runs); ``False``: every
        option defaults to ``None``, for a command that reads only the settings it was given.
    help_suffix: words a command adds to a setting's help (e.g. its own ε limits).
    """
    fields = settings_of(PrivatizerConfig)
    defaults = front_end_defaults("cli")
    names = tuple(names)
    # Which options are settings, for settings_from_args (a command may have an option of its
    # own named like a setting, e.g. release-table's --precision, the digits it writes).
    p.set_defaults(**{_NAMES: (*(p.get_default(_NAMES) or ()), *names)})
    for name in names:
        _, meta = fields[name]
        if not meta.offered_on("cli"):
            raise ValueError(f"setting {name!r} is not offered on the command line: "
                             f"{meta.not_on['cli']}")
        default = defaults[name]
        kwargs: dict[str, Any] = {"dest": name, "default": default if with_defaults else None,
                                  "help": help_of(name, meta, default) + help_suffix.get(name, "")}
        kind = value_type(PrivatizerConfig, name)
        if kind is bool:
            kwargs["action"] = "store_true"
        else:
            if meta.parse is not None:
                parser = PARSERS[meta.parse]
                if not parser.when_run:
                    kwargs["type"] = parser.read
            elif kind in (int, float):
                kwargs["type"] = kind
            choices = choices_of(PrivatizerConfig, name)
            if choices:
                kwargs["choices"] = choices
            elif meta.metavar:
                kwargs["metavar"] = meta.metavar
        p.add_argument(flag_of(name, meta), **kwargs)


def settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings among the parsed options (those :func:`add_setting_arguments` added), each
    read by its parser when the command runs where its field says so."""
    fields = settings_of(PrivatizerConfig)
    out = {}
    for name in getattr(args, _NAMES, ()):
        meta = fields[name][1]
        value = getattr(args, name)
        if value is not None and meta.parse is not None and PARSERS[meta.parse].when_run:
            value = PARSERS[meta.parse].read(value)
        out[name] = value
    return out


__all__ = ["PARSERS", "Parser", "add_setting_arguments", "flag_of", "help_of", "read_key_file",
           "settings_from_args"]
