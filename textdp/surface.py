"""Stage: how a substitute is written where the target stood.

A substitute takes the casing class and the form of the token it replaces (``surface_form``:
both released without noise, so the guarantee holds between inputs of the same casing class
and form), and the new words are joined back with the original whitespace (``join_words``), a
run of one tag written once.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any, NamedTuple

from textdp.profile_urls import parse_profile_url

#: Written for the domain of an e-mail address: reserved for examples (RFC 2606), so it points
#: at nobody, and the same for every address, so it tells nothing of the original domain.
EMAIL_DOMAIN = "example.com"
#: An e-mail address: its local part, then ``@`` and a domain of two labels or more (the shape
#: the handle detector finds addresses by, :mod:`textdp.detect.handles`).
EMAIL_LOCAL = r"[\w.%+'-]+"
EMAIL_AT_DOMAIN = r"@[^\W_][\w-]*(?:\.[\w-]+)+"
# A whole token that is an e-mail address (brackets or quotes around it kept) or an @handle.
_EMAIL = re.compile(r"(?P<pre>[^\w.%+'-]*)(?P<body>" + EMAIL_LOCAL + ")" + EMAIL_AT_DOMAIN
                    + r"(?P<post>[^\w.-]*)")
_HANDLE = re.compile(r"(?P<pre>[^\w@]*@+)(?P<body>\w+(?:[.-]\w+)*)(?P<post>\W*)")


class Address(NamedTuple):
    """A token that is an @handle, an e-mail address or a profile URL: ``body`` is the
    handle after its ``@``, the address's local part or the URL's account, ``pre`` and
    ``post`` the punctuation glued around it (``(`` and ``),``; the ``@`` of a handle, and
    the scheme, host and path prefix of a profile URL, are in ``pre``; what follows a URL's
    account is dropped), ``email`` whether it is an address (whose domain is never written
    back)."""

    pre: str
    body: str
    post: str
    email: bool

    def written(self, body: str) -> str:
        """The token with ``body`` in place of the original's and, for an address,
        :data:`EMAIL_DOMAIN` in place of its domain."""
        return self.pre + body + ("@" + EMAIL_DOMAIN if self.email else "") + self.post


def parse_address(token: str) -> Address | None:
    """``token`` as an :class:`Address`, or ``None`` when it is neither an @handle, an
    e-mail address nor a profile URL (:mod:`textdp.profile_urls`)."""
    profile = parse_profile_url(token)
    if profile is not None:
        return Address(profile.pre, profile.body, profile.post, False)
    if "@" not in token:  # the one check every other token pays
        return None
    email = _EMAIL.fullmatch(token)
    if email is not None:
        return Address(email["pre"], email["body"], email["post"], True)
    handle = _HANDLE.fullmatch(token)
    if handle is not None:
        return Address(handle["pre"], handle["body"], handle["post"], False)
    return None


def is_initials(token: str) -> bool:
    """Whether ``token`` is a name's initial or initials, each a capital letter with its dot
    (``K.``, ``D.A.``, ``W.N.F.``). A capital alone is no initial here: it is as often a
    regnal number (``Elizabeth I``) or a grade."""
    parts = token.split(".")
    return len(parts) > 1 and parts[-1] == "" and \
        all(len(p) == 1 and p.isupper() for p in parts[:-1])


#: The letters a name's initials are written with: initials few names start with (none of the
#: 303 initials of CoNLL-2003 train's person names is U, Y or Z, 1.7 % are I and 1.0 % O), so
#: a name's own initial comes back by chance about one time in 200, not one in 15 as the
#: drawn name's first letter would.
INITIAL_LETTERS = "IOUYZ"


def initial_letters(substitute: str, count: int = 1) -> str:
    """``count`` letters of :data:`INITIAL_LETTERS` for the initials of ``substitute`` (the
    drawn name), chosen by a hash of it: the same name gives the same initials in every
    mention and address, and they depend on the draw alone, so they release nothing the
    draw does not."""
    code = zlib.crc32(substitute.casefold().encode("utf-8"))
    left = list(INITIAL_LETTERS)
    out = []
    for _ in range(count):
        if not left:
            left = list(INITIAL_LETTERS)
        code, i = divmod(code, len(left))
        out.append(left.pop(i))
    return "".join(out)


def initials_of(substitute: str, original: str) -> str:
    """``original``'s initials (:func:`is_initials`: ``K.``, ``D.A.``) written from
    ``substitute`` (:func:`initial_letters`), as many, each with its dot."""
    return "".join(c + "." for c in initial_letters(substitute, original.count(".")))


def surface_form(substitute: str, original: str, *, name: bool = False) -> str:
    """Give ``substitute`` the casing class and the form of ``original``.

    Casing class: UPPER, Title, lower, or (for any other pattern, like ``iPhone``) the
    substitute as the table spells it. Form: a token that is an @handle stays one
    (``@jessie_k`` → ``@elisabeth``), an e-mail address stays one with the body's casing and
    :data:`EMAIL_DOMAIN` (``Mary.Johnson@acme.com`` → ``Vivian@example.com``), a profile URL
    stays one on its platform, without what followed the account
    (``https://x.com/jessie_k/status/1`` → ``https://x.com/elisabeth``), so tweets and mail
    keep reading as such, punctuation glued to any of them kept (``.@john`` → ``.@vivian``);
    any other token is a word.

    A hyphenated original with a substitute of as many parts is cased part by part
    (``Seo-yeon`` → ``Ji-woo``, ``AL-SAYED`` → ``AL-COOPER``). With ``name`` (the original
    is part of a person's name) an initial stays an initial (``V.`` → ``O.``, ``D.A.`` →
    ``Y.I.``: :func:`initials_of`), so ``E. Auchard`` reads as a name in the same shape, not
    as two whole names; any other initial-shaped word (``U.S.``, the
    pronoun ``I``, in all-token mode) becomes the substitute in Title case.

    This releases the original's casing class and form without noise: the guarantee then
    holds between inputs of the same casing class and form only (``surface="table"`` avoids
    both)."""
    address = parse_address(original)
    if address is not None:
        return address.written(surface_form(substitute, address.body))
    parts = original.split("-")
    if len(parts) > 1 and all(parts) and substitute.count("-") == len(parts) - 1:
        # A hyphenated name written in the same shape: each part in its part's casing.
        return "-".join(surface_form(s, o) for s, o in zip(substitute.split("-"), parts))
    if is_initials(original):
        return initials_of(substitute, original) if name else \
            substitute[:1].upper() + substitute[1:]
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
    [PERSON]" for "Angela Merkel") is written once, as a placeholder tool would. An empty
    word where the token was not (the later tokens of a place of several tokens, written
    whole on its first) takes the whitespace before it with it: "New York is" → "Lyon is"."""
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
        if not word and token.text and out:
            out[-1] = token.whitespace_  # the whitespace before it goes with it
            continue
        out.append(word)
        out.append(token.whitespace_)
        previous = word
    return "".join(out)
