"""How useful privatized text and noisy word vectors stay: word similarity, odd-man-out, STS-B
and sentence classification, over ε and mechanisms, against the original as a reference.

    textdp evaluate utility --data ../shared/data --mechanism mlaplace,mahalanobis,nadp \\
        [--epsilon 1,2,3,5 --epsilon nadp=10,20,50,100] [--table default|FILE] \\
        [--tasks sst2,simlex,...] [--quick] [--seed 0] -o report/

What is measured (the data folder is laid out like ``../shared/data``; see its README.md):

* Word level, on a *noisy embedding table*: every word type of the benchmark gets one draw of
  the mechanism through the real :class:`~textdp.privatizer.Privatizer` (``targets="all"``),
  and its vector is replaced by the table vector of the word substituted for it (all textdp
  mechanisms are substitution mechanisms, so this is what their output carries). Word
  similarity (MEN-TR-3k, SimLex-999, SimVerb-3500): Spearman correlation of the cosine of the
  two vectors with the gold score, over the pairs whose words both have a vector (coverage is
  reported). Odd-man-out (crowdsourced_filtered.tsv): the item with the smallest summed cosine
  to the four others is picked (multi-word items: mean of their words' vectors; ties share the
  credit), accuracy over the covered puzzles.
* STS-B test: centroid of the word vectors of each sentence (every token with a vector, as
  spaCy's ``doc.vector``), cosine of the pair against the gold score: Spearman and Pearson.
* Classification SST-2 (stsa.binary train/test split), MR, CR, SUBJ (stratified k-fold CV,
  10 folds): centroid features, standardised, logistic regression; accuracy. SST-2 also gives
  the *downstream* accuracy: trained on privatized train, tested on the original test.

Text is tokenized once with the spaCy tokenizer and each configuration privatizes the same
docs with :meth:`Privatizer.privatize_docs` (what ``privatize(texts)`` does after tokenizing);
features come from the words it writes. Every configuration uses the same fixed seed: the
figures are reproducible and, for that reason, the privatized text of an evaluation is not
private against anyone who knows the seed (it is never written out).

Each row also carries ``unchanged``, the share of the task's word tokens (word types for the
word tasks) that came out as themselves in this run, and ``table_unchanged``, the mean
P(unchanged) over a sample of table words from
:func:`textdp.evaluate.privacy.plausible_deniability`: the privacy axes of the privacy–utility
plots. ε is on each mechanism's own scale (metric DP for ``mlaplace``/``mahalanobis``,
(ε, δ)-DP for ``nadp``), hence the per-mechanism default grids.
"""

from __future__ import annotations

import csv
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from textdp.grid import EpsilonGrid
from textdp.grid import epsilon_grid as parse_epsilon_grid
from textdp.tables import EmbeddingTable

ORIGINAL = "original"
DEFAULT_FOLDS = 10
QUICK_FOLDS = 3
QUICK_LIMIT = 500  # sentences per split (pairs for STS-B) in --quick mode
# ε grids for the default table (en_core_web_md vectors clipped to the median norm), from
# "nearly every word replaced" to "most words kept". Measured with --quick (SimLex-999 word
# types left unchanged; 94 % is the ceiling, the rest share a vector row with another word):
# mlaplace 0.4 % at ε 0.5, 3.4 % at 1, 48 % at 2, 86 % at 3, 93 % at 4; mahalanobis 0.2 %,
# 1.6 %, 29 %, 74 %, 90 %. NADP is (ε, δ)-DP with Gaussian noise, on another scale: 35 % at
# ε 20, 82 % at 50, 94 % at 100.
DEFAULT_EPSILONS = (1.0, 2.0, 3.0, 5.0)
MECHANISM_EPSILONS = {"nadp": (10.0, 20.0, 50.0, 100.0)}
DEFAULT_MECHANISMS = ("mlaplace", "mahalanobis")
_DOC_CHUNK = 2048  # docs per privatize_docs call (one noise draw and one decode each)
# Table words × draws for the mean P(unchanged) over the table (textdp.evaluate.privacy's
# plausible-deniability statistic), drawn for the privacy–utility plot.
DENIABILITY_SAMPLE = (500, 40)
QUICK_DENIABILITY_SAMPLE = (200, 10)


@dataclass(frozen=True)
class Task:
    """One utility task: the files it reads (relative to ``--data``) and the metrics it gives."""

    name: str
    title: str
    kind: str  # "wordsim" | "oddmanout" | "sts" | "split" | "cv"
    files: tuple[str, ...]
    metrics: tuple[str, ...]
    encoding: str = "utf-8"

    @property
    def primary(self) -> str:
        """The metric drawn in the overview and privacy–utility plots."""
        return self.metrics[0]


TASKS: dict[str, Task] = {t.name: t for t in (
    Task("men", "MEN-TR-3k", "wordsim", ("wordsim/EN-MEN-TR-3k.txt",), ("spearman",)),
    Task("simlex", "SimLex-999", "wordsim", ("wordsim/EN-SIMLEX-999.txt",), ("spearman",)),
    Task("simverb", "SimVerb-3500", "wordsim", ("wordsim/EN-SimVerb-3500.txt",),
         ("spearman",)),
    Task("oddmanout", "Odd-man-out (crowdsourced)", "oddmanout",
         ("oddmanout/crowdsourced_filtered.tsv",), ("accuracy",)),
    Task("stsb", "STS-B test", "sts", ("stsbenchmark/sts-test.csv",), ("spearman", "pearson")),
    Task("sst2", "SST-2", "split", ("senteval/stsa.binary.train", "senteval/stsa.binary.test"),
         ("accuracy", "downstream_accuracy")),
    Task("mr", "MR", "cv", ("senteval/rt-polarity.pos", "senteval/rt-polarity.neg"),
         ("accuracy",), encoding="latin-1"),
    Task("cr", "CR", "cv", ("senteval/custrev.pos", "senteval/custrev.neg"), ("accuracy",)),
    Task("subj", "SUBJ", "cv", ("senteval/subj.subjective", "senteval/subj.objective"),
         ("accuracy",), encoding="latin-1"),
)}
AXIS_LABELS = {"unchanged": "share of the text's words left unchanged",
               "table_unchanged": "mean P(unchanged) over table words"}
METRIC_LABELS = {"spearman": "Spearman ρ", "pearson": "Pearson r", "accuracy": "accuracy",
                 "downstream_accuracy": "downstream accuracy (train private, test original)"}


# ---------------------------------------------------------------------------- arguments
def parse_tasks(value: str | Sequence[str] | None) -> list[str]:
    """Task names from ``"sst2,mr"`` or a list; ``None`` → all. Unknown names raise a
    ``ValueError`` listing the accepted ones."""
    if value is None:
        return list(TASKS)
    names = [t.strip().lower() for t in (value.split(",") if isinstance(value, str) else value)]
    names = [n for n in names if n]
    unknown = [n for n in names if n not in TASKS]
    if unknown or not names:
        raise ValueError(f"tasks must be a comma-separated subset of {', '.join(TASKS)}; "
                         f"got {', '.join(unknown) or 'nothing'}")
    return list(dict.fromkeys(names))


def epsilon_grid(mechanisms: Sequence[str],
                 values: EpsilonGrid | None = None) -> dict[str, list[float]]:
    """ε values per mechanism, in any form of :mod:`textdp.grid`: ``None`` (each mechanism's
    default grid: :data:`MECHANISM_EPSILONS`, else :data:`DEFAULT_EPSILONS`), numbers for
    every mechanism, a mapping ``{name: values}``, or command-line strings: ``"1,2,3"`` for
    every mechanism and ``"nadp=10,50"`` (or ``"nadp:10,50"``) for one (a mechanism with
    neither keeps its default grid)."""
    return parse_epsilon_grid(mechanisms, values,
                              defaults={"*": DEFAULT_EPSILONS, **MECHANISM_EPSILONS})


def parse_mechanisms(value: str | Sequence[str]) -> list[str]:
    """Registered mechanism names from ``"mlaplace,mahalanobis"`` or a list."""
    from textdp.mechanisms import available

    names = [m.strip() for m in (value.split(",") if isinstance(value, str) else value)]
    names = [m for m in names if m]
    known = available()
    bad = [m for m in names if m not in known]
    if bad or not names:
        raise ValueError(f"mechanism must be a comma-separated list of {known}; got "
                         f"{', '.join(bad) or 'nothing'}")
    return list(dict.fromkeys(names))


def check_data(data_dir: str | os.PathLike[str], tasks: Sequence[str]) -> Path:
    """The data folder, after checking every file the tasks read exists (before any work).

    Raises ``FileNotFoundError`` naming the missing folder or file and the task needing it.
    """
    root = Path(data_dir)
    if not root.is_dir():
        raise FileNotFoundError(2, "no such data folder (expected a folder laid out like "
                                   "../shared/data)", os.fspath(data_dir))
    for name in tasks:
        for rel in TASKS[name].files:
            if not (root / rel).is_file():
                raise FileNotFoundError(2, f"missing data file needed by task {name!r}",
                                        os.fspath(root / rel))
    return root


# ---------------------------------------------------------------------------- readers
def _lines(path: Path, encoding: str) -> list[str]:
    """Non-empty stripped lines. Universal newlines split on LF, CRLF and CR (the odd-man-out
    expert sets end lines with CR) but not on U+0085, which Latin-1 files may contain."""
    with open(path, encoding=encoding, newline=None) as f:
        return [s for s in (line.strip() for line in f) if s]


def read_word_pairs(path: Path) -> list[tuple[str, str, float]]:
    """``word1<TAB>word2<TAB>score`` lines."""
    pairs = []
    for i, line in enumerate(_lines(path, "utf-8"), 1):
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) < 3:
            raise ValueError(f"{path}: line {i}: expected word1, word2 and a score")
        try:
            pairs.append((parts[0], parts[1], float(parts[2])))
        except ValueError:
            raise ValueError(f"{path}: line {i}: the score is not a number") from None
    return pairs


def read_oddmanout(path: Path) -> tuple[list[tuple[str, ...]], int]:
    """Puzzles as ``(odd_man, answer1, ..., answer4)`` (the category column is dropped), and
    the number of malformed lines skipped (crowdsourced_filtered.tsv has 5: four with three
    answers and two puzzles run together on one line)."""
    puzzles, skipped = [], 0
    for line in _lines(path, "utf-8"):
        parts = [p.strip() for p in line.split("\t")]
        if len(parts) != 6 or not all(parts[1:]):
            skipped += 1
            continue
        puzzles.append(tuple(parts[1:]))
    if not puzzles:
        raise ValueError(f"{path}: no line has CATEGORY, ODD-MAN and 4 answers (tab-separated)")
    return puzzles, skipped


def read_sts(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    """STS Benchmark CSV (tab-separated, quoting disabled): sentence 1, sentence 2, score."""
    s1, s2, gold = [], [], []
    with open(path, encoding="utf-8", newline="") as f:
        for i, row in enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE), 1):
            if not row:
                continue
            if len(row) < 7:
                raise ValueError(f"{path}: line {i}: expected 7 tab-separated columns")
            try:
                gold.append(float(row[4]))
            except ValueError:
                raise ValueError(f"{path}: line {i}: the score is not a number") from None
            s1.append(row[5])
            s2.append(row[6])
    return s1, s2, np.asarray(gold, dtype=np.float64)


def read_stsa(path: Path) -> tuple[list[str], np.ndarray]:
    """SentEval ``stsa.binary.*``: ``<0/1> <sentence>`` per line."""
    texts, labels = [], []
    for i, line in enumerate(_lines(path, "utf-8"), 1):
        label, _, text = line.partition(" ")
        if label not in ("0", "1") or not text:
            raise ValueError(f"{path}: line {i}: expected '<0/1> <sentence>'")
        texts.append(text)
        labels.append(int(label))
    return texts, np.asarray(labels, dtype=np.int64)


def read_two_class(pos: Path, neg: Path, encoding: str) -> tuple[list[str], np.ndarray]:
    """One sentence a line in a positive (label 1) and a negative (label 0) file."""
    a, b = _lines(pos, encoding), _lines(neg, encoding)
    return a + b, np.asarray([1] * len(a) + [0] * len(b), dtype=np.int64)


def _subsample(n: int, limit: int | None, seed: int) -> np.ndarray:
    """Sorted indices of a reproducible random subset of ``range(n)`` of size ≤ ``limit``."""
    if limit is None or n <= limit:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))


# ---------------------------------------------------------------------------- metrics
def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two ``(n, d)`` matrices (0 where a row is zero)."""
    num = np.einsum("ij,ij->i", a, b, dtype=np.float64)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation (NaN for fewer than 3 points or a constant input)."""
    from scipy.stats import spearmanr

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(spearmanr(x, y).statistic)


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation (NaN for fewer than 3 points or a constant input)."""
    from scipy.stats import pearsonr

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(pearsonr(x, y).statistic)


def odd_man_out_accuracy(vectors: np.ndarray) -> float:
    """Accuracy on puzzles ``(n, items, d)`` whose odd man is item 0.

    The predicted odd man has the smallest summed cosine to the other items; tied minima
    share the credit (so identical or missing vectors score chance, not a hit).
    """
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 3 or v.shape[0] == 0:
        return float("nan")
    norms = np.linalg.norm(v, axis=2, keepdims=True)
    unit = np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)
    sims = np.einsum("pid,pjd->pij", unit, unit)
    score = sims.sum(axis=2) - np.einsum("pii->pi", sims)
    low = np.isclose(score, score.min(axis=1, keepdims=True), rtol=0, atol=1e-9)
    return float(np.mean(low[:, 0] / low.sum(axis=1)))


def classifier(seed: int) -> Any:
    """Standardised features + L2 logistic regression (scikit-learn, C = 1).

    The Newton–Cholesky solver reaches the same optimum as the default L-BFGS in ~5 steps
    instead of ~130 on 300-d centroids (0.3 s instead of 4.4 s of CPU on MR's 10,662).
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(
        solver="newton-cholesky", max_iter=200, random_state=seed))


def cv_accuracy(x: np.ndarray, y: np.ndarray, folds: int, seed: int) -> float:
    """Mean accuracy of :func:`classifier` over stratified, shuffled k-fold CV."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    folds = min(folds, int(np.bincount(y).min()))
    if folds < 2:
        raise ValueError("cross-validation needs at least 2 examples of each class")
    split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return float(np.mean(cross_val_score(classifier(seed), x, y, cv=split)))


# ---------------------------------------------------------------------------- features
def centroids(token_lists: Sequence[Sequence[str]], table: EmbeddingTable) -> np.ndarray:
    """Mean table vector of the tokens of each text that have one (zeros if none), like
    spaCy's ``doc.vector``; one sparse product for all texts."""
    from scipy.sparse import csr_matrix

    lengths = np.fromiter((len(t) for t in token_lists), np.int64, count=len(token_lists))
    flat = [w for tokens in token_lists for w in tokens]
    rows = table.lookup(flat) if flat else np.zeros(0, np.int64)
    doc = np.repeat(np.arange(len(token_lists)), lengths)
    keep = rows >= 0
    counts = np.bincount(doc[keep], minlength=len(token_lists)).astype(np.float64)
    weights = 1.0 / np.maximum(counts, 1)[doc[keep]]
    m = csr_matrix((weights, (doc[keep], rows[keep])),
                   shape=(len(token_lists), table.lookup_vectors.shape[0]))
    return np.asarray(m @ table.lookup_vectors, dtype=np.float32)


def _unchanged_share(old: Sequence[Sequence[str]], new: Sequence[Sequence[str]]) -> float:
    """Share of word tokens (the ones ``targets="all"`` replaces) written as themselves."""
    from textdp.privatizer import is_word

    total = same = 0
    for a_tokens, b_tokens in zip(old, new):
        for a, b in zip(a_tokens, b_tokens):
            if is_word(a):
                total += 1
                same += a.lower() == b.lower()
    return same / total if total else float("nan")


# ---------------------------------------------------------------------------- data
@dataclass
class _Corpus:
    """Every sentence of the selected tasks, tokenized once, and where each task's are."""

    tokens: list[list[str]] = field(default_factory=list)
    spans: dict[str, slice] = field(default_factory=dict)


@dataclass
class _WordData:
    pairs: dict[str, tuple[list[tuple[str, str]], np.ndarray, int]]  # covered pairs, gold, n
    puzzles: tuple[list[list[list[str]]], int]  # covered puzzles (items as tokens), n
    words: list[str]  # every covered word type


@dataclass
class _Data:
    tasks: list[str]
    docs: list[Any]
    corpus: _Corpus
    labels: dict[str, np.ndarray]
    gold: dict[str, np.ndarray]
    words: _WordData
    sizes: list[dict[str, Any]]


def _load(root: Path, tasks: Sequence[str], table: EmbeddingTable, nlp: Any,
          limit: int | None, seed: int) -> _Data:
    corpus = _Corpus()
    texts: list[str] = []
    labels: dict[str, np.ndarray] = {}
    gold: dict[str, np.ndarray] = {}
    sizes: list[dict[str, Any]] = []
    pairs: dict[str, tuple[list[tuple[str, str]], np.ndarray, int]] = {}
    puzzles: tuple[list[list[list[str]]], int] = ([], 0)
    words: set[str] = set()

    def covered(word: str) -> bool:
        return bool(table.lookup([word])[0] >= 0)

    def add_texts(key: str, chosen: list[str]) -> None:
        start = len(texts)
        texts.extend(chosen)
        corpus.spans[key] = slice(start, len(texts))

    for name in tasks:
        task = TASKS[name]
        paths = [root / f for f in task.files]
        if task.kind == "wordsim":
            all_pairs = read_word_pairs(paths[0])
            kept = [(a, b, s) for a, b, s in all_pairs if covered(a) and covered(b)]
            pairs[name] = ([(a, b) for a, b, _ in kept], np.asarray([s for *_, s in kept]),
                           len(all_pairs))
            words.update(w for a, b, _ in kept for w in (a, b))
            sizes.append({"task": name, "items": f"{len(kept)} of {len(all_pairs)} pairs",
                          "coverage": len(kept) / max(len(all_pairs), 1)})
        elif task.kind == "oddmanout":
            all_puzzles, skipped = read_oddmanout(paths[0])
            split = [[item.split() for item in p] for p in all_puzzles]
            kept_p = [p for p in split if all(all(covered(w) for w in item) for item in p)]
            puzzles = (kept_p, len(all_puzzles))
            words.update(w for p in kept_p for item in p for w in item)
            sizes.append({"task": name, "items": f"{len(kept_p)} of {len(all_puzzles)} puzzles"
                          + (f" ({skipped} malformed lines skipped)" if skipped else ""),
                          "coverage": len(kept_p) / max(len(all_puzzles), 1)})
        elif task.kind == "sts":
            s1, s2, score = read_sts(paths[0])
            idx = _subsample(len(score), limit, seed)
            add_texts(f"{name}:a", [s1[i] for i in idx])
            add_texts(f"{name}:b", [s2[i] for i in idx])
            gold[name] = score[idx]
            sizes.append({"task": name, "items": f"{len(idx)} of {len(score)} pairs",
                          "coverage": None})
        elif task.kind == "split":
            train, y_train = read_stsa(paths[0])
            test, y_test = read_stsa(paths[1])
            i_tr = _subsample(len(train), limit, seed)
            i_te = _subsample(len(test), limit, seed + 1)
            add_texts(f"{name}:train", [train[i] for i in i_tr])
            add_texts(f"{name}:test", [test[i] for i in i_te])
            labels[f"{name}:train"], labels[f"{name}:test"] = y_train[i_tr], y_test[i_te]
            sizes.append({"task": name, "items": f"train {len(i_tr)} of {len(train)}, "
                                                 f"test {len(i_te)} of {len(test)} sentences",
                          "coverage": None})
        else:
            sents, y = read_two_class(paths[0], paths[1], task.encoding)
            idx = _subsample(len(sents), limit, seed)
            add_texts(name, [sents[i] for i in idx])
            labels[name] = y[idx]
            sizes.append({"task": name, "items": f"{len(idx)} of {len(sents)} sentences",
                          "coverage": None})
    docs = list(nlp.tokenizer.pipe(texts, batch_size=1000))
    corpus.tokens = [[t.text for t in doc] for doc in docs]
    return _Data(list(tasks), docs, corpus, labels, gold,
                 _WordData(pairs, puzzles, sorted(words)), sizes)


# ---------------------------------------------------------------------------- scoring
def _word_vectors(words: Sequence[str], substitutes: Sequence[str],
                  table: EmbeddingTable) -> dict[str, np.ndarray]:
    """Word → the table vector of its substitute (the noisy embedding table)."""
    rows = table.lookup(list(substitutes))
    return {w: table.lookup_vectors[r] for w, r in zip(words, rows.tolist()) if r >= 0}


def _score(data: _Data, table: EmbeddingTable, tokens: list[list[str]],
           substitutes: dict[str, str] | None, base: dict[str, Any], seed: int, folds: int,
           original: tuple[list[list[str]], np.ndarray] | None) -> list[dict]:
    """One row per task for one configuration: ``tokens`` are the words of every sentence,
    ``substitutes`` the word written for each word type of the word tasks
    (``substitutes`` and ``original``, the original tokens and their centroids, are ``None``
    when scoring the original itself)."""
    from threadpoolctl import threadpool_limits

    # One BLAS thread: these are small dense problems, and on a shared machine a
    # multi-threaded BLAS spent 6.5× the CPU time of one thread (MR, L-BFGS, load ~10).
    with threadpool_limits(1):
        return _score_tasks(data, table, tokens, substitutes, base, seed, folds, original)


def _score_tasks(data: _Data, table: EmbeddingTable, tokens: list[list[str]],
                 substitutes: dict[str, str] | None, base: dict[str, Any], seed: int,
                 folds: int, original: tuple[list[list[str]], np.ndarray] | None
                 ) -> list[dict]:
    words = data.words.words
    vec = _word_vectors(words, words if substitutes is None else
                        [substitutes[w] for w in words], table)

    def types_unchanged(types: Iterable[str]) -> float | None:
        if substitutes is None:
            return None
        kept = [substitutes[w].lower() == w.lower() for w in set(types)]
        return float(np.mean(kept)) if kept else float("nan")

    rows = []
    feats = centroids(tokens, table)
    orig_feats = feats if original is None else original[1]
    spans = data.corpus.spans

    def unchanged(*keys: str) -> float | None:
        if original is None:
            return None
        sl = [spans[k] for k in keys]
        return _unchanged_share([t for s in sl for t in original[0][s]],
                                [t for s in sl for t in tokens[s]])

    for name in data.tasks:
        task = TASKS[name]
        row: dict[str, Any] = {**base, "task": name}
        if task.kind == "wordsim":
            pair_list, gold, total = data.words.pairs[name]
            a = np.stack([vec[x] for x, _ in pair_list]) if pair_list else np.zeros((0, 1))
            b = np.stack([vec[y] for _, y in pair_list]) if pair_list else np.zeros((0, 1))
            row.update(spearman=spearman(cosine(a, b), gold), n=len(pair_list),
                       coverage=len(pair_list) / max(total, 1),
                       unchanged=types_unchanged(w for p in pair_list for w in p))
        elif task.kind == "oddmanout":
            puzzles, total = data.words.puzzles
            v = np.asarray([[np.mean([vec[w] for w in item], axis=0) for item in p]
                            for p in puzzles]) if puzzles else np.zeros((0, 5, 1))
            row.update(accuracy=odd_man_out_accuracy(v), n=len(puzzles),
                       coverage=len(puzzles) / max(total, 1),
                       unchanged=types_unchanged(w for p in puzzles for item in p
                                                 for w in item))
        elif task.kind == "sts":
            sims = cosine(feats[spans[f"{name}:a"]], feats[spans[f"{name}:b"]])
            row.update(spearman=spearman(sims, data.gold[name]),
                       pearson=pearson(sims, data.gold[name]), n=len(sims),
                       unchanged=unchanged(f"{name}:a", f"{name}:b"))
        elif task.kind == "split":
            tr, te = spans[f"{name}:train"], spans[f"{name}:test"]
            y_tr, y_te = data.labels[f"{name}:train"], data.labels[f"{name}:test"]
            model = classifier(seed).fit(feats[tr], y_tr)
            row.update(accuracy=float(model.score(feats[te], y_te)),
                       downstream_accuracy=float(model.score(orig_feats[te], y_te)),
                       n=len(y_tr) + len(y_te), unchanged=unchanged(f"{name}:train",
                                                                    f"{name}:test"))
        else:
            y = data.labels[name]
            row.update(accuracy=cv_accuracy(feats[spans[name]], y, folds, seed), n=len(y),
                       folds=min(folds, int(np.bincount(y).min())), unchanged=unchanged(name))
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------- evaluation
def _resolve_table(table: Any) -> EmbeddingTable:
    """The unclipped table (each Privatizer clips its own copy, as users' privatizers do)."""
    from textdp.calibration import resolve_table

    return resolve_table(table, clip_norm=None)


def evaluate_utility(
    mechanisms: Sequence[str],
    epsilons: EpsilonGrid | None = None,
    *,
    data_dir: str | os.PathLike[str],
    table: Any = None,
    tasks: Sequence[str] | str | None = None,
    quick: bool = False,
    seed: int = 0,
    limit: int | None = None,
    folds: int | None = None,
    nlp: Any = None,
    log: Callable[[str], Any] = print,
    sizes_out: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Utility of each (mechanism, ε) on each task, and of the original text.

    Args:
        mechanisms: registered mechanism names (``textdp mechanisms``).
        epsilons: ε per token values for every mechanism, a mapping ``{name: values}``, or
            ``None`` for each mechanism's default grid (see :func:`epsilon_grid`).
        data_dir: a folder laid out like ``../shared/data``.
        table: ``None``/``"default"`` (the embedded vectors), a word2vec/GloVe/fastText file or
            an :class:`EmbeddingTable`; both the candidates and the features come from it.
        tasks: names from :data:`TASKS` (default: all).
        quick: subsample to ≤ :data:`QUICK_LIMIT` sentences per split and 3-fold CV.
        seed: the seed of the privatizers, subsamples and CV splits (reproducible figures).
        limit: subsample each sentence split to at most this many (reproducibly).
        folds: CV folds for MR/CR/SUBJ (default 10, 3 with ``quick``).
        nlp: the spaCy pipeline whose tokenizer splits the text (default: the embedded one).
        log: where progress lines go (sizes and timings; never text).
        sizes_out: a list that receives one row per task with its size and coverage.

    Returns:
        One JSON-able row per (mechanism, ε, task) — ``mechanism="original"`` and
        ``epsilon=None`` for the baseline — with the task's metrics, ``n``, ``coverage`` (word
        tasks), ``unchanged`` (share of the task's words written as themselves),
        ``table_unchanged`` (mean P(unchanged) over a sample of table words, from
        :func:`textdp.evaluate.privacy.plausible_deniability`) and ``seconds`` (privatizing
        time of the configuration, shared by its tasks).
    """
    from textdp.privatizer import Privatizer

    task_names = parse_tasks(tasks)
    mechs = parse_mechanisms(mechanisms)
    grid = epsilon_grid(mechs, epsilons)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 2):
        raise ValueError(f"limit must be an integer >= 2, got {limit!r}")
    if quick:
        limit = min(limit or QUICK_LIMIT, QUICK_LIMIT)
    n_folds = folds if folds is not None else (QUICK_FOLDS if quick else DEFAULT_FOLDS)
    if isinstance(n_folds, bool) or not isinstance(n_folds, int) or n_folds < 2:
        raise ValueError(f"folds must be an integer >= 2, got {n_folds!r}")
    root = check_data(data_dir, task_names)
    if table is not None and not isinstance(table, EmbeddingTable) and table != "default" \
            and not os.path.isfile(table):
        raise FileNotFoundError(2, "no such table file (word2vec/GloVe/fastText text)",
                                os.fspath(table))
    # Every configuration is built (and so validated) before any data is read.
    # The mechanism over the whole table: no substitute excluded (the figures measure it).
    privatizers = {(m, e): Privatizer(epsilon=e, mechanism=m, targets="all", seed=seed,
                                      exclude=None)
                   for m in mechs for e in grid[m]}

    start, cpu_start = time.perf_counter(), time.process_time()
    emb = _resolve_table(table)
    if nlp is None:
        from textdp.defaults import load_pipeline

        nlp = load_pipeline()
    data = _load(root, task_names, emb, nlp, limit, seed)
    n_tokens = sum(len(t) for t in data.corpus.tokens)
    log(f"utility: table {emb.name} ({len(emb):,} candidates × {emb.dim}); "
        f"{len(data.docs):,} sentences, {n_tokens:,} tokens, {len(data.words.words):,} word "
        f"types; loaded in {time.perf_counter() - start:.1f} s")
    for s in data.sizes:
        log(f"  {s['task']:<10} {s['items']}")
    if sizes_out is not None:
        sizes_out.extend(data.sizes)

    t0 = time.perf_counter()
    original = (data.corpus.tokens, centroids(data.corpus.tokens, emb))
    rows = _score(data, emb, data.corpus.tokens, None,
                  {"mechanism": ORIGINAL, "epsilon": None}, seed, n_folds, None)
    log(f"  {ORIGINAL}: scored in {time.perf_counter() - t0:.1f} s: {_summary(rows)}")
    for (mech, e), spec in privatizers.items():
        t0 = time.perf_counter()
        # Rebuilt on the loaded table and pipeline so that every configuration shares them
        # (and the neighbour index); ``spec`` already validated the arguments.
        priv = Privatizer(epsilon=spec.epsilon, mechanism=mech, targets="all", table=emb,
                          nlp=nlp, seed=seed, exclude=None)
        new_tokens: list[list[str]] = []
        for i in range(0, len(data.docs), _DOC_CHUNK):
            new_tokens.extend(w for w, _ in priv.privatize_docs(data.docs[i:i + _DOC_CHUNK]))
        subs = _substitute_words(priv, nlp, data.words.words)
        seconds = time.perf_counter() - t0
        new_rows = _score(data, emb, new_tokens, dict(zip(data.words.words, subs)),
                          {"mechanism": mech, "epsilon": e}, seed, n_folds, original)
        table_unchanged = _table_unchanged(
            priv, emb, *(QUICK_DENIABILITY_SAMPLE if quick else DENIABILITY_SAMPLE), seed)
        for r in new_rows:
            r["seconds"] = round(seconds, 2)
            r["table_unchanged"] = table_unchanged
        rows.extend(new_rows)
        log(f"  {mech} ε={e:g}: privatized in {seconds:.1f} s, scored in "
            f"{time.perf_counter() - t0 - seconds:.1f} s: {_summary(new_rows)}")
    log(f"utility: done in {time.perf_counter() - start:.1f} s wall, "
        f"{time.process_time() - cpu_start:.1f} s CPU of this process")
    # NaN (a correlation over constant values) is not JSON: it becomes None (null).
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()}
            for r in rows]


def _table_unchanged(priv: Any, table: EmbeddingTable, n_words: int, n_draws: int,
                     seed: int) -> float:
    """Mean P(unchanged) over a sample of table words for a prepared privatizer, through
    :func:`textdp.evaluate.privacy.plausible_deniability`."""
    from textdp.calibration import resolve_table, sample_rows
    from textdp.evaluate.privacy import plausible_deniability
    from textdp.rng import RandomSource

    # The table clipped as the privatizer clips it (memoised per radius, so this is the very
    # table its mechanism was prepared on).
    space = resolve_table(table, priv.clip_norm)
    rows = sample_rows(space, n_words, seed)
    same, _ = plausible_deniability(priv.mechanism, space.vectors[rows], rows, n_draws,
                                    RandomSource(seed + 1))
    return float(same.mean() / n_draws)


def _substitute_words(priv: Any, nlp: Any, words: Sequence[str]) -> list[str]:
    """One draw of the mechanism per word type (one doc holding every word)."""
    if not words:
        return []
    from spacy.tokens import Doc

    out: list[str] = []
    for i in range(0, len(words), _DOC_CHUNK):
        chunk = list(words[i:i + _DOC_CHUNK])
        (new, _), = priv.privatize_docs([Doc(nlp.vocab, words=chunk)])
        out.extend(new)
    return out


def _summary(rows: Sequence[dict[str, Any]]) -> str:
    return ", ".join(f"{r['task']} {_fmt(r.get(TASKS[r['task']].primary))}" for r in rows)


def _fmt(value: Any) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.3f}"


# ---------------------------------------------------------------------------- plots
def _configs(rows: Sequence[dict[str, Any]], task: str, metric: str, x: str = "unchanged"
             ) -> tuple[float | None, dict[str, list[tuple[float, float, float | None]]]]:
    """The original's value and, per mechanism, sorted (ε, value, x) points (``x``: the row
    key of the privacy axis)."""
    base = None
    lines: dict[str, list[tuple[float, float, float | None]]] = {}
    for r in rows:
        if r["task"] != task or r.get(metric) is None:
            continue
        if r["mechanism"] == ORIGINAL:
            base = r[metric]
        else:
            lines.setdefault(r["mechanism"], []).append((r["epsilon"], r[metric], r.get(x)))
    return base, {m: sorted(p) for m, p in lines.items()}


def _draw(ax: Any, rows: Sequence[dict[str, Any]], task: str, metric: str, x: str) -> None:
    base, lines = _configs(rows, task, metric, "unchanged" if x == "epsilon" else x)
    for mech, pts in lines.items():
        if x == "epsilon":
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=mech)
        else:
            kept = [p for p in pts if p[2] is not None]
            ax.plot([p[2] for p in kept], [p[1] for p in kept], marker="o", label=mech)
            for e, val, u in kept:
                ax.annotate(f"ε={e:g}", (u, val), textcoords="offset points", xytext=(3, 3),
                            fontsize=7)
    if base is not None:
        ax.axhline(base, color="black", linestyle="--", linewidth=1, label=ORIGINAL)
    if x == "epsilon":
        from matplotlib.ticker import FuncFormatter, NullFormatter

        ax.set_xscale("log")
        ticks = sorted({p[0] for pts in lines.values() for p in pts})
        if ticks:
            ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("ε per token")
    else:
        ax.set_xlabel(AXIS_LABELS[x], fontsize=8)
        ax.set_xlim(-0.02, 1.02)
    ax.set_title(f"{TASKS[task].title}", fontsize=10)
    ax.set_ylabel(METRIC_LABELS.get(metric, metric), fontsize=8)
    ax.grid(True, alpha=0.3)


def plot_report(rows: Sequence[dict[str, Any]], out_dir: str | os.PathLike[str]) -> list[str]:
    """Write the PNG figures; returns their paths relative to ``out_dir``.

    ``utility_overview.png``: the primary metric of every task against ε, one line per
    mechanism and the original as a dashed reference; ``utility_vs_unchanged.png``: the same
    against the share of the task's words left unchanged (the privacy–utility curve);
    ``utility_vs_deniability.png`` (when rows carry ``table_unchanged``): against the mean
    P(unchanged) over table words of the privacy evaluation; ``utility_<task>.png``: every
    metric of one task against ε.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from textdp.evaluate.report import save_figure

    tasks = list(dict.fromkeys(r["task"] for r in rows))
    figures = []
    cols = min(3, len(tasks))
    nrows = math.ceil(len(tasks) / cols)
    axes_wanted = [("epsilon", "utility_overview.png"),
                   ("unchanged", "utility_vs_unchanged.png")]
    if any(r.get("table_unchanged") is not None for r in rows):
        axes_wanted.append(("table_unchanged", "utility_vs_deniability.png"))
    for x, filename in axes_wanted:
        fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.2 * nrows), squeeze=False)
        for ax, task in zip(axes.flat, tasks):
            _draw(ax, rows, task, TASKS[task].primary, x)
        for ax in list(axes.flat)[len(tasks):]:
            ax.set_visible(False)
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=len(labels),
                   bbox_to_anchor=(0.5, 1.02))
        fig.tight_layout(rect=(0, 0, 1, 0.96))
        figures.append(save_figure(fig, out_dir, filename))
    for task in tasks:
        metrics = TASKS[task].metrics
        fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 3.6),
                                 squeeze=False)
        for ax, metric in zip(axes.flat, metrics):
            _draw(ax, rows, task, metric, "epsilon")
            ax.set_title(f"{TASKS[task].title}: {METRIC_LABELS.get(metric, metric)}",
                         fontsize=9)
            ax.legend(fontsize=8)
        fig.tight_layout()
        figures.append(save_figure(fig, out_dir, f"utility_{task}.png"))
    return figures


# ---------------------------------------------------------------------------- report
def report_body(rows: Sequence[dict[str, Any]], sizes: Sequence[dict[str, Any]] = (),
                notes: Sequence[str] = ()) -> str:
    """The section's Markdown: what was measured, the sizes, one table per task."""
    from textdp.evaluate.report import markdown_table

    parts = [
        "Word tasks use a noisy embedding table: each word type gets one draw of the mechanism "
        "(`Privatizer(targets=\"all\")`) and takes the vector of the word substituted for it. "
        "Sentence tasks privatize every word token of the text and use the centroid of the "
        "table vectors of the tokens (cosine for STS-B; standardised logistic regression for "
        "classification, stratified k-fold CV for MR/CR/SUBJ). `unchanged` is the measured "
        "share of word tokens (word types for word tasks) written as themselves. "
        "`downstream_accuracy`: trained on privatized SST-2 train, tested on the original "
        "test. `table unchanged`: the mean P(unchanged) over a sample of table words "
        "(plausible deniability, as in the privacy section). ε is on each mechanism's own "
        "scale (metric DP for mlaplace and mahalanobis, (ε, δ) for nadp): compare mechanisms "
        "in the plots against P(unchanged). A fixed seed makes the figures reproducible.", ""]
    parts += list(notes)
    if sizes:
        parts += ["", "## Data", "", markdown_table(sizes, {"task": "task", "items": "items",
                                                            "coverage": "coverage"})]
    for task in dict.fromkeys(r["task"] for r in rows):
        spec = TASKS[task]
        cols = {"mechanism": "mechanism", "epsilon": "ε",
                **{m: METRIC_LABELS.get(m, m) for m in spec.metrics}, "unchanged": "unchanged",
                "table_unchanged": "table unchanged"}
        shown = [{**r, "epsilon": None if r["epsilon"] is None else f"{r['epsilon']:g}"}
                 for r in rows if r["task"] == task]
        parts += ["", f"## {spec.title}", "", markdown_table(shown, cols)]
    return "\n".join(parts)
