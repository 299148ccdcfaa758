"""Stage: @handles, e-mail addresses, profile URLs and run-together names (``#JohnSmith``)
spelt from the names of their own text.

Mail and chats name a person twice: ``Mary Johnson <mary.johnson@acme.com>``, ``ping
@mary_johnson … Mary says``. Drawn as a word of its own, the address would get a pseudonym of
its own (``Elisabeth Buchanan <williamson@example.com>``): the output no longer reads as one
person, and the address costs one more draw. :func:`spell` reads an address's body as names
that the same text targets (``mary`` + ``.`` + ``johnson``, ``maryjohnson``; ``j.smith``
beside "John Smith", by the initial of the only name of the text that starts with j; the
word ``JohnSmith`` of a hashtag), and
:meth:`Spelling.written` writes it from *their* pseudonyms (``elisabeth.buchanan@example.com``,
``e.buchanan@…``), the separators and each part's casing kept.

What this releases. The address's substitute is a function of the draws of the names it is
spelt from: post-processing, no draw and no ε of its own; those names' guarantee covers the
address as one more of their mentions. Which names an address is spelt from, in which order,
whole or by initial, with which separators and casing, is released like the pattern of
repeated names that consistency releases (:mod:`textdp.pseudonyms`): the guarantee holds
between texts that share it. An address that is not all names of its text (``mary1987@…``, a
name mentioned nowhere else, an initial that two names of the text share) is drawn as one
word, as before, and writes no digit or separator of the original.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from textdp.surface import Address, parse_address, surface_form

#: Characters that may separate the names of a body (``mary.johnson``, ``mary_johnson``).
SEPARATORS = "._-"
#: Shortest name a body is read as: one letter would make any body spellable.
MIN_PART = 2
#: Longest body read as names: an e-mail's local part has at most 64 characters (RFC 5321),
#: and a longer body is no handle either.
MAX_BODY = 64


class Spelling(NamedTuple):
    """An address read as names: per part, the separator before it, the part as written in
    the body (a whole name, or its initial) and the name key it stands for; ``tail`` is the
    separators after the last part."""

    address: Address
    parts: tuple[tuple[str, str, str], ...]
    tail: str

    @property
    def keys(self) -> tuple[str, ...]:
        """The name keys of the parts, in order."""
        return tuple(key for _, _, key in self.parts)

    def written(self, pseudonyms: Sequence[str]) -> str:
        """The address with each part replaced by its name's pseudonym (in the part's casing
        class), separators kept, and an e-mail's domain replaced by the reserved one."""
        body = "".join(
            sep + surface_form(pseudonym[:1] if is_initial(part, key) else pseudonym, part)
            for (sep, part, key), pseudonym in zip(self.parts, pseudonyms, strict=True))
        return self.address.written(body + self.tail)


def spell(token: str, names: Collection[str]) -> Spelling | None:
    """``token`` as an @handle, e-mail address or profile URL (:func:`parse_address`) whose
    body is a sequence of ``names`` (name keys: case-folded, :func:`textdp.pseudonyms.name_key`),
    optionally separated by :data:`SEPARATORS`, or as a word run together from two whole
    names or more (``JohnSmith`` of ``#JohnSmith``, not the name it is itself). A part of an
    address may be the initial of a name when no other name of the text starts with that
    letter (``j.smith`` beside "John Smith"), as long as one part is a whole name. Of several
    readings, the one with the fewest parts, then the fewest initials. ``None`` when the token
    is neither or is not all names."""
    address = parse_address(token)
    run_together = address is None
    if run_together:  # "JohnSmith" of "#JohnSmith": a word of two names or more
        if not token.isalpha():
            return None
        address = Address("", token, "", False)
    if not names or len(address.body) > MAX_BODY:
        return None
    body = address.body
    folded = body.casefold()
    if len(folded) != len(body):  # "ß" → "ss": positions would not map back
        return None
    whole = [k for k in names if len(k) >= MIN_PART and not (run_together and k == folded)]
    by_letter: dict[str, list[str]] = {}
    for key in whole:
        by_letter.setdefault(key[0], []).append(key)
    # (what the body shows, the name it stands for), whole names first.
    readings = [(key, key) for key in whole] + \
        [(letter, keys[0]) for letter, keys in by_letter.items() if len(keys) == 1]
    end = len(body.rstrip(SEPARATORS))
    Parts = tuple[tuple[str, str, str], ...]
    best: dict[int, Parts | None] = {end: ()}

    def cost(parts: Parts) -> tuple[int, int]:
        return len(parts), sum(is_initial(part, key) for _, part, key in parts)

    def parse(i: int) -> Parts | None:
        if i in best:
            return best[i]
        j = i
        while j < end and body[j] in SEPARATORS:
            j += 1
        found: Parts | None = None
        for shown, key in readings:
            if folded.startswith(shown, j) and j + len(shown) <= end:
                rest = parse(j + len(shown))
                if rest is not None:
                    parts = ((body[i:j], body[j:j + len(shown)], key), *rest)
                    if found is None or cost(parts) < cost(found):
                        found = parts
        best[i] = found
        return found

    parts = parse(0)
    initials = [is_initial(part, key) for _, part, key in parts or ()]
    if not parts or all(initials) or (run_together and (len(parts) < 2 or any(initials))):
        return None
    return Spelling(address, parts, body[end:])


def is_initial(part: str, key: str) -> bool:
    """Whether ``part`` of a body stands for the name ``key`` by its initial only."""
    return len(part) < len(key)
