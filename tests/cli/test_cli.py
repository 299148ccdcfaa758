"""The ``textdp`` command line: a few real subprocess runs, the rest through ``main()``.

``main()`` in-process reuses the process-wide cached pipeline, table and index, so the file
round trips cost milliseconds; the subprocess runs check what only a real process shows (the
console script, stdin/stdout bytes, exit codes, stderr).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from textdp.cli import main

MERKEL = "Angela Merkel met John Smith in Berlin on Tuesday."
SEVEN = ["gaussian", "mahalanobis", "mlaplace", "projection", "santext", "tem", "vickrey"]
# Every built-in mechanism: the foundation's seven, NADP, DP-MLM, DPNR and the peers' four.
PEER = ["custext", "diffractor", "truncated_gumbel", "vickrey_mahalanobis"]
BUILT_IN = sorted([*SEVEN, "dpmlm", "dpnr", "nadp", *PEER])
pytestmark = pytest.mark.usefixtures("private_cache")
CANARY = "Quillonbrae"  # an invented word: in no table, so any echo of it is a leak


def run_cli(*args: str, stdin: bytes = b"", timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "textdp.cli", *args], input=stdin,
                          capture_output=True, timeout=timeout, check=False)


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ================================================================= real processes
@pytest.mark.slow  # a real textdp process
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


@pytest.mark.slow  # a real textdp process
def test_quiet_run_writes_nothing_but_the_output():
    """With --no-progress a fresh process prints no loading chatter (transformers' "Loading
    weights" bar of the name tagger used to reach stderr) and only the text on stdout."""
    proc = run_cli("privatize", "-", "--format", "txt", "--seed", "1", "--no-progress",
                   stdin=(MERKEL + "\n").encode())
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr[-300:]
    assert len(proc.stdout.decode("utf-8").splitlines()) == 1


@pytest.mark.slow  # a real textdp process
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


@pytest.mark.slow  # a real textdp process
def test_subprocess_bad_epsilon_exits_2_before_reading_stdin():
    proc = run_cli("privatize", "-", "--epsilon", "0",
                   stdin=f'{{"text": "{CANARY} broken json'.encode())
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "epsilon" in err and "line" not in err  # the parameter, not the input, failed
    assert CANARY not in err
    assert proc.stdout == b""


@pytest.mark.slow  # a real textdp process
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


def test_mechanisms_states_exactly_what_holds_for_a_configuration(capsys):
    """``textdp mechanisms`` with configuration flags prints what that configuration's reports
    state (issue 34): each condition appears exactly when its setting releases it."""
    from textdp import Privatizer

    assert main(["mechanisms", "--consistency", "dataset", "--report-spans"]) == 0
    out = capsys.readouterr().out
    stated = Privatizer(consistency="dataset", report_spans=True).config
    assert "repeated names" in out and "with report_spans" in out and "bfloat16" not in out
    assert f"ε = {stated.epsilon:g}" in out
    assert main(["mechanisms", "--consistency", "mention", "--replace", "tag"]) == 0
    out = capsys.readouterr().out
    assert "repeated names" not in out and "report_spans" not in out
    assert main(["mechanisms", "--representation", "contextual", "--targets", "all"]) == 0
    out = capsys.readouterr().out
    assert "scope: text" in out and "bfloat16" in out  # the reduced-precision condition


# ================================================================= in-process: round trips
# A detector that replaces names and (nearly) nothing else, for byte-for-byte checks.
PRECISE = "trained+rules+handles"


#: A name, its run-together form, and an address, profile URL or hashtag spelt from it: each
#: crashed with ``KeyError: (0, 'tomlee')`` before the fix (issue 34, item 5), and the CLI
#: printed that lower-cased name and wrote nothing.
SPELT_FROM_NAMES = [
    "Tom Lee and linkedin.com/in/tomlee and TomLee",
    "Tom Lee and @tomlee and TomLee",
    "Tom Lee and tomlee@acme.com and TomLee",
    "Tom Lee and github.com/tomlee and TomLee",
    "Mary Ann Smith, maryann.smith@acme.org and MaryAnn",
    "Follow Tom Lee at #TomLee or twitter.com/tomlee, TomLee",
]


@pytest.mark.slow  # a real textdp process
def test_subprocess_addresses_spelt_from_run_together_names_are_written(tmp_path):
    src = tmp_path / "spelt.txt"
    src.write_text("\n".join(SPELT_FROM_NAMES) + "\n", encoding="utf-8")
    dst = tmp_path / "spelt.private.txt"
    proc = run_cli("privatize", str(src), "-o", str(dst), "--seed", "1", "--no-progress")
    err = proc.stderr.decode().casefold()
    for name in ("tomlee", "maryann", "tom", "lee", "smith"):
        assert name not in err
    assert proc.returncode == 0
    out = dst.read_text(encoding="utf-8").splitlines()
    assert len(out) == len(SPELT_FROM_NAMES)
    for line in out:
        assert not re.search(r"(?i)tom|lee\b|maryann|smith", line)


def test_an_internal_error_is_one_line_without_the_text(tmp_path, capsys, monkeypatch):
    """Any error that textdp did not raise on purpose (a KeyError shows its key) reaches the
    user as its type and place only (textdp.errors)."""
    from textdp.pipeline.substitution import Substituter

    def broken(self, *args, **kwargs):
        return {}[(0, CANARY.lower())]

    monkeypatch.setattr(Substituter, "substitute", broken)
    src = tmp_path / "one.txt"
    src.write_text(f"{CANARY} met Angela Merkel.\n", encoding="utf-8")
    dst = tmp_path / "one.private.txt"
    assert main(["privatize", str(src), "-o", str(dst), "--seed", "1", "--no-progress",
                 "--detector", PRECISE]) == 1
    err = capsys.readouterr().err
    assert "KeyError" in err and "withheld" in err
    assert CANARY.lower() not in err.lower() and not dst.exists()


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


@pytest.mark.parametrize("flag", ["--index", "--representation", "--precision", "--surface",
                                  "--budget-policy", "--consistency", "--replace"])
def test_a_value_outside_a_settings_choices_is_a_usage_error(tmp_path, capsys, flag):
    # The choices come from the setting's field (textdp.settings): argparse refuses the value,
    # naming the option and the choices, before the input is opened.
    with pytest.raises(SystemExit) as exc:
        main(["privatize", str(tmp_path / "never-read.jsonl"), flag, "annoy"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: invalid choice: 'annoy'" in err and "never-read" not in err


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


# ================================================================= issue 22 / 17: input and output
# The I/O tests below go through main() in-process with the precise detector, or through a real
# process whose Privatizer is a stand-in (FAKE_MAIN): they test the plumbing (signals, pipes,
# /dev/stdin), not the mechanism, and a real model load would cost each one seconds.
FAKE_MAIN = r"""
import os, sys, time, types
import textdp.privatizer

class StandIn:
    epsilon = 0.3

    def __init__(self, config=None, **kwargs):
        pass

    def privatize(self, texts):
        time.sleep(float(os.environ.get("TEXTDP_TEST_DELAY", "0")))
        report = types.SimpleNamespace(to_dict=lambda: {"tokens_replaced": 0})
        return [types.SimpleNamespace(text=t.upper(), report=report) for t in texts]

textdp.privatizer.Privatizer = StandIn
from textdp.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _default_sigint() -> None:
    # A job started in the background by a non-interactive shell inherits SIGINT ignored, and
    # Python keeps it ignored; the child must see Ctrl-C as a user would.

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)  # nohup would have them ignored
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def start_fake(*args: str, stdin: int | None = None, delay: float = 0.0) -> subprocess.Popen:

    env = {**os.environ, "TEXTDP_TEST_DELAY": str(delay)}
    return subprocess.Popen([sys.executable, "-c", FAKE_MAIN, *args], stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            preexec_fn=_default_sigint)


def _jsonl(path, texts):
    path.write_text("".join(json.dumps({"text": t, "i": i}) + "\n" for i, t in enumerate(texts)),
                    encoding="utf-8")
    return path


def _read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def _strict_json(line):
    def refuse(constant):
        raise AssertionError(f"non-JSON number {constant}")

    return json.loads(line, parse_constant=refuse)


# ---------------------------------------------------------------- 1. CSV through a real reader
def test_csv_quoted_line_breaks_stay_one_record(tmp_path, capsys):
    # Read line by line, both physical lines have 3 fields: "John Smith" became an id.
    src = tmp_path / "t.csv"
    src.write_bytes(b'id,note,text\n1,hello,"Angela Merkel met\nJohn Smith, Jane, Doe"\n'
                    b'2,bye,"plain"\n')
    dst = tmp_path / "o.csv"
    assert main(["privatize", str(src), "-o", str(dst), "--seed", "1", "--no-progress",
                 "--detector", PRECISE]) == 0
    rows = _read_csv(dst)
    assert rows[0] == ["id", "note", "text"]
    assert [r[:2] for r in rows[1:]] == [["1", "hello"], ["2", "bye"]]
    assert "\n" in rows[1][2] and rows[1][2].count(",") == 2 and rows[2][2] == "plain"
    assert "Merkel" not in rows[1][2]
    assert "Merkel" not in capsys.readouterr().err


def test_csv_errors_name_the_first_line_of_the_record(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_bytes(b'id,text\n1,"two\nlines"\n2,"three\nmore\nlines",extra\n')
    assert main(["privatize", str(src), "-o", str(tmp_path / "o.csv"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "line 4: 3 fields, the header has 2" in err
    assert "lines" not in err.split("error:")[1] and not (tmp_path / "o.csv").exists()
    src.write_bytes(b'id,text\n1,"unclosed\n2,x\n')  # strict: no field swallowing the rest
    assert main(["privatize", str(src), "-o", str(tmp_path / "o.csv"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "starting at line 2" in err and "unclosed" not in err


# ---------------------------------------------------------------- 2. errors carry no data
@pytest.mark.parametrize("name, content, fmt", [
    ("headerless.csv", f"{MERKEL} {CANARY},1\n", None),
    ("data.jsonl", json.dumps({"text": f"{MERKEL} {CANARY}", "id": 1}) + "\n", "csv"),
])
def test_missing_column_error_names_the_count_not_the_cells(tmp_path, capsys, name, content,
                                                            fmt):
    src = tmp_path / name
    src.write_text(content, encoding="utf-8")
    args = ["privatize", str(src), "-o", str(tmp_path / "o.csv"), "--no-progress"]
    assert main([*args, *(["--format", fmt] if fmt else [])]) == 2
    err = capsys.readouterr().err
    assert "no column 'text'" in err and "2 columns" in err and "line 1" in err
    for word in (CANARY, "Merkel", "Smith", "Angela"):
        assert word not in err


# ---------------------------------------------------------------- 3. lone surrogates
@pytest.mark.parametrize("record, what", [
    ('{"text": "' + CANARY + '\\ud800 Merkel"}', "field 'text'"),
    ('{"text": "fine", "note": "' + CANARY + '\\udfff"}', "other than 'text'"),
])
def test_lone_surrogate_is_refused_naming_the_line(tmp_path, capsys, record, what):
    src = _write_jsonl(tmp_path / "in.jsonl", [b'{"text": "ok"}', record.encode()])
    dst = tmp_path / "o.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress",
                 "--detector", PRECISE]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and what in err and "surrogate" in err
    if what.startswith("field"):
        assert "character 11" in err
    assert CANARY not in err and "Merkel" not in err and "UnicodeEncodeError" not in err
    assert not dst.exists() and leftovers(tmp_path) == []


# ---------------------------------------------------------------- 4. input read once
def test_fifo_input_is_read_once(tmp_path):

    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    data = "".join(json.dumps({"text": t}) + "\n" for t in ("the weather is nice", "no names"))

    def writer():
        with open(fifo, "w", encoding="utf-8") as f:
            f.write(data)

    def unblock():  # a second open() of the FIFO waits for a writer that never comes
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=writer, daemon=True).start()
    watchdog = threading.Timer(30, unblock)
    watchdog.start()
    dst = tmp_path / "o.jsonl"
    try:
        assert main(["privatize", str(fifo), "--format", "jsonl", "-o", str(dst),
                     "--no-progress", "--detector", PRECISE]) == 0
    finally:
        watchdog.cancel()
    assert [json.loads(x)["text"] for x in dst.read_text().splitlines()] == \
        ["the weather is nice", "no names"]


@pytest.mark.slow  # a real textdp process
def test_dev_stdin_is_read_once(tmp_path):
    # A pipe on /dev/stdin (like <(...)): read twice, the second pass saw nothing (empty output).
    dst = tmp_path / "o.jsonl"
    proc = start_fake("privatize", "/dev/stdin", "--format", "jsonl", "-o", str(dst),
                      stdin=subprocess.PIPE)
    _, err = proc.communicate(b'{"text": "abc"}\n{"text": "def"}\n', timeout=120)
    assert proc.returncode == 0, err.decode()
    assert [json.loads(x)["text"] for x in dst.read_text().splitlines()] == ["ABC", "DEF"]


# ---------------------------------------------------------------- 5. check first, then write
def test_stdin_malformed_line_writes_nothing_to_stdout(monkeypatch, capsys):
    good = json.dumps({"text": "the weather is nice"}).encode()
    data = b"\n".join([good, good, good, b"not json", b""])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["privatize", "-", "--batch-size", "2", "--detector", PRECISE]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "line 4" in err


def _interrupt_second_batch(monkeypatch):
    from textdp.privatizer import Privatizer

    real = Privatizer.privatize
    calls = []

    def privatize(self, texts):
        calls.append(len(texts))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, texts)

    monkeypatch.setattr(Privatizer, "privatize", privatize)


def test_interrupt_message_says_what_was_written_to_a_stream(tmp_path, monkeypatch, capsys):
    src = _jsonl(tmp_path / "in.jsonl", ["the weather is nice"] * 5)
    _interrupt_second_batch(monkeypatch)
    assert main(["privatize", str(src), "-o", "-", "--batch-size", "2", "--no-progress",
                 "--detector", PRECISE]) == 130
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 2
    assert "2 of 5 records had been written to standard output" in err
    assert "no output was written" not in err


def test_interrupt_message_for_a_file_output(tmp_path, monkeypatch, capsys):
    src = _jsonl(tmp_path / "in.jsonl", ["the weather is nice"] * 5)
    dst = tmp_path / "o.jsonl"
    dst.write_text("PRECIOUS\n")
    _interrupt_second_batch(monkeypatch)
    assert main(["privatize", str(src), "-o", str(dst), "--batch-size", "2", "--no-progress",
                 "--detector", PRECISE]) == 130
    assert f"{dst} was left as it was" in capsys.readouterr().err
    assert dst.read_text() == "PRECIOUS\n" and leftovers(tmp_path) == []


# ---------------------------------------------------------------- 6. CSV details and BOMs
@pytest.mark.parametrize("header, expected", [
    (b"id,text,text", "column 'text' appears at positions 2 and 3"),
    (b"text,a,b,a", "columns 2 and 4 of 4"),
])
def test_csv_duplicate_columns_are_refused(tmp_path, capsys, header, expected):
    src = tmp_path / "t.csv"
    src.write_bytes(header + b"\n" + b",".join([b"x"] * len(header.split(b","))) + b"\n")
    assert main(["privatize", str(src), "-o", str(tmp_path / "o.csv"), "--no-progress"]) == 2
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_csv_header_only_keeps_the_header(tmp_path):
    src = tmp_path / "t.csv"
    src.write_bytes(b"id,text,label\n")
    assert main(["privatize", str(src), "-o", str(tmp_path / "o.csv"), "--no-progress",
                 "--detector", PRECISE]) == 0
    assert _read_csv(tmp_path / "o.csv") == [["id", "text", "label"]]


def test_csv_trailing_blank_lines_and_bom(tmp_path):
    src = tmp_path / "t.csv"
    src.write_bytes(b"\xef\xbb\xbfid,text\n1,the weather is nice\n\n\n")  # Excel "CSV UTF-8"
    dst = tmp_path / "o.csv"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress",
                 "--detector", PRECISE]) == 0
    assert not dst.read_bytes().startswith(b"\xef\xbb\xbf")
    assert _read_csv(dst) == [["id", "text"], ["1", "the weather is nice"]]


@pytest.mark.parametrize("name, content", [
    ("t.jsonl", b'\xef\xbb\xbf{"text": "the weather is nice"}\n'),
    ("t.txt", b"\xef\xbb\xbfthe weather is nice\n"),
])
def test_bom_is_stripped_in_jsonl_and_txt(tmp_path, name, content):
    src = tmp_path / name
    src.write_bytes(content)
    dst = tmp_path / f"o{src.suffix}"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress",
                 "--detector", PRECISE]) == 0
    out = dst.read_bytes()
    assert not out.startswith(b"\xef\xbb\xbf") and b"the weather is nice" in out


# ---------------------------------------------------------------- 7. --report-field
def test_report_refuses_to_overwrite_an_existing_field(tmp_path, capsys):
    src = _write_jsonl(tmp_path / "in.jsonl", [b'{"text": "hello"}',
                                               b'{"text": "hi", "dp": "theirs"}'])
    dst = tmp_path / "o.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--report", "--no-progress",
                 "--detector", PRECISE]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "'dp'" in err and "--report-field" in err
    assert not dst.exists()
    assert main(["privatize", str(src), "-o", str(dst), "--report", "--report-field", "privacy",
                 "--no-progress", "--detector", PRECISE]) == 0
    out = [json.loads(x) for x in dst.read_text().splitlines()]
    assert out[1]["dp"] == "theirs" and out[1]["privacy"]["tokens_replaced"] == 0


@pytest.mark.parametrize("args, expected", [
    (["--report-field", "x"], "--report-field needs --report"),
    (["--report", "--report-field", "text"], "must differ from --text-field"),
])
def test_report_field_usage_errors(tmp_path, capsys, args, expected):
    src = _write_jsonl(tmp_path / "in.jsonl", [b'{"text": "hello"}'])
    assert main(["privatize", str(src), "-o", str(tmp_path / "o.jsonl"), *args]) == 2
    assert expected in capsys.readouterr().err


# ---------------------------------------------------------------- 8. ε bounds, JSON numbers
def test_huge_epsilon_is_refused_before_reading(tmp_path, capsys):
    from textdp.cli import MAX_EPSILON

    missing = tmp_path / "never-read.jsonl"
    assert main(["privatize", str(missing), "--epsilon", "1e308", "--report"]) == 2
    err = capsys.readouterr().err
    assert "epsilon" in err and f"{MAX_EPSILON:g}" in err and "never-read" not in err
    assert main(["privatize", str(missing), "--mechanism",
                 '{"name": "mlaplace", "epsilon": 1e200}']) == 2
    assert "epsilon" in capsys.readouterr().err


def test_epsilon_above_the_ceiling_warns_and_report_is_json(tmp_path, capsys):
    from textdp.cli import EPSILON_WARNING_CEILING

    src = _jsonl(tmp_path / "in.jsonl", [MERKEL])
    dst = tmp_path / "o.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--epsilon", "1e6", "--report",
                 "--seed", "1", "--no-progress", "--detector", PRECISE]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and f"{EPSILON_WARNING_CEILING:g}" in err
    got = _strict_json(dst.read_text())
    assert got["dp"]["epsilon_total"] == pytest.approx(got["dp"]["tokens_replaced"] * 1e6)


def test_non_finite_numbers_in_records_are_refused(tmp_path, capsys):
    src = _write_jsonl(tmp_path / "in.jsonl", [b'{"text": "hi", "n": 1}',
                                               b'{"text": "hi", "n": 1e999}'])
    dst = tmp_path / "o.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress"]) == 2
    assert "line 2" in capsys.readouterr().err and not dst.exists()
    _write_jsonl(src, [b'{"text": "hi", "n": NaN}'])
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress"]) == 2
    assert "line 1" in capsys.readouterr().err and not dst.exists()


# ---------------------------------------------------------------- 9. output targets
def _privatize_to(tmp_path, dst, *extra):
    src = _jsonl(tmp_path / "in.jsonl", ["the weather is nice", "no names"])
    return main(["privatize", str(src), "-o", str(dst), "--no-progress", "--detector", PRECISE,
                 *extra])


def test_symlink_output_keeps_the_link_and_writes_its_target(tmp_path):
    real = tmp_path / "data" / "real.jsonl"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert _privatize_to(tmp_path, link) == 0
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert len(real.read_text().splitlines()) == 2
    assert leftovers(tmp_path) == [] and leftovers(real.parent) == []


def test_fifo_output_is_streamed_not_replaced(tmp_path):

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []

    def reader():
        with open(fifo, "rb") as f:
            got.append(f.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    assert _privatize_to(tmp_path, fifo) == 0
    thread.join(30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # not replaced by a regular file
    assert got and [json.loads(x)["text"] for x in got[0].splitlines()] == \
        ["the weather is nice", "no names"]
    assert leftovers(tmp_path) == []


def test_dash_output_is_stdout(tmp_path, capsys):
    assert _privatize_to(tmp_path, "-") == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert not (tmp_path / "-").exists()


def test_disk_full_is_reported_and_the_old_file_kept(tmp_path, monkeypatch, capsys):

    class Full(io.RawIOBase):
        def __init__(self, fd):
            self.fd = fd

        def writable(self):
            return True

        def write(self, b):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def fileno(self):
            return self.fd

        def close(self):
            if not self.closed:
                os.close(self.fd)
            super().close()

    def full_fdopen(fd, mode="r", **kwargs):
        buffered = io.BufferedWriter(Full(fd))
        return buffered if "b" in mode else io.TextIOWrapper(buffered, **kwargs)

    monkeypatch.setattr("textdp.files._fdopen", full_fdopen, raising=False)
    dst = tmp_path / "o.jsonl"
    dst.write_text("PRECIOUS\n")
    assert _privatize_to(tmp_path, dst) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and str(dst) in err and "left as it was" in err
    assert err.count("\n") == 1
    assert dst.read_text() == "PRECIOUS\n" and leftovers(tmp_path) == []


def test_permission_denied_is_reported(tmp_path, monkeypatch, capsys):

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", kwargs.get("dir"))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    assert _privatize_to(tmp_path, tmp_path / "o.jsonl") == 2
    err = capsys.readouterr().err
    assert "Permission denied" in err and "o.jsonl" in err and err.count("\n") == 1


def test_output_folder_that_cannot_be_made(tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    assert _privatize_to(tmp_path, tmp_path / "afile" / "sub" / "o.jsonl") == 2
    err = capsys.readouterr().err
    assert err.startswith("textdp: error:") and "o.jsonl" in err and err.count("\n") == 1


def test_output_mode_follows_the_umask(tmp_path):

    old = os.umask(0o027)
    try:
        assert _privatize_to(tmp_path, tmp_path / "new.jsonl") == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o640
    existing = tmp_path / "existing.jsonl"
    existing.write_text("old\n")
    existing.chmod(0o604)
    assert _privatize_to(tmp_path, existing) == 0
    assert stat.S_IMODE(existing.stat().st_mode) == 0o604  # a replaced file keeps its mode


@pytest.mark.slow  # a real textdp process per signal
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"])
def test_signal_mid_file_leaves_no_output_and_no_temporary(tmp_path, signame):
    """SIGHUP (a closed terminal) and SIGQUIT left the temporary file (issue 37)."""

    src = _jsonl(tmp_path / "in.jsonl", [f"text {i}" for i in range(200)])
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    dst = out_dir / "o.jsonl"
    proc = start_fake("privatize", str(src), "-o", str(dst), "--batch-size", "1",
                      "--no-progress", delay=0.05)
    try:
        deadline = time.monotonic() + 60
        while not leftovers(out_dir) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if not leftovers(out_dir):
            proc.kill()
            pytest.fail(f"the run never started writing (exit {proc.wait()}): "
                        f"{proc.stderr.read().decode()[-2000:]}")
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert leftovers(out_dir) == [] and not dst.exists()
    if signame != "SIGINT":
        assert proc.returncode == -getattr(signal, signame)
    else:
        assert proc.returncode == 130
        assert f"{dst} was not created" in err.decode()


def test_budget_refusal_names_the_input_line(tmp_path, capsys):
    # The privatizer names a row of its batch; the command line names the input's line.
    src = _jsonl(tmp_path / "in.jsonl", ["the weather is nice", "still nothing", MERKEL])
    dst = tmp_path / "o.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--max-epsilon-per-text", "0.3",
                 "--budget-policy", "refuse", "--no-progress", "--detector", PRECISE]) == 2
    err = capsys.readouterr().err
    assert "in.jsonl, line 3: " in err and "row" not in err and "Merkel" not in err
    assert not dst.exists() and leftovers(tmp_path) == []


# ================================================================= issue 20: CLI details
def test_version(capsys):
    from textdp import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"textdp {__version__}"


@pytest.mark.parametrize("data", [b"Anna Smith called\n", b"42\n"])
def test_plain_text_on_stdin_says_how_to_pass_it(monkeypatch, capsys, data):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["privatize", "-", "--detector", PRECISE]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "line 1" in err and "--format txt" in err and "Anna" not in err


def test_plain_text_on_stdin_with_format_txt(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"the weather is nice\n")))
    assert main(["privatize", "-", "--format", "txt", "--detector", PRECISE]) == 0
    assert capsys.readouterr().out == "the weather is nice\n"


def test_jsonl_file_errors_carry_no_stdin_hint(tmp_path, capsys):
    src = _write_jsonl(tmp_path / "in.jsonl", [b"not json"])
    assert main(["privatize", str(src), "--no-progress"]) == 2
    assert "--format txt" not in capsys.readouterr().err


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_csv_line_endings_are_kept(tmp_path, newline):
    src = tmp_path / "t.csv"
    rows = ["id,text", "1,the weather is nice", '2,"two\nlines"', "3,"]
    src.write_bytes(newline.join(rows).encode() + newline.encode())
    dst = tmp_path / "o.csv"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress",
                 "--detector", PRECISE]) == 0
    assert dst.read_bytes() == src.read_bytes()  # nothing to replace: byte for byte


def test_epsilon_auto_prints_the_chosen_epsilon(tmp_path, monkeypatch, capsys):
    from types import SimpleNamespace

    import textdp.calibration

    calls = []

    def fake_calibrate(mechanism, table, *, target_unchanged, clip_norm):
        calls.append(target_unchanged)
        return SimpleNamespace(epsilon=0.4321, target=target_unchanged, cached=False)

    monkeypatch.setattr(textdp.calibration, "calibrate_epsilon", fake_calibrate)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"text": "the weather is nice"}) + "\n", encoding="utf-8")
    assert main(["privatize", str(src), "--epsilon", "auto", "--target-unchanged", "0.05",
                 "--no-progress", "--detector", PRECISE]) == 0
    err = capsys.readouterr().err
    assert calls == [0.05]
    assert re.search(r"--epsilon auto: epsilon = 0\.4321 for P\(unchanged\) = 0\.05 "
                     r"\(calibrated on the table in \d+\.\d s\)", err), err


def test_epsilon_auto_checks_the_input_before_calibrating(tmp_path, capsys, monkeypatch):
    import textdp.calibration

    calls = []
    monkeypatch.setattr(textdp.calibration, "calibrate_epsilon",
                        lambda *a, **k: calls.append(1))
    missing = tmp_path / "absent.jsonl"
    assert main(["privatize", str(missing), "--epsilon", "auto"]) == 2
    assert "absent.jsonl" in capsys.readouterr().err
    assert calls == []  # the calibration (seconds) never ran for a file that is not there


def test_json_null_text_passes_through_as_null(tmp_path):
    src = tmp_path / "data.jsonl"
    src.write_text('{"id": 1, "text": null}\n{"id": 2, "text": "Angela Merkel spoke."}\n',
                   encoding="utf-8")
    dst = tmp_path / "out.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--report", "--no-progress"]) == 0
    first, second = [json.loads(line) for line in dst.read_text().splitlines()]
    assert first == {"id": 1, "text": None, "dp": None}
    assert second["dp"]["tokens_replaced"] == 2 and "Merkel" not in second["text"]


def test_replace_and_keyed_consistency_options(tmp_path):
    src = tmp_path / "data.jsonl"
    src.write_text("".join(json.dumps({"pid": p, "text": t}) + "\n" for p, t in
                           [("a", "Angela Merkel spoke."), ("a", "Merkel left."),
                            ("b", "Merkel left.")]), encoding="utf-8")
    key = tmp_path / "key"
    key.write_bytes(b"a secret key of more than sixteen bytes\n")
    outs = []
    for name in ("one.jsonl", "two.jsonl"):
        dst = tmp_path / name
        assert main(["privatize", str(src), "-o", str(dst), "--consistency", "dataset",
                     "--key-file", str(key), "--scope-field", "pid", "--no-progress"]) == 0
        outs.append([json.loads(line)["text"] for line in dst.read_text().splitlines()])
    assert outs[0] == outs[1]  # the same key: the same pseudonyms, run after run
    assert outs[0][0].split(" ")[1] == outs[0][1].split(" ")[0]  # scope a
    dst = tmp_path / "tag.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--replace", "tag",
                 "--no-progress"]) == 0
    assert json.loads(dst.read_text().splitlines()[0])["text"] == "[PERSON] spoke."


def test_report_spans_list_offsets_not_text(tmp_path):
    src = tmp_path / "data.jsonl"
    src.write_text('{"text": "Angela Merkel spoke."}\n', encoding="utf-8")
    dst = tmp_path / "out.jsonl"
    assert main(["privatize", str(src), "-o", str(dst), "--report", "--report-spans",
                 "--no-progress"]) == 0
    rec = json.loads(dst.read_text())
    assert [(s["start"], s["end"], s["label"]) for s in rec["dp"]["spans"]] == \
        [(0, 13, "PERSON")] or [(s["start"], s["end"]) for s in rec["dp"]["spans"]] == \
        [(0, 6), (7, 13)]
    assert "Merkel" not in json.dumps(rec["dp"])


def test_an_epsilon_whose_noise_overflows_is_refused_before_reading(tmp_path, capsys):
    """Issue 37: --epsilon 1e-300 ran with rc 0 and turned every token into one word."""
    missing = tmp_path / "never-read.jsonl"
    assert main(["privatize", str(missing), "--epsilon", "1e-300"]) == 2
    err = capsys.readouterr().err
    assert "epsilon must be at least" in err and "never-read" not in err


class _InterruptedStdout(io.StringIO):
    """Standard output whose third write is interrupted after its text entered the buffer, as
    Ctrl-C during a write blocked on a slow pipe is: the record reaches the output at exit."""

    def write(self, text: str) -> int:
        n = super().write(text)
        if self.getvalue().count("\n") == 3:
            raise KeyboardInterrupt
        return n


def test_interrupt_inside_a_write_counts_the_record_being_written(tmp_path, monkeypatch,
                                                                  capsys):
    """Issue 37: the message said 2 records had been written when the output held 3."""
    src = _jsonl(tmp_path / "in.jsonl", ["the weather is nice"] * 5)
    stdout = _InterruptedStdout()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["privatize", str(src), "-o", "-", "--no-progress", "--detector", PRECISE]) \
        == 130
    assert stdout.getvalue().count("\n") == 3
    assert "3 of 5 records had been written to standard output" in capsys.readouterr().err


def test_a_symlink_loop_as_output_is_a_one_line_error(tmp_path, capsys):
    """Issue 37: RuntimeError('Symlink loop') came out as a traceback."""
    src = _jsonl(tmp_path / "in.jsonl", ["the weather is nice"])
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert main(["privatize", str(src), "-o", str(tmp_path / "a"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "symbolic links" in err


@pytest.mark.parametrize("name", ["in.jsonl", "in.csv", "in.txt"])
def test_an_empty_input_gives_an_empty_output_in_every_format(tmp_path, capsys, name):
    """Issue 37 asked that an empty CSV be handled as an empty JSONL is: an empty output
    (no records, no header to check the text field against), exit 0."""
    src = tmp_path / name
    src.write_bytes(b"")
    dst = tmp_path / f"out-{name}"
    assert main(["privatize", str(src), "-o", str(dst), "--no-progress"]) == 0
    assert dst.read_bytes() == b""


def test_a_detector_with_every_word_a_target_is_refused_before_reading(tmp_path, capsys):
    missing = tmp_path / "never-read.jsonl"
    assert main(["privatize", str(missing), "--targets", "all", "--detector", "spacy"]) == 2
    err = capsys.readouterr().err
    assert "detector" in err and "never-read" not in err
