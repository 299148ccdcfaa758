"""Contextual substitution: speed against a per-word notebook baseline, utility against static
substitution at a matched P(word unchanged), and the CoNLL-2003 whole-word / no-leak check.

    python bench/contextual.py                      # speed + utility + check, CPU
    python bench/contextual.py --device cuda        # the same on a GPU
    python bench/contextual.py --only speed         # or: utility, check-conll, templates
    python bench/contextual.py --check-conll        # just the Done-when check

Speed (``--only speed``): tokens/s of

* the *substitution stage*: ``Privatizer(representation="contextual", targets="all")
  .privatize_docs(docs)`` on docs already tokenized, in batches of ``--batch-size`` docs (one
  padded forward pass of the first layer of all-MiniLM-L6-v2 per batch, pooling, noise, one
  batched decode against the 22k-word public vocabulary index, surface forms);
* *end to end*: ``Privatizer.privatize(texts)``, tokenization included;
* the *baseline*, in the research notebook's style: for each sentence, word by word, one
  forward pass of the whole model over the sentence (``output_hidden_states``), that word's
  pieces averaged, numpy multivariate-Laplace noise, one faiss ``IndexFlatL2`` query for that
  one vector. It is timed on the first ``--baseline-tokens`` tokens of the same data, in the
  same repeat loop.

Utility (``--only utility``): SentEval's SST-2 (``stsa.binary.train`` / ``.test``). For each
representation ε is chosen by bisection on a calibration sample of the training sentences so
that the share of word tokens left unchanged matches ``--unchanged``; then the training and test
sentences are privatized (all word tokens), and two classifiers (scikit-learn
``LogisticRegression`` on the mean of the embedded spaCy vectors, and on TF-IDF of word uni-
and bigrams) are trained on privatized training sentences and tested on privatized test
sentences. The original-text accuracies are printed beside them.

Check (``--check-conll``): contextual all-token privatization of the first 300 CoNLL-2003 dev
sentences; counts of replaced tokens, outputs that are index words, ``##`` pieces, and outputs
that exist only in the private input (word types of the input that are not public words).

Names (``--only names``): how often a PERSON token of CoNLL-2003 dev sentences comes back
unchanged under contextual ``mlaplace`` at several ε (``--name-draws`` draws each), over all
person tokens and over those that are index words (the others can never come back): the
calibration of ``textdp.defaults.DEFAULT_CONTEXTUAL_EPSILON``.

Templates (``--only templates``): the vocabulary index built with several neutral templates;
per template, the share of in-vocabulary SST-2 word tokens decoded to themselves without noise,
and left unchanged under noise. Results go to ``bench/results/contextual.json``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    chunks,
    corpus_docs,
    machine_info,
    print_machine,
    read_conll,
    shared_data_dir,
    take_until,
    time_once,
    time_privatizer,
    write_results,
)

PARTS = ("speed", "utility", "check-conll", "names", "templates")
NAME_EPSILONS = (1.0, 2.0, 2.5, 3.0, 5.0, 10.0)
TEMPLATES = ("{}", "{} .", "the {} .", "a {}", "it is {} .")


# ---------------------------------------------------------------------------- data
def read_sst2_labelled(split: str) -> list[tuple[str, int]]:
    """SentEval's sentence-level SST-2 ``stsa.binary.<split>``: ``<0/1> <sentence>`` lines."""
    path = shared_data_dir() / "senteval" / f"stsa.binary.{split}"
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            label, _, text = line.strip().partition(" ")
            if text:
                rows.append((text, int(label)))
    return rows


def sample(rows: list[Any], n: int | None, seed: int) -> list[Any]:
    """``n`` rows drawn without replacement (all when ``n`` is None or too large)."""
    if n is None or n >= len(rows):
        return list(rows)
    pick = np.random.default_rng(seed).choice(len(rows), size=n, replace=False)
    return [rows[i] for i in sorted(pick)]


# ---------------------------------------------------------------------------- baseline
class NotebookBaseline:
    """The research notebook's contextual substitution: one sentence and one word at a time,
    a full forward pass per word, numpy noise, one faiss query per noisy vector."""

    def __init__(self, encoder: Any, index: Any, epsilon: float, seed: int = 0) -> None:
        import faiss
        from transformers import AutoModel

        from textdp.model_packages import quiet_transformers

        self.tokenizer = encoder.tokenizer
        with quiet_transformers():
            self.model = AutoModel.from_pretrained(encoder.model_name).to(encoder.device).eval()
        self.device = encoder.device
        self.layer = encoder.layer
        self.index = faiss.IndexFlatL2(index.dim)
        self.index.add(index.vectors)
        self.words = index.words
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)

    def privatize_word(self, sentence: str, start: int, end: int) -> str:
        enc = self.tokenizer(sentence, return_tensors="pt", return_offsets_mapping=True,
                             truncation=True)
        offsets = enc.pop("offset_mapping")[0].tolist()
        with torch.no_grad():
            states = self.model(**{k: v.to(self.device) for k, v in enc.items()},
                                output_hidden_states=True).hidden_states[self.layer][0]
        rows = [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]
        vec = states[rows].mean(dim=0).cpu().numpy() if rows else states[0].cpu().numpy()
        direction = self.rng.normal(size=vec.shape[0])
        direction /= np.linalg.norm(direction)
        noisy = vec + direction * self.rng.gamma(vec.shape[0], 1.0 / self.epsilon)
        _, ids = self.index.search(noisy[None, :].astype(np.float32), 1)
        return self.words[int(ids[0, 0])]

    def run(self, docs: list[Any]) -> list[list[str]]:
        from textdp.privatizer import is_word

        return [[self.privatize_word(doc.text, t.idx, t.idx + len(t)) if is_word(t.text)
                 else t.text for t in doc] for doc in docs]


# ---------------------------------------------------------------------------- parts
def contextual_privatizer(epsilon: float, args: argparse.Namespace, nlp: Any, index: Any,
                          seed: int = 0) -> Any:
    from textdp.privatizer import Privatizer

    return Privatizer(representation="contextual", targets="all", epsilon=epsilon, seed=seed,
                      device=args.device, contextual_index=index, nlp=nlp,
                      batch_size=args.batch_size, precision=args.precision)


def static_privatizer(epsilon: float, args: argparse.Namespace, nlp: Any, seed: int = 0
                      ) -> Any:
    from textdp.privatizer import Privatizer

    return Privatizer(targets="all", epsilon=epsilon, seed=seed, device=args.device, nlp=nlp,
                      batch_size=args.batch_size)


def run_speed(args: argparse.Namespace, nlp: Any, index: Any) -> dict[str, Any]:
    from textdp.defaults import DEFAULT_CONTEXTUAL_EPSILON
    from textdp.privatizer import is_word

    epsilon = args.epsilon or DEFAULT_CONTEXTUAL_EPSILON
    texts = take_until([s.text for s in read_conll("train")], lambda t: t.count(" ") + 1,
                       args.min_tokens)
    docs = corpus_docs(texts)
    n_tokens = sum(len(d) for d in docs)
    n_words = sum(is_word(t.text) for d in docs for t in d)
    privatizer = contextual_privatizer(epsilon, args, nlp, index)
    setup_s, _ = time_once(privatizer._setup)
    base_docs = take_until(docs, len, args.baseline_tokens)
    n_base = sum(len(d) for d in base_docs)
    build_s, baseline = time_once(lambda: NotebookBaseline(privatizer._encoder, index, epsilon))
    print(f"index: {len(index):,} public words × {index.dim} d ({index.meta['label']} layer "
          f"{index.layer}); mlaplace ε = {epsilon:g}; decode {privatizer.space.index.backend} "
          f"(setup {setup_s:.1f} s); device {args.device}; encoder in "
          f"{str(privatizer._encoder.compute_dtype()).removeprefix('torch.')}")
    print(f"data: CoNLL-2003 eng.train, first {len(texts):,} sentences: {n_tokens:,} spaCy "
          f"tokens, {n_words:,} word tokens substituted; baseline on the first "
          f"{len(base_docs):,} sentences ({n_base:,} tokens; faiss IndexFlatL2, model loaded "
          f"in {build_s:.1f} s)")

    timings = time_privatizer(privatizer, docs, texts, lambda: baseline.run(base_docs),
                              batch_size=args.batch_size, repeats=args.repeats)
    sub = timings["substitution"].rate(n_tokens)
    e2e = timings["end_to_end"].rate(n_tokens)
    base = timings["baseline"].rate(n_base)
    print(f"\n{'':36}{'tokens/s':>10}  {'median s':>9}  {'tokens/CPU-s':>12}")
    for label, key, rate, n in (
            ("substitution stage (batched)", "substitution", sub, n_tokens),
            ("end to end (incl. tokenization)", "end_to_end", e2e, n_tokens),
            ("baseline (per word: forward+query)", "baseline", base, n_base)):
        t = timings[key]
        print(f"{label:36}{rate:>10,.0f}  {t.median:>9.3f}  {t.cpu_rate(n):>12,.0f}")
    print(f"ratio substitution / baseline: {sub / base:.1f}×; end to end / baseline: "
          f"{e2e / base:.1f}× (median of {args.repeats}; load average now "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    return {
        "device": args.device, "epsilon": epsilon, "decode_backend": privatizer.space.index.backend,
        "decode_choice": privatizer.space.index.choice,
        "encoder_dtype": str(privatizer._encoder.compute_dtype()),
        "index": {"words": len(index), "dim": index.dim, "model": index.meta["label"],
                  "layer": index.layer},
        "data": {"texts": len(texts), "tokens": n_tokens, "word_tokens": n_words,
                 "baseline_texts": len(base_docs), "baseline_tokens": n_base},
        "repeats": args.repeats,
        "tokens_per_s": {"substitution": round(sub, 1), "end_to_end": round(e2e, 1),
                         "baseline": round(base, 1)},
        "ratio_substitution_over_baseline": round(sub / base, 2),
        "timings": {k: t.as_dict(n_base if k == "baseline" else n_tokens)
                    for k, t in timings.items()},
    }


def unchanged_share(privatizer: Any, docs: list[Any], batch_size: int) -> float:
    """Share of word tokens whose substitute is the same word (casing aside)."""
    from textdp.privatizer import is_word

    same = total = 0
    for batch in chunks(docs, batch_size):
        for doc, (words, _) in zip(batch, privatizer.privatize_docs(batch)):
            for token, word in zip(doc, words):
                if is_word(token.text):
                    total += 1
                    same += word.lower() == token.text.lower()
    return same / max(1, total)


def calibrate(make: Any, docs: list[Any], target: float, lo: float, hi: float,
              batch_size: int, steps: int = 14, tol: float = 0.004) -> tuple[float, float]:
    """ε (log-scale bisection in [lo, hi]) whose P(word unchanged) on ``docs`` is closest to
    ``target``; the share is increasing in ε."""
    best = (math.inf, lo, 0.0)
    for _ in range(steps):
        mid = math.sqrt(lo * hi)
        share = unchanged_share(make(mid), docs, batch_size)
        best = min(best, (abs(share - target), mid, share))
        if abs(share - target) <= tol:
            break
        lo, hi = (mid, hi) if share < target else (lo, mid)
    return best[1], best[2]


def features(nlp: Any, texts: list[str]) -> np.ndarray:
    """Mean of the embedded spaCy vectors of each text's tokens (zeros when none has one)."""
    return np.stack([doc.vector for doc in nlp.tokenizer.pipe(texts)]).astype(np.float32)


def accuracy(nlp: Any, train: list[str], y_train: np.ndarray, test: list[str],
             y_test: np.ndarray) -> dict[str, float]:
    """Test accuracy of two sentence classifiers trained on ``train``: logistic regression on
    the mean en_core_web_md vector (the static table's own space, which favours static
    substitutes: they are its near neighbours) and on TF-IDF of word uni- and bigrams (blind
    to any embedding space)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    vectors = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0))
    vectors.fit(features(nlp, train), y_train)
    tfidf = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
                          LogisticRegression(max_iter=2000, C=4.0))
    tfidf.fit(train, y_train)
    return {"spacy_vectors": round(float(vectors.score(features(nlp, test), y_test)), 4),
            "tfidf": round(float(tfidf.score(test, y_test)), 4)}


def run_utility(args: argparse.Namespace, nlp: Any, index: Any) -> dict[str, Any]:
    train = sample(read_sst2_labelled("train"), args.train, seed=0)
    test = sample(read_sst2_labelled("test"), args.test, seed=1)
    calib = [nlp.make_doc(t) for t, _ in sample(train, args.calibration, seed=2)]
    x_train, y_train = [t for t, _ in train], np.array([y for _, y in train])
    x_test, y_test = [t for t, _ in test], np.array([y for _, y in test])
    n_calib_words = sum(any(c.isalpha() for c in t.text) for d in calib for t in d)
    print(f"SST-2 (SentEval stsa.binary): train {len(train):,} of 6,920, test {len(test):,} "
          f"of 1,821 sentences; ε calibrated on {len(calib):,} training sentences "
          f"({n_calib_words:,} word tokens); classifier: mean en_core_web_md vectors + "
          f"LogisticRegression")
    start = time.perf_counter()
    original = accuracy(nlp, x_train, y_train, x_test, y_test)
    print(f"original text: accuracy {original['spacy_vectors']:.4f} (spaCy vectors + LR), "
          f"{original['tfidf']:.4f} (TF-IDF + LR)")
    out: dict[str, Any] = {"train": len(train), "test": len(test), "calibration": len(calib),
                           "original_accuracy": original, "levels": {}}
    makers = {
        "static": (lambda e, s=0: static_privatizer(e, args, nlp, s), 0.01, 100.0),
        "contextual": (lambda e, s=0: contextual_privatizer(e, args, nlp, index, s), 0.3, 200.0),
    }
    for target in args.unchanged:
        level: dict[str, Any] = {}
        for name, (make, lo, hi) in makers.items():
            t0 = time.perf_counter()
            eps, share = calibrate(make, calib, target, lo, hi, args.batch_size)
            train_p = [r.text for r in make(eps, 10).privatize(x_train)]
            test_p = [r.text for r in make(eps, 11).privatize(x_test)]
            kept_test = unchanged_share(make(eps, 12), [nlp.make_doc(t) for t in x_test],
                                        args.batch_size)
            acc = accuracy(nlp, train_p, y_train, test_p, y_test)
            level[name] = {"epsilon": round(eps, 4), "unchanged_calibration": round(share, 4),
                           "unchanged_test": round(kept_test, 4), "accuracy": acc,
                           "seconds": round(time.perf_counter() - t0, 1)}
            print(f"P(unchanged) ≈ {target:.2f}: {name:10} ε = {eps:8.4g}  unchanged "
                  f"{share:.3f} (calibration) / {kept_test:.3f} (test)  accuracy "
                  f"{acc['spacy_vectors']:.4f} (vectors) {acc['tfidf']:.4f} (TF-IDF)  "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        out["levels"][f"{target:g}"] = level
    print(f"utility done in {time.perf_counter() - start:.0f} s")
    return out


def run_check_conll(args: argparse.Namespace, nlp: Any, index: Any) -> dict[str, Any]:
    from textdp.defaults import DEFAULT_CONTEXTUAL_EPSILON
    from textdp.privatizer import is_word

    sentences = [s.text for s in read_conll("dev")[:args.conll_sentences]]
    docs = [nlp.make_doc(t) for t in sentences]
    public = set(index.words)
    private_only = {t.text.lower() for d in docs for t in d
                    if is_word(t.text) and t.text.lower() not in public}
    out: dict[str, Any] = {"sentences": len(docs), "tokens": sum(len(d) for d in docs),
                           "private_only_types": len(private_only), "epsilons": {}}
    print(f"check: {len(docs)} CoNLL-2003 dev sentences, {out['tokens']:,} tokens; "
          f"{len(private_only):,} word types of the input are not public words")
    for eps in (DEFAULT_CONTEXTUAL_EPSILON, 10.0, 1e4):
        privatizer = contextual_privatizer(eps, args, nlp, index, seed=0)
        replaced = index_words = pieces = leaked = unchanged = 0
        for batch in chunks(docs, args.batch_size):
            for doc, (words, report) in zip(batch, privatizer.privatize_docs(batch)):
                replaced += report.tokens_replaced
                for token, word in zip(doc, words):
                    if not is_word(token.text):
                        continue
                    index_words += word.lower() in public
                    pieces += word.startswith("##") or "##" in word
                    leaked += word.lower() in private_only
                    unchanged += word == token.text
        ok = index_words == replaced and pieces == 0 and leaked == 0
        out["epsilons"][f"{eps:g}"] = {"replaced": replaced, "index_words": index_words,
                                       "word_pieces": pieces, "private_only_outputs": leaked,
                                       "unchanged": unchanged, "ok": ok}
        print(f"  ε = {eps:g}: {replaced:,} tokens replaced, {index_words:,} outputs are index "
              f"words, {pieces} word pieces, {leaked} private-only tokens output, "
              f"{unchanged:,} unchanged → {'OK' if ok else 'FAILED'}")
    return out


def run_names(args: argparse.Namespace, nlp: Any, index: Any) -> dict[str, Any]:
    from textdp.rng import RandomSource

    texts, spans, words = [], [], []
    for sent in read_conll("dev"):
        person = [i for i, tag in enumerate(sent.ner) if tag.endswith("PER")]
        if not person:
            continue
        starts = np.cumsum([0] + [len(t) + 1 for t in sent.tokens])
        texts.append(sent.text)
        spans.append(np.array([[starts[i], starts[i] + len(sent.tokens[i])] for i in person]))
        words.extend(sent.tokens[i].lower() for i in person)
        if len(texts) == args.name_sentences:
            break
    privatizer = contextual_privatizer(1.0, args, nlp, index)
    privatizer._setup()
    vectors = privatizer._encoder.encode_spans(texts, spans)[0]
    radius = privatizer.space.radius
    vectors = vectors * (radius / vectors.norm(dim=1, keepdim=True)).clamp(max=1.0)
    space, decode = privatizer.space.table, privatizer.space.index
    known = np.array([w in space.key_to_row for w in words])
    out: dict[str, Any] = {"sentences": len(texts), "person_tokens": len(words),
                           "index_words": int(known.sum()), "draws": args.name_draws,
                           "epsilon": {}}
    print(f"names: {len(words):,} PERSON tokens of {len(texts):,} CoNLL-2003 dev sentences, "
          f"{known.mean():.1%} of them index words; {args.name_draws} draws each")
    from textdp.mechanisms.base import multivariate_laplace

    for eps in NAME_EPSILONS:
        same = np.zeros(len(words))
        for draw in range(args.name_draws):
            noisy = vectors + multivariate_laplace(len(words), vectors.shape[1], eps,
                                                   RandomSource(draw), vectors.device)
            ids = decode.search(noisy, 1)[1][:, 0].cpu().numpy()
            same += np.array([space.words[i] == w for i, w in zip(ids, words)])
        same /= args.name_draws
        row = {"mean_unchanged": round(float(same.mean()), 5),
               "mean_unchanged_index_words": round(float(same[known].mean()), 5),
               "share_above_1pct": round(float((same > 0.01).mean()), 4)}
        out["epsilon"][f"{eps:g}"] = row
        print(f"  ε = {eps:4g}: P(unchanged) {row['mean_unchanged']:.4f} over all person "
              f"tokens, {row['mean_unchanged_index_words']:.4f} over index words; "
              f"{row['share_above_1pct']:.1%} of tokens above 1 %", flush=True)
    return out


def run_templates(args: argparse.Namespace, nlp: Any, encoder: Any) -> dict[str, Any]:
    from textdp.contextual_index import ContextualIndex
    from textdp.index import NeighbourIndex
    from textdp.mechanisms.base import multivariate_laplace
    from textdp.privatizer import is_word
    from textdp.rng import RandomSource
    from textdp.tables import clip_rows

    rows = sample(read_sst2_labelled("train"), args.calibration, seed=3)
    docs = [nlp.make_doc(t) for t, _ in rows]
    spans = [np.array([[t.idx, t.idx + len(t)] for t in d if is_word(t.text)]).reshape(-1, 2)
             for d in docs]
    words = [t.text.lower() for d in docs for t in d if is_word(t.text)]
    vectors = encoder.encode_spans([d.text for d in docs], spans)[0].cpu().numpy()
    out: dict[str, Any] = {"sentences": len(docs), "word_tokens": len(words), "templates": {}}
    for template in TEMPLATES:
        seconds, index = time_once(lambda t=template: ContextualIndex.from_vocabulary(
            encoder, template=t))
        radius = index.median_norm()
        decode = NeighbourIndex(clip_rows(index.vectors, radius), backend="exact")
        queries = torch.from_numpy(clip_rows(vectors, radius))
        known = np.array([w in index.key_to_row for w in words])
        ids = decode.search(queries, 1)[1][:, 0].numpy()
        same = np.array([index.words[i] == w for i, w in zip(ids, words)])
        itself = float(same[known].mean()) if known.any() else 0.0
        kept = {}
        for eps in (5.0, 10.0, 20.0):
            noisy = queries + multivariate_laplace(len(queries), queries.shape[1], eps,
                                                   RandomSource(0), torch.device("cpu"))
            got = decode.search(noisy, 1)[1][:, 0].numpy()
            kept[f"{eps:g}"] = round(float(np.mean([index.words[i] == w
                                                    for i, w in zip(got, words)])), 4)
        out["templates"][template] = {"build_s": round(seconds, 1), "self_decode": itself,
                                      "unchanged": kept}
        print(f"template {template!r:14} built in {seconds:5.1f} s; of {len(words):,} word "
              f"tokens, in-vocabulary ones decoded to themselves {itself:.3f}; unchanged under "
              "noise "
              + ", ".join(f"ε={e}: {v:.3f}" for e, v in kept.items()), flush=True)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=PARTS, default=None,
                        help="run only these parts (repeatable); default: speed, utility and "
                             "check-conll")
    parser.add_argument("--check-conll", action="store_true",
                        help="run only the CoNLL-2003 whole-word / no-leak check")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N")
    parser.add_argument("--precision", default="auto",
                        help="the encoder's forward pass: auto, float32, bfloat16, float16")
    parser.add_argument("--epsilon", type=float, default=None,
                        help="ε of the speed part (default: the contextual default)")
    parser.add_argument("--min-tokens", type=int, default=20_000,
                        help="speed: tokens of CoNLL-2003 train to privatize")
    parser.add_argument("--baseline-tokens", type=int, default=400,
                        help="speed: tokens the per-word baseline privatizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256, help="docs per batch")
    parser.add_argument("--train", type=int, default=2_500,
                        help="utility: SST-2 training sentences (of 6,920)")
    parser.add_argument("--test", type=int, default=None,
                        help="utility: SST-2 test sentences (default: all 1,821)")
    parser.add_argument("--calibration", type=int, default=300,
                        help="utility: training sentences ε is calibrated on")
    parser.add_argument("--unchanged", type=float, action="append", default=None,
                        help="utility: target P(word unchanged) (repeatable; default 0.5)")
    parser.add_argument("--conll-sentences", type=int, default=300)
    parser.add_argument("--name-sentences", type=int, default=600,
                        help="names: CoNLL-2003 dev sentences with a PERSON token")
    parser.add_argument("--name-draws", type=int, default=20)
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads")
    parser.add_argument("--no-json", action="store_true")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    parts = ["check-conll"] if args.check_conll else (args.only or ["speed", "utility",
                                                                   "check-conll"])
    args.unchanged = args.unchanged or [0.5]

    from textdp.contextual import ContextualEncoder
    from textdp.contextual_index import ContextualIndex
    from textdp.defaults import load_pipeline

    info = machine_info(("textdp", "torch", "transformers", "numpy", "faiss-cpu", "spacy",
                         "scikit-learn"))
    print_machine(info)
    nlp = load_pipeline()
    encoder = ContextualEncoder(device=args.device)
    seconds, index = time_once(lambda: ContextualIndex.default(encoder))
    print(f"default contextual index: {len(index):,} words, loaded or built in {seconds:.1f} s")
    result: dict[str, Any] = {"machine": info}
    if "speed" in parts:
        result["speed"] = run_speed(args, nlp, index)
    if "utility" in parts:
        result["utility"] = run_utility(args, nlp, index)
    if "check-conll" in parts:
        result["check_conll"] = run_check_conll(args, nlp, index)
    if "names" in parts:
        result["names"] = run_names(args, nlp, index)
    if "templates" in parts:
        result["templates"] = run_templates(args, nlp, encoder)
    if not args.no_json:
        key = f"{args.device}:{'+'.join(parts)}"
        print(f"results: {write_results('contextual', key, result)}")
    return result


if __name__ == "__main__":
    main()
