"""Stage: @handles, e-mail addresses, profile URLs and run-together names (``#JohnSmith``)
spelt from the names of their own text.

Mail and chats name a person twice: ``Mary Johnson <mary.johnson@acme.com>``, ``ping
@mary_johnson … Mary says``. Drawn as a word of its own, the address would get a pseudonym of
its own (``Elisabeth Buchanan <williamson@example.com>``): the output no longer reads as one
person, and the address costs one more draw. :func:`spell` reads an address's body as names
that the same text targets (``mary`` + ``.`` + ``johnson``, ``maryjohnson``; ``j.smith``
beside "John Smith", by the initial of the one name written beside "Smith" in the text's
person spans; the word ``JohnSmith`` of a hashtag), and
:meth:`Spelling.written` writes it from *their* pseudonyms (``elisabeth.buchanan@example.com``,
``e.buchanan@…``), the separators and each part's casing kept.

What this releases. The address's substitute is a function of the draws of the names it is
spelt from: post-processing, no draw and no ε of its own; those names' guarantee covers the
address as one more of their mentions. Which names an address is spelt from, in which order,
whole or by initial, with which separators and casing, is released like the pattern of
repeated names that consistency releases (:mod:`textdp.pipeline.draw_plan`): the guarantee holds
between texts that share it. Whether a part is read as an initial depends only on the address
and on the person spans that hold its whole names (the one name written beside that name),
never on the first letters of the text's other names: "Jane Doe" or "Mary Doe"
beside "John Smith" and ``j.smith@…`` spell it alike. An address that is not all names of its
text (``mary1987@…``, a name mentioned nowhere else, an initial of no name written beside its
whole name) is drawn as one word, as before, and writes no digit or separator of the
original.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import NamedTuple

from textdp.surface import Address, initial_letters, parse_address, surface_form

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
        class), separators kept, and an e-mail's domain replaced by the reserved one. A part
        written by its initial, or standing for a name the text writes as an initial
        (``j.smith@…`` beside ``J. Smith``), is written as the pseudonym's initial: the
        first letter of a pseudonym the text writes whole, else the initial the text's
        initial is written as (:func:`textdp.surface.initial_letters`)."""
        body = "".join(
            sep + _written_part(pseudonym, part, key)
            for (sep, part, key), pseudonym in zip(self.parts, pseudonyms, strict=True))
        return self.address.written(body + self.tail)


class Speller:
    """Reads tokens as names of one text (:meth:`spell`), built once per text: a body is
    matched by looking its substrings up, so the cost grows with the body, not with the
    number of names the text holds.

    Args:
        names: the name keys of the text (case-folded, :func:`textdp.name_vocabulary.name_key`).
        pairs: the ``(name, next name)`` of the person spans of the text ("Mary Johnson":
            ``("mary", "johnson")``): an initial may stand only for the one name written
            beside a whole name of the address in the text's spans.
    """

    def __init__(self, names: Collection[str],
                 pairs: Collection[tuple[str, str]] = ()) -> None:
        self.names = frozenset(k for k in names if len(k) >= MIN_PART)
        self.longest = max(map(len, self.names), default=0)
        beside: dict[str, set[str]] = {}
        for first, then in pairs:
            if first in self.names and then in self.names and first != then:
                beside.setdefault(then, set()).add(first)
                beside.setdefault(first, set()).add(then)
        #: Per name, the one name written right before or after it in the text's person
        #: spans, where there is only one ("john" for "smith" of "John Smith").
        self.mate = {k: next(iter(v)) for k, v in beside.items() if len(v) == 1}

    def spell(self, token: str) -> Spelling | None:
        """``token`` as an @handle, e-mail address or profile URL (:func:`parse_address`)
        whose body is a sequence of the text's names, optionally separated by
        :data:`SEPARATORS`, or as a word run together from two whole names or more
        (``JohnSmith`` of ``#JohnSmith``, never the name it is itself). A part of an address
        may be the initial of a name F next to a whole name W of the address, where F is the
        one name written right before or after W in the text's person spans (``j.smith`` and
        ``smith.j`` beside "John Smith"); whether it is depends on the address and the spans
        of its own whole names only, never on the letters of the text's other names.
        Of several readings, the one with the fewest parts, then the fewest initials.
        ``None`` when the token is neither or is not all names."""
        address = parse_address(token)
        run_together = address is None
        if run_together:  # "JohnSmith" of "#JohnSmith": a word of two names or more
            if not token.isalpha() or len(token) < 2 * MIN_PART:
                return None
            address = Address("", token, "", False)
        body = address.body
        if not self.names or len(body) > MAX_BODY:
            return None
        folded = body.casefold()
        if len(folded) != len(body):  # "ß" → "ss": positions would not map back
            return None
        end = len(body.rstrip(SEPARATORS))
        best: dict[tuple[int, str | None], _Parts | None] = {}

        def skip(j: int) -> int:
            while j < end and body[j] in SEPARATORS:
                j += 1
            return j

        def wholes(j: int) -> Iterator[tuple[int, str]]:
            """(end, name) of each whole name the body shows from ``j``."""
            for stop in range(j + MIN_PART, min(end, j + self.longest) + 1):
                key = folded[j:stop]
                if key in self.names and not (run_together and stop - j == len(folded)):
                    yield stop, key

        def readings(j: int, prev: str | None
                     ) -> Iterator[tuple[int, str, str | None]]:
            """(end, name, the whole name that must follow) of each reading from ``j``."""
            for stop, key in wholes(j):
                yield stop, key, None
            if run_together:
                return
            letter = folded[j]
            mate = self.mate.get(prev) if prev is not None else None
            if mate is not None and mate[0] == letter:
                yield j + 1, mate, None
            for _, then in wholes(skip(j + 1)):
                mate = self.mate.get(then)
                if mate is not None and mate[0] == letter:
                    yield j + 1, mate, then

        def parse(i: int, prev: str | None) -> _Parts | None:
            """The best reading of the body from ``i``; ``prev``: the previous part's name
            when it was written whole."""
            if (i, prev) in best:
                return best[(i, prev)]
            j = skip(i)
            found: _Parts | None = () if j >= end else None
            for stop, key, then in readings(j, prev) if j < end else ():
                rest = parse(stop, key if stop - j > 1 else None)
                if rest is None or (then is not None and not (
                        rest and rest[0][2] == then and not is_initial(*rest[0][1:]))):
                    continue
                parts = ((body[i:j], body[j:stop], key), *rest)
                if found is None or _cost(parts) < _cost(found):
                    found = parts
            best[(i, prev)] = found
            return found

        parts = parse(0, None)
        initials = [is_initial(part, key) for _, part, key in parts or ()]
        if not parts or all(initials) or (run_together and (len(parts) < 2 or any(initials))):
            return None
        return Spelling(address, parts, body[end:])


_Parts = tuple[tuple[str, str, str], ...]


def _cost(parts: _Parts) -> tuple[int, int]:
    """Fewest parts first, then fewest initials."""
    return len(parts), sum(is_initial(part, key) for _, part, key in parts)


def spell(token: str, names: Collection[str],
          pairs: Collection[tuple[str, str]] = ()) -> Spelling | None:
    """:meth:`Speller.spell` of ``token`` with the text's name keys ``names`` and the
    ``pairs`` of its person spans (to read many tokens of one text, build the
    :class:`Speller` once)."""
    return Speller(names, pairs).spell(token)


def _written_part(pseudonym: str, part: str, key: str) -> str:
    """One part of a spelt body: the pseudonym, or its initial where the part is one."""
    if is_initial(part, key):
        return surface_form(pseudonym[:1], part)
    if len(key.rstrip(".")) == 1:  # an initial in the text ("J." in "J. Smith"), dot and all
        return surface_form(initial_letters(pseudonym), part[:1]) + part[1:]
    return surface_form(pseudonym, part)


def is_initial(part: str, key: str) -> bool:
    """Whether ``part`` of a body stands for the name ``key`` by its initial only."""
    return len(part) < len(key)
