"""``textdp train-detector``: train a name tagger on every person-annotated domain.

    textdp train-detector --data ../shared/data -o textdp/detect/models/names_ner
    textdp train-detector --train ../shared/data/conll2003/eng.train \\
        --dev ../shared/data/conll2003/eng.testa -o conll_ner      # newswire only
    textdp train-detector --kind transformer --data ../shared/data \\
        -o textdp/detect/models/minilm_names

``--kind spacy`` (the default) is :func:`textdp.training.spacy_tagger.train`, ``--kind transformer``
:func:`textdp.training.transformer_tagger.train`; every input file is checked before training
starts, and test sets are never read.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from textdp.training import spacy_tagger as spacy_train
from textdp.training import transformer_tagger as train_transformer


def add_parser(sub: Any) -> None:
    """``textdp train-detector`` (``sub``: the top-level subparsers)."""
    p = sub.add_parser("train-detector",
                       help="train a name tagger: the spaCy NER on the embedded vectors "
                            "(--kind spacy) or the MiniLM tagger (--kind transformer)")
    p.add_argument("--kind", choices=("spacy", "transformer"), default="spacy",
                   help="spacy: textdp/detect/models/names_ner's architecture (default); "
                        "transformer: the MiniLM tagger (textdp.detect.transformer)")
    p.add_argument("--data", default=None,
                   help="data folder with conll2003/, wnut17/, btc/ (../shared/data): train "
                        "on every domain's training split, choose on every dev split")
    p.add_argument("--train", default=None,
                   help="spacy: one CoNLL training file instead of --data (eng.train)")
    p.add_argument("--dev", default=None,
                   help="spacy: its dev file for early stopping (never a test set)")
    p.add_argument("-o", "--output", required=True,
                   help="output folder, e.g. textdp/detect/models/names_ner")
    p.add_argument("--seed", type=int, default=spacy_train.DEFAULT_SEED)
    p.add_argument("--threads", type=int, default=0,
                   help="torch threads for --kind transformer (0: torch's default)")
    g = p.add_argument_group("spacy")
    g.add_argument("--init", choices=spacy_train.INITS, default=spacy_train.DEFAULT_INIT,
                   help="md: adapt en_core_web_md's NER (default); scratch: a new model "
                        "(--width, --depth, --hidden apply)")
    g.add_argument("--width", type=int, default=spacy_train.DEFAULT_WIDTH)
    g.add_argument("--depth", type=int, default=spacy_train.DEFAULT_DEPTH)
    g.add_argument("--hidden", type=int, default=spacy_train.DEFAULT_HIDDEN)
    g.add_argument("--dropout", type=float, default=spacy_train.DEFAULT_DROPOUT)
    g.add_argument("--learn-rate", type=float, default=spacy_train.DEFAULT_LEARN_RATE)
    g.add_argument("--max-epochs", type=int, default=spacy_train.DEFAULT_MAX_EPOCHS)
    g.add_argument("--patience", type=int, default=spacy_train.DEFAULT_PATIENCE,
                   help="stop after this many epochs without a dev gain")
    g.add_argument("--max-minutes", type=float, default=spacy_train.DEFAULT_MAX_MINUTES,
                   help="stop before an epoch that would end after this wall-clock budget")
    g.add_argument("--no-casing-augmentation", action="store_true",
                   help="train on the corpora's own casing only")
    add_transformer_arguments(p.add_argument_group("transformer"))
    p.set_defaults(handler=run)


def add_transformer_arguments(p: Any) -> None:
    """Options of ``textdp train-detector --kind transformer``."""
    t = train_transformer
    p.add_argument("--layers", type=int, default=t.DEFAULT_LAYERS,
                   help="MiniLM layers kept (of 6): fewer is faster")
    p.add_argument("--epochs", type=int, default=t.DEFAULT_EPOCHS)
    p.add_argument("--batch-size", type=int, default=t.DEFAULT_BATCH)
    p.add_argument("--social-repeat", type=int, default=t.DEFAULT_SOCIAL_REPEAT,
                   help="times WNUT-17 and BTC are read per epoch")
    p.add_argument("--max-false-rate", type=float, default=t.DEFAULT_MAX_FALSE_RATE,
                   help="choice of epoch: share of non-name words a threshold may flag on a "
                        "dev domain for its recall to count")
    p.add_argument("--person-weight", type=float, default=t.DEFAULT_PERSON_WEIGHT,
                   help="loss weight of the person tags against O (recall first)")
    p.add_argument("--limit", type=int, default=None,
                   help="train on this many units only (a smoke run)")


def run(args: argparse.Namespace) -> int:
    """Run ``textdp train-detector``: the options and every input file are checked first."""
    from textdp.corpora.domains import DOMAINS

    if (args.train is None) != (args.dev is None):
        raise ValueError("--train and --dev go together (or use --data for every domain)")
    if args.train is not None and args.kind == "transformer":
        raise ValueError("--kind transformer trains on --data (every domain), not --train")
    if args.train is None and args.data is None:
        raise ValueError("give --data (../shared/data) or --train and --dev")
    paths = [args.train, args.dev] if args.train is not None else \
        [os.path.join(args.data, f) for d in DOMAINS.values() for f in (*d.train, d.dev)]
    for path in paths:  # every input checked before any training starts
        if not os.path.isfile(path):
            raise FileNotFoundError(2, "No such file", path)
    if args.kind == "transformer":
        if args.threads:
            import torch

            torch.set_num_threads(args.threads)
        train_transformer.train(
            args.data, args.output, layers=args.layers, epochs=args.epochs,
            batch_size=args.batch_size, social_repeat=args.social_repeat,
            max_false_rate=args.max_false_rate, person_weight=args.person_weight,
            seed=args.seed, limit=args.limit)
        return 0
    spacy_train.train(
        args.train, args.dev, args.output, data_dir=args.data, init=args.init,
        width=args.width, depth=args.depth, hidden=args.hidden, dropout=args.dropout,
        learn_rate=args.learn_rate, max_epochs=args.max_epochs, patience=args.patience,
        max_minutes=args.max_minutes, seed=args.seed,
        augment_casing=not args.no_casing_augmentation)
    return 0
