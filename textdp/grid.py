"""ε grids: which ε values each mechanism is measured at, in one grammar for the command line
and for Python.

``textdp evaluate privacy`` and ``textdp evaluate utility`` (and their Python functions) read a
grid through :func:`epsilon_grid`, so both accept the same forms, apply the same rules and fail
with the same messages. The forms:

* numbers for every mechanism: ``[0.5, 1, 2]``, ``2.0``, or the string ``"0.5,1,2"``;
* values for one mechanism: ``"nadp:20,50"`` or ``"nadp=20,50"``; the key ``*`` (``"*:1,2"``,
  or an empty key, ``":1,2"``) stands for every mechanism without an entry of its own;
* several entries: a list of such strings (``--epsilon`` repeated) or one string with ``;``
  between them: ``"0.5,1;nadp=20,50"``;
* a mapping ``{"nadp": [20, 50], "*": [1, 2]}`` whose values are numbers, lists of numbers or
  comma-separated strings.

The rules:

* every value is a finite number > 0 (:func:`~textdp.validation.check_epsilon`); repeated values
  are dropped, the order is kept;
* a key may be given once: a second entry for it is refused rather than silently replacing the
  first;
* an entry for a mechanism that is not measured is refused (a misspelt name would otherwise
  leave that mechanism on its default grid without a word);
* a mechanism takes its own entry, else the ``*`` entry, else its own default, else the ``*``
  default (the caller's defaults, a mapping of the same form); with none of them it is an error.

Every error is a ``ValueError`` that names the parameter (``epsilon`` unless the caller names
another) and the entry at fault.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any, TypeAlias

from textdp.validation import check_epsilon

# Every mechanism without an entry of its own.
EVERY = "*"

EpsilonValues: TypeAlias = float | Sequence[float] | str
EpsilonGrid: TypeAlias = float | Sequence[float] | str | Sequence[str] | Mapping[str, Any]


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def parse_epsilons(value: EpsilonValues, *, name: str = "epsilon") -> list[float]:
    """ε values: ``"0.5,1,2"``, a number or a sequence of numbers; each finite and > 0,
    repeats dropped (order kept). Raises ``ValueError`` naming ``name``."""
    if isinstance(value, str):
        items: list[Any] = [v.strip() for v in value.split(",") if v.strip()]
    elif _is_number(value):
        items = [value]
    elif isinstance(value, Sequence):
        items = list(value)
    else:
        raise ValueError(f"{name} must be numbers or comma-separated numbers > 0, got "
                         f"{type(value).__name__}")
    out = []
    for item in items:
        if isinstance(item, str):
            try:
                item = float(item)
            except ValueError:
                raise ValueError(f"{name} must be comma-separated numbers > 0, optionally "
                                 f"after 'mechanism:' or 'mechanism=', got {item!r}") from None
        out.append(check_epsilon(item, name=name))
    if not out:
        raise ValueError(f"{name} needs at least one value > 0, got {value!r}")
    return list(dict.fromkeys(out))


def parse_grid(values: EpsilonGrid | None, *, name: str = "epsilon") -> dict[str, list[float]]:
    """The entries of a grid as given, by key (a mechanism name or ``"*"``), not yet resolved
    against the mechanisms (see :func:`epsilon_grid`). ``None`` is no entry at all."""
    entries: dict[str, list[float]] = {}

    def add(key: str, numbers: EpsilonValues, given: object) -> None:
        key = key.strip() or EVERY
        if key in entries:
            which = "every mechanism" if key == EVERY else f"mechanism {key!r}"
            raise ValueError(f"{name} is given twice for {which} (second time: {given!r}); "
                             "give its values in one comma-separated list")
        entries[key] = parse_epsilons(numbers, name=name)

    if values is None:
        return entries
    if isinstance(values, Mapping):
        for key, numbers in values.items():
            if not isinstance(key, str):
                raise ValueError(f"{name}: a mapping's keys are mechanism names or '*', got "
                                 f"{key!r}")
            add(key, numbers, numbers)
        return entries
    if _is_number(values):
        add(EVERY, [values], values)  # type: ignore[list-item]
        return entries
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, Sequence):
        raise ValueError(f"{name} must be numbers, 'mechanism:values' strings or a mapping, "
                         f"got {type(values).__name__}")
    if not values:
        raise ValueError(f"{name} needs at least one value > 0, got an empty list")
    if all(_is_number(v) for v in values):
        add(EVERY, values, values)  # type: ignore[arg-type]
        return entries
    if not all(isinstance(v, str) for v in values):
        raise ValueError(f"{name}: a list holds either numbers (for every mechanism) or "
                         f"entries like 'nadp:20,50', not both; got {list(values)!r}")
    for value in values:
        parts = [p.strip() for p in value.split(";")]
        if not any(parts):
            raise ValueError(f"{name} needs at least one value > 0, got {value!r}")
        for part in parts:
            if not part:
                continue
            cut = min((i for i in (part.find(":"), part.find("=")) if i >= 0), default=-1)
            key, numbers = (part[:cut], part[cut + 1:]) if cut >= 0 else (EVERY, part)
            if not numbers.strip():
                raise ValueError(f"{name}: no values after {key.strip() or EVERY!r} in "
                                 f"{part!r}")
            add(key, numbers, part)
    return entries


def epsilon_grid(mechanisms: Sequence[str], values: EpsilonGrid | None = None, *,
                 defaults: Mapping[str, Any] | None = None,
                 name: str = "epsilon") -> dict[str, list[float]]:
    """ε values per mechanism: ``{mechanism: [ε, ...]}`` in the order of ``mechanisms``.

    Args:
        mechanisms: the mechanisms measured.
        values: the grid in any form of the module docstring, or ``None`` (the defaults).
        defaults: each mechanism's default values, ``"*"`` for the rest (same forms as
            ``values``' mapping); entries for other mechanisms are allowed here.
        name: the parameter named in error messages.

    Raises:
        ValueError: a value that is not a finite number > 0, a key given twice, an entry for a
            mechanism not in ``mechanisms``, or a mechanism left without values.
    """
    names = [str(m) for m in mechanisms]
    given = parse_grid(values, name=name)
    stray = [key for key in given if key != EVERY and key not in names]
    if stray:
        raise ValueError(f"{name} is given for {', '.join(stray)}, which is not among the "
                         f"mechanisms {', '.join(names)}")
    fallback = parse_grid(defaults, name=name)
    grid = {}
    for m in names:
        for source in (given.get(m), given.get(EVERY), fallback.get(m), fallback.get(EVERY)):
            if source is not None:
                grid[m] = list(source)
                break
        else:
            raise ValueError(f"{name}: no values for mechanism {m!r}")
    return grid


__all__ = ["EVERY", "EpsilonGrid", "EpsilonValues", "epsilon_grid", "parse_epsilons",
           "parse_grid"]
