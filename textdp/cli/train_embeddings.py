"""``textdp train-embeddings``: private subword embeddings (optionally PolarizedText) trained
on your documents, for the similarity detector only.

    textdp train-embeddings notes.jsonl -o notes.emb.npz --label-field label --polarization 1
    textdp train-embeddings notes.txt -o notes.emb.npz                # plain subword skip-gram
    textdp train-embeddings notes.txt -o notes.emb.npz --backend gensim   # gensim's FastText

The training is :mod:`textdp.embeddings.train`. The output is private (trained on the
documents): it is never a substitution table, and nothing here prints the texts or labels.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from textdp.embeddings.train import (
    BACKENDS,
    TrainingConfig,
    read_corpus,
    train_embeddings,
    train_gensim_fasttext,
)
from textdp.files import atomic_output
from textdp.records import FORMATS


def add_parser(sub: Any) -> None:
    """``textdp train-embeddings`` (``sub``: the top-level subparsers)."""
    d = TrainingConfig()
    p = sub.add_parser(
        "train-embeddings",
        help="train private subword embeddings (optionally PolarizedText) on your documents, "
             "for the similarity detector; never substitution candidates")
    p.add_argument("input", help="corpus: .txt (a document a line), .jsonl or .csv (- for "
                                 "JSONL on stdin)")
    p.add_argument("-o", "--output", required=True,
                   help="the embeddings file to write (.npz; private: do not publish it)")
    p.add_argument("--format", choices=FORMATS, default=None, help="override the file format")
    p.add_argument("--text-field", default="text", help="JSONL key / CSV column with the text")
    p.add_argument("--label-field", default=None,
                   help="JSONL key / CSV column with a document label (PolarizedText)")
    p.add_argument("--polarization", type=float, default=None,
                   help="λ of the polarization term (default: 1 with --label-field, else 0)")
    p.add_argument("--field", type=float, default=d.field,
                   help="length of each label's direction μ")
    p.add_argument("--backend", choices=BACKENDS, default="torch",
                   help="torch (ours; needed for polarization) or gensim (plain fastText, "
                        "needs pip install gensim)")
    for name, kind, help_ in (
            ("dim", int, "vector dimension"), ("window", int, "largest context window"),
            ("negatives", int, "negative samples per pair"), ("epochs", int, "passes"),
            ("min-count", int, "least occurrences of a trained word"),
            ("minn", int, "shortest n-gram"), ("maxn", int, "longest n-gram"),
            ("buckets", int, "n-gram hash buckets"),
            ("subsample", float, "frequent-word subsampling threshold"),
            ("lr", float, "initial learning rate (torch)"),
            ("batch-size", int, "centre words per step (torch)")):
        default = getattr(d, name.replace("-", "_"))
        p.add_argument(f"--{name}", type=kind, default=default,
                       help=f"{help_} (default {default})")
    p.add_argument("--seed", type=int, default=None, help="seed (default: from the OS)")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto (torch)")
    p.add_argument("--threads", type=int, default=None,
                   help="torch CPU threads while training (default: torch's; 1 is often "
                        "fastest on a busy machine)")
    p.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict",
                   help="what to do with invalid UTF-8 (default: stop naming the line)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp train-embeddings``: every option is checked before the corpus is read."""
    polarization = args.polarization
    if polarization is None:
        polarization = 1.0 if args.label_field and args.backend == "torch" else 0.0
    cfg = TrainingConfig(
        dim=args.dim, window=args.window, negatives=args.negatives, epochs=args.epochs,
        min_count=args.min_count, minn=args.minn, maxn=args.maxn, buckets=args.buckets,
        subsample=args.subsample, polarization=polarization, field=args.field, lr=args.lr,
        batch_size=args.batch_size, seed=args.seed, device=args.device,
        threads=args.threads)
    if cfg.polarization and not args.label_field:
        raise ValueError("--polarization needs --label-field (the documents' labels)")
    if args.backend == "gensim" and cfg.polarization:
        raise ValueError("--backend gensim trains plain fastText; use --backend torch for "
                         "--polarization")
    if args.backend == "torch":
        from textdp.devices import resolve_device

        resolve_device(cfg.device)
    documents, labels = read_corpus(args.input, fmt=args.format, text_field=args.text_field,
                                    label_field=args.label_field, errors=args.encoding_errors)
    if args.backend == "gensim":
        emb = train_gensim_fasttext(documents, config=cfg)
    else:
        emb = train_embeddings(documents, labels if args.label_field else None, config=cfg,
                               progress=not args.no_progress)
    with atomic_output(args.output, binary=True) as f:
        emb.save(f)
    print(f"textdp: wrote {args.output}: {len(emb)} words, {emb.bucket_ids.size} n-gram rows, "
          f"{emb.dim} dimensions, {len(emb.labels)} label direction(s), from "
          f"{len(documents)} documents. These embeddings are PRIVATE (trained on your "
          "documents): use them for detection only, never publish them.", file=sys.stderr)
    return 0
