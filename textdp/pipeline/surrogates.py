"""Surrogates: what replaces a target without a draw (no ε).

A placeholder tag (``replace="tag"``: ``[PERSON]``, ``[EMAIL]``) and a PII surrogate of the
value's format (:mod:`textdp.detect.pii`) depend on the target's label and shape only, so they
cost no ε (docs/architecture.md, rule 3).
"""

from __future__ import annotations

from textdp.rng import RandomSource


def tag(label: str) -> str:
    """The placeholder that ``replace="tag"`` writes for a target of ``label``."""
    return f"[{label}]"


def pii_replacement(label: str, value: str, replace: str, rng: RandomSource) -> str:
    """What replaces a PII ``value`` of ``label``: its tag with ``replace="tag"``, else a
    surrogate of the same format drawn from ``rng`` given the value's shape only (no ε: see
    :mod:`textdp.detect.pii` for exactly what the shape reveals)."""
    from textdp.detect import pii

    if replace == "tag":
        return pii.tag(label)
    return pii.surrogate(label, pii.shape_of(label, value), rng.numpy)
