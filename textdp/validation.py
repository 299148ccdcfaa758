"""Parameter checks shared by every mechanism and front end.

DESIGN.md rule 5: parameters are validated before any text is read. Every check raises a
``ValueError`` that names the parameter and the accepted range, and never echoes text.
"""

from __future__ import annotations

import math
from numbers import Integral, Real


def check_positive(name: str, value: object, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float if it is a finite number > 0 (or >= 0 with ``allow_zero``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a finite number > 0, got {type(value).__name__}")
    value = float(value)
    lower_ok = value >= 0 if allow_zero else value > 0
    if not math.isfinite(value) or not lower_ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return value


def check_epsilon(value: object, name: str = "epsilon") -> float:
    """ε of a mechanism: finite and strictly positive."""
    return check_positive(name, value)


def check_open_unit(name: str, value: object) -> float:
    """A probability-like parameter in the open interval (0, 1), e.g. δ or a target rate."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in (0, 1), got {type(value).__name__}")
    value = float(value)
    if not (0.0 < value < 1.0):
        raise ValueError(f"{name} must be in the open interval (0, 1), got {value!r}")
    return value


def check_closed_unit(name: str, value: object) -> float:
    """A weight in the closed interval [0, 1], e.g. Mahalanobis' λ or Vickrey's t."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in [0, 1], got {type(value).__name__}")
    value = float(value)
    if not (0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be in the closed interval [0, 1], got {value!r}")
    return value


def check_positive_int(name: str, value: object) -> int:
    """A count that must be a positive integer (k, batch sizes, dimensions)."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_choice(name: str, value: object, choices: tuple[str, ...] | list[str]) -> str:
    """A string option from a fixed set."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return str(value)
