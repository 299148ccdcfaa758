"""Build ``textdp/detect/data/stop_words.txt``: the function words of English and of twenty
other languages written in Latin letters with capitals, one section per language.

Run once, by hand, where spaCy is installed (a dependency of textdp)::

    python scripts/build_stop_words.py

Why: a text written in another language holds lower-case words that the name tagger,
trained on English, reads as names ("domani passa", "leider", "från"), and most of them have
a row of the English pipeline's vectors, so the register cannot tell them by that. The share
of a text's lower-case words that are function words of a language tells which language it
is written in (:func:`textdp.detect.register.text_language`).

Source: spaCy's stop-word lists (``spacy/lang/<code>/stop_words.py``, spaCy 3.8, MIT licence,
Explosion AI), read through the installed package; only single words, lower case.
"""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

#: English, then languages written in Latin letters with capitals (ISO 639-1 codes as spaCy
#: names them; ``nb``: Norwegian Bokmål).
LANGUAGES = ("en", "es", "pt", "fr", "it", "de", "nl", "sv", "da", "nb", "pl", "ro", "tr",
             "id", "fi", "cs", "ca", "hr", "sk", "sl", "hu")
OUT = Path(__file__).resolve().parent.parent / "textdp" / "detect" / "data" / "stop_words.txt"
HEADER = """\
# Function words (stop words) of English and of twenty languages written in Latin letters
# with capitals, one [section] per language (ISO 639-1 code): what tells the language of a
# text (textdp.detect.register.text_language). Built by scripts/build_stop_words.py from
# spaCy's stop-word lists (spaCy 3.8, MIT licence, Explosion AI); single words only.
"""


def main() -> None:
    parts = [HEADER]
    for code in LANGUAGES:
        words = importlib.import_module(f"spacy.lang.{code}.stop_words").STOP_WORDS
        words = sorted({w.lower() for w in words if w.strip() and "#" not in w and
                        " " not in w})
        parts.append(f"[{code}]\n" + textwrap.fill(" ".join(words), 92,
                                                     break_on_hyphens=False) + "\n")
    OUT.write_text("".join(parts), encoding="utf-8")
    print(f"{OUT}: {len(LANGUAGES)} languages")


if __name__ == "__main__":
    main()
