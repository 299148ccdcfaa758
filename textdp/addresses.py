"""Stage: @handles and e-mail addresses spelt from the names of their own text.

Mail and chats name a person twice: ``Mary Johnson <mary.johnson@acme.com>``, ``ping
@mary_johnson … Mary says``. Drawn as a word of its own, the address would get a pseudonym of
its own (``Elisabeth Buchanan <williamson@example.com>``): the output no longer reads as one
person, and the address costs one more draw. :func:`spell` reads an address's body as names
that the same text targets (``mary`` + ``.`` + ``johnson``; ``maryjohnson``; ``MaryJ`` is not
all names), and :meth:`Spelling.written` writes it from *their* pseudonyms
(``elisabeth.buchanan@example.com``), the separators and each part's casing kept.

What this releases. The address's substitute is a function of the draws of the names it is
spelt from: post-processing, no draw and no ε of its own; those names' guarantee covers the
address as one more of their mentions. Which names an address is spelt from, in which order,
with which separators and casing, is released like the pattern of repeated names that
consistency releases (:mod:`textdp.pseudonyms`): the guarantee holds between texts that share
it. An address that is not all names of its text (``j.smith@…``, ``mary1987@…``, a name
mentioned nowhere else) is drawn as one word, as before, and writes no digit or separator of
the original.
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
    the body and the name key it matched; ``tail`` is the separators after the last part."""

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
        body = "".join(sep + surface_form(pseudonym, part)
                       for (sep, part, _), pseudonym in zip(self.parts, pseudonyms, strict=True))
        return self.address.written(body + self.tail)


def spell(token: str, names: Collection[str]) -> Spelling | None:
    """``token`` as an @handle or e-mail address whose body is a sequence of ``names`` (name
    keys: case-folded, :func:`textdp.pseudonyms.name_key`), optionally separated by
    :data:`SEPARATORS`; the reading with the fewest parts. ``None`` when the token is not an
    address or its body is not all names."""
    address = parse_address(token)
    if address is None or not names or len(address.body) > MAX_BODY:
        return None
    body = address.body
    folded = body.casefold()
    if len(folded) != len(body):  # "ß" → "ss": positions would not map back
        return None
    candidates = sorted((k for k in names if len(k) >= MIN_PART), key=len, reverse=True)
    end = len(body.rstrip(SEPARATORS))
    best: dict[int, tuple[tuple[str, str, str], ...] | None] = {end: ()}

    def parse(i: int) -> tuple[tuple[str, str, str], ...] | None:
        if i in best:
            return best[i]
        j = i
        while j < end and body[j] in SEPARATORS:
            j += 1
        found: tuple[tuple[str, str, str], ...] | None = None
        for key in candidates:
            if folded.startswith(key, j) and j + len(key) <= end:
                rest = parse(j + len(key))
                if rest is not None and (found is None or len(rest) + 1 < len(found)):
                    found = ((body[i:j], body[j:j + len(key)], key), *rest)
        best[i] = found
        return found

    parts = parse(0)
    if not parts:
        return None
    return Spelling(address, parts, body[end:])
