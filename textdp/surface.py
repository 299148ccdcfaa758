"""Stage: how a substitute is written where the target stood.

A substitute takes the casing class of the token it replaces (``surface_form``: released without
noise, so the guarantee holds between inputs of the same casing class), and the new words are
joined back with the original whitespace (``join_words``), a run of one tag written once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def surface_form(substitute: str, original: str) -> str:
    """Give ``substitute`` the casing class of ``original``: UPPER, Title, lower, or (for
    any other pattern, like ``iPhone``) the substitute as the table spells it.

    This releases the original's casing class without noise: the guarantee then holds
    between inputs of the same casing class only (``surface="table"`` avoids it)."""
    if len(original) > 1 and original.isupper():
        return substitute.upper()
    if original[:1].isupper():
        return substitute[:1].upper() + substitute[1:]
    if original.islower():
        return substitute.lower()
    return substitute


def join_words(words: Sequence[str], doc: Any, start: int, end: int, *,
               collapse_tags: bool) -> str:
    """The text of ``doc``'s tokens that start in ``[start, end)`` with ``words`` in their
    place. With ``collapse_tags`` a run of one tag over consecutive tokens ("[PERSON]
    [PERSON]" for "Angela Merkel") is written once, as a placeholder tool would."""
    out: list[str] = []
    previous = None
    for word, token in zip(words, doc):
        if not start <= token.idx < end:
            continue
        if collapse_tags and word == previous and word != token.text and \
                word.startswith("[") and word.endswith("]") and out and out[-1] == " ":
            out.pop()  # the space before the repeated tag goes with it
            out.append(token.whitespace_)
            continue
        out.append(word)
        out.append(token.whitespace_)
        previous = word
    return "".join(out)
