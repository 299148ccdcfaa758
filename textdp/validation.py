"""Parameter checks shared by every mechanism and front end.

docs/architecture.md rule 5: parameters are validated before any text is read. Every check raises a
``ValueError`` that names the parameter and the accepted range, and never echoes text.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np


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


#: The smallest ε a mechanism takes. Noise is drawn and decoded in float32 (largest value
#: 3.4e38) with a scale of about d/ε (mlaplace's radius is Gamma(d, 1/ε)): below ε ≈ 1e-36
#: the radius overflows to ∞ and every token decodes to one constant word (issue 37:
#: ``epsilon=1e-300``), and squared distances overflow long before that (d/ε past 1.8e19).
#: At 1e-12 a 4,096-dimensional noise vector's squared norm is about 1.7e31, far inside
#: float32 for every mechanism's constants; the draws already ignore the input there (the
#: decode reads the noise's direction only), so nothing usable is refused.
MIN_EPSILON = 1e-12


def check_epsilon(value: object, name: str = "epsilon") -> float:
    """ε of a mechanism: finite and at least :data:`MIN_EPSILON` (below it the float32 noise
    overflows)."""
    epsilon = check_positive(name, value)
    if epsilon < MIN_EPSILON:
        raise ValueError(f"{name} must be at least {MIN_EPSILON:g}, got {epsilon!r}: below it "
                         "the noise overflows float32 and every token would become one "
                         "constant word")
    return epsilon


def check_bool(name: str, value: object) -> bool:
    """A switch: ``True`` or ``False`` (numpy's bools too), never a truthy stand-in such as
    ``"false"``, ``"no"``, ``"0"`` or ``1``, which ``bool()`` would read as on."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {type(value).__name__} {value!r}"
                     if isinstance(value, (int, float)) else
                     f"{name} must be True or False, got {type(value).__name__}")


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


def resolve_output_column(column: object, output_column: object, keep_original: bool, *,
                          column_name: str = "column") -> str | None:
    """Where a front end writes the privatized text: ``None`` (over ``column``) or a new column.

    Writing to another column leaves the original text beside the output, so it needs
    ``keep_original=True`` (docs/architecture.md rule 7); ``keep_original=True`` without another
    column would be a request the front end cannot honour. Shared by the Hugging Face and Spark
    front ends so both apply the same rule with the same messages.
    """
    for name, value in ((column_name, column), ("output_column", output_column)):
        if (value is not None or name == column_name) and (
                not isinstance(value, str) or not value):
            raise ValueError(f"{name} must be a non-empty column name, got {value!r}")
    if output_column == column:
        output_column = None
    if output_column is not None and not keep_original:
        raise ValueError(
            f"output_column={output_column!r} leaves the original text in column {column!r}; "
            f"pass keep_original=True to ask for that (docs/architecture.md rule 7), or leave "
            f"output_column=None to overwrite it")
    if keep_original and output_column is None:
        raise ValueError(f"keep_original=True needs an output_column other than "
                         f"{column_name}={column!r}: the original stays in that column")
    return output_column  # type: ignore[return-value]
