"""How private a mechanism is on a table: plausible deniability, distance geometry, NADP's
recovery skewness and the name-leak rate of names-only mode.

    textdp evaluate privacy --mechanism mlaplace,mahalanobis,nadp --epsilon 0.5,1,2,5 \\
        [--epsilon nadp:20,50,100] [--table default|FILE] [--data ../shared/data] \\
        [--quick] [--seed 0] -o report/

Everything runs on the table the Privatizer uses: the candidates clipped to their median norm.
A sample of table words (uniform over the candidates, the same for every configuration) is
measured for each (mechanism, ε):

* **Plausible deniability** (Feyisetan et al. 2020): over n draws of the mechanism for a word
  w, N_w is how often the output is w itself and S_w how many distinct words come out. All
  draws of a chunk of words go through the mechanism's batched ``sample`` at once.
* **Distance geometry**: the mean distance between a word and its noisy vector
  (``mechanism.perturb``), against the mean distance to its k = 10 nearest words and to its
  nearest word. Noise far beyond the neighbours' distance replaces the word by an unrelated
  one; noise well inside it keeps the word.
* **Recovery skewness** (the privacy measure of Bollegala et al. 2023, NADP): P(w | ŵ), the
  chance of recognising w from its noisy vector ŵ, estimated per word as the overlap of the k
  nearest words of w (w included) and of ŵ, |N_k(w) ∩ N_k(ŵ)| / k, averaged over draws; the
  skewness of its distribution over the words summarises it. Positive skew: most words are
  hard to recover and a few stand out; negative skew: most are recoverable. (The paper's exact
  estimator could not be consulted; this is our reading, stated here and in the report.)
* **Name leak** (names-only mode, default targets) on CoNLL-2003 dev: the share of gold
  person tokens that stand unchanged in the output of :class:`~textdp.privatizer.Privatizer`,
  split into tokens the detector missed and tokens the mechanism drew unchanged.

Noise-free mechanisms (the exponential-mechanism draws ``tem``, ``santext``, ``custext``, and
``truncated_gumbel``, ``diffractor``) have no noisy vector: their geometry and recovery figures
are left empty. The empirical audit of each mechanism against its stated guarantee, with a
too-little-noise positive control, is in tests/audit/test_metric_dp.py and, for the mechanisms
of issue 18, tests/mechanisms/test_mechanisms_peers.py. All draws use a fixed seed (the
figures are reproducible; nothing privatized is written out).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from textdp.calibration import resolve_table, sample_rows
from textdp.grid import EpsilonGrid
from textdp.grid import epsilon_grid as parse_epsilon_grid
from textdp.index import shared_index
from textdp.mechanisms import Mechanism, available, create_mechanism, registry
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable
from textdp.validation import check_positive_int

DEFAULT_MECHANISMS = ("mlaplace", "mahalanobis", "nadp")
# ε per mechanism on the default table (en_core_web_md, clipped to the median norm), from
# "nearly every word replaced" to "nearly every word kept": `textdp calibrate` puts the median
# P(unchanged) at 1 % / 50 % / 90 % at ε = 0.84 / 2.1 / 3.0 (mlaplace), 0.94 / 2.6 / 3.7
# (mahalanobis), 8 / 25 / 38 (nadp) and 30 / 118 / 204 (gaussian). The (ε, δ) mechanisms
# need a larger ε for the same effect: their ε is not multiplied by a distance.
DEFAULT_EPSILONS: dict[str, tuple[float, ...]] = {
    "*": (0.5, 1.0, 2.0, 3.0, 5.0),
    "nadp": (5.0, 10.0, 25.0, 40.0, 100.0),
    "gaussian": (20.0, 50.0, 120.0, 200.0, 500.0),
    # Its calibration (Carvalho et al. 2021) is defined only above (2(1 + ln|V|) + 3)/Δmin,
    # 5.4 on the default table; below that prepare() refuses the ε.
    "truncated_gumbel": (6.0, 8.0, 12.0, 20.0, 40.0),
}
FULL_WORDS, FULL_DRAWS = 1000, 100
QUICK_WORDS, QUICK_DRAWS, QUICK_SENTENCES = 100, 20, 300
NEIGHBOURS = 10           # k of the geometry and recovery figures
GEOMETRY_DRAWS = 20       # noisy vectors per word for geometry and recovery
CONLL_DEV = Path("conll2003") / "eng.testa"
_TOKENS_PER_CALL = 1 << 16  # draws per batched sample() call


# ---------------------------------------------------------------------------- measures
def plausible_deniability(mechanism: Mechanism, vectors: np.ndarray, rows: np.ndarray,
                          n_draws: int, rng: RandomSource) -> tuple[np.ndarray, np.ndarray]:
    """N_w (draws that return the word itself) and S_w (distinct outputs) per word.

    ``vectors`` are the words' input vectors, ``rows`` their candidate indices; every word is
    drawn ``n_draws`` times through ``mechanism.sample`` in chunks of whole words.
    """
    n_draws = check_positive_int("n_draws", n_draws)
    n_same = np.zeros(len(rows), dtype=np.int64)
    n_distinct = np.zeros(len(rows), dtype=np.int64)
    step = max(1, _TOKENS_PER_CALL // n_draws)
    tensor = torch.from_numpy(np.ascontiguousarray(vectors, np.float32))
    with torch.inference_mode():
        for lo in range(0, len(rows), step):
            hi = min(len(rows), lo + step)
            inverse = torch.arange(hi - lo).repeat_interleave(n_draws)
            ids = mechanism.sample(tensor[lo:hi], inverse, rng).cpu().numpy()
            ids = ids.reshape(hi - lo, n_draws)
            n_same[lo:hi] = (ids == rows[lo:hi, None]).sum(axis=1)
            ordered = np.sort(ids, axis=1)
            n_distinct[lo:hi] = 1 + (np.diff(ordered, axis=1) != 0).sum(axis=1)
    return n_same, n_distinct


def worst_violation(counts: np.ndarray, bound: np.ndarray, alpha: float) -> float:
    """The empirical audit of a per-pair bound: the largest, over inputs x ≠ x' and outputs y,
    of the Clopper–Pearson lower confidence bound on ln P[y|x]/P[y|x'] minus ``bound[x, x']``.

    ``counts[x, y]`` counts how often input x gave output y; ``alpha`` is the one-sided level
    of each interval (divide a family-wise level by the number of (x, x', y) triples). A result
    ≤ 0 means no evidence against the guarantee; a positive one is a violation certain at that
    level (a mechanism with too little noise shows one)."""
    from scipy.stats import beta

    worst = -np.inf
    n = counts.sum(axis=1)
    for x in range(len(counts)):
        for x2 in range(len(counts)):
            if x == x2:
                continue
            for y in range(counts.shape[1]):
                k1, k2 = int(counts[x, y]), int(counts[x2, y])
                if k1 == 0:
                    continue
                lo = float(beta.ppf(alpha, k1, n[x] - k1 + 1))
                hi = 1.0 if k2 == n[x2] else float(beta.ppf(1 - alpha, k2 + 1, n[x2] - k2))
                if lo > 0:
                    worst = max(worst, float(np.log(lo / hi)) - float(bound[x, x2]))
    return float(worst)


def neighbour_distances(mechanism: Mechanism, rows: np.ndarray, k: int = NEIGHBOURS
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """In the space the mechanism decodes in: the distance of each word to its nearest other
    word, the mean distance to its ``k`` nearest, and the ids of its ``k`` nearest (itself
    included, for the recovery overlap)."""
    index = mechanism._require_index()
    space = torch.from_numpy(np.ascontiguousarray(mechanism.candidates[rows], np.float32))
    with torch.inference_mode():
        dist, ids = index.search(space, k + 1)
    dist, ids = dist.cpu().numpy().astype(np.float64), ids.cpu().numpy()
    others = ids != rows[:, None]
    # Drop the word itself (normally column 0) and keep k others.
    order = np.argsort(~others, axis=1, kind="stable")[:, :k]
    other_dist = np.take_along_axis(dist, order, 1)
    own_list = np.concatenate([rows[:, None], np.take_along_axis(ids, order, 1)[:, :k - 1]],
                              axis=1)
    return other_dist[:, 0], other_dist.mean(axis=1), own_list


def noisy_geometry(mechanism: Mechanism, vectors: np.ndarray, rows: np.ndarray,
                   own_lists: np.ndarray, n_draws: int, rng: RandomSource,
                   k: int = NEIGHBOURS) -> tuple[np.ndarray, np.ndarray]:
    """Per word, over ``n_draws`` noisy vectors ŵ of a mechanism that ``perturbs``: the mean
    distance ‖ŵ − w‖ (in the mechanism's decode space) and the mean overlap
    |N_k(w) ∩ N_k(ŵ)| / k."""
    index = mechanism._require_index()
    base = np.ascontiguousarray(mechanism.candidates[rows], np.float32)
    noise_distance = np.zeros(len(rows))
    recovery = np.zeros(len(rows))
    step = max(1, _TOKENS_PER_CALL // (4 * n_draws))
    with torch.inference_mode():
        for lo in range(0, len(rows), step):
            hi = min(len(rows), lo + step)
            w = hi - lo
            inputs = torch.from_numpy(np.repeat(vectors[lo:hi], n_draws, axis=0))
            noisy = mechanism.perturb(inputs.to(index.device), rng)
            centre = torch.from_numpy(np.repeat(base[lo:hi], n_draws, axis=0)).to(noisy.device)
            dist = torch.linalg.vector_norm(noisy - centre, dim=1).double().cpu().numpy()
            noise_distance[lo:hi] = dist.reshape(w, n_draws).mean(axis=1)
            ids = index.search(noisy, k)[1].cpu().numpy().reshape(w, n_draws, k)
            lists = own_lists[lo:hi][:, None, None, :]
            shared = (ids[..., None] == lists).any(axis=3).sum(axis=2)
            recovery[lo:hi] = (shared / k).mean(axis=1)
    return noise_distance, recovery


def skewness(values: np.ndarray) -> float | None:
    """Sample skewness (Fisher–Pearson), or ``None`` when the values are all equal."""
    from scipy.stats import skew

    values = np.asarray(values, dtype=np.float64)
    if values.size < 3 or float(np.ptp(values)) == 0.0:
        return None
    return float(skew(values))


def _quantiles(values: np.ndarray, prefix: str) -> dict[str, float]:
    values = np.asarray(values, dtype=np.float64)
    return {f"{prefix}_mean": float(values.mean()), f"{prefix}_median": float(np.median(values)),
            f"{prefix}_p10": float(np.quantile(values, 0.1)),
            f"{prefix}_p90": float(np.quantile(values, 0.9))}


# ---------------------------------------------------------------------------- results
@dataclass
class WordFigures:
    """Per-word arrays of one (mechanism, ε), aligned with :attr:`PrivacyEvaluation.words`."""

    n_same: np.ndarray
    n_distinct: np.ndarray
    noise_distance: np.ndarray | None = None
    recovery: np.ndarray | None = None


@dataclass
class PrivacyEvaluation:
    """Everything ``evaluate privacy`` measured.

    Attributes:
        rows: one JSON-able dict of summaries per (mechanism, ε).
        words: the sampled table words (same order as every per-word array).
        per_word: per-word arrays keyed by ``(mechanism, ε)`` (for histograms).
        neighbours: per mechanism, the distance of each word to its nearest word (``"nn1"``)
            and the mean distance to its k nearest (``"knn"``), in its decode space.
        name_leak: one JSON-able dict per (mechanism, ε) (empty if not measured).
        settings: the sample sizes, seed and table.
    """

    rows: list[dict[str, Any]]
    words: list[str]
    per_word: dict[tuple[str, float], WordFigures]
    neighbours: dict[str, dict[str, np.ndarray]]
    name_leak: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The figures as JSON-able values (per-word N_w and S_w included, for replotting)."""
        return {
            "settings": self.settings, "rows": self.rows, "name_leak": self.name_leak,
            "words": self.words,
            "per_word": {f"{m}@{e:g}": {"n_same": f.n_same.tolist(),
                                        "n_distinct": f.n_distinct.tolist()}
                         for (m, e), f in self.per_word.items()},
        }


def epsilon_grid(mechanisms: Sequence[str],
                 epsilons: EpsilonGrid | None = None) -> dict[str, list[float]]:
    """ε values per mechanism, in any form of :mod:`textdp.grid` (numbers for every
    mechanism, ``"nadp:20,50"`` entries, a mapping with ``"*"`` for the rest); a mechanism
    without values takes its :data:`DEFAULT_EPSILONS`."""
    return parse_epsilon_grid(mechanisms, epsilons, defaults=DEFAULT_EPSILONS)


def evaluate_privacy(
    mechanisms: Sequence[str],
    epsilons: EpsilonGrid | None,
    *,
    table: EmbeddingTable | str | os.PathLike[str] | None = None,
    n_words: int | None = None,
    n_draws: int | None = None,
    quick: bool = False,
    seed: int = 0,
    conll: str | os.PathLike[str] | None = None,
    sentences: int | None = None,
    log: Callable[[str], Any] = lambda line: None,
) -> PrivacyEvaluation:
    """Measure every (mechanism, ε) on one sample of table words (see the module docstring).

    Args:
        mechanisms: registered mechanism names.
        epsilons: the ε grid in any form of :mod:`textdp.grid`: values for every mechanism,
            ``"name:values"`` entries or ``{name: values, "*": values}``; ``None`` or a
            mechanism without values: :data:`DEFAULT_EPSILONS` (see :func:`epsilon_grid`).
        table: ``None``/``"default"``, a word2vec/GloVe/fastText file or an EmbeddingTable
            (clipped to its median norm here, as the Privatizer does).
        n_words, n_draws: sample sizes (defaults: 1000 × 100, or 100 × 20 with ``quick``).
        quick: small sample sizes and ≤ 300 CoNLL sentences (for tests and a first look).
        seed: seed of the word sample and every draw.
        conll: a CoNLL-2003 file for the name-leak rate (``None``: not measured).
        sentences: use only the first N sentences of ``conll`` (default: all, 300 if quick).
        log: called with one progress line per configuration.

    Returns:
        A :class:`PrivacyEvaluation` (``.rows`` holds one JSON-able dict per configuration).
    """
    names = [str(m) for m in mechanisms]
    if not names:
        raise ValueError("mechanisms must name at least one registered mechanism")
    for m in names:
        if m not in registry:  # a short name or a versioned one (textdp.mlaplace.v1)
            raise ValueError(f"mechanism must be one of {available()}, got {m!r}")
        factory = registry.get(m)
        # Measured on table vectors: dpnr releases representations, dpmlm draws from text.
        # Both are declared on the class (a factory function declares neither).
        if getattr(factory, "reads_context", False) or \
                not getattr(factory, "substitutes", True):
            raise ValueError(f"mechanism {m!r} does not substitute from table vectors; "
                             "evaluate privacy measures mechanisms that do")
    grid = epsilon_grid(names, epsilons)
    n_words = check_positive_int("n_words", n_words or (QUICK_WORDS if quick else FULL_WORDS))
    n_draws = check_positive_int("n_draws", n_draws or (QUICK_DRAWS if quick else FULL_DRAWS))
    if conll is not None and not os.path.isfile(conll):
        raise ValueError(f"conll: {os.fspath(conll)!r} is not a file")
    base = resolve_table(table, None)
    space = resolve_table(base, "median")
    rows = sample_rows(space, n_words, seed)
    words = [space.words[r] for r in rows.tolist()]
    vectors = space.vectors[rows]
    index = shared_index(space, "auto", torch.device("cpu"))
    out_rows: list[dict[str, Any]] = []
    per_word: dict[tuple[str, float], WordFigures] = {}
    neighbours: dict[str, dict[str, np.ndarray]] = {}
    for name in names:
        own_lists = None
        for eps in grid[name]:
            start = time.perf_counter()
            mech = create_mechanism(name, eps)
            mech.prepare(space.vectors, index, RandomSource(seed))
            rng = RandomSource(seed)
            n_same, n_distinct = plausible_deniability(mech, vectors, rows, n_draws, rng)
            figures = WordFigures(n_same, n_distinct)
            row: dict[str, Any] = {
                "mechanism": name, "epsilon": eps, "delta": mech.delta,
                "guarantee": mech.guarantee, "n_words": len(rows), "n_draws": n_draws,
                **_quantiles(n_same, "n_same"), **_quantiles(n_distinct, "n_distinct"),
                "unchanged_mean": float(n_same.mean() / n_draws),
                "unchanged_median": float(np.median(n_same) / n_draws),
                "never_kept": float((n_same == 0).mean()),
                "always_kept": float((n_same == n_draws).mean()),
            }
            if mech.perturbs:  # a noisy vector to measure (not the exponential draws)
                if own_lists is None:
                    nn1, knn, own_lists = neighbour_distances(mech, rows)
                    neighbours[name] = {"nn1": nn1, "knn": knn}
                g_draws = min(n_draws, GEOMETRY_DRAWS)
                noise_distance, recovery = noisy_geometry(mech, vectors, rows, own_lists,
                                                          g_draws, rng)
                figures.noise_distance, figures.recovery = noise_distance, recovery
                knn_mean = neighbours[name]["knn"]
                row.update({
                    "noise_distance_mean": float(noise_distance.mean()),
                    "nn1_distance_mean": float(neighbours[name]["nn1"].mean()),
                    "knn_distance_mean": float(knn_mean.mean()),
                    "noise_beyond_knn": float((noise_distance > knn_mean).mean()),
                    "recovery_mean": float(recovery.mean()),
                    "recovery_skewness": skewness(recovery),
                })
            neighbourhoods = getattr(mech, "neighbourhoods", None)
            if neighbourhoods is not None and hasattr(neighbourhoods, "summary"):
                row["neighbourhoods"] = neighbourhoods.summary()
            row["seconds"] = time.perf_counter() - start
            out_rows.append(row)
            per_word[(name, eps)] = figures
            log(f"{name} ε={eps:g}: median N_w {row['n_same_median']:g}/{n_draws}, "
                f"median S_w {row['n_distinct_median']:g}, {row['seconds']:.1f} s")
    leak: list[dict[str, Any]] = []
    if conll is not None:
        limit = sentences if sentences is not None else (QUICK_SENTENCES if quick else None)
        leak = name_leak(names, grid, conll, table=base, sentences=limit, seed=seed, log=log)
    settings = {"table": space.name, "table_fingerprint": space.fingerprint(),
                "candidates": len(space), "dim": space.dim, "clip_norm": "median",
                "n_words": len(rows), "n_draws": n_draws, "geometry_draws": min(
                    n_draws, GEOMETRY_DRAWS), "neighbours": NEIGHBOURS, "seed": seed,
                "quick": bool(quick), "conll": None if conll is None else os.fspath(conll)}
    return PrivacyEvaluation(out_rows, words, per_word, neighbours, leak, settings)


# ---------------------------------------------------------------------------- name leak
def _load_sentences(path: str | os.PathLike[str], sentences: int | None) -> list[Any]:
    """Documents of a CoNLL file, cut after the first ``sentences`` sentences."""
    from textdp.corpora.conll import read_conll

    documents = read_conll(path)
    if sentences is None:
        return documents
    sentences = check_positive_int("sentences", sentences)
    kept, left = [], sentences
    for doc in documents:
        if left <= 0:
            break
        kept.append(doc[:left])
        left -= len(kept[-1])
    return kept


def name_leak(
    mechanisms: Sequence[str],
    epsilons: EpsilonGrid | None,
    conll: str | os.PathLike[str],
    *,
    table: EmbeddingTable | str | os.PathLike[str] | None = None,
    sentences: int | None = None,
    seed: int = 0,
    detector: Any = None,
    log: Callable[[str], Any] = lambda line: None,
) -> list[dict[str, Any]]:
    """Share of gold person tokens (tokens with a letter) left unchanged by the Privatizer in
    names-only mode, per (mechanism, ε).

    A document of the file is one text (as the detection evaluation does); the detector (the
    default unless given) runs once and every configuration substitutes on its spans through
    :meth:`Privatizer.privatize_docs`. ``missed``: gold tokens the detector did not target;
    ``kept``: targeted gold tokens the mechanism drew unchanged.
    """
    from textdp.corpora.conll import to_docs
    from textdp.detect import create_detector, normalise_label
    from textdp.privatizer import DEFAULT_TARGETS, Privatizer, is_word

    names = list(mechanisms)
    grid = epsilon_grid(names, epsilons)
    base = resolve_table(table, None)
    documents = _load_sentences(conll, sentences)
    n_sentences = sum(len(d) for d in documents)
    docs, gold = to_docs(documents, unit="document")
    detector = create_detector(detector)
    spans: list[Any] = []
    start = time.perf_counter()
    for lo in range(0, len(docs), 256):
        spans.extend(detector(list(docs[lo:lo + 256])))
    detect_seconds = time.perf_counter() - start
    wanted = {normalise_label(t) for t in DEFAULT_TARGETS}
    words = [[t.text for t in doc] for doc in docs]
    gold_tokens: list[set[int]] = []
    targeted: list[set[int]] = []
    for ws, g_spans, p_spans in zip(words, gold, spans):
        gold_tokens.append({k for s, e, lab in g_spans if normalise_label(lab) in wanted
                            for k in range(s, e) if is_word(ws[k])})
        targeted.append({k for s, e, lab in p_spans if normalise_label(lab) in wanted
                         for k in range(s, min(e, len(ws)))})
    n_gold = sum(len(g) for g in gold_tokens)
    missed = sum(len(g - t) for g, t in zip(gold_tokens, targeted))
    rows = []
    for name in names:
        for eps in grid[name]:
            start = time.perf_counter()
            # The mechanism over the whole table (replace="word", nothing excluded), as the
            # figures of this table measure it; pseudonyms have `textdp evaluate pseudonyms`.
            privatizer = Privatizer(epsilon=eps, mechanism=name, table=base, detector=detector,
                                    seed=seed, replace="word", exclude=None)
            outputs = privatizer.privatize_docs(docs, spans)
            kept = sum(1 for ws, (new, _), g, t in zip(words, outputs, gold_tokens, targeted)
                       for k in g & t if new[k] == ws[k])
            rows.append({
                "mechanism": name, "epsilon": eps, "docs": len(docs),
                "sentences": n_sentences,
                "gold_person_tokens": n_gold, "missed": missed, "kept": kept,
                "leak_rate": (missed + kept) / n_gold if n_gold else 0.0,
                "missed_rate": missed / n_gold if n_gold else 0.0,
                "kept_rate": kept / n_gold if n_gold else 0.0,
                "detector_seconds": detect_seconds,
                "seconds": time.perf_counter() - start,
            })
            log(f"name leak {name} ε={eps:g}: {rows[-1]['leak_rate']:.4f} "
                f"({missed} missed + {kept} kept of {n_gold})")
    return rows


# ---------------------------------------------------------------------------- plots
def plot_report(evaluation: PrivacyEvaluation, out_dir: str | os.PathLike[str]) -> list[str]:
    """Write the PNG figures; returns their paths relative to ``out_dir``.

    ``privacy_nw_vs_epsilon.png``: P(unchanged) = N_w / n against ε (median, mean and the
    10–90 % band of words) per mechanism; ``privacy_hist_nw.png`` and ``privacy_hist_sw.png``:
    histograms of N_w and S_w, one panel per (mechanism, ε); ``privacy_geometry.png``: mean
    distance of the noisy vector against ε with each mechanism's nearest-word and k-nearest
    distances as references.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from textdp.evaluate.report import save_figure

    rows = evaluation.rows
    mechs = list(dict.fromkeys(r["mechanism"] for r in rows))
    n = int(rows[0]["n_draws"])
    figures = []
    colours = {m: f"C{i}" for i, m in enumerate(mechs)}

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for m in mechs:
        mine = sorted((r for r in rows if r["mechanism"] == m), key=lambda r: r["epsilon"])
        eps = [r["epsilon"] for r in mine]
        ax.plot(eps, [r["unchanged_median"] for r in mine], marker="o", color=colours[m],
                label=f"{m} (median)")
        ax.plot(eps, [r["unchanged_mean"] for r in mine], linestyle="--", color=colours[m],
                label=f"{m} (mean)")
        ax.fill_between(eps, [r["n_same_p10"] / n for r in mine],
                        [r["n_same_p90"] / n for r in mine], color=colours[m], alpha=0.15)
    ax.set_xscale("log")
    ax.set_xlabel("ε per token")
    ax.set_ylabel("N_w / n = P(unchanged)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(f"Words kept over {n} draws ({rows[0]['n_words']} words; band: 10–90 %)",
                 fontsize=9)
    figures.append(save_figure(fig, out_dir, "privacy_nw_vs_epsilon.png"))

    for attr, label, filename, upper in (
            ("n_same", "N_w (draws returning the word)", "privacy_hist_nw.png", n),
            ("n_distinct", "S_w (distinct outputs)", "privacy_hist_sw.png", n)):
        cols = max(len([r for r in rows if r["mechanism"] == m]) for m in mechs)
        fig, axes = plt.subplots(len(mechs), cols, figsize=(2.6 * cols, 2.0 * len(mechs)),
                                 squeeze=False, sharex=True)
        for i, m in enumerate(mechs):
            mine = sorted((r for r in rows if r["mechanism"] == m), key=lambda r: r["epsilon"])
            for j in range(cols):
                ax = axes[i, j]
                if j >= len(mine):
                    ax.set_visible(False)
                    continue
                values = getattr(evaluation.per_word[(m, mine[j]["epsilon"])], attr)
                width = max(1, -(-(upper + 1) // 40))  # whole counts per bin, ≤ 40 bins
                ax.hist(values, bins=np.arange(0, upper + 1 + width, width) - 0.5,
                        color=colours[m])
                ax.set_title(f"{m}, ε={mine[j]['epsilon']:g}", fontsize=8)
                ax.tick_params(labelsize=7)
        fig.supxlabel(f"{label}, n = {n}", fontsize=9)
        fig.supylabel("words", fontsize=9)
        fig.tight_layout()
        figures.append(save_figure(fig, out_dir, filename))

    geo = [r for r in rows if r.get("noise_distance_mean") is not None]
    if geo:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        references: dict[tuple[float, float], list[str]] = {}
        for m in dict.fromkeys(r["mechanism"] for r in geo):
            mine = sorted((r for r in geo if r["mechanism"] == m), key=lambda r: r["epsilon"])
            ax.plot([r["epsilon"] for r in mine], [r["noise_distance_mean"] for r in mine],
                    marker="o", color=colours[m], label=f"{m}: mean ‖ŵ − w‖")
            key = (round(mine[0]["knn_distance_mean"], 6), round(mine[0]["nn1_distance_mean"], 6))
            references.setdefault(key, []).append(m)
        # Mechanisms that decode in the same space share their reference lines.
        for (knn, nn1), owners in references.items():
            colour = "black" if len(owners) > 1 else colours[owners[0]]
            who = "" if len(references) == 1 else f" ({', '.join(owners)})"
            ax.axhline(knn, color=colour, linestyle="--", linewidth=1,
                       label=f"mean distance to the {NEIGHBOURS} nearest words{who}")
            ax.axhline(nn1, color=colour, linestyle=":", linewidth=1,
                       label=f"mean distance to the nearest word{who}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ε per token")
        ax.set_ylabel("Euclidean distance (decode space)")
        ax.grid(True, alpha=0.3, which="both")
        ax.legend(fontsize=6)
        ax.set_title("Noise against the distance to neighbouring words", fontsize=9)
        figures.append(save_figure(fig, out_dir, "privacy_geometry.png"))
    return figures


# ---------------------------------------------------------------------------- report
def report_body(evaluation: PrivacyEvaluation, notes: Sequence[str] = ()) -> str:
    """The section's Markdown: what was measured and one table per figure family."""
    from textdp.evaluate.report import markdown_table

    s = evaluation.settings
    parts = [
        f"Table `{s['table']}` ({s['candidates']:,} candidates, {s['dim']} d, clipped to the "
        f"median norm as the Privatizer does). {s['n_words']} words sampled uniformly from "
        f"the candidates (seed {s['seed']}), {s['n_draws']} draws each through the "
        "mechanism's batched `sample`. N_w: draws that return the word itself; S_w: distinct "
        "outputs (Feyisetan et al. 2020). Geometry and recovery use "
        f"{s['geometry_draws']} noisy vectors per word (`perturb`) and k = {s['neighbours']}. "
        "Recovery P(w | ŵ) is |N_k(w) ∩ N_k(ŵ)| / k (w's own k nearest include w); its "
        "skewness over the words is NADP's privacy measure as we read it (Bollegala et al. "
        "2023; the paper's exact estimator could not be consulted). Metric mechanisms "
        "(mlaplace, mahalanobis) and (ε, δ) mechanisms (gaussian, nadp) use ε on different "
        "scales: compare them at equal N_w, not at equal ε.", ""]
    parts += list(notes)
    parts += ["", "## Plausible deniability", "", markdown_table(evaluation.rows, {
        "mechanism": "mechanism", "epsilon": "ε", "n_same_median": "N_w median",
        "n_same_mean": "N_w mean", "n_same_p90": "N_w p90", "n_distinct_median": "S_w median",
        "n_distinct_mean": "S_w mean", "never_kept": "never kept",
        "always_kept": "always kept"}, digits=2)]
    geo = [r for r in evaluation.rows if r.get("noise_distance_mean") is not None]
    if geo:
        parts += ["", "## Distance geometry and recovery", "", markdown_table(geo, {
            "mechanism": "mechanism", "epsilon": "ε", "noise_distance_mean": "‖ŵ − w‖ mean",
            "nn1_distance_mean": "nearest word", "knn_distance_mean": f"{NEIGHBOURS} nearest",
            "noise_beyond_knn": "noise > k-NN", "recovery_mean": "P(w|ŵ) mean",
            "recovery_skewness": "skewness"})]
    nadp = [r for r in evaluation.rows if "neighbourhoods" in r]
    if nadp:
        nb = nadp[0]["neighbourhoods"]
        sens = nb["sensitivity_per_word"]
        parts += ["", "## NADP neighbourhoods", "",
                  f"{nb['neighbourhoods']:,} neighbourhoods ({nb['singletons']:,} single "
                  f"words, largest {nb['largest']}); sensitivity per word: median "
                  f"{sens['median']:.1f}, 95th percentile {sens['p95']:.1f}, max "
                  f"{sens['max']:.1f}."]
    if evaluation.name_leak:
        first = evaluation.name_leak[0]
        parts += ["", "## Name leak (names-only mode, CoNLL-2003)", "",
                  f"{first['gold_person_tokens']:,} gold person tokens in {first['docs']} "
                  f"documents of `{s['conll']}`; the default detector missed "
                  f"{first['missed']} of them (the same for every configuration). Leak = "
                  "(missed + drawn unchanged) / gold.", "",
                  markdown_table(evaluation.name_leak, {
                      "mechanism": "mechanism", "epsilon": "ε", "leak_rate": "leak rate",
                      "missed_rate": "missed by detector", "kept_rate": "drawn unchanged",
                      "kept": "tokens drawn unchanged"}, digits=4)]
    return "\n".join(parts)


__all__ = [
    "PrivacyEvaluation", "WordFigures", "epsilon_grid", "evaluate_privacy",
    "name_leak", "neighbour_distances", "noisy_geometry", "plausible_deniability",
    "plot_report", "skewness",
]
