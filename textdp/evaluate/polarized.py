"""ROC of the similarity detector's scores: public vectors vs subword skip-gram vs PolarizedText.

    textdp evaluate polarized --plot docs/polarized_roc.png -o report/   # 5-13 min on 2 cores
    textdp evaluate polarized --quick                                   # about 1 min

Token-level person-vs-rest on CoNLL-2003 dev (``eng.testa``): a token is positive when it lies
inside a gold ``PER`` entity, every other token (punctuation included) is negative. Each
variant gives every dev token a score, and the ROC sweeps a threshold over it:

* ``public``: cosine to the nearest default seed term (:data:`~textdp.detect.similarity.
  DEFAULT_SEEDS`) in the public table (:func:`textdp.defaults.default_table`, en_core_web_md
  vectors); tokens the table lacks score 0, as in the detector;
* ``skipgram``: the same seeds, in subword skip-gram embeddings trained on CoNLL-2003 train by
  our torch model with λ = 0 (:func:`textdp.embeddings.train.train_embeddings`);
* ``gensim``: the same, trained by gensim's ``FastText`` (skip-gram; only when gensim is
  installed): the reference implementation of plain fastText;
* ``polarized-seeds``: the same seeds, in PolarizedText embeddings (the torch model with the
  polarization term, λ = ``--polarization``);
* ``polarized-direction``: cosine to the ``person`` label direction of those embeddings.

Labels for PolarizedText are per *sentence* of CoNLL-2003 train (each sentence is a document):
``person`` when the sentence contains a gold ``PER`` entity, ``other`` otherwise. They come from
train only; dev labels are never used for training.

Each variant is measured twice: on the raw scores, and with the detector's default gate for
the default seeds (``capitalised_only``: a token that does not start with a capital letter is
never flagged, ranked below every other). Reported per variant: AUC, and the operating points
at 3 % and 4 % false positives (the largest TPR with FPR at most that, and its threshold).
Trained variants are trained with every seed of ``--seeds``; AUCs are given as mean and range,
curves are drawn for the first seed.

The trained embeddings exist only in memory here: they are private by nature (trained on the
documents being protected) and serve detection only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

VARIANTS = ("public", "skipgram", "gensim", "polarized-seeds", "polarized-direction")
FPR_POINTS = (0.03, 0.04)
PERSON_LABEL, OTHER_LABEL = "person", "other"


# ---------------------------------------------------------------------------------- ROC
def roc_curve(scores: np.ndarray, positive: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """False- and true-positive rates at every distinct threshold, highest first.

    Returns ``(fpr, tpr, thresholds)``, starting at ``(0, 0, +inf)``; a token is flagged when
    its score is ``>= threshold``. Ties move together (one point per distinct score); ``-inf``
    scores (never flagged) are allowed.
    """
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    if scores.shape != positive.shape or scores.ndim != 1:
        raise ValueError("scores and labels must be 1-D arrays of one length")
    if np.isnan(scores).any():
        raise ValueError("scores contain NaN")
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("an ROC needs positive and negative tokens")
    order = np.argsort(-scores, kind="mergesort")
    s, y = scores[order], positive[order]
    last = np.r_[np.flatnonzero(s[1:] != s[:-1]), s.size - 1]  # last index of each tie group
    tps = np.cumsum(y)[last]
    fps = last + 1 - tps
    return (np.r_[0.0, fps / n_neg], np.r_[0.0, tps / n_pos], np.r_[np.inf, s[last]])


def auc(fpr: np.ndarray, tpr: np.ndarray) -> float:
    """Area under the ROC (trapezoids: a tie group counts half)."""
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))


def operating_point(fpr: np.ndarray, tpr: np.ndarray, thresholds: np.ndarray,
                    max_fpr: float) -> dict[str, float]:
    """The point with the largest TPR whose FPR is at most ``max_fpr`` (the curve rises, so
    it is the last such point)."""
    k = int(np.flatnonzero(fpr <= max_fpr)[-1])
    return {"max_fpr": max_fpr, "tpr": float(tpr[k]), "fpr": float(fpr[k]),
            "threshold": float(thresholds[k])}


@dataclass
class VariantResult:
    """One variant's measurements (per seed for trained variants)."""

    name: str
    description: str
    gated: bool
    aucs: list[float] = field(default_factory=list)
    points: list[list[dict[str, float]]] = field(default_factory=list)
    curve: tuple[np.ndarray, np.ndarray] | None = None

    def summary(self) -> dict[str, Any]:
        a = np.asarray(self.aucs)
        out: dict[str, Any] = {"variant": self.name, "gated": self.gated,
                               "description": self.description, "auc_mean": float(a.mean()),
                               "auc_min": float(a.min()), "auc_max": float(a.max()),
                               "aucs": self.aucs, "runs": len(self.aucs)}
        for j, max_fpr in enumerate(FPR_POINTS):
            tprs = np.asarray([p[j]["tpr"] for p in self.points])
            out[f"tpr_at_{round(max_fpr * 100)}pct_fpr"] = float(tprs.mean())
            out[f"tpr_at_{round(max_fpr * 100)}pct_fpr_range"] = [float(tprs.min()),
                                                                 float(tprs.max())]
            out[f"points_at_{round(max_fpr * 100)}pct_fpr"] = [p[j] for p in self.points]
        return out


# ---------------------------------------------------------------------------------- data
@dataclass
class Split:
    """Sentences as token lists, and per-token gold person flags (dev) or labels (train)."""

    sentences: list[list[str]]
    person_tokens: np.ndarray       # (tokens,) bool, all sentences concatenated
    sentence_labels: list[str]


def load_conll(data_dir: str | os.PathLike[str] | None, split: str,
               limit: int | None = None) -> Split:
    """CoNLL-2003 ``split`` (``train``/``dev``) from the shared data folder, one sentence a
    document (:func:`textdp.corpora.domains.load_split`)."""
    from textdp.corpora.domains import DOMAINS, load_split, sentences

    sents = sentences(load_split(DOMAINS["conll"], split, data_dir))
    if limit is not None:
        sents = sents[:limit]
    flags: list[bool] = []
    labels: list[str] = []
    for s in sents:
        inside = [False] * len(s.tokens)
        for start, end, lab in s.spans:
            if lab == "PERSON":
                inside[start:end] = [True] * (end - start)
        flags.extend(inside)
        labels.append(PERSON_LABEL if any(inside) else OTHER_LABEL)
    return Split([list(s.tokens) for s in sents], np.asarray(flags, dtype=bool), labels)


# ---------------------------------------------------------------------------------- scores
def detector_scores(detector: Any, sentences: Sequence[Sequence[str]]) -> np.ndarray:
    """Every token's score (``SimilarityDetector.token_scores``), concatenated."""
    return np.concatenate([detector.token_scores(list(s)) for s in sentences]) \
        if sentences else np.zeros(0, dtype=np.float32)


def capitalised(sentences: Sequence[Sequence[str]]) -> np.ndarray:
    """Per token: does it start with a capital letter (the detector's default gate)?"""
    return np.asarray([w[:1].isupper() for s in sentences for w in s], dtype=bool)


@dataclass(frozen=True)
class Settings:
    """What to train and measure (see the command's options)."""

    dim: int = 100
    epochs: int = 5
    window: int = 5
    polarization: float = 1.0
    field: float = 1.0
    seeds: tuple[int, ...] = (0, 1, 2)
    threads: int | None = 1
    train_limit: int | None = None
    dev_limit: int | None = None
    variants: tuple[str, ...] = VARIANTS


QUICK = Settings(dim=50, epochs=2, seeds=(0,), train_limit=5000, dev_limit=1000)


def evaluate(settings: Settings, data_dir: str | os.PathLike[str] | None = None, *,
             progress: bool = True, log: Callable[[str], None] | None = None
             ) -> list[VariantResult]:
    """Train the embeddings and measure every variant on the dev tokens (module docstring)."""
    from textdp.detect.similarity import SimilarityDetector
    from textdp.embeddings.train import TrainingConfig, train_embeddings, train_gensim_fasttext

    unknown = [v for v in settings.variants if v not in VARIANTS]
    if unknown:
        raise ValueError(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    say = log or (lambda _msg: None)
    train = load_conll(data_dir, "train", settings.train_limit)
    dev = load_conll(data_dir, "dev", settings.dev_limit)
    gate = capitalised(dev.sentences)
    say(f"train: {len(train.sentences)} sentences ({train.sentence_labels.count(PERSON_LABEL)} "
        f"with a person); dev: {dev.person_tokens.size} tokens, "
        f"{int(dev.person_tokens.sum())} person tokens")

    descriptions = {
        "public": "cosine to seed terms, public table (en_core_web_md)",
        "skipgram": "cosine to seed terms, subword skip-gram (ours, λ = 0)",
        "gensim": "cosine to seed terms, gensim FastText skip-gram",
        "polarized-seeds": f"cosine to seed terms, PolarizedText (λ = {settings.polarization:g})",
        "polarized-direction": f"cosine to the person label direction, PolarizedText "
                               f"(λ = {settings.polarization:g})",
    }
    results = {(v, g): VariantResult(v, descriptions[v], g)
               for v in settings.variants for g in (False, True)}

    def record(name: str, scores: np.ndarray, first: bool) -> None:
        for gated in (False, True):
            s = np.where(gate, scores, -np.inf) if gated else scores
            fpr, tpr, thr = roc_curve(s, dev.person_tokens)
            res = results[(name, gated)]
            res.aucs.append(auc(fpr, tpr))
            res.points.append([operating_point(fpr, tpr, thr, p) for p in FPR_POINTS])
            if first:
                res.curve = (fpr, tpr)

    if "public" in settings.variants:
        record("public", detector_scores(SimilarityDetector(capitalised_only=False),
                                         dev.sentences), True)
        say("public: scored")
    want_gensim = "gensim" in settings.variants
    for k, seed in enumerate(settings.seeds):
        cfg = TrainingConfig(dim=settings.dim, epochs=settings.epochs, window=settings.window,
                             seed=seed, threads=settings.threads)
        if "skipgram" in settings.variants:
            started = time.perf_counter()
            plain = train_embeddings(train.sentences, config=cfg, progress=progress)
            record("skipgram", detector_scores(
                SimilarityDetector(embeddings=plain, capitalised_only=False), dev.sentences),
                k == 0)
            say(f"skipgram seed {seed}: {time.perf_counter() - started:.0f} s")
        if want_gensim:
            try:
                import gensim  # noqa: F401
            except ImportError:
                say("gensim is not installed: variant 'gensim' skipped (pip install gensim)")
                want_gensim = False
                del results[("gensim", False)], results[("gensim", True)]
            else:
                started = time.perf_counter()
                ref = train_gensim_fasttext(train.sentences, config=cfg,
                                            workers=settings.threads or 2)
                record("gensim", detector_scores(
                    SimilarityDetector(embeddings=ref, capitalised_only=False),
                    dev.sentences), k == 0)
                say(f"gensim seed {seed}: {time.perf_counter() - started:.0f} s")
        if {"polarized-seeds", "polarized-direction"} & set(settings.variants):
            started = time.perf_counter()
            polar_cfg = TrainingConfig(**{**cfg.__dict__, "polarization": settings.polarization,
                                          "field": settings.field})
            polar = train_embeddings(train.sentences, train.sentence_labels, config=polar_cfg,
                                     progress=progress)
            if "polarized-seeds" in settings.variants:
                record("polarized-seeds", detector_scores(
                    SimilarityDetector(embeddings=polar, capitalised_only=False),
                    dev.sentences), k == 0)
            if "polarized-direction" in settings.variants:
                record("polarized-direction", detector_scores(
                    SimilarityDetector(embeddings=polar, directions=[PERSON_LABEL],
                                       capitalised_only=False), dev.sentences), k == 0)
            say(f"polarized seed {seed}: {time.perf_counter() - started:.0f} s")
    return list(results.values())


# ---------------------------------------------------------------------------------- output
def format_table(results: Sequence[VariantResult]) -> str:
    """A plain-text table of AUC and TPR at 3 % / 4 % FPR per variant."""
    lines = [f"{'variant':<22}{'gate':<7}{'AUC (mean, range)':<26}{'TPR@3%FPR':>10}"
             f"{'TPR@4%FPR':>11}  runs"]
    for r in results:
        s = r.summary()
        spread = f" [{s['auc_min']:.3f}-{s['auc_max']:.3f}]" if s["runs"] > 1 else ""
        lines.append(f"{r.name:<22}{'cased' if r.gated else 'none':<7}"
                     f"{s['auc_mean']:.3f}{spread:<20}{s['tpr_at_3pct_fpr']:>10.3f}"
                     f"{s['tpr_at_4pct_fpr']:>11.3f}  {s['runs']}")
    return "\n".join(lines)


def plot(results: Sequence[VariantResult], path: str | os.PathLike[str],
         title: str = "") -> None:
    """ROC curves (first seed) of the ungated and gated scores, with a zoom on low FPR."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {name: f"C{i}" for i, name in enumerate(dict.fromkeys(r.name for r in results))}
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    for ax, (lo, hi) in zip(axes, ((0.0, 1.0), (0.0, 0.1))):
        for r in results:
            if r.curve is None:
                continue
            fpr, tpr = r.curve
            style = "--" if r.gated else "-"
            label = f"{r.name}{' + cased gate' if r.gated else ''} (AUC {np.mean(r.aucs):.3f})"
            ax.plot(fpr, tpr, style, color=colours[r.name], label=label, linewidth=1.4)
        ax.axvspan(0.03, 0.04, color="0.85", zorder=0)
        ax.set_xlim(lo, hi)
        ax.set_ylim(0, 1)
        ax.set_xlabel("false-positive rate (non-person tokens flagged)")
        ax.set_ylabel("true-positive rate (person tokens flagged)")
        ax.grid(alpha=0.3)
    axes[0].plot([0, 1], [0, 1], ":", color="0.5", linewidth=0.8)
    axes[0].set_title("ROC, CoNLL-2003 dev tokens, person vs rest")
    axes[1].set_title("zoom: FPR ≤ 10 % (band: 3–4 %)")
    axes[1].legend(fontsize=7, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
