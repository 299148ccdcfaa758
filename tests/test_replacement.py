"""The replace setting: names, words or tags (textdp.replacement)."""

from __future__ import annotations

import pytest
from name_detectors import TEXT, names

from textdp import Privatizer
from textdp.replacement import check_replace


def test_check_replace():
    assert check_replace(None, True, "mlaplace") == "name"
    assert check_replace(None, False, "dpmlm") == "word"
    with pytest.raises(ValueError, match=r"replace='name'.*dpmlm"):
        check_replace("name", False, "dpmlm")
    with pytest.raises(ValueError, match="replace must be one of name, word, tag"):
        check_replace("names", True, "mlaplace")


def test_word_and_tag_replacements():
    word = Privatizer(seed=2, detector=names, replace="word", consistency="mention")
    out = word(TEXT)
    assert out.report.draws == out.report.tokens_replaced == 6
    assert out.report.replace == "word"
    tag = Privatizer(seed=2, detector=names, replace="tag")
    out = tag(TEXT)
    assert out.text == "[PERSON] met [PERSON] in Berlin. Later [PERSON]'s aide called " \
                       "[PERSON] again."
    assert out.report.draws == 0 and out.report.epsilon_total == 0.0
    assert out.report.tokens_replaced == 6
