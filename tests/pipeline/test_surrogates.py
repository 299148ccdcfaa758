"""Surrogates: PII values become surrogates of their format or tags, without ε
(textdp.pipeline.surrogates)."""

from __future__ import annotations

import re

from textdp import Privatizer

PII_TEXT = ("Call Anna Smith at 555 123 4567 or anna.smith@example.com; card 4111 1111 1111 "
            "1111, see https://x.org/a from 10.0.0.1. Anna said.")


PII_TARGETS = ["PERSON", "EMAIL", "PHONE", "CREDIT_CARD", "URL", "IP"]


def test_pii_values_become_surrogates_of_their_format_without_epsilon():
    out = Privatizer(seed=1, targets=PII_TARGETS)(PII_TEXT)
    text = out.text
    for original in ("555 123 4567", "anna.smith@example.com", "4111 1111 1111 1111",
                     "https://x.org/a", "10.0.0.1", "Anna", "Smith"):
        assert original not in text
    assert "@example." in text and "https://example.org/" in text and "192.0.2." in text
    assert re.search(r"at \d{3} 555 01\d\d or", text)  # the layout, a fictional number
    assert re.search(r"card \d{4} \d{4} \d{4} \d{4},", text)
    # Only the two distinct names drew (Anna twice: one draw); the surrogates cost nothing.
    assert out.report.draws == 2 and out.report.tokens_replaced == 8


def test_pii_tags_replace_each_value_once():
    # (Not "Call Anna ...": a capitalised first word is a borderline name for the tagger.)
    out = Privatizer(seed=1, targets=["PERSON", "EMAIL", "PHONE"], replace="tag")(
        "Please call Anna Smith at 555 123 4567 or anna.smith@example.com.")
    assert out.text == "Please call [PERSON] at [PHONE] or [EMAIL]."
    assert out.report.epsilon_total == 0.0
