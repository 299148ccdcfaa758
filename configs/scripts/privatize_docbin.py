"""Privatize a JSONL corpus with a spaCy pipeline that ends in ``dp_privatizer``; write a DocBin.

    python scripts/privatize_docbin.py pipelines/static_names assets/corpus.jsonl \
        corpus/corpus.private.spacy --text-field text

The DocBin keeps each privatized Doc with its entity spans, sentence boundaries and the report
in ``doc._.dp`` (user data). Only counts are printed, never text (docs/architecture.md rule 7).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import spacy
import srsly
from spacy.tokens import DocBin


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", help="pipeline directory or package with dp_privatizer")
    parser.add_argument("input", help="JSONL corpus")
    parser.add_argument("output", help="DocBin (.spacy) to write")
    parser.add_argument("--text-field", default="text", help="JSONL key with the text")
    parser.add_argument("--batch-size", type=int, default=256, help="docs per batch")
    parser.add_argument("--n-process", type=int, default=1, help="processes for nlp.pipe")
    args = parser.parse_args(argv)

    nlp = spacy.load(args.pipeline)
    if "dp_privatizer" not in nlp.pipe_names:
        parser.error(f"{args.pipeline} has no dp_privatizer component")
    texts = (record[args.text_field] for record in srsly.read_jsonl(args.input))
    docbin = DocBin(store_user_data=True)
    replaced = 0
    epsilon_total = 0.0
    for doc in nlp.pipe(texts, batch_size=args.batch_size, n_process=args.n_process):
        docbin.add(doc)
        replaced += doc._.dp["tokens_replaced"]
        epsilon_total += doc._.dp["epsilon_total"]
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(args.output)
    print(f"{len(docbin)} docs, {replaced} tokens replaced, "
          f"ε spent over the corpus {epsilon_total:g} → {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
