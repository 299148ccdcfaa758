"""MLDP's own implementations beside ours on SST-2 utility (issue 18).

    python bench/peers_utility.py                                   # the README's figures
    python bench/peers_utility.py --train 200 --test 100 --configs mlaplace:3   # a smoke run

What it measures: for each ``mechanism:ε`` of ``--configs`` (``mlaplace`` ↔ MLDP's
``MultivariateCalibrated``, ``mahalanobis`` ↔ ``Mahalanobis``, ``vickrey`` ↔
``VickreyMechanism``, ``tem`` ↔ ``TEM``), the SST-2 accuracy of ``textdp evaluate utility``'s
classifier trained on privatized train sentences and tested on privatized test sentences,
once with our implementation and once with MLDP's (``mldp-text==0.1.2``), and the same for
the original text. Everything but the mechanism is shared and comes from
:mod:`textdp.evaluate.utility` by import: the SentEval ``stsa.binary`` reader
(``read_stsa``), the seeded subsets (``_subsample``, train with ``--seed``, test with
``--seed`` + 1, as ``evaluate utility`` draws them), the centroid features over the unclipped
table (``centroids``) and the standardised logistic regression (``classifier``).

Same table and ε for both: our default table (the embedded spaCy vectors) clipped to its
median norm, exactly the table a default ``Privatizer`` and ``evaluate utility`` hand the
mechanism, so ε 2 and 3 are the README's privacy–utility ε (on MLDP's unclipped GloVe table
these ε replace nearly every word, and both sides would score chance). MLDP gets it as a
gensim ``KeyedVectors`` of the candidate words and their clipped vectors
(``bench.mechanisms.mldp_keyed_vectors``) and builds its faiss IVF index on it, as its users
do; ours uses the exact neighbour index. Both privatize the same tokens: every word token of
the spaCy tokenization whose table row is a candidate word (the rest, a few percent, keep
their text on both sides: MLDP can only take a word of its table, and a stand-in vector for
the others would be ours alone). Ours draws through the mechanism's batched ``sample``, MLDP
through one ``replace_word`` call per token, as its users call it.

Uncertainty, printed per row: ``kept`` is the share of those tokens written as themselves
(a direct check that both draw at the same noise level), with ``z`` = (MLDP − our mean) over
the binomial standard error √(k(1 − k)/n · (1 + 1/draws)) (conservative: tokens are
independent draws, each with its own P(kept)). Accuracy: ours is drawn ``--draws`` times with
seeds ``--seed`` … (mean ± standard deviation over draws: the spread a single draw of the
same law has, train and test privatization and classifier together), MLDP once (its speed is
the limit); ``z`` is (MLDP − our mean) / (sd·√(1 + 1/draws)), about N(0, 1) under one law.
``boot`` is the standard error of the paired accuracy difference on the same test sentences
(our first draw against MLDP's, test sentences resampled ``--bootstrap`` times): the part of
the difference that test sampling alone explains.

Why the subset (by default 2,000 train and 1,000 test sentences, about 50,000 tokens drawn
by MLDP per configuration): MLDP draws one token per ``replace_word`` call, ~120 tokens/s for
``MultivariateCalibrated`` and ~28 for ``Mahalanobis`` on this table on a 2-core Xeon (a
300 × 300 SVD, and for Mahalanobis a ``sqrtm``, per call, and a linear scan of its vocabulary
for the output word), so all 8,741 sentences (~150,000 tokens) would take 1.5 h per
Mahalanobis configuration; the subset keeps the default three configurations under an hour
while 1,000 test sentences resolve accuracy to about ±1.5 points.

Run it in an environment with mldp-text installed without its dependencies (see
``bench/peers.py``); it prints one line of progress per 5,000 MLDP tokens.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine_info, print_machine, shared_data_dir
from bench.mechanisms import MLDP_CLASSES, mldp_keyed_vectors
from textdp.evaluate.utility import _subsample, centroids, classifier, read_stsa

DEFAULT_CONFIGS = "mlaplace:2,mlaplace:3,mahalanobis:3"
_CHUNK = 4096  # tokens per batched draw of ours
_PROGRESS = 5000  # MLDP tokens between progress lines


def parse_configs(value: str) -> list[tuple[str, float]]:
    """``"mlaplace:2,mahalanobis:3"`` → [("mlaplace", 2.0), ("mahalanobis", 3.0)]."""
    out = []
    for item in (v.strip() for v in value.split(",")):
        if not item:
            continue
        name, sep, eps = item.partition(":")
        if not sep or name not in MLDP_CLASSES:
            raise SystemExit(f"--configs: expected mechanism:ε with a mechanism of "
                             f"{sorted(MLDP_CLASSES)}, got {item!r}")
        out.append((name, float(eps)))
    return out


def targets(tokens: Sequence[Sequence[str]], space: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """(sentence, position) pairs and candidate indices of the tokens both libraries
    privatize (word tokens whose table row is a candidate), and their share of word tokens."""
    from textdp.privatizer import is_word

    to_candidate = space.candidate_of_row()
    where, cands, n_words = [], [], 0
    for s, toks in enumerate(tokens):
        words = [(p, t) for p, t in enumerate(toks) if is_word(t)]
        n_words += len(words)
        if not words:
            continue
        rows = space.lookup([t for _, t in words])
        for (p, _), r in zip(words, rows.tolist()):
            if r >= 0 and to_candidate[r] >= 0:
                where.append((s, p))
                cands.append(int(to_candidate[r]))
    return (np.asarray(where, dtype=np.int64).reshape(-1, 2), np.asarray(cands, np.int64),
            len(cands) / max(n_words, 1))


def ours_draw(mech: Any, space: Any, cands: np.ndarray, seed: int) -> np.ndarray:
    """One draw of our mechanism for every target token (candidate indices out)."""
    import torch

    from textdp.rng import RandomSource

    rng = RandomSource(seed)
    out = np.empty(len(cands), dtype=np.int64)
    with torch.inference_mode():
        for lo in range(0, len(cands), _CHUNK):
            uniq, inverse = np.unique(cands[lo:lo + _CHUNK], return_inverse=True)
            vec = torch.from_numpy(np.ascontiguousarray(space.vectors[uniq]))
            out[lo:lo + _CHUNK] = mech.sample(vec, torch.from_numpy(inverse.astype(np.int64)),
                                              rng).cpu().numpy()
    return out


def mldp_draw(peer: Any, space: Any, cands: np.ndarray, label: str) -> tuple[np.ndarray, float]:
    """One ``replace_word`` call of MLDP's class per target token; candidate indices out, and
    seconds."""
    index_of = {w: i for i, w in enumerate(space.words)}
    out = np.empty(len(cands), dtype=np.int64)
    start = time.perf_counter()
    for i, c in enumerate(cands.tolist()):
        out[i] = index_of[peer.replace_word(space.words[c])]
        if (i + 1) % _PROGRESS == 0:
            rate = (i + 1) / (time.perf_counter() - start)
            print(f"    {label}: MLDP {i + 1:,}/{len(cands):,} tokens, {rate:.1f}/s, "
                  f"{(len(cands) - i - 1) / rate / 60:.1f} min left", flush=True)
    return out, time.perf_counter() - start


def substituted(tokens: Sequence[Sequence[str]], where: np.ndarray, ids: np.ndarray,
                words: Sequence[str]) -> list[list[str]]:
    """The token lists with each target token replaced by the word of its drawn candidate."""
    new = [list(t) for t in tokens]
    for (s, p), c in zip(where.tolist(), ids.tolist()):
        new[s][p] = words[c]
    return new


def correct(train: np.ndarray, y_train: np.ndarray, test: np.ndarray, y_test: np.ndarray,
            seed: int) -> np.ndarray:
    """Per test sentence: whether ``evaluate utility``'s classifier, fit on ``train``, is
    right."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        model = classifier(seed).fit(train, y_train)
        return model.predict(test) == y_test


def paired_bootstrap_se(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> float:
    """Standard error of mean(a) − mean(b) over ``n_boot`` resamples of the (paired) items."""
    diff = a.astype(np.float64) - b.astype(np.float64)
    idx = np.random.default_rng(seed).integers(0, len(diff), size=(n_boot, len(diff)))
    return float(diff[idx].mean(axis=1).std(ddof=1))


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default=DEFAULT_CONFIGS,
                        help=f"mechanism:ε pairs (default {DEFAULT_CONFIGS})")
    parser.add_argument("--train", type=int, default=2000, help="train sentences (seeded)")
    parser.add_argument("--test", type=int, default=1000, help="test sentences (seeded)")
    parser.add_argument("--draws", type=int, default=10, help="draws of ours per config")
    parser.add_argument("--bootstrap", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=None, help="default: ../shared/data")
    args = parser.parse_args(argv)
    configs = parse_configs(args.configs)
    if args.draws < 2:
        raise SystemExit("--draws must be at least 2 (their spread is the uncertainty)")

    import torch

    from bench.peers import mldp_peer
    from textdp.calibration import resolve_table
    from textdp.defaults import load_pipeline
    from textdp.index import NeighbourIndex
    from textdp.mechanisms import create_mechanism
    from textdp.rng import RandomSource

    torch.set_num_threads(1)  # MLDP's loop is single-threaded; the machine is shared
    info = machine_info(("textdp", "torch", "numpy", "scikit-learn", "faiss-cpu", "mldp-text",
                         "gensim"))
    print_machine(info)
    root = Path(args.data) if args.data else shared_data_dir()
    train, y_train = read_stsa(root / "senteval" / "stsa.binary.train")
    test, y_test = read_stsa(root / "senteval" / "stsa.binary.test")
    i_tr = _subsample(len(train), args.train, args.seed)
    i_te = _subsample(len(test), args.test, args.seed + 1)
    texts = [train[i] for i in i_tr] + [test[i] for i in i_te]
    y_tr, y_te = y_train[i_tr], y_test[i_te]
    n_tr = len(i_tr)
    nlp = load_pipeline()
    tokens = [[t.text for t in doc] for doc in nlp.tokenizer.pipe(texts, batch_size=1000)]
    feature_table = resolve_table(None, clip_norm=None)  # features: unclipped, as evaluate
    space = resolve_table(None, clip_norm="median")  # the mechanism's table, as Privatizer's
    where, cands, share = targets(tokens, space)
    print(f"SST-2 stsa.binary: train {n_tr} of {len(train)}, test {len(i_te)} of {len(test)} "
          f"sentences (seed {args.seed}); {sum(map(len, tokens)):,} tokens, {len(cands):,} "
          f"privatized by both ({share:.1%} of word tokens; the rest keep their text)")
    print(f"table: {space.name}, {len(space):,} candidates × {space.dim} (for both); features "
          f"over {feature_table.name}; ours: exact index, {args.draws} draws; MLDP: its faiss "
          "IVF index, one replace_word per token, one draw", flush=True)

    def accuracy_of(ids: np.ndarray | None) -> tuple[np.ndarray, float]:
        new = tokens if ids is None else substituted(tokens, where, ids, space.words)
        feats = centroids(new, feature_table)
        hit = correct(feats[:n_tr], y_tr, feats[n_tr:], y_te, args.seed)
        kept = float("nan") if ids is None else float(np.mean(ids == cands))
        return hit, kept

    base_hit, _ = accuracy_of(None)
    base = float(base_hit.mean())
    index = NeighbourIndex(space.vectors, backend="exact")
    kv = mldp_keyed_vectors(space)
    rows: list[dict[str, Any]] = []
    print(f"\n  {'mechanism':<12}{'ε':>4}  {'kept ours':>13} {'MLDP':>6} {'z':>5}   "
          f"{'acc ours':>12} {'MLDP':>7} {'MLDP−':>7} {'z':>5} {'boot':>6}  {'ours t/s':>8} "
          f"{'MLDP':>6}")
    print(f"  {'original':<12}{'–':>4}  {'':>13} {'':>6} {'':>5}   {base:>12.3f}", flush=True)
    for name, eps in configs:
        mech = create_mechanism(name, eps)
        mech.prepare(space.vectors, index, RandomSource(args.seed))
        ours, ours_s = [], 0.0
        for r in range(args.draws):
            t0 = time.perf_counter()
            ids = ours_draw(mech, space, cands, args.seed + r)
            ours_s += (time.perf_counter() - t0) / args.draws
            ours.append(accuracy_of(ids))
        acc = np.asarray([h.mean() for h, _ in ours])
        kept = np.asarray([k for _, k in ours])
        np.random.seed(args.seed)
        random.seed(args.seed)
        peer = mldp_peer(name, eps, kv, None)  # (MLDP's own prints are swallowed there)
        peer_ids, peer_s = mldp_draw(peer, space, cands, f"{name} ε={eps:g}")
        peer_hit, peer_kept = accuracy_of(peer_ids)
        peer_acc = float(peer_hit.mean())
        sd = float(acc.std(ddof=1))
        scale = sd * math.sqrt(1 + 1 / args.draws)
        k_bar = float(kept.mean())
        kept_scale = math.sqrt(k_bar * (1 - k_bar) / len(cands) * (1 + 1 / args.draws))
        row = {"mechanism": name, "mldp_class": MLDP_CLASSES[name], "epsilon": eps,
               "kept_ours": float(kept.mean()), "kept_ours_sd": float(kept.std(ddof=1)),
               "kept_mldp": peer_kept, "accuracy_ours": float(acc.mean()),
               "accuracy_ours_sd": sd, "accuracy_ours_draws": acc.tolist(),
               "accuracy_mldp": peer_acc,
               "z": (peer_acc - float(acc.mean())) / scale if scale > 0 else float("nan"),
               "z_kept": (peer_kept - float(kept.mean())) / kept_scale if kept_scale > 0
               else float("nan"),
               "bootstrap_se": paired_bootstrap_se(ours[0][0], peer_hit, args.bootstrap,
                                                   args.seed),
               "ours_tokens_per_s": len(cands) / ours_s, "mldp_tokens_per_s": len(cands) / peer_s}
        rows.append(row)
        print(
            f"  {name:<12}{eps:>4g}  {row['kept_ours']:>6.3f} ±{row['kept_ours_sd']:.3f} "
            f"{peer_kept:>6.3f} {row['z_kept']:>5.1f}   {row['accuracy_ours']:.3f} ±{sd:.3f} "
            f"{peer_acc:>7.3f} {peer_acc - row['accuracy_ours']:>+7.3f} {row['z']:>5.1f} "
            f"{row['bootstrap_se']:>6.3f}  {row['ours_tokens_per_s']:>8,.0f} "
            f"{row['mldp_tokens_per_s']:>6,.1f}", flush=True)
    print(f"\nkept: share of the {len(cands):,} privatized tokens written as themselves (z over "
          "its binomial SE); acc: "
          f"SST-2 accuracy, trained and tested on privatized text ({n_tr} / {len(i_te)} "
          f"sentences); ours: mean ± sd over {args.draws} draws; MLDP: one draw; z: (MLDP − "
          f"ours) / (sd·√(1 + 1/{args.draws})); boot: bootstrap SE of the paired difference "
          "over test sentences (ours' first draw against MLDP's); t/s: tokens per second")
    return [{"original_accuracy": base}, *rows]


if __name__ == "__main__":
    main()
