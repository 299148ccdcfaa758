"""Helpers shared by the benchmarks: evaluation data, timing with medians, machine printout.

The data sets live outside the repository, in ``../shared/data`` relative to the repository
root (``TEXTDP_SHARED_DATA`` overrides it); they are read here and never copied into the
package. Run benchmarks from anywhere: ``python bench/<name>.py`` or ``python -m bench.<name>``.

Timings on a shared machine are noisy, so every figure is the median of several repeats, and
figures that are compared (a method against a baseline) are measured interleaved in the same
repeat loop, so a burst of load from another job hits both.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = REPO_ROOT / "bench" / "results"  # git-ignored


def shared_data_dir() -> Path:
    """``../shared/data`` relative to the repository root (or ``$TEXTDP_SHARED_DATA``)."""
    env = os.environ.get("TEXTDP_SHARED_DATA")
    path = Path(env) if env else REPO_ROOT.parent / "shared" / "data"
    if not path.is_dir():
        raise SystemExit(f"evaluation data not found at {path} (set TEXTDP_SHARED_DATA)")
    return path


# ---------------------------------------------------------------------------- tokenization
@functools.lru_cache(maxsize=1)
def _corpus_pipeline() -> Any:
    from textdp.defaults import fresh_pipeline

    return fresh_pipeline()


def corpus_docs(texts: Sequence[str]) -> list[Any]:
    """spaCy docs of ``texts`` for timing the substitution stage alone, made by a copy of the
    default pipeline of the benchmark's own. Tokenizing the corpus with the privatizer's
    shared pipeline, outside a memory zone, would keep a lexeme and a tokenizer-cache entry
    for each of its words and flatter every end-to-end figure timed after it: a user's
    process sees new text, whose words only textdp's warm-up with public words
    (:func:`textdp.tokenization.warm_tokenizer`) has prepared."""
    return list(_corpus_pipeline().tokenizer.pipe(texts))


# ---------------------------------------------------------------------------- data readers
@dataclass(frozen=True)
class ConllSentence:
    """One CoNLL-2003 sentence: tokens and their POS, chunk and NER (IOB1) tags."""

    tokens: tuple[str, ...]
    pos: tuple[str, ...]
    chunk: tuple[str, ...]
    ner: tuple[str, ...]

    @property
    def text(self) -> str:
        """The tokens joined by single spaces (CoNLL keeps no original whitespace)."""
        return " ".join(self.tokens)


def read_conll(split: str = "train", path: str | os.PathLike[str] | None = None
               ) -> list[ConllSentence]:
    """Sentences of CoNLL-2003 English (``split``: ``train`` → eng.train, ``dev`` → eng.testa).

    The file has 4 columns ``token POS chunk NER`` and a blank line between sentences;
    ``-DOCSTART-`` lines separate documents and are skipped.
    """
    if path is None:
        name = {"train": "eng.train", "dev": "eng.testa", "testa": "eng.testa"}[split]
        path = shared_data_dir() / "conll2003" / name
    sentences: list[ConllSentence] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            sentences.append(ConllSentence(*(tuple(col) for col in zip(*rows))))
            rows.clear()

    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0] == "-DOCSTART-":
                flush()
            elif len(parts) >= 4:
                rows.append(parts[:4])
    flush()
    return sentences


def read_sst2(split: str = "train", path: str | os.PathLike[str] | None = None
              ) -> list[tuple[str, int]]:
    """GLUE SST-2 rows ``(sentence, label)`` (``train``, ``dev``, or ``test`` = the 872
    labelled GLUE dev sentences); TSV with header ``sentence<TAB>label``."""
    if path is None:
        path = shared_data_dir() / "sst2" / f"{split}.tsv"
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row["sentence"], int(row["label"])) for row in reader]


def read_sst2_sentences(split: str = "train") -> list[str]:
    """SentEval's sentence-level SST-2 (``stsa.binary.<split>``: train / dev / test)."""
    path = shared_data_dir() / "senteval" / f"stsa.binary.{split}"
    with open(path, encoding="utf-8") as f:
        return [line.split(" ", 1)[1].strip() for line in f if " " in line]


def take_until(texts: Sequence[str], count: Callable[[str], int], minimum: int
               ) -> list[str]:
    """The first texts whose ``count`` adds up to at least ``minimum`` (all if never)."""
    out, total = [], 0
    for t in texts:
        if total >= minimum:
            break
        out.append(t)
        total += count(t)
    return out


# ---------------------------------------------------------------------------- timing
@dataclass
class Timing:
    """Wall-clock seconds of repeated runs of one measurement, and the CPU seconds the whole
    process used meanwhile (all its threads): on a machine shared with other jobs the wall
    time depends on their load, CPU time much less."""

    name: str
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu_seconds) if self.cpu_seconds else float("nan")

    def rate(self, items: int) -> float:
        """Items per second at the median time."""
        return items / self.median

    def cpu_rate(self, items: int) -> float:
        """Items per CPU-second (all threads) at the median CPU time."""
        return items / self.median_cpu

    def as_dict(self, items: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"seconds": [round(s, 4) for s in self.seconds],
                               "median_s": round(self.median, 4)}
        if self.cpu_seconds:
            out["cpu_seconds"] = [round(s, 4) for s in self.cpu_seconds]
        if items is not None:
            out["per_s"] = round(self.rate(items), 1)
            if self.cpu_seconds:
                out["per_cpu_s"] = round(self.cpu_rate(items), 1)
        return out


def time_once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds one call of ``fn`` took, and its result."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def time_once_cpu(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall seconds and process CPU seconds of one call of ``fn``, and its result."""
    cpu = time.process_time()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, time.process_time() - cpu, result


def time_interleaved(fns: dict[str, Callable[[], Any]], repeats: int = 3, warmup: bool = True,
                     log: Callable[[str], None] | None = None) -> dict[str, Timing]:
    """Time several functions round-robin, ``repeats`` times each (plus one warm-up call).

    Interleaving makes the ratios between them robust to load that comes and goes.
    """
    if warmup:
        for fn in fns.values():
            fn()
    timings = {name: Timing(name) for name in fns}
    for r in range(repeats):
        for name, fn in fns.items():
            seconds, cpu, _ = time_once_cpu(fn)
            timings[name].seconds.append(seconds)
            timings[name].cpu_seconds.append(cpu)
            if log:
                log(f"  repeat {r + 1}/{repeats} {name}: {seconds:.3f} s (CPU {cpu:.3f} s)")
    return timings


def time_privatizer(privatizer: Any, docs: Sequence[Any], texts: Sequence[str],
                    baseline: Callable[[], Any], *, batch_size: int, repeats: int
                    ) -> dict[str, Timing]:
    """Time a privatizer's substitution stage (``privatize_docs`` on tokenized docs, in
    batches), its end-to-end ``privatize(texts)`` and a baseline, interleaved (medians)."""

    def substitution() -> Any:
        return [privatizer.privatize_docs(batch) for batch in chunks(docs, batch_size)]

    return time_interleaved({
        "substitution": substitution,
        "end_to_end": lambda: privatizer.privatize(list(texts)),
        "baseline": baseline,
    }, repeats=repeats, log=lambda m: print(m, flush=True))


def chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """Consecutive slices of ``items`` of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


# ---------------------------------------------------------------------------- machine
def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or platform's guess)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def version_of(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def machine_info(packages: Sequence[str] = ("textdp", "torch", "numpy", "faiss-cpu", "spacy",
                                            "annoy")) -> dict[str, Any]:
    """Cores, CPU model, SIMD features, load, and the versions that matter for speed."""
    import torch

    flags = cpu_flags()
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    info: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": cores,
        "simd": sorted(f for f in flags if f in {"avx2", "avx512f", "avx512_vnni",
                                                  "avx512_bf16", "amx_int8", "amx_bf16"}),
        "torch_threads": torch.get_num_threads(),
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": {p: version_of(p) for p in packages},
    }
    with contextlib.suppress(OSError):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return info


def print_machine(info: dict[str, Any], out: Any = None) -> None:
    """Print :func:`machine_info` in two or three readable lines."""
    out = out or sys.stdout
    print(f"machine: {info['cores']} cores, {info['cpu']} ({', '.join(info['simd']) or 'no AVX'})"
          f"; torch threads {info['torch_threads']}"
          + (f"; GPU {info['cuda']}" if info.get("cuda") else "; no GPU")
          + (f"; load average {info['load_average']}" if "load_average" in info else ""),
          file=out)
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items() if v)
    print(f"versions: Python {info['python']}, {versions}", file=out)


def write_results(name: str, key: str, payload: dict[str, Any]) -> Path:
    """Merge ``payload`` under ``key`` into ``bench/results/<name>.json`` and return its path
    (several configurations of one benchmark share a file)."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            data = {}
    data[key] = payload
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return path
