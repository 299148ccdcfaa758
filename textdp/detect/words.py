"""Common English words: what a capital or a weak tagger reading does not make a name.

``data/common_words.txt`` holds the 12,238 lower-case words that own a row of the embedded
pipeline's static vectors (source, licence and how it was built:
``scripts/build_common_words.py``). Names own their rows in Title case, so the list holds
``notified``, ``hope`` and ``rice`` but not ``walker``, ``delgado`` or ``jing``. Read by the
register stage (:mod:`textdp.detect.register`: a word in capitals needs more than a tagger's
reading), the tagger's thresholds (:mod:`textdp.detect.transformer`: a sentence's first
word, a misspelt word) and the written evaluation split (:mod:`textdp.evaluate.samples`:
word-like names).
"""

from __future__ import annotations

import functools
from pathlib import Path

COMMON_WORDS_FILE = Path(__file__).resolve().parent / "data" / "common_words.txt"


@functools.cache
def common_words() -> frozenset[str]:
    """The common English words of :data:`COMMON_WORDS_FILE` (see the module doc)."""
    with open(COMMON_WORDS_FILE, encoding="utf-8") as f:
        return frozenset(w for w in (line.strip() for line in f)
                         if w and not w.startswith("#"))


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: Shortest word :func:`misspelt_common` judges: shorter ones are one edit from too many.
MIN_MISSPELT = 5


def misspelt_common(word: str) -> bool:
    """Whether a lower-case ``word`` of :data:`MIN_MISSPELT` letters or more is a common word
    or one edit (a letter dropped, added or changed, or two neighbours swapped) from a common
    word of four letters or more: ``vidoe``, ``evidance``, ``borring``. Posts and chats
    misspell, and a tagger reads an unknown lower-case word as a name ("make a vidoe on
    this")."""
    if len(word) < MIN_MISSPELT:
        return False
    common = common_words()
    for k in range(len(word) + 1):
        head, tail = word[:k], word[k:]
        if tail and head + tail[1:] in common:
            return True
        if len(tail) > 1 and head + tail[1] + tail[0] + tail[2:] in common:
            return True
        for c in _LETTERS:
            if (tail and head + c + tail[1:] in common) or head + c + tail in common:
                return True
    return False
