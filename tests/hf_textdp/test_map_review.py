"""``datasets.map`` with ``hf_textdp.Privatizer``: one detection for every mention and the
review column ``dp_review`` (issue 33; the core's tests are
tests/pipeline/test_selection_mentions.py)."""

from __future__ import annotations

import pytest

datasets = pytest.importorskip("datasets")

from review_texts import EVERY_MENTION, PARTIAL, PLAIN  # noqa: E402

from hf_textdp import Privatizer  # noqa: E402


def test_map_writes_the_review_column_and_replaces_every_mention():
    texts = [PARTIAL, PLAIN, None, *(t for t, _ in EVERY_MENTION)]
    ds = datasets.Dataset.from_dict({"id": list(range(len(texts))), "text": texts})
    out = ds.map(Privatizer(seed=0, review=True, report_columns=True, allow=["Hunter Price"]),
                 batched=True, batch_size=4, with_indices=True)
    review = out["dp_review"]
    assert review[0] == {"needs_review": True, "partial_mention": 1, "near_threshold": 0}
    assert review[1] == {"needs_review": False, "partial_mention": 0, "near_threshold": 0}
    # A missing row has no review, as it has no report (null in every front end).
    assert review[2] is None and out["dp_tokens_replaced"][2] is None
    assert out["id"] == ds["id"]
    for text, (_, names) in zip(out["text"][3:], EVERY_MENTION):
        assert not [n for n in names if n in text.casefold()], names


def test_no_review_column_unless_asked():
    ds = datasets.Dataset.from_dict({"text": [PLAIN]})
    out = ds.map(Privatizer(seed=0, report_columns=True), batched=True)
    assert "dp_review" not in out.column_names
