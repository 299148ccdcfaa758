"""Names glued into paths, URLs, query strings and account names.

A tagger reads ``C:\\Users\\John.Smith\\Desktop``, ``/staff/john-smith/profile``,
``?name=John+Smith``, ``CORP\\jsmith`` or ``/home/karen/`` as one odd token and marks nothing,
so in names-only mode the name is published unchanged. :func:`glued_pieces` finds the name
parts inside such a string by the public census lexicon (:mod:`textdp.detect.lexicon`):

* **pairs**: a first name and a surname joined by one of ``.``, ``_``, ``-``, ``+``
  (``John.Smith``, ``john-smith``, ``Karen_Whitfield_CV.pdf``, ``name=John+Smith``): the first
  name ranked :data:`FIRST_NAME_RANK` or better, the surname :data:`SURNAME_RANK` or better;
* **account names**: the segment after ``\\Users\\``, ``/Users/``, ``/home/`` or a Windows
  domain (``CORP\\jsmith``), and the value of a query parameter that names a person
  (``?user=jsmith``, ``&author=karen``): a first name, a surname, an initial + surname
  (``jsmith``) or a run-together full name (``johnsmith``).

E-mail addresses, @handles and profile URLs (``x.com/john_smith``), whole or inside the
string, are left to :mod:`textdp.detect.handles`, whose substitutes keep their form.

:func:`split_glued` cuts, after the tokenizer and before any detector runs, what no infix
rule of :mod:`textdp.tokenization` can tell apart: a name glued to its neighbours by a
backslash, a pipe, a control character, a tag (``John</b>``, ``John<john@acme.com>``) or a
comma after a number (``42,John``), and the name parts inside a path, URL or account name.
Each is then a token of its own, and a substitute replaces its characters only, never the
rest of the token (``C:\\Users\\John.Smith\\Desktop\\notes.txt`` used to become
``C:\\Users\\John.Levy``); :class:`GluedNameDetector` marks the name tokens ``PERSON``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from typing import Any

from textdp.detect import lexicon
from textdp.detect.base import Span
from textdp.detect.registry import register_detector
from textdp.tokenization import split_tokens

PERSON = "PERSON"
#: Rank cut of the first name of a pair or an account name (the handle detector's default).
FIRST_NAME_RANK = 2000
#: Rank cut of the surname of a pair, an account name or an initial + surname.
SURNAME_RANK = 20000

# Runs of letters, and what may join the two halves of a glued full name.
_LETTERS = re.compile(r"[^\W\d_]+")
_PAIR_JOINERS = frozenset("._-+")
# Title-case runs of letters, and what glues them in a file name or URL.
_TITLED = re.compile(r"[^\W\d_a-z][^\W\d_A-Z]+(?![^\W\d_])")
_CASED = re.compile(r"(?:[^\W\d_a-z]|(?<![^\W\d_]))[^\W\d_A-Z]+(?![^\W\d_])")
_SOFT = frozenset("._-+=/")
_SOFT_GLUE = re.compile(r"[._+=/-]")
# E-mail addresses and @handles: their names are the handle detector's.
_ADDRESS = re.compile(r"[\w.%+'-]*@[\w.-]*")
# An account-name segment: after a user folder or a Windows domain (a word then "\").
_ACCOUNT = re.compile(
    r"(?:[\\/](?:users|home|usr)[\\/]|^[^\W\d_][\w-]*\\)([^\W\d_][\w.-]*)", re.IGNORECASE)
# A query parameter whose value names a person.
_QUERY = re.compile(
    r"[?&;](?:name|user|username|user_name|uname|login|first|firstname|first_name|fname|"
    r"last|lastname|last_name|lname|surname|author|owner|contact|customer|patient|"
    r"employee|person|member|student)=([^&#;\s]+)", re.IGNORECASE)
# A word, handle body or identifier ("Scottie_Martin", "andy_carey151"): the tagger's and
# the handle detector's, read whole.
_IDENTIFIER = re.compile(r"[\w'’]+")
# What a string must hold for any rule to apply (most tokens hold none of these).
_CANDIDATE = re.compile(r"[^\W\d_][._+-][^\W\d_]|[\\/=]")


def is_address(text: str) -> bool:
    """Whether ``text`` is an @handle, an e-mail address or a profile URL: the handle
    detector's, whose substitute keeps its form (:func:`textdp.surface.parse_address`)."""
    from textdp.surface import parse_address

    return parse_address(text) is not None


def _first(word: str) -> bool:
    return lexicon.is_first_name(word, FIRST_NAME_RANK)


def _surname(word: str) -> bool:
    return lexicon.is_surname(word, SURNAME_RANK)


def is_account_name(word: str) -> bool:
    """Whether ``word`` (letters only) reads as a person's account name: a first name, a
    surname, an initial + surname (``jsmith``) or a run-together full name
    (``johnsmith``), by the census lexicon."""
    if len(word) < 3:
        return False
    if _first(word) or _surname(word):
        return True
    if len(word) >= 4 and _surname(word[1:]):
        return True
    return lexicon.split_full_name(word, first_rank=FIRST_NAME_RANK,
                                   surname_rank_limit=SURNAME_RANK) is not None


def glued_pieces(text: str) -> list[tuple[int, int]]:
    """The character ranges of the name parts glued inside ``text`` (a token, or a run of
    tokens without whitespace between them), sorted; see the module doc."""
    # An identifier (word characters only, "John_Smith", "Reece_Webbz") is cut only by the
    # pair rule: two census names joined by "_", so a tweet's "Reece_Webbz" stays whole.
    if not _CANDIDATE.search(text) or is_address(text):
        return []
    hidden = [(m.start(), m.end()) for m in _ADDRESS.finditer(text) if "@" in m.group()]

    def free(a: int, b: int) -> bool:
        return not any(s < b and a < e for s, e in hidden)

    out: set[tuple[int, int]] = set()
    runs = [(m.start(), m.end()) for m in _LETTERS.finditer(text)]
    # A hyphen joins a pair in a path or URL only ("Valencia-Sevilla" in prose is none).
    joiners = _PAIR_JOINERS if "/" in text or "\\" in text else _PAIR_JOINERS - {"-"}
    for (a, b), (c, d) in itertools.pairwise(runs):
        if c == b + 1 and text[b] in joiners and free(a, d) and \
                _first(text[a:b]) and _surname(text[c:d]):
            out.update(((a, b), (c, d)))
    for pattern in (_ACCOUNT, _QUERY):
        for m in pattern.finditer(text):
            start, end = m.span(1)
            segment = [(a, b) for a, b in runs if start <= a and b <= end]
            if len(segment) == 1 and free(start, end) and is_account_name(
                    text[segment[0][0]:segment[0][1]]):
                out.add(segment[0])
    return sorted(out)


def name_runs(text: str) -> list[tuple[int, int]]:
    """The title-case runs of letters inside ``text`` glued to a ``.``, ``_``, ``-``, ``+``,
    ``=`` or ``/`` that are a first name or a surname of the lexicon (``Smith`` of
    ``Smith_CV.pdf``), outside e-mail addresses and @handles; lower-case runs too outside
    URLs (``brown_cv.pdf``; a URL's lower-case words are left whole). Not evidence of a name on
    their own (:class:`GluedNameDetector` does not mark them): where to cut a token so that a
    tagger that finds the name finds it alone."""
    if "@" in text or not _SOFT_GLUE.search(text) or _IDENTIFIER.fullmatch(text) or \
            is_address(text):
        return []
    out = []
    url = "://" in text or text.lower().startswith("www.")
    for m in (_TITLED if url else _CASED).finditer(text):
        a, b = m.span()
        glued = (a > 0 and text[a - 1] in _SOFT) or (b < len(text) and text[b] in _SOFT)
        alone = (a == 0 or not text[a - 1].isalnum()) and \
            (b == len(text) or not text[b].isalnum())
        if glued and alone and b - a >= 3 and (_first(m.group()) or _surname(m.group())):
            out.append((a, b))
    return out


def whitespace_runs(doc: Any) -> list[tuple[int, int]]:
    """The runs of tokens of ``doc`` with no whitespace between them (what was one
    whitespace-delimited string), as ``(start, end)`` token indices."""
    out: list[tuple[int, int]] = []
    start = 0
    n = len(doc)
    for token in doc:
        k = token.i
        if token.whitespace_ or k == n - 1 or token.is_space or doc[k + 1].is_space:
            out.append((start, k + 1))
            start = k + 1
    return out


@register_detector("glued")
class GluedNameDetector:
    """Marks the tokens that are name parts glued into a path, URL, query string or account
    name (:func:`glued_pieces`) as ``PERSON``. A piece is matched to the tokens it overlaps;
    :func:`split_glued` makes it a token of its own beforehand."""

    labels = (PERSON,)
    name = "glued"

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        out: list[list[Span]] = []
        for doc in docs:
            spans: set[Span] = set()
            for s, e in whitespace_runs(doc):
                text = doc[s].text if e == s + 1 else doc[s:e].text
                pieces = glued_pieces(text)
                if not pieces:
                    continue
                base = doc[s].idx
                for a, b in pieces:
                    toks = [k for k in range(s, e)
                            if doc[k].idx - base < b and a < doc[k].idx - base + len(doc[k])]
                    if toks:
                        spans.add((toks[0], toks[-1] + 1, PERSON))
            out.append(sorted(spans))
        return out

    def __repr__(self) -> str:
        return "GluedNameDetector()"


# Characters that never belong inside a word: cut before and after each.
_HARD_GLUE = re.compile(r"[\\|\x00-\x08\x0e-\x1f\x7f]|(?<=\d)[,;](?=[^\W\d_])|"
                        r"(?<=[^\W\d_])[,;](?=\d)")
# A drive letter ("C:\\"): one token, not cut (a lone "C:" reads as an initial to a tagger).
_DRIVE = re.compile(r"^[^\W\d_]:\\")
# A "<" after something (a tag or bracket opens: cut before it) and a ">" before something.
_OPEN_ANGLE = re.compile(r"(?<=[^<\s])<")
_CLOSE_ANGLE = re.compile(r">(?=[^>\s])")
# What a token must hold for any cut (most tokens are plain words and are not looked at).
_MAY_CUT = re.compile(r"[^\w'’]|_")


def glued_cuts(token: str) -> list[int]:
    """Where :func:`split_glued` cuts ``token``: offsets strictly inside it, sorted."""
    if token.isalpha() or not _MAY_CUT.search(token):
        return []
    cuts: set[int] = set()
    for m in _HARD_GLUE.finditer(token):
        cuts.update(m.span())
    cuts.update(m.start() for m in _OPEN_ANGLE.finditer(token))
    cuts.update(m.end() for m in _CLOSE_ANGLE.finditer(token))
    for a, b in glued_pieces(token) + name_runs(token):
        cuts.update((a, b))
    drive = _DRIVE.match(token)
    low = drive.end() if drive else 1
    return sorted(c for c in cuts if low <= c < len(token))


def split_glued(docs: Iterable[Any]) -> list[Any]:
    """``docs`` with each token cut at :func:`glued_cuts` (a new doc where any token is
    cut, the doc itself otherwise; the text is unchanged). A doc straight from a tokenizer
    gives a doc of the pieces; an annotated one (the spaCy component's input) keeps what
    :func:`textdp.tokenization.split_tokens` says can be kept of each piece."""
    out = []
    for doc in docs:
        cuts: dict[int, list[int]] = {}
        for token in doc:
            found = glued_cuts(token.text)
            if found:
                cuts[token.i] = found
        out.append(split_tokens(doc, cuts) if cuts else doc)
    return out
