"""Names glued to their neighbours, shared by the core's and the spaCy component's tests
(``tests/test_tokenization.py``, ``tests/spacy_textdp/test_component_glued.py``): the issue 37
cases with the pieces that must survive, the random glued contexts of the property test, and
its check that a substitution changed no character outside the name."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

#: Text → the pieces of it that the output must keep, in order (the rest is the name).
KEPT_AROUND_NAMES = [
    (r"Open C:\Users\John.Smith\Desktop\notes.txt now",
     [r"C:\Users", ".", r"\Desktop\notes.txt now"]),
    ("Open /home/karen/notes/Karen_Whitfield_CV.pdf", ["/home/", "/notes/", "_", "_CV.pdf"]),
    ("See <b>John</b> <i>Smith</i> now", ["See <b>", "</b> <i>", "</i> now"]),
    ("From: John<john@acme.com>", ["From: ", "<", "@example.com>"]),
    ("Ask David|Kowalski now", ["|", " now"]),
    ("Ask Karen\x00Whitfield now", ["\x00", " now"]),
    ("id,name\n42,John Smith,active\n", ["\n42,", ",active\n"]),
    ("See https://acme.com/staff/john-smith/profile today",
     ["https://acme.com/staff/", "-", "/profile today"]),
    ("See https://acme.com/search?name=John+Smith today", ["https://acme.com/search?name=", "+"]),
    (r"Login as CORP\jsmith today", ["CORP\\", " today"]),
]
#: The names of :data:`KEPT_AROUND_NAMES`, none of which may survive.
GLUED_NAMES = ("John", "Smith", "john", "smith", "Karen", "karen", "Whitfield", "David",
               "Kowalski", "jsmith")

# Glued contexts around a two-part name: punctuation, markup, paths, separators, controls.
LEFT = ("", "(", "[", '"', "<b>", "</i><b>", "42,", "7|", "\x00", "C:\\Users\\", "/home/",
        "\\\\srv\\", "id=3;", "<p class=\"x\">", "path/to/", "#", "*")
JOIN = (" ", ".", "_", "|", "\\", "</b> <i>", "\x00", "-", "+", "</b><i>", ",")
RIGHT = ("", ")", "]", '"', "</b>", "</b></i>", ",active", "|x", "\\Desktop\\notes.txt",
         "_CV.pdf", ">", "/profile", "\x00", ".", "!", ";", "/")
FULL_NAMES = (("John", "Smith"), ("Karen", "Whitfield"), ("David", "Kowalski"),
              ("Maria", "Garcia"), ("james", "brown"), ("Linda", "Johnson"))


def assert_kept_in_order(out: str, kept: Sequence[str]) -> None:
    """Every piece of ``kept`` is in ``out``, in order, and no name of
    :data:`GLUED_NAMES` is."""
    pos = 0
    for piece in kept:
        found = out.find(piece, pos)
        assert found >= 0, (piece, out)
        pos = found + len(piece)
    for name in GLUED_NAMES:
        assert name not in out.replace("Smithson", "")


def assert_only_the_name_changed(left: str, name: tuple[str, str], join: str, right: str,
                                 out: str, spans: Iterable[tuple[int, int]]) -> None:
    """``out`` (the privatized ``left + first + join + last + right``) is the input with the
    name's characters replaced and its neighbours (the context before, between and after)
    kept byte for byte. A context piece is excused only where the detector targeted a word
    of its own in it (one of the report's ``spans`` inside it that touches no name: a
    tagger's slip, not data loss)."""
    first, last = name
    text = f"{left}{first}{join}{last}{right}"
    names = [(len(left), len(left) + len(first)),
             (len(left) + len(first) + len(join), len(text) - len(right))]
    bounds = [(0, names[0][0]), (names[0][1], names[1][0]), (names[1][1], len(text))]
    spans = list(spans)

    def own_slip(a: int, b: int) -> bool:
        return any(a <= s and e <= b and not any(s < y and x < e for x, y in names)
                   for s, e in spans)

    kept = [".*?" if own_slip(a, b) else re.escape(text[a:b]) for a, b in bounds]
    pattern = kept[0] + "(.+?)" + kept[1] + "(.+?)" + kept[2]
    assert re.fullmatch(pattern, out, flags=re.DOTALL), (text, out)
