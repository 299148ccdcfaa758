"""RowError (textdp.errors): the core names a bad row by its position; front ends rename it."""

from __future__ import annotations

import pickle

import pytest

from textdp.errors import RowError
from textdp.privatizer import Privatizer


def test_row_error_carries_the_row_and_field_and_pickles():
    err = RowError(3, "expected a string, got int", field="text")
    assert isinstance(err, ValueError) and str(err) == "row 3: expected a string, got int"
    back = pickle.loads(pickle.dumps(err))
    assert (back.row, back.problem, back.field) == (3, err.problem, "text")
    named = err.named("notes.jsonl, line 9")
    assert str(named) == "notes.jsonl, line 9: expected a string, got int" and named.row == 3


@pytest.fixture(scope="module")
def strict():
    return Privatizer(targets="all", epsilon=1.0, max_epsilon_per_text=1.0,
                      budget_policy="refuse", seed=1)


def test_the_core_raises_row_errors(strict):
    with pytest.raises(RowError) as info:
        strict.privatize(["ok", None, "far too many words"])
    assert (info.value.row, info.value.field) == (2, "max_epsilon_per_text")
    assert "far" not in str(info.value)
    with pytest.raises(RowError) as info:
        strict.privatize(["ok", 5])
    assert (info.value.row, info.value.field) == (1, "text")


def test_datasets_names_the_dataset_index():
    from hf_textdp import Privatizer as MapPrivatizer

    fn = MapPrivatizer(targets="all", epsilon=1.0, max_epsilon_per_text=1.0,
                       budget_policy="refuse", seed=1, device="cpu")
    with pytest.raises(RowError, match=r"^row 12 \(dataset index\) of column 'text': its "):
        fn({"text": ["ok", None, "far too many words"]}, [10, 11, 12])
    with pytest.raises(RowError, match=r"^row 2 of the batch of column 'text': its "):
        fn({"text": ["ok", None, "far too many words"]})
