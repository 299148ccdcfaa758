"""Build ``textdp/detect/data/common_words.txt``: common English words, most frequent first.

Run once, by hand, with the embedded pipeline installed (a registry package)::

    python scripts/build_common_words.py

Why: in a note written in capitals the name tagger reads ordinary words as names
(``NOTIFIED`` 0.997, ``AWARE`` 0.99); the register stage needs to know which words are
ordinary English words (:func:`textdp.detect.words.common_words`), and a list of names
cannot tell it.

Source: the static vectors of the embedded pipeline (en_core_web_md 3.7.1, MIT; its vectors
are Explosion's OSCAR 2109 + Wikipedia + OpenSubtitles + WMT News Crawl vectors, CC0). The
table keeps 20,000 rows, one per frequent word in frequency order, and maps 514,157 keys onto
them (a rarer word, a name or another casing shares the row of its nearest kept word); the
first key of each row is the word that owns it ("notified" owns row 10,410, "Notified"
shares it; "walker" shares the row "walk" owns; "delgado" shares "Ramos"'s). The list is the
row owners that are lower-case words of letters only, two or more, in row order: 12,238
words. Names own rows in Title case, so they are not in it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textdp.defaults import load_pipeline  # noqa: E402
from textdp.tables import row_keys  # noqa: E402

OUT = ROOT / "textdp" / "detect" / "data" / "common_words.txt"
HEADER = """\
# Common English words, most frequent first: the lower-case words that own a row of the
# static vectors of en_core_web_md 3.7.1 (MIT; vectors: Explosion Vectors, OSCAR 2109 +
# Wikipedia + OpenSubtitles + WMT News Crawl, CC0). Built by scripts/build_common_words.py.
"""


def build() -> list[str]:
    """The row owners that are lower-case words, in row (frequency) order."""
    vocab = load_pipeline().vocab
    owner = row_keys(vocab.vectors)  # the key of each row's own word
    words = (vocab.strings[owner[row]] for row in sorted(owner))
    return [w for w in words if len(w) > 1 and w.isalpha() and w.islower()]


def main() -> None:
    words = build()
    OUT.write_text(HEADER + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(words):,} words")


if __name__ == "__main__":
    main()
