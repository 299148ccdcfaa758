"""``textdp privatize --review-field NAME``: the review signal written to each record, and
one detection for every mention (issue 33; the core's tests are
tests/pipeline/test_selection_mentions.py)."""

from __future__ import annotations

import csv
import json

import pytest
from review_texts import EVERY_MENTION, PARTIAL, PLAIN

from textdp.cli import main

pytestmark = pytest.mark.usefixtures("private_cache")

ARGS = ["--seed", "0", "--allow", "Hunter Price", "--no-progress"]


def _jsonl(path, texts):
    path.write_text("".join(json.dumps({"text": t, "id": i}) + "\n"
                            for i, t in enumerate(texts)), encoding="utf-8")


def test_jsonl_records_get_the_review_field(tmp_path):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _jsonl(src, [PARTIAL, PLAIN, None, *(t for t, _ in EVERY_MENTION)])
    assert main(["privatize", str(src), "-o", str(dst), "--review-field", "route", *ARGS]) == 0
    rows = [json.loads(line) for line in dst.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["route"] == {"needs_review": True, "partial_mention": 1, "near_threshold": 0}
    assert rows[1]["route"] == {"needs_review": False, "partial_mention": 0,
                                "near_threshold": 0}
    assert rows[2]["route"] is None and rows[2]["text"] is None  # missing: null
    for row, (_, names) in zip(rows[3:], EVERY_MENTION):
        assert not [n for n in names if n in row["text"].casefold()], names
    # --review alone writes the default field; with --report the report holds it too.
    assert main(["privatize", str(src), "-o", str(dst), "--review", "--report", *ARGS]) == 0
    first = json.loads(dst.read_text(encoding="utf-8").splitlines()[0])
    assert first["dp_review"] == first["dp"]["review"] == rows[0]["route"]


def test_csv_gets_a_review_column(tmp_path):
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    with open(src, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["id", "text"], ["1", PARTIAL], ["2", PLAIN]])
    assert main(["privatize", str(src), "-o", str(dst), "--review-field", "route", *ARGS]) == 0
    with open(dst, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["id", "text", "route"]
    assert json.loads(rows[0]["route"])["partial_mention"] == 1
    assert json.loads(rows[1]["route"])["needs_review"] is False


def test_review_field_refusals_before_any_output(tmp_path, capsys):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps({"text": PLAIN, "route": 1}) + "\n", encoding="utf-8")
    txt = tmp_path / "in.txt"
    txt.write_text(PLAIN + "\n", encoding="utf-8")
    for args, message in [
            ([str(src), "--review-field", "route"], "already has a field 'route'"),
            ([str(src), "--review-field", "text"], "--review-field must differ"),
            ([str(txt), "--review"], "--review needs JSONL or CSV")]:
        assert main(["privatize", *args, "-o", str(dst), *ARGS]) != 0
        assert message in capsys.readouterr().err
    assert not dst.exists()


def test_mechanisms_states_what_the_review_signal_releases(capsys):
    assert main(["mechanisms", "--review"]) == 0
    assert "with review, the same review counts" in capsys.readouterr().out
    assert main(["mechanisms", "--consistency", "dataset"]) == 0
    assert "with review" not in capsys.readouterr().out
