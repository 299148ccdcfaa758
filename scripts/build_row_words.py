"""Build ``textdp/data/md_row_words.json.gz``: the word each row of the embedded pipeline's
static vectors was trained for, in row order.

Run once, by hand, with the embedded pipeline installed (a registry package)::

    python scripts/build_row_words.py

Why: en_core_web_md's string store holds 776,469 strings; loading it costs about 0.6 s and
130 MB at every start, yet textdp decodes only the 20,000 words that own a vector row (the
default table's candidates, the tokenizer's warm words). The shared pipeline
(:func:`textdp.defaults.load_pipeline`) loads without the store and adds these words, after
checking each one's hash against the first key of its row
(:func:`textdp.tables.add_row_words`). Every other word gets its string when a text brings
it, as spaCy does for any word its store lacks.

Source: en_core_web_md 3.7.1 (MIT); its vectors are Explosion's OSCAR 2109 + Wikipedia +
OpenSubtitles + WMT News Crawl vectors (CC0). The first key of each row (insertion order) is
the word the row was trained for.
"""

from __future__ import annotations

import sys
from pathlib import Path

import srsly

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textdp.defaults import ROW_WORDS_FILE, fresh_pipeline  # noqa: E402
from textdp.tables import spacy_row_words  # noqa: E402


def build() -> list[str]:
    """The word of each row, in row order, from the pipeline loaded with its whole store."""
    vocab = fresh_pipeline().vocab
    first_of_row = spacy_row_words(vocab)
    rows = vocab.vectors.shape[0]
    if len(first_of_row) != rows:
        raise SystemExit(f"{rows - len(first_of_row)} rows have no word in the string store")
    return [first_of_row[row] for row in range(rows)]


def main() -> None:
    words = build()
    srsly.write_gzip_json(ROW_WORDS_FILE, words, indent=0)
    print(f"{ROW_WORDS_FILE}: {len(words):,} words")


if __name__ == "__main__":
    main()
