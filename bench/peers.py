"""Do our mechanisms draw from the same law as MLDP's own implementations? (issue 18)

    /tmp/peers-venv/bin/python bench/peers.py                      # 1,000 words × 100 draws
    /tmp/peers-venv/bin/python bench/peers.py --words 50 --draws 20 --mechanisms mlaplace,tem

For every mechanism both libraries have (``mlaplace`` ↔ ``MultivariateCalibrated``,
``mahalanobis`` ↔ ``Mahalanobis``, ``vickrey`` ↔ ``VickreyMechanism``, ``tem`` ↔ ``TEM``,
``truncated_gumbel`` ↔ ``TruncatedGumbel``), on MLDP's own GloVe table (its package data,
33,860 words × 300, unclipped, exactly as MLDP sees it) and the same ε, the same sample of
table words (uniform, seeded) is drawn ``--draws`` times by each implementation: ours through
the mechanism's batched ``sample`` (as ``textdp evaluate privacy`` does), MLDP's through one
``replace_word`` call per draw, as its users call it. Per word: N_w (draws that return the word)
and S_w (distinct outputs), the plausible-deniability statistics of Feyisetan et al. (2020).

Agreement: under one law, the per-word differences N_w(ours) − N_w(MLDP) have mean 0; the
script prints the paired z = mean difference / its standard error over the words (and the same
for S_w), and calls the two implementations in agreement when |z| < 3 for both. Speed: draws
per second of each, timed in the same run, and their ratio.

``truncated_gumbel`` needs ε above (2(1 + ln|V|) + 3)/Δmin on the table; where ``--epsilon`` is
below it, both libraries run at ``--tg-epsilon`` (default: 1.1 × that minimum, printed). MLDP's
``TruncatedGumbel`` is given our exact Δmin and Δmax (its own default takes them from one random
start word), so both use the same Gumbel scale.

What disagreed, and which side is wrong (figures in README, "Mechanisms against the peers"):
MLDP's ``TruncatedGumbel`` adds the noise to the *squared* distances its faiss index returns
(faiss' L2 search is squared; its own ``use_faiss=False`` path and the paper use distances), so
it keeps the word far more often; with ``--mldp-no-faiss`` it agrees with ours. MLDP's
``VickreyMechanism`` departs from the paper twice: it drops the input word when that is the
nearest to the noisy vector (the choice then depends on the secret word, so it is no longer
post-processing of the noise) and it chooses by softmax(−t·d) with t = (1, 0) instead of the
paper's t·d₁ / (t·d₁ + (1 − t)·d₂); ours follows the paper, so the two are not expected to agree.

MLDP (``mldp-text==0.1.2``) pins numpy < 2, which this stack refuses; it runs unchanged on
numpy 2. Install it without its dependencies in the benchmark's own environment, never in the
runtime one::

    python -m venv --system-site-packages /tmp/peers-venv
    /tmp/peers-venv/bin/pip install --no-deps mldp-text==0.1.2 nltk numba llvmlite

(MLDP tries to download NLTK's WordNet on import; offline it prints a warning and goes on.)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine_info, print_machine, write_results
from bench.mechanisms import MLDP_CLASSES, mldp_keyed_vectors
from bench.static import load_table

PAIRS = dict(MLDP_CLASSES, truncated_gumbel="TruncatedGumbel")
MECHANISMS = ("mlaplace", "mahalanobis", "vickrey", "tem", "truncated_gumbel")
_RETRIES = 3  # redraws of one MLDP call that raised (see peer_counts)


def mldp_peer(name: str, epsilon: float, kv: Any, extremes: tuple[float, float] | None,
              use_faiss: bool = True) -> Any:
    """MLDP's class for ``name`` on ``kv`` (``extremes``: Δmin, Δmax for TruncatedGumbel;
    ``use_faiss=False``: its exact numpy search instead of its faiss IVF index)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import mldp_text

        cls = getattr(mldp_text, PAIRS[name])
        kwargs: dict[str, Any] = {"embedding_matrix": kv, "dim": kv.vector_size}
        if name in ("tem", "truncated_gumbel"):
            kwargs["vocab"] = set(kv.index_to_key)
        if name == "truncated_gumbel" and extremes is not None:
            kwargs.update(min_inter_dist=extremes[0], max_inter_dist=extremes[1])
        if name != "tem":  # MLDP's TEM has no index
            kwargs["use_faiss"] = use_faiss
        return cls(epsilon, **kwargs)


def peer_counts(peer: Any, words: list[str], n_draws: int
                ) -> tuple[np.ndarray, np.ndarray, float, int]:
    """N_w, S_w per word from ``n_draws`` calls of ``peer.replace_word`` each, seconds, and
    the number of calls that raised and were drawn again.

    A call that raises is drawn again, at most ``_RETRIES`` times in a row (then the error
    propagates): MLDP's ``TruncatedGumbel`` with its faiss index raises ``AssertionError`` when
    its truncated Poisson draws k = 0 (faiss refuses a search for 0 neighbours), about one call
    in |V| − 1; redrawing conditions on k ≥ 1, which moves N_w by O(1/|V|). A systematic
    failure (its TEM dividing by zero at small ε) still fails the row.
    """
    n_same = np.zeros(len(words), dtype=np.int64)
    n_distinct = np.zeros(len(words), dtype=np.int64)
    failed = 0

    def draw(w: str) -> Any:
        nonlocal failed
        for attempt in range(_RETRIES + 1):
            try:
                return peer.replace_word(w)
            except Exception:  # the peer's own failure: redraw, counted
                if attempt == _RETRIES:
                    raise
                failed += 1
        raise AssertionError("unreachable")

    start = time.perf_counter()
    for i, w in enumerate(words):
        outs = [draw(w) for _ in range(n_draws)]
        n_same[i] = sum(o == w for o in outs)
        n_distinct[i] = len(set(outs))
    return n_same, n_distinct, time.perf_counter() - start, failed


def paired_z(a: np.ndarray, b: np.ndarray) -> float:
    """Mean of a − b over its standard error (0 where every difference is 0)."""
    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    se = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else 0.0
    if se == 0.0:
        return 0.0 if d.mean() == 0.0 else math.copysign(math.inf, d.mean())
    return float(d.mean() / se)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mechanisms", default=",".join(MECHANISMS))
    parser.add_argument("--epsilon", type=float, default=10.0,
                        help="ε per token for both libraries (GloVe distances: 1–10 keeps "
                             "some words)")
    parser.add_argument("--tg-epsilon", type=float, default=None,
                        help="ε of truncated_gumbel (default: --epsilon, raised to 1.1 × the "
                             "least its calibration allows on the table)")
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mldp-no-faiss", action="store_true",
                        help="MLDP with use_faiss=False (its exact numpy search): its faiss "
                             "index returns squared distances, which its TruncatedGumbel "
                             "then treats as distances")
    parser.add_argument("--no-json", action="store_true")
    args = parser.parse_args(argv)

    import torch

    from textdp.calibration import sample_rows
    from textdp.evaluate.privacy import plausible_deniability
    from textdp.index import NeighbourIndex
    from textdp.mechanisms import create_mechanism
    from textdp.mechanisms.truncated_gumbel import least_epsilon, pairwise_extremes
    from textdp.rng import RandomSource

    mechanisms = [m.strip() for m in args.mechanisms.split(",") if m.strip()]
    unknown = sorted(set(mechanisms) - set(MECHANISMS))
    if unknown:
        raise SystemExit(f"--mechanisms: unknown {unknown}; choose from {list(MECHANISMS)}")
    info = machine_info(("textdp", "torch", "numpy", "faiss-cpu", "mldp-text", "gensim"))
    print_machine(info)
    torch.set_num_threads(1)  # MLDP's loop is single-threaded: compare like with like
    table = load_table("glove")
    kv = mldp_keyed_vectors(table)
    vectors = np.ascontiguousarray(table.vectors, np.float32)
    index = NeighbourIndex(vectors, backend="exact")
    rows = sample_rows(table, args.words, args.seed)
    words = [table.words[r] for r in rows.tolist()]
    print(f"table: {table.name}, {len(table):,} × {table.dim} (unclipped, as MLDP uses it); "
          f"{len(words):,} words × {args.draws} draws each; torch threads 1")
    extremes = None
    tg_eps = args.tg_epsilon
    if "truncated_gumbel" in mechanisms:
        extremes = pairwise_extremes(vectors)
        least = least_epsilon(len(table), extremes[0])
        if tg_eps is None:
            tg_eps = max(args.epsilon, round(1.1 * least, 1))
        print(f"truncated_gumbel: Δmin = {extremes[0]:.4g}, Δmax = {extremes[1]:.4g}, least "
              f"ε = {least:.4g}; run at ε = {tg_eps:g}")
    header = (f"  {'mechanism':<17}{'ε':>6}  {'N_w ours':>9} {'N_w MLDP':>9} {'z':>6}  "
              f"{'S_w ours':>9} {'S_w MLDP':>9} {'z':>6}  {'agree':>5}  {'ours/s':>9} "
              f"{'MLDP/s':>8} {'ratio':>7}")
    print(header)
    out_rows = []
    for name in mechanisms:
        eps = tg_eps if name == "truncated_gumbel" else args.epsilon
        mech = create_mechanism(name, eps)
        mech.prepare(vectors, index, RandomSource(args.seed))
        start = time.perf_counter()
        ours_same, ours_distinct = plausible_deniability(mech, vectors[rows], rows, args.draws,
                                                         RandomSource(args.seed))
        ours_s = time.perf_counter() - start
        np.random.seed(args.seed)
        random.seed(args.seed)
        peer = mldp_peer(name, eps, kv, extremes, use_faiss=not args.mldp_no_faiss)
        row: dict[str, Any] = {"mechanism": name, "mldp_class": PAIRS[name], "epsilon": eps,
                               "mldp_faiss": not args.mldp_no_faiss,
                               "n_same_ours": float(ours_same.mean()),
                               "n_distinct_ours": float(ours_distinct.mean()),
                               "ours_draws_per_s": len(words) * args.draws / ours_s}
        try:
            peer_same, peer_distinct, peer_s, peer_failed = peer_counts(peer, words,
                                                                        args.draws)
        except Exception as err:  # the peer's own failure (e.g. its TEM at small ε)
            row["mldp_error"] = f"{type(err).__name__}: {err}"
            print(f"  {name:<17}{eps:>6g}  MLDP failed: {row['mldp_error']}", flush=True)
            out_rows.append(row)
            continue
        z_same = paired_z(ours_same, peer_same)
        z_distinct = paired_z(ours_distinct, peer_distinct)
        row.update(n_same_mldp=float(peer_same.mean()),
                   n_distinct_mldp=float(peer_distinct.mean()),
                   z_n_same=z_same, z_n_distinct=z_distinct,
                   agree=bool(abs(z_same) < 3 and abs(z_distinct) < 3),
                   mldp_draws_per_s=len(words) * args.draws / peer_s,
                   mldp_failed_calls=peer_failed)
        row["speed_ratio"] = row["ours_draws_per_s"] / row["mldp_draws_per_s"]
        out_rows.append(row)
        print(f"  {name:<17}{eps:>6g}  {row['n_same_ours']:>9.2f} {row['n_same_mldp']:>9.2f} "
              f"{z_same:>6.1f}  {row['n_distinct_ours']:>9.2f} {row['n_distinct_mldp']:>9.2f} "
              f"{z_distinct:>6.1f}  {'yes' if row['agree'] else 'NO':>5}  "
              f"{row['ours_draws_per_s']:>9,.0f} {row['mldp_draws_per_s']:>8,.1f} "
              f"{row['speed_ratio']:>6,.0f}×", flush=True)
        if peer_failed:
            print(f"    ({name}: {peer_failed} MLDP call(s) raised and were drawn again; see "
                  "peer_counts)", flush=True)
    print(f"\nN_w, S_w: means over the words (of {args.draws} draws); z: paired mean "
          "difference over its standard error; agree: |z| < 3 for both; speed: draws/s in "
          "this run (ours batched, MLDP one replace_word call per draw)")
    payload = {"machine": info, "table": table.name, "words": len(words), "draws": args.draws,
               "seed": args.seed, "rows": out_rows}
    if not args.no_json:
        key = f"eps={args.epsilon:g} {','.join(mechanisms)}" + \
            (" mldp-no-faiss" if args.mldp_no_faiss else "")
        print(f"results: {write_results('peers', key, payload)}")
    return payload


if __name__ == "__main__":
    main()
