"""The reader of the public word lists shipped in ``textdp/detect/data/``.

A word list is one file: ``#`` starts a comment, ``[name]`` opens a section, and the other
lines hold words, one or several to a line. The register stage's vocabularies
(:func:`textdp.detect.register.vocabulary`) and the street recogniser's types and names
(:mod:`textdp.detect.streets`) are read by it, so every list follows one format.
"""

from __future__ import annotations

from os import PathLike


def word_lines(path: str | PathLike[str]) -> list[str]:
    """The lines of a word list without comments, blank lines and surrounding blanks."""
    with open(path, encoding="utf-8") as f:
        return [line for raw in f if (line := raw.split("#", 1)[0].strip())]


def word_sections(path: str | PathLike[str]) -> dict[str | None, frozenset[str]]:
    """The words of a word list in lower case, by section (``None``: before the first
    ``[section]``)."""
    out: dict[str | None, set[str]] = {}
    section = None
    for line in word_lines(path):
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            out.setdefault(section, set())
        else:
            out.setdefault(section, set()).update(line.lower().split())
    return {k: frozenset(v) for k, v in out.items()}
