"""Argument types and option groups that several commands share: one copy of each.

An argument type turns one command-line string into the value the library takes and raises
``argparse.ArgumentTypeError`` with a message that says what is accepted; argparse prefixes it
with the option's name and exits with status 2 before any text is read.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any


def mechanism_arg(value: str) -> str | dict[str, Any]:
    """``--mechanism``: a registered name, or a JSON object ``{"name": ..., <arguments>}``."""
    value = value.strip()
    if not value.startswith("{"):
        return value
    try:
        spec = json.loads(value)
    except json.JSONDecodeError as err:
        raise argparse.ArgumentTypeError(
            f"expected a registered name or a JSON object like "
            f'{{"name": "mahalanobis", "lam": 0.2}}; the JSON does not parse ({err.msg} at '
            f"character {err.pos})") from None
    if not isinstance(spec, dict):  # '{' starts an object, but be explicit
        raise argparse.ArgumentTypeError("expected a JSON object")
    return spec


def epsilon_or_auto_arg(value: str) -> float | str:
    """``--epsilon`` of ``privatize``: a number, or ``auto`` (calibrated; see ``textdp
    calibrate``). Its range is the privatizer's to check, with the parameter's name."""
    if value.strip().lower() == "auto":
        return "auto"
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {value!r}") from None


def clip_norm_arg(value: str) -> float | str | None:
    """``--clip-norm``: ``median`` (as the Privatizer clips), ``none`` or a radius."""
    if value == "median":
        return "median"
    if value.lower() == "none":
        return None
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"clip_norm must be 'median', 'none' or a number, got {value!r}") from None


def exclude_arg(value: str) -> Any:
    """``--exclude``: ``default``, ``none``, or words (comma-separated or ``@FILE``), as the
    Privatizer's ``exclude`` takes them. Read when the command runs (a file named here is
    read then, not while the arguments are parsed)."""
    if value in ("default", "none"):
        return None if value == "none" else "default"
    from textdp.detect.lists import read_list

    return read_list(value)


def comma_list(value: str) -> list[str]:
    """Comma-separated names, blanks dropped: ``"mlaplace, nadp,"`` → ``["mlaplace",
    "nadp"]``."""
    return [item.strip() for item in value.split(",") if item.strip()]


def add_epsilon_grid_argument(p: argparse.ArgumentParser, defaults: Mapping[str, Any]) -> None:
    """``--epsilon`` of the evaluations: the ε grid in :mod:`textdp.grid`'s grammar, read by
    the command (``epsilon_grid`` of its module) before any work. ``defaults``: each
    mechanism's default values, ``"*"`` for the rest (shown in the help)."""
    shown = "; ".join(f"{'' if key == '*' else key + ':'}{','.join(f'{e:g}' for e in values)}"
                      for key, values in defaults.items())
    p.add_argument("--epsilon", action="append", default=None, metavar="GRID",
                   help="ε values: comma-separated for every mechanism, or NAME:values (also "
                        "NAME=values) for one; repeat the option or put ';' between entries. "
                        f"A mechanism without values keeps its default ({shown})")
