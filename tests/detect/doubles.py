"""Test doubles for detectors."""

from __future__ import annotations


class Fixed:
    """A detector that returns the same spans for every doc."""

    def __init__(self, spans):
        self.spans = spans

    def __call__(self, docs):
        return [list(self.spans) for _ in docs]
