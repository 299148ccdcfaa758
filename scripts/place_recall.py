"""Dev check of the place detector on real text (issue 36): how many gold place tokens of the
dev splits spaCy's NER finds alone and with the lookup of ``textdp.detect.places``, and how
many other words each takes.

    python scripts/place_recall.py --data ../shared/data

Per domain (CoNLL-2003 dev, WNUT-17 dev, BTC section b; their location labels are the gold
places), every sentence is one spaCy ``Doc`` of its gold words. A word token (one with a
letter) is *found* when a place span covers it: the NER's ``GPE``/``LOC``/``FAC`` spans, and
the :class:`~textdp.detect.places.GazetteerPlaces` spans. *Taken* counts the other word
tokens such spans cover, split into those outside any entity (``O``) and those inside another
entity (organisations named after a town, persons named after one), which the privatizer's
person spans take first. Only counts are printed, never text.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from spacy.tokens import Doc

from textdp.corpora.conll import read_conll
from textdp.defaults import load_pipeline
from textdp.detect.places import PLACE_LABELS, GazetteerPlaces
from textdp.detect.spacy_ner import SpacyNERDetector
from textdp.targets import is_word

#: Domain → (dev file under the data folder, its gold place label).
DOMAINS = {"conll": ("conll2003/eng.testa", "LOC"),
           "wnut17": ("wnut17/emerging.dev.conll", "location"),
           "btc": ("btc/b.conll", "LOC")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data", help="the data folder")
    args = parser.parse_args(argv)
    nlp = load_pipeline()
    ner, lookup = SpacyNERDetector(), GazetteerPlaces()
    print(f"{'domain':<8}{'place tokens':>14}{'NER found':>11}{'+lookup':>9}"
          f"{'other words':>13}{'NER took':>10}{'+lookup O':>11}{'+lookup ent':>13}")
    for name, (path, label) in DOMAINS.items():
        file = Path(args.data) / path
        if not file.is_file():
            print(f"{name}: {file} not found", file=sys.stderr)
            return 2
        sentences = [s for d in read_conll(file) for s in d]
        docs = [Doc(nlp.vocab, words=list(s.tokens)) for s in sentences]
        counts = dict.fromkeys(("gold", "ner", "both", "other", "ner_took", "o", "ent"), 0)
        for s, ner_spans, listed in zip(sentences, ner(docs), lookup(docs)):
            by_ner = {k for a, b, lab in ner_spans if lab in PLACE_LABELS for k in range(a, b)}
            by_lookup = {k for a, b, _ in listed for k in range(a, b)}
            for k, (word, tag) in enumerate(zip(s.tokens, s.tags)):
                if not is_word(word):
                    continue
                if tag != "O" and tag.split("-", 1)[-1] == label:
                    counts["gold"] += 1
                    counts["ner"] += k in by_ner
                    counts["both"] += k in by_ner or k in by_lookup
                else:
                    counts["other"] += 1
                    counts["ner_took"] += k in by_ner
                    if k in by_lookup and k not in by_ner:
                        counts["o" if tag == "O" else "ent"] += 1
        gold, other = counts["gold"], counts["other"]
        print(f"{name:<8}{gold:>14,}{counts['ner'] / gold:>11.1%}{counts['both'] / gold:>9.1%}"
              f"{other:>13,}{counts['ner_took'] / other:>10.2%}{counts['o']:>11,}"
              f"{counts['ent']:>13,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
