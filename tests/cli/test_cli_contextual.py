"""The command line's contextual parts, in process through ``main()``: ``textdp build-index
--contextual`` (vocabulary and public-corpus indexes) and ``textdp privatize --representation
contextual --contextual-index FOLDER``, with their errors (exit status 2, one line, no text)."""

from __future__ import annotations

import json

import pytest

from textdp.cli import main
from textdp.contextual_index import ContextualIndex

CANARY = "Quillonbrae"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("cli") / "ctx-index"
    assert main(["build-index", "--contextual", "--layer", "1", "--limit", "1200",
                 "-o", str(folder)]) == 0
    return str(folder)


def test_build_index_writes_a_vocabulary_index(index_dir, capsys):
    index = ContextualIndex.load(index_dir)
    assert len(index) == 1200 and index.dim == 384
    assert index.meta["source"] == "vocabulary" and index.meta["layer"] == 1
    assert not any(w.startswith("##") for w in index.words)


def test_build_index_from_a_public_corpus(tmp_path, capsys):
    corpus = tmp_path / "public.txt"
    corpus.write_text("The cat sat on the mat.\nA dog ran home, 42 times!\n", encoding="utf-8")
    out = tmp_path / "corpus-index"
    assert main(["build-index", "--contextual", "--corpus", str(corpus), "-o", str(out)]) == 0
    index = ContextualIndex.load(out)
    assert sorted(index.words) == sorted(["the", "cat", "sat", "on", "mat", "a", "dog", "ran",
                                          "home", "times"])
    assert index.meta["source"] == "corpus" and index.meta["corpus"] == "public.txt"
    assert "contextual index of 10 words" in capsys.readouterr().err


def test_build_index_errors(tmp_path, capsys):
    with pytest.raises(SystemExit):  # argparse: --contextual is required
        main(["build-index", "-o", str(tmp_path / "x")])
    assert main(["build-index", "--contextual", "--layer", "9", "-o", str(tmp_path / "x")]) == 2
    assert "layer must be between 0 and 6" in capsys.readouterr().err
    corpus = tmp_path / "c.txt"
    corpus.write_text("words\n", encoding="utf-8")
    assert main(["build-index", "--contextual", "--corpus", str(corpus), "--limit", "5",
                 "-o", str(tmp_path / "y")]) == 2
    assert "--limit" in capsys.readouterr().err
    assert main(["build-index", "--contextual", "--corpus", str(tmp_path / "none.txt"),
                 "-o", str(tmp_path / "z")]) == 2


def test_privatize_jsonl_with_a_contextual_index(index_dir, tmp_path):
    public = set(ContextualIndex.load(index_dir).words)
    src = tmp_path / "in.jsonl"
    records = [{"id": 1, "text": f"Angela Merkel met {CANARY} in Berlin."},
               {"id": 2, "text": "The weather was nice, wasn't it?"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = ["privatize", str(src), "-o", str(out), "--representation", "contextual",
            "--contextual-index", index_dir, "--targets", "all", "--epsilon", "6",
            "--seed", "3", "--report", "--no-progress"]
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [1, 2]
    assert CANARY not in rows[0]["text"] and "##" not in rows[0]["text"]
    assert rows[0]["dp"]["representation"] == "contextual"
    assert rows[0]["dp"]["tokens_replaced"] == 6 and rows[0]["dp"]["epsilon"] == 6.0
    first = rows[0]["text"].split(" ")
    assert all(w.strip(".").lower() in public for w in first)
    again = tmp_path / "again.jsonl"
    assert main([*args[:3], str(again), *args[4:]]) == 0
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_privatize_contextual_errors_name_the_option(index_dir, tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": f"{CANARY} was here."}) + "\n", encoding="utf-8")
    cases = [
        (["--representation", "contextual", "--contextual-index", index_dir, "--layer", "2"],
         "layer 1, but the encoder uses layer 2"),
        (["--contextual-index", index_dir], "contextual_index"),
        (["--representation", "contextual", "--contextual-index", str(tmp_path)],
         "not a contextual index folder"),
        (["--representation", "contextual", "--table", str(src)], "table"),
    ]
    for extra, message in cases:
        assert main(["privatize", str(src), "-o", str(tmp_path / "o.jsonl"), *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and CANARY not in err
        assert not (tmp_path / "o.jsonl").exists()
