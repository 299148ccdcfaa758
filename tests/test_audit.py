"""The audit trail (textdp.audit): targeted spans as character offsets, labels, detector and
score, never the text; ``textdp detect`` as a dry run."""

from __future__ import annotations

import json

import pytest

from textdp.audit import SPAN_FIELDS, Auditor
from textdp.cli import main
from textdp.detect.base import Finding

pytestmark = pytest.mark.usefixtures("private_cache")

TEXTS = ["Mr Quillonbrae met Dr Okafor. Write to maria.lopez@example.com or @john_smith.",
         "No names here.",
         ""]


class Words:
    """Marks listed words as PERSON with a score (a deterministic stand-in tagger)."""

    name = "words"

    def __init__(self, words):
        self.words = words

    def findings(self, docs):
        return [[Finding(t.i, t.i + 1, "PERSON", self.name, self.words[t.text])
                 for t in doc if t.text in self.words] for doc in docs]

    def __call__(self, docs):
        return [[f.span for f in fs] for fs in self.findings(docs)]


def test_spans_are_offsets_labels_detectors_and_scores():
    auditor = Auditor(detector=Words({"Quillonbrae": 0.9, "Okafor": 0.4}),
                      targets="PERSON,EMAIL,HANDLE")
    spans = auditor.audit(TEXTS)
    assert [list(s) for s in spans[0]] == [list(SPAN_FIELDS)] * len(spans[0])
    got = [(TEXTS[0][s["start"]:s["end"]], s["label"], s["detector"], s["score"])
           for s in spans[0]]
    assert got == [("Quillonbrae", "PERSON", "words", 0.9), ("Okafor", "PERSON", "words", 0.4),
                   ("maria.lopez@example.com", "EMAIL", "pii", None),
                   ("@john_smith", "HANDLE", "pii", None)]
    assert spans[1:] == [[], []]


def test_only_targeted_labels_and_lists_and_threshold_apply():
    words = Words({"Quillonbrae": 0.9, "Okafor": 0.4})
    spans = Auditor(detector=words, threshold=0.5, deny=["lopez"]).audit(TEXTS[:1])[0]
    assert [(s["label"], s["detector"]) for s in spans] == [("PERSON", "words")]
    spans = Auditor(detector=words, allow=["quillonbrae"], deny=["names"]).audit(TEXTS)
    assert [TEXTS[0][s["start"]:s["end"]] for s in spans[0]] == ["Okafor"]
    assert [(TEXTS[1][s["start"]:s["end"]], s["detector"]) for s in spans[1]] == [
        ("names", "deny_list")]


def test_targets_all_marks_every_word():
    spans = Auditor(targets="all").audit(["Hi, Anna 42!"])[0]
    assert [(s["start"], s["end"], s["label"], s["detector"]) for s in spans] == [
        (0, 2, "*", "all"), (4, 8, "*", "all")]


def test_long_texts_are_chunked_as_the_privatizer_chunks_them(monkeypatch):
    import textdp.pipeline.chunking as chunking

    text = " ".join(["Okafor met the team again today."] * 40)
    words = Words({"Okafor": 0.7})
    whole = Auditor(detector=words).audit([text])[0]
    monkeypatch.setattr(chunking, "CHUNK_CHARS", 200)
    monkeypatch.setattr(chunking, "OVERLAP_CHARS", 30)
    assert Auditor(detector=words).audit([text])[0] == whole
    assert len(whole) == 40 and all(text[s["start"]:s["end"]] == "Okafor" for s in whole)


def test_bad_options_fail_before_any_text():
    with pytest.raises(ValueError, match="PERSONS"):
        Auditor(targets="PERSONS")
    with pytest.raises(ValueError, match="threshold"):
        Auditor(threshold=2.0)
    with pytest.raises(ValueError, match="row 1"):
        Auditor(detector=Words({})).audit(["ok", None])


def test_detect_command_writes_spans_and_never_the_text(tmp_path, capsys):
    src = tmp_path / "notes.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in
                           enumerate(TEXTS)), encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    assert main(["detect", str(src), "-o", str(out), "--detector", "handles",
                 "--targets", "PERSON,EMAIL", "--id-field", "id", "--deny", "Okafor"]) == 0
    raw = out.read_text(encoding="utf-8")
    for secret in ("Quillonbrae", "Okafor", "maria", "lopez", "john", "example"):
        assert secret not in raw
    lines = [json.loads(line) for line in raw.splitlines()]
    assert [(r["line"], r["record"], r["id"]) for r in lines] == [(1, 0, 0), (2, 1, 1),
                                                                 (3, 2, 2)]
    first = lines[0]["spans"]
    assert all(set(s) == set(SPAN_FIELDS) for s in first)
    # The address is one EMAIL target, as privatize replaces it (its surrogate wins over the
    # handle detector's PERSON reading of the same tokens).
    assert [(TEXTS[0][s["start"]:s["end"]], s["label"], s["detector"]) for s in first] == [
        ("Okafor", "PERSON", "deny_list"), ("maria.lopez@example.com", "EMAIL", "pii"),
        ("@john_smith", "PERSON", "handles")]
    err = capsys.readouterr().err
    assert "3 records, 3 spans (EMAIL 1, PERSON 2)" in err and "nothing was privatized" in err


def test_detect_command_csv_and_txt_to_stdout(tmp_path, capsys):
    csv_file = tmp_path / "t.csv"
    csv_file.write_text("id,review\n7,Thanks @john_smith!\n", encoding="utf-8")
    assert main(["detect", str(csv_file), "--text-field", "review", "--detector", "handles",
                 "--id-field", "id"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows == [{"line": 2, "record": 0, "id": "7", "spans": [
        {"start": 7, "end": 18, "label": "PERSON", "detector": "handles", "score": None}]}]
    txt = tmp_path / "t.txt"
    txt.write_text("hello\n", encoding="utf-8")
    assert main(["detect", str(txt), "--detector", "rules"]) == 0
    assert json.loads(capsys.readouterr().out) == {"line": 1, "record": 0, "spans": []}


@pytest.mark.parametrize("args, expected", [
    (["--targets", "PERSONS"], "unknown target label 'PERSONS'"),
    (["--detector", "nope"], "unknown detector 'nope'"),
    (["--id-field", "text"], "--id-field must differ"),
])
def test_detect_command_errors(tmp_path, capsys, args, expected):
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "Quillonbrae"}\n', encoding="utf-8")
    assert main(["detect", str(src), *args]) == 2
    out, err = capsys.readouterr()
    assert expected in err and "Quillonbrae" not in err + out
