"""Batching (textdp.pipeline.batching): texts in, bounded batches of pieces through one step,
results out in input order with their reports merged, each text's state living as long as
its pieces."""

from __future__ import annotations

import pytest

from textdp.budget import TextState
from textdp.errors import RowError
from textdp.pipeline import chunking
from textdp.pipeline.batching import stream
from textdp.report import Report

EMPTY = Report.for_tokens(0, mechanism="toy", epsilon=1.0, delta=0.0, guarantee="toy",
                          representation="static", scope="token", replace="word",
                          consistency="document", holds_between="toy")


class Recorder:
    """A vectorised step that writes each piece's core upper-cased, reports one token per
    piece, records the batches and the states it saw and leaves a mark per piece in its
    text's state."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.states: list[dict[int, tuple[str, int]]] = []  # per batch: row -> scope, pieces

    def __call__(self, pieces, states):
        self.batches.append([p.row for p in pieces])
        self.states.append({row: (state.scope, len(state.mentions))
                            for row, state in states.items()})
        for p in pieces:  # what a step leaves in the state for the text's later pieces
            marks = states.setdefault(p.row, TextState()).mentions
            marks.add(str(len(marks)))
        return [(p.text[p.chunk.core_start:p.chunk.core_end].upper(), EMPTY.counted(1, draws=1))
                for p in pieces]


def test_results_come_in_input_order_and_missing_texts_pass_through():
    run = Recorder()
    out = list(stream(["one", None, "two", "three"], run, empty=EMPTY, batch_size=2))
    assert [None if o is None else o.text for o in out] == ["ONE", None, "TWO", "THREE"]
    assert [o.report.tokens_replaced for o in out if o is not None] == [1, 1, 1]
    assert run.batches == [[0, 2], [3]]  # a missing text is no piece


def test_batches_hold_at_most_batch_size_pieces():
    run = Recorder()
    texts = [f"text {i}" for i in range(5)]
    out = list(stream(texts, run, empty=EMPTY, batch_size=2))
    assert run.batches == [[0, 1], [2, 3], [4]]
    assert [o.text for o in out] == [t.upper() for t in texts]


def test_a_long_text_is_cut_joined_and_its_reports_merged(monkeypatch):
    monkeypatch.setattr(chunking, "CHUNK_CHARS", 40)
    text = " ".join(f"word{i}." for i in range(60))
    run = Recorder()
    (out,) = stream([text], run, empty=EMPTY, batch_size=3)
    pieces = sum(len(b) for b in run.batches)
    assert pieces > 3 and max(len(b) for b in run.batches) <= 3
    assert out.text == text.upper()  # the cores tile the text exactly
    assert out.report.tokens_replaced == pieces and out.report.draws == pieces


def test_a_texts_state_spans_its_pieces_and_is_dropped_when_it_is_done(monkeypatch):
    monkeypatch.setattr(chunking, "CHUNK_CHARS", 40)
    long = " ".join(f"word{i}." for i in range(30))
    run = Recorder()
    out = list(stream([long, "short"], run, empty=EMPTY, batch_size=2, scopes=["a", "b"]))
    assert [o.text for o in out] == [long.upper(), "SHORT"]
    # Every batch of the long text sees its scope and what its earlier pieces left.
    ran = 0
    for rows, seen in zip(run.batches, run.states):
        if 0 in rows:
            assert seen[0] == ("a", ran)
            ran += rows.count(0)
    assert ran > 2
    assert any(seen.get(1) == ("b", 0) for seen in run.states)  # its own state, from its scope
    assert all(scope == "a" for seen in run.states for row, (scope, _) in seen.items()
               if row == 0)


def test_a_row_that_is_not_a_string_is_named_by_its_position():
    with pytest.raises(RowError) as err:
        list(stream(["fine", 7], Recorder(), empty=EMPTY, batch_size=8))
    assert err.value.row == 1 and err.value.field == "text"
