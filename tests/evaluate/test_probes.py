"""The hand-written probe samples (textdp/evaluate/data/probe_*.jsonl): they parse as a
user's labelled sample, their spans name valid labels, and the privatizer reads them."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from textdp.evaluate.detection import read_labelled_jsonl
from textdp.targets import VALID_LABELS

DATA = Path(__file__).resolve().parents[2] / "textdp" / "evaluate" / "data"
PROBES = {"probe_notes_mail.jsonl": {"clinical", "support_mail"},
          "probe_chat_pii.jsonl": {"chat", "pii"}}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_probe_parses_with_valid_labels_and_its_kinds(name):
    path = DATA / name
    samples = read_labelled_jsonl(path)
    assert len(samples) >= 130
    labels = {lab for s in samples for _, _, lab in s.spans}
    assert "PERSON" in labels and labels <= VALID_LABELS
    kinds = {json.loads(line)["kind"] for line in path.read_text(encoding="utf-8").splitlines()}
    assert kinds == PROBES[name]
    for s in samples:  # spans lie inside the text, in order, without overlaps
        ends = [(a, b) for a, b, _ in s.spans]
        assert all(0 <= a < b <= len(s.text) for a, b in ends)
        assert all(b1 <= a2 for (_, b1), (a2, _) in itertools.pairwise(ends))
