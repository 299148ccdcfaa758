"""textdp.detect.glued: the name parts inside paths, URLs, query strings and account names."""

from __future__ import annotations

import pytest

from textdp.detect.glued import GluedNameDetector, glued_pieces, is_account_name
from textdp.tokenization import split_glued


def _parts(text: str) -> list[str]:
    return [text[a:b] for a, b in glued_pieces(text)]


@pytest.mark.parametrize("text,parts", [
    (r"C:\Users\John.Smith\Desktop\notes.txt", ["John", "Smith"]),
    ("/home/karen/notes/Karen_Whitfield_CV.pdf", ["karen", "Karen", "Whitfield"]),
    ("https://acme.com/staff/john-smith/profile", ["john", "smith"]),
    ("https://acme.com/search?name=John+Smith&x=1", ["John", "Smith"]),
    ("https://acme.com/search?user=jsmith", ["jsmith"]),
    (r"CORP\jsmith", ["jsmith"]),
    # Addresses and handles are the handle detector's; ordinary paths hold no name.
    ("john.smith@acme.com", []),
    ("@john_smith", []),
    ("/usr/local/lib/python3.11/site-packages", []),
    ("https://acme.com/products/blue-widget?id=42", []),
    ("notes.txt", []),
])
def test_the_name_parts_of_glued_strings_are_found(text, parts):
    assert _parts(text) == parts


def test_account_names_by_the_lexicon():
    assert is_account_name("jsmith") and is_account_name("karen") \
        and is_account_name("johnsmith")
    assert not is_account_name("desktop") and not is_account_name("xq")


def test_the_detector_marks_the_split_name_tokens(nlp):
    doc = split_glued([nlp.make_doc(r"Open C:\Users\John.Smith\Desktop\notes.txt now")])[0]
    spans = GluedNameDetector()([doc])[0]
    assert sorted(doc[s:e].text for s, e, _ in spans) == ["John", "Smith"]
    assert all(label == "PERSON" for *_, label in spans)
