"""The ``textdp`` command line: a few real subprocess runs, the rest through ``main()``.

``main()`` in-process reuses the process-wide cached pipeline, table and index, so the file
round trips cost milliseconds; the subprocess runs check what only a real process shows (the
console script, stdin/stdout bytes, exit codes, stderr).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys

import pytest

from textdp.cli import main

MERKEL = "Angela Merkel met John Smith in Berlin on Tuesday."
SEVEN = ["gaussian", "mahalanobis", "mlaplace", "projection", "santext", "tem", "vickrey"]
# Every built-in mechanism: the foundation's seven, NADP, DP-MLM and DPNR.
BUILT_IN = sorted([*SEVEN, "dpmlm", "dpnr", "nadp"])
pytestmark = pytest.mark.usefixtures("private_cache")
CANARY = "Quillonbrae"  # an invented word: in no table, so any echo of it is a leak


def run_cli(*args: str, stdin: bytes = b"", timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "textdp.cli", *args], input=stdin,
                          capture_output=True, timeout=timeout, check=False)


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ================================================================= real processes
def test_console_script_is_installed_and_lists_the_mechanisms():
    exe = shutil.which("textdp")
    assert exe is not None, "the textdp console script is not on PATH"
    proc = subprocess.run([exe, "mechanisms"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    listing, footer = proc.stdout.split("\n\n", 1)  # the mechanisms, then the conditions
    listed = [line.split()[0] for line in listing.splitlines()
              if line and not line[0].isspace()]
    assert footer.startswith("Every guarantee holds between")
    assert listed == BUILT_IN
    assert proc.stdout.count("guarantee:") == len(BUILT_IN)


def test_stdin_jsonl_to_stdout():
    record = {"text": MERKEL, "id": 7, "meta": {"source": "unit"}}
    proc = run_cli("privatize", "-", "--seed", "1", "--report",
                   stdin=(json.dumps(record) + "\n").encode())
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode("utf-8").splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert out["id"] == 7 and out["meta"] == {"source": "unit"}
    before, after = MERKEL.split(" "), out["text"].split(" ")
    assert len(after) == len(before)
    for i in (0, 1, 3, 4):  # Angela Merkel, John Smith
        assert after[i] != before[i] and after[i][0].isupper()
    for i in (2, 5, 6, 7, 8):
        assert after[i] == before[i]
    assert out["dp"]["tokens_replaced"] == 4
    assert out["dp"]["epsilon_total"] == pytest.approx(4 * out["dp"]["epsilon"])
    err = proc.stderr.decode("utf-8", "replace")
    for word in ("Angela", "Merkel", "John", "Smith", "Berlin", "Tuesday"):
        assert word not in err


def test_subprocess_bad_epsilon_exits_2_before_reading_stdin():
    proc = run_cli("privatize", "-", "--epsilon", "0",
                   stdin=f'{{"text": "{CANARY} broken json'.encode())
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "epsilon" in err and "line" not in err  # the parameter, not the input, failed
    assert CANARY not in err
    assert proc.stdout == b""


def test_subprocess_malformed_stdin_line():
    good = json.dumps({"text": "the weather is nice"})
    data = f"{good}\n{good}\n{{\"text\": \"{CANARY} \n".encode()
    proc = run_cli("privatize", "-", stdin=data)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "line 3" in err and CANARY not in err


# ================================================================= in-process: listing
def test_mechanisms_command(capsys):
    assert main(["mechanisms"]) == 0
    out = capsys.readouterr().out
    for name in BUILT_IN:
        assert f"\n{name} " in f"\n{out}"
    # nadp's coverage on the default table and the conditions of every guarantee (issue 21)
    assert re.search(r"on the default table: .*\d+\.\d % of the [\d,]+ words are alone", out)
    assert "same detection outcome" in out and "per text" in out


# ================================================================= in-process: round trips
# A detector that replaces names and (nearly) nothing else, for byte-for-byte checks.
PRECISE = "trained+rules+handles"


def test_txt_round_trip(tmp_path, capsys):
    lines = [MERKEL, "", "the weather is nice today.", "  indented, with spaces  ",
             "numbers 1 2 3 and punctuation!?", "last line without newline"]
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(lines), encoding="utf-8")
    dst = tmp_path / "out" / "notes.private.txt"
    # The recall-first default replaces a few percent of other words too ("newline" reads as
    # a name to it); this test is about the file round trip, so it uses the precise detector.
    assert main(["privatize", str(src), "-o", str(dst), "--seed", "1", "--no-progress",
                 "--detector", PRECISE]) == 0
    out = dst.read_text(encoding="utf-8").split("\n")
    assert out[-1] == "" and len(out) - 1 == len(lines)
    out = out[:-1]
    words = out[0].split(" ")
    assert len(words) == 9 and words[2] == "met" and out[0].endswith(" in Berlin on Tuesday.")
    assert words[0] != "Angela" and words[1] != "Merkel" and words[4] != "Smith"
    assert out[1:] == lines[1:]  # no names: every other line byte for byte
    assert MERKEL not in capsys.readouterr().err


def test_jsonl_round_trip_keeps_other_fields(tmp_path):
    records = [
        {"id": 1, "text": MERKEL, "tags": ["a", "b"], "nested": {"x": 1.5, "y": None}},
        {"id": 2, "text": "Nothing personal here.", "lang": "en"},
        {"text": "unicode stays: naïve café — 5 €", "id": "three", "flag": True},
    ]
    src = tmp_path / "data.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                   encoding="utf-8")
    dst = tmp_path / "private.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--seed", "1", "--report",
                 "--no-progress"]) == 0
    out = [json.loads(line) for line in dst.read_text(encoding="utf-8").splitlines()]
    assert len(out) == len(records)
    for rec, got in zip(records, out):
        assert {k: v for k, v in got.items() if k not in ("text", "dp")} == \
            {k: v for k, v in rec.items() if k != "text"}
        assert list(got)[: len(rec)] == list(rec)  # field order kept
    assert out[0]["text"] != MERKEL and out[0]["dp"]["tokens_replaced"] == 4
    assert out[1]["text"] == records[1]["text"] and out[1]["dp"]["tokens_replaced"] == 0
    assert out[2]["text"] == records[2]["text"]


def test_csv_round_trip_keeps_columns(tmp_path):
    rows = [
        {"id": "1", "text": MERKEL, "label": "news"},
        {"id": "2", "text": 'A "quoted", comma-laden sentence', "label": "misc"},
        {"id": "3", "text": "", "label": "empty"},
    ]
    src = tmp_path / "table.csv"
    with open(src, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "text", "label"])
        writer.writeheader()
        writer.writerows(rows)
    assert main(["privatize", str(src), "--seed", "1", "--no-progress",
                 "--detector", PRECISE]) == 0  # see test_txt_round_trip
    dst = tmp_path / "table.private.csv"  # the default output name
    with open(dst, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == ["id", "text", "label"]
        out = list(reader)
    assert len(out) == len(rows)
    assert [r["id"] for r in out] == ["1", "2", "3"]
    assert [r["label"] for r in out] == ["news", "misc", "empty"]
    assert out[0]["text"] != MERKEL and out[0]["text"].endswith(" in Berlin on Tuesday.")
    assert out[1]["text"] == rows[1]["text"] and out[2]["text"] == ""


def test_custom_text_field_and_targets_all(tmp_path):
    src = tmp_path / "reviews.jsonl"
    src.write_text(json.dumps({"review": "great food, 5 stars", "text": "untouched"}) + "\n",
                   encoding="utf-8")
    dst = tmp_path / "o.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--text-field", "review",
                 "--targets", "all", "--seed", "2", "--no-progress"]) == 0
    got = json.loads(dst.read_text(encoding="utf-8"))
    assert got["text"] == "untouched"
    assert got["review"] != "great food, 5 stars" and ", 5 " in got["review"]


def test_stdin_in_process(monkeypatch, capsys):
    data = (json.dumps({"text": "no names at all", "k": 1}) + "\n\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["privatize", "-"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in out] == [{"text": "no names at all", "k": 1}]


# ================================================================= in-process: errors
def _write_jsonl(path, lines):
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def test_malformed_jsonl_exit_2_and_no_output(tmp_path, capsys):
    src = _write_jsonl(tmp_path / "in.jsonl", [
        json.dumps({"text": "fine"}).encode(),
        json.dumps({"text": "also fine"}).encode(),
        f'{{"text": "{CANARY} never closed'.encode(),
        json.dumps({"text": "after"}).encode(),
    ])
    dst = tmp_path / "out.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "in.jsonl" in err
    assert CANARY not in err
    assert not dst.exists()
    assert leftovers(tmp_path) == []


def test_malformed_input_does_not_clobber_existing_output(tmp_path, capsys):
    src = _write_jsonl(tmp_path / "in.jsonl", [b'{"text": "ok"}', b"[1, 2"])
    dst = tmp_path / "out.jsonl"
    dst.write_text("PRECIOUS\n", encoding="utf-8")
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress"]) == 2
    assert "line 2" in capsys.readouterr().err
    assert dst.read_text(encoding="utf-8") == "PRECIOUS\n"
    assert leftovers(tmp_path) == []


def test_stdin_error_midway_leaves_existing_output_alone(tmp_path, monkeypatch, capsys):
    data = b'{"text": "ok"}\n{"text": "ok too"}\nnot json\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    dst = tmp_path / "out.jsonl"
    dst.write_text("PRECIOUS\n", encoding="utf-8")
    assert main(["privatize", "-", "-o", str(dst)]) == 2
    assert "line 3" in capsys.readouterr().err
    assert dst.read_text(encoding="utf-8") == "PRECIOUS\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("lines, where, what", [
    ([b'{"body": "x"}'], "line 1", "text"),
    ([b'{"text": "x"}', b'{"text": 5}'], "line 2", "int"),
    ([b'{"text": "x"}', b'{"text": "y"}', b'["text"]'], "line 3", "object"),
])
def test_bad_records_name_the_line(tmp_path, capsys, lines, where, what):
    src = _write_jsonl(tmp_path / "in.jsonl", lines)
    assert main(["privatize", str(src), "-o", str(tmp_path / "o.jsonl"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert where in err and what in err
    assert not (tmp_path / "o.jsonl").exists()


def test_invalid_utf8_names_the_line_and_replace_works(tmp_path, capsys):
    src = tmp_path / "latin1.txt"
    src.write_bytes(b"the weather is nice\ncaf\xe9 au lait tonight\nall good\n")
    dst = tmp_path / "out.txt"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "UTF-8" in err and "--encoding-errors" in err
    assert "lait" not in err
    assert not dst.exists()
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress",
                 "--encoding-errors", "replace"]) == 0
    out = dst.read_text(encoding="utf-8").splitlines()
    assert len(out) == 3
    assert out[0] == "the weather is nice" and out[2] == "all good"
    assert "\ufffd" in out[1]


def test_invalid_utf8_in_jsonl_replace(tmp_path):
    src = _write_jsonl(tmp_path / "in.jsonl", [b'{"text": "caf\xe9 time", "id": 1}'])
    dst = tmp_path / "out.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress",
                 "--encoding-errors", "replace"]) == 0
    got = json.loads(dst.read_text(encoding="utf-8"))
    assert got["id"] == 1 and "\ufffd" in got["text"]


@pytest.mark.parametrize("args, name", [
    (["--epsilon", "0"], "epsilon"),
    (["--epsilon", "-1"], "epsilon"),
    (["--epsilon", "nan"], "epsilon"),
    (["--epsilon", "inf"], "epsilon"),
    (["--mechanism", "laplacian"], "laplacian"),
    (["--mechanism", '{"name": "mahalanobis", "lam": 2}'], "lam"),
    (["--index", "annoy"], "index"),
    (["--device", "quantum"], "device"),
    (["--targets", ","], "targets"),
    (["--batch-size", "0"], "batch_size"),
    (["--seed", "-1"], "seed"),
    (["--table", "/nonexistent/vectors.vec"], "table"),
])
def test_bad_parameters_exit_2_before_reading_input(tmp_path, capsys, args, name):
    # The input file does not exist: an error about the parameter proves it was checked first.
    missing = tmp_path / "never-read.jsonl"
    assert main(["privatize", str(missing), *args]) == 2
    err = capsys.readouterr().err
    assert name in err
    assert "never-read" not in err
    assert err.startswith("textdp: error:") and err.count("\n") == 1


def test_missing_input_file(tmp_path, capsys):
    assert main(["privatize", str(tmp_path / "absent.jsonl")]) == 2
    assert "absent.jsonl" in capsys.readouterr().err


def test_unsupported_format(tmp_path, capsys):
    src = tmp_path / "doc.xml"
    src.write_text("<a/>")
    assert main(["privatize", str(src)]) == 2
    assert "xml" in capsys.readouterr().err


def test_report_needs_jsonl(tmp_path, capsys):
    src = tmp_path / "a.txt"
    src.write_text("hello\n")
    assert main(["privatize", str(src), "--report"]) == 2
    assert "--report" in capsys.readouterr().err


def test_output_must_differ_from_input(tmp_path, capsys):
    src = tmp_path / "a.jsonl"
    src.write_text('{"text": "hello"}\n')
    assert main(["privatize", str(src), "-o", str(src)]) == 2
    assert "--output" in capsys.readouterr().err
    assert src.read_text() == '{"text": "hello"}\n'


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["privatize", "x.jsonl", "--epsilon", "lots"])
    assert info.value.code == 2
    assert "epsilon" in capsys.readouterr().err


def test_bench_forwards_its_arguments_to_the_suite(capfd):
    # An unknown benchmark name is the suite's own error (exit 2), so the options reached it.
    assert main(["bench", "--only", "no-such-benchmark"]) == 2
    assert "no-such-benchmark" in capfd.readouterr().err
