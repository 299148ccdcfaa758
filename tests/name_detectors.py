"""Fixed person detectors and the text the pseudonym tests privatize (imported by tests)."""

from __future__ import annotations

TEXT = "Angela Merkel met John Smith in Berlin. Later Merkel's aide called MERKEL again."
PERSONS = {0: "first", 1: "last", 3: "first", 4: "last"}  # token positions in TEXT


def names(docs):
    """A fixed detector: the persons of TEXT-like texts are the title-case and upper-case words
    Merkel/Angela/John/Smith wherever they are."""
    wanted = {"angela", "merkel", "john", "smith", "emily", "patel", "dr."}
    return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text.casefold() in wanted]
            for doc in docs]


def smiths(docs):
    """A fixed detector: Smith, Jones and Brown in any casing are persons."""
    return [[(t.i, t.i + 1, "PERSON") for t in doc
             if t.text.casefold() in {"smith", "jones", "brown"}] for doc in docs]
