"""``textdp build-index``: a public candidate index for contextual substitution.

    textdp build-index --contextual --model <path-or-name> --layer 1 -o ctx-index/
    textdp build-index --contextual --corpus public.txt -o ctx-index/

The index (:class:`~textdp.contextual_index.ContextualIndex`) holds contextual vectors of PUBLIC
words only: the model's whole-word vocabulary, or the words of a public corpus; never the data
to be privatized (docs/architecture.md rule 1).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from textdp.cli.settings import add_setting_arguments
from textdp.contextual import ContextualEncoder, model_label
from textdp.contextual_index import DEFAULT_TEMPLATE, ContextualIndex

#: The privatizer settings ``textdp build-index`` takes (textdp.cli.settings).
SETTINGS = ("model", "layer", "device")


def add_parser(sub: Any) -> None:
    """``textdp build-index`` (``sub``: the top-level subparsers)."""
    p = sub.add_parser(
        "build-index", help="build a public candidate index for contextual substitution",
        description="Encode PUBLIC words with a transformer layer and save them as the "
                    "candidates of `textdp privatize --representation contextual "
                    "--contextual-index FOLDER`. Default: the model's whole-word vocabulary; "
                    "--corpus: the words of a public text file (one text per line).")
    p.add_argument("--contextual", action="store_true", required=True,
                   help="build a contextual index (the only kind so far; required)")
    # The encoder's settings, as `privatize` offers them (the index is read at the same
    # layer of the same model); generated from the config's fields.
    add_setting_arguments(p, SETTINGS)
    p.add_argument("--corpus", default=None,
                   help="a PUBLIC UTF-8 text file, one text per line: index its words instead "
                        "of the vocabulary (never the data you will privatize)")
    p.add_argument("--min-count", type=int, default=1,
                   help="with --corpus: keep words seen at least this often")
    p.add_argument("--template", default=None,
                   help=f"vocabulary words are encoded inside this text, '{{}}' being the word "
                        f"(default {DEFAULT_TEMPLATE!r}: the word alone)")
    p.add_argument("--limit", type=int, default=None,
                   help="only the first N vocabulary words (small indexes for tests)")
    p.add_argument("-o", "--output", required=True, help="folder to write the index to")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp build-index``; prints one line of provenance to stderr."""
    if args.corpus is not None and (args.template is not None or args.limit is not None):
        raise ValueError("--template and --limit apply to vocabulary indexes, not to --corpus")
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--output {str(out)!r} is a file; give a folder")
    encoder = ContextualEncoder(args.model, layer=args.layer, device=args.device)
    start = time.perf_counter()
    if args.corpus is not None:
        if not os.path.isfile(args.corpus):
            raise FileNotFoundError(2, "No such file", args.corpus)
        with open(args.corpus, encoding="utf-8") as f:
            index = ContextualIndex.from_corpus(encoder, (line.rstrip("\n") for line in f),
                                                min_count=args.min_count,
                                                corpus_name=os.path.basename(args.corpus))
    else:
        index = ContextualIndex.from_vocabulary(
            encoder, template=DEFAULT_TEMPLATE if args.template is None else args.template,
            limit=args.limit)
    index.save(out)
    print(f"textdp: contextual index of {len(index):,} words × {index.dim} d "
          f"({index.meta['source']}, {model_label(encoder.model_name)} layer {encoder.layer}) "
          f"written to {out} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0
