"""Draw plan: which targets of a batch share one draw, and from which candidate set.

* **Which mentions share a draw** (``consistency``): ``"document"`` draws once per distinct
  name per text (:func:`~textdp.name_vocabulary.name_key`: case, possessive and Unicode form do
  not count), so "Merkel" alone and in "Angela Merkel" get the same pseudonym and ε is charged
  once for that name; ``"dataset"`` derives each name's draw from a keyed pseudo-random
  function of (secret key, scope, name) (:func:`textdp.keyed_sources.keyed_source`), so every
  process, worker and rerun with the same key agrees without shared state; ``"mention"`` draws
  for every mention (each costs ε).
* **What each draw decodes to**: its kind, a name kind (:func:`name_kinds`: context,
  position, then :func:`~textdp.name_vocabulary.vocabulary_kind`), a place kind
  (:func:`~textdp.place_vocabulary.place_kind`), ``"word"``, ``"tag"`` or ``"pii"``.
* **Names as units**: particles (:func:`is_particle`) are kept, hyphenated names
  (:func:`compound_names`) are one target written in their shape.
* **Places of several tokens** (:func:`place_runs`): one target, the run's first token, which
  carries the run's text; the other tokens are written empty (``of_target`` -2).
* **Addresses spelt from names** (:func:`spelt_addresses`) have no draw of their own.

What consistency releases. Re-using one draw for every mention is post-processing: the
guarantee covers each distinct name's identity, all its mentions together, at ε per name (ε·d
between two names under metric DP). It does not hide the *pattern of repeats*: which mentions
share a name is visible in the output. No name → pseudonym table is stored or written: within a
text the draw lives until the text is done; across texts it is recomputed from the key, which
is therefore as sensitive as ``seed``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from textdp.addresses import Speller, Spelling
from textdp.detect import lexicon
from textdp.detect.pii import PII_LABELS
from textdp.detect.register import vocabulary
from textdp.detect.rules import GREETINGS, runs
from textdp.name_vocabulary import (
    PERSON,
    lexicon_kind,
    name_key,
    origin_group,
    vocabulary_kind,
)
from textdp.place_vocabulary import PLACE_LABELS, place_key, place_kind
from textdp.surface import parse_address

#: Name particles: a closed public list. Inside a person name (not its last word; not its
#: first word unless written in lower case) they are no draw of the mechanism: each is
#: written as one of :data:`PARTICLE_DRAWS` drawn uniformly, whatever it was, so where a name
#: has particles is released (``holds_between``), which particle it has is not.
PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "dei", "di", "da",
                       "das", "dos", "du", "la", "le", "ter", "ten", "zu", "y", "bin", "binti",
                       "bint", "ibn", "ben", "bat", "al", "el", "ap", "abu", "mac"})
#: What a particle inside a name is written as (uniformly, independent of the input).
PARTICLE_DRAWS = tuple(sorted(PARTICLES))
#: Particles that are particles even as a name's first word ("Ibn Khaldun", "Bin Laden").
PATRONYMIC = frozenset({"bin", "binti", "bint", "ibn", "abu"})
#: Particles written as the first part of a hyphenated name ("Al-Hashimi", "el-Sayed"):
#: kept, the rest of the name drawn.
PREFIX_PARTICLES = frozenset({"al", "el", "ul", "bin", "ibn", "abu", "abd", "ben", "ap"})
#: A lone name before one of these words is a first name, unless a list knows it
#: ("Kwame from the plumbing company", "Aditya says hi").
FIRST_BEFORE = frozenset({"from", "says", "here", "wrote", "writes", "asks", "asked"})
#: A lone name after one of these (honorifics, textdp.pipeline.selection) is a surname.
SURNAME_AFTER = frozenset({"mr", "mrs", "ms", "mx", "miss", "dr", "prof", "professor", "sir",
                           "madam", "mister", "mrs.", "messrs", "rev", "fr", "judge",
                           "sen", "senator", "rep", "gov", "president", "minister",
                           "herr", "frau", "monsieur", "madame", "señor", "señora", "sr",
                           "sra", "signor", "signora"})


def is_particle(words: Sequence[str], mask: Sequence[str | None], k: int) -> bool:
    """Whether person target ``k`` is a particle of its name: in :data:`PARTICLES`, followed
    by another person target (or by more particles and a capitalised word: "van" of "Sofia
    van den Heuvel" when only "Sofia van" was detected), and in lower case or not the
    name's first word ("van" of "Sofia van den Heuvel", "de" of "Robert De Niro"; not "Van"
    of "Van Morrison"), or one of :data:`PATRONYMIC` ("Ibn Khaldun")."""
    if mask[k] != PERSON or words[k].casefold() not in PARTICLES:
        return False
    j = k + 1  # past further particles ("van den"), whether or not they are targets
    while j < len(mask) and words[j].casefold() in PARTICLES:
        j += 1
    if j >= len(mask):
        return False
    if mask[j] != PERSON and (j == k + 1 or not words[j][:1].isupper()):
        return False
    return words[k].islower() or words[k].casefold() in PATRONYMIC \
        or (k > 0 and mask[k - 1] == PERSON)


def _previous_word(words: Sequence[str], k: int) -> str:
    """The word before token ``k``, skipping a full stop, commas and an opening bracket
    ("Dr. Patel", "Daughter (Keisha)")."""
    j = k - 1
    while j >= 0 and words[j] in (".", ",", "("):
        j -= 1
    return words[j].casefold().rstrip(".") if j >= 0 else ""


def name_kinds(mask: Sequence[str | None], words: Sequence[str]) -> list[str | None]:
    """Per token of one text, the kind of a person target from its context, position and the
    name lists; ``None`` for other tokens and for particles (:func:`is_particle`). In a run
    of person targets (particles inside it count; a leading lower-case greeting taken for a
    name, "bday mateo", does not) a name word the census lists know well has their kind
    (:func:`_census_kind`: "LeBron James", a first name), else the last name word is a
    surname and the ones before it first names; a name word after particles only is a
    surname. A lone target is a surname after an honorific (:data:`SURNAME_AFTER`) or with a
    prefix particle ("Al-Hashimi"), a first name after a greeting (:data:`GREETINGS`) or a
    kinship word (the register's ``kinship`` list: "Wife Adaeze", "Daughter (Olamide)"); else
    the kind the lists give it (:func:`~textdp.name_vocabulary.vocabulary_kind`); else a
    first name before one of :data:`FIRST_BEFORE` or when it opens the text followed by a
    comma ("Aditya, can you"); else ``"any"``. Everything read is the text's public
    structure around the name and the public lists: the kind is released
    (``holds_between``)."""
    particle = [is_particle(words, mask, k) for k in range(len(mask))]
    kinds: list[str | None] = [None] * len(mask)
    for k, stop in _person_runs(mask):
        end = stop - 1
        while k < end and words[k].islower() and words[k] in GREETINGS:
            kinds[k] = "any"  # "bday" of "happy bday mateo" taken for a name: not the name's
            k += 1
        names = [j for j in range(k, end + 1) if not particle[j]]
        if len(names) > 1:  # the census lists' common names, else the place in the name
            for j in names:
                kinds[j] = _census_kind(name_key(words[j])) or \
                    ("last" if j == names[-1] else "first")
        elif names:  # a name after a particle is a surname ("Ibn Khaldun")
            kinds[names[0]] = "last" if names[0] > k else _lone_kind(words, names[0], end)
    return kinds


def _person_runs(mask: Sequence[str | None]) -> list[tuple[int, int]]:
    """The runs of consecutive person targets of ``mask`` as ``(start, end)``."""
    return runs(k for k, label in enumerate(mask) if label == PERSON)


#: Inside a name, a census surname overrides the place only within this rank: the long tail
#: of the surname list holds many first names ("Abner", "Amin", "Boaz").
COMMON_SURNAME_RANK = 1000


def _census_kind(key: str) -> str | None:
    """The census kind of ``key`` where it is confident: a census first name (within the
    vocabulary's rank cut), or one of the :data:`COMMON_SURNAME_RANK` most common census
    surnames that is no first name ("Jones")."""
    kind = lexicon_kind(key)
    if kind == "last" and not lexicon.is_surname(key, COMMON_SURNAME_RANK):
        return None
    return kind


def _lone_kind(words: Sequence[str], k: int, end: int) -> str:
    """The kind of the lone name word ``k`` (its run ends at ``end``), see
    :func:`name_kinds`."""
    before = _previous_word(words, k)
    if before in SURNAME_AFTER or words[k].split("-")[0].casefold() in PREFIX_PARTICLES:
        return "last"  # "Mr Patel", "Al-Hashimi"
    if before in GREETINGS or before in vocabulary("kinship"):  # "Hi Aditya", "Daughter (Olamide)"
        return "first"
    listed = vocabulary_kind(name_key(words[k]))
    if listed is not None:
        return listed
    after = words[end + 1].casefold() if end + 1 < len(words) else ""
    if after in FIRST_BEFORE or (after == "," and before in ("", "\n")):
        return "first"
    return "any"


def compound_names(words: Sequence[str], spaced: Sequence[bool],
                   mask: Sequence[str | None],
                   is_word: Callable[[str], bool] = lambda w: True) -> dict[int, int]:
    """The hyphenated names of one text, each a unit: ``{start: end}`` (tokens
    ``start..end-1``, e.g. "Seo", "-", "yeon") for alphabetic parts joined by hyphens with no
    whitespace, at least one part a person target and every other part a prefix particle
    (:data:`PREFIX_PARTICLES`), a target, written in the target's case (Title or UPPER), or
    in lower case and not a common word (``is_word``, a public word list such as the table's
    rows): "AL-SAYED", "Al-Hashimi", "Seo-yeon", "Heinz-gerd"; not "Obama-era". ``spaced``:
    per token, whether whitespace follows it."""
    out: dict[int, int] = {}
    k = 0
    while k < len(words):
        end = k + 1
        while end + 1 < len(words) and words[end] == "-" and not spaced[end - 1] \
                and not spaced[end] and words[end + 1].isalpha():
            end += 2
        parts = range(k, end, 2)
        if end > k + 1 and words[k].isalpha() and any(mask[j] == PERSON for j in parts):
            shape = next(words[j] for j in parts if mask[j] == PERSON)
            if all(mask[j] == PERSON or words[j].casefold() in PREFIX_PARTICLES
                   or _same_case(words[j], shape)
                   or (words[j].islower() and not is_word(words[j])) for j in parts):
                out[k] = end
        k = end
    return out


def _same_case(word: str, shape: str) -> bool:
    """Whether ``word`` is written in the name case (Title or UPPER) of ``shape``."""
    if shape.isupper():
        return word.isupper()
    return word[:1].isupper() and not word.isupper()


def compound_substitute(token: str, first: str, more: Sequence[str]) -> str:
    """The substitute of the hyphenated name ``token`` in its shape: prefix particles kept
    (lower case; the surface form re-cases each part), the first other part ``first``, the
    rest ``more`` in order ("AL-SAYED", "Cooper" -> "al-Cooper" -> "AL-COOPER")."""
    names = iter([first, *more])
    return "-".join(part.casefold() if part.casefold() in PREFIX_PARTICLES else next(names)
                    for part in token.split("-"))


def compound_parts(token: str) -> int:
    """How many parts of the hyphenated name ``token`` are drawn (not prefix particles)."""
    return sum(part.casefold() not in PREFIX_PARTICLES for part in token.split("-"))


def positional_kinds(mask: Sequence[str | None]) -> list[str | None]:
    """Per token of one text, the kind its position gives a person target: in a run of
    consecutive person targets the last is a surname (``"last"``), the ones before it first
    names, a lone target ``"any"``; ``None`` for other tokens."""
    kinds: list[str | None] = [None] * len(mask)
    for start, end in _person_runs(mask):
        kinds[start:end - 1] = ["first"] * (end - 1 - start)
        kinds[end - 1] = "last" if end - start > 1 else "any"
    return kinds


@dataclass(frozen=True)
class DrawPlan:
    """Which targets of a batch share a draw.

    Attributes:
        of_target: per target (position in the batch's target list), its draw.
        first: per draw, the target whose input the draw reads (its first mention).
        kinds: per draw, the candidate set: ``"word"`` (the whole table), a name kind,
            ``"tag"``, or ``"pii"`` (a surrogate or tag of the value's format, no ε).
        keys: per draw, the name it stands for (``None`` for per-mention draws); the text's
            remembered draws and keyed draws are looked up by it. A place's key is its
            :func:`~textdp.place_vocabulary.place_key`.
        spelt: the targets spelt from names of their text (addresses, profile URLs and
            run-together names, :mod:`textdp.addresses`): written from those names' draws,
            with no draw of their own (their ``of_target`` is -1).
        continued: the targets that continue a place of several tokens: written empty, the
            place's substitute being written on its first token (their ``of_target`` is -2).
    """

    of_target: np.ndarray
    first: np.ndarray
    kinds: list[str]
    keys: list[str | None]
    spelt: dict[int, Spelling] = field(default_factory=dict)
    continued: frozenset[int] = frozenset()


def place_runs(mask: Sequence[str | None]) -> dict[int, int]:
    """Per token of one text that starts a run of two tokens or more with one place label
    (:data:`~textdp.place_vocabulary.PLACE_LABELS`: "New York", "United Kingdom"), the end
    of the run (exclusive)."""
    runs: dict[int, int] = {}
    k = 0
    while k < len(mask):
        label = mask[k]
        end = k + 1
        if label in PLACE_LABELS:
            while end < len(mask) and mask[end] == label:
                end += 1
            if end - k > 1:
                runs[k] = end
        k = end
    return runs


def plan_draws(tokens: Sequence[str], labels: Sequence[str], owners: Sequence[int],
               positions: Sequence[str | None], *, replace: str, consistency: str,
               spell_addresses: bool = False,
               remembered: Mapping[int, Collection[str]] | None = None,
               context_kinds: Mapping[int, str | None] | None = None,
               keep_origin: bool = False,
               continued: Collection[int] = frozenset()) -> DrawPlan:
    """Group a batch's targets into draws.

    Args:
        tokens: each target's text.
        labels: each target's label (``"*"`` for ``targets="all"``: every mention draws).
        owners: the text each target belongs to (mentions share a draw within one text; keyed
            draws across texts are the same anyway).
        positions: each target's positional kind (:func:`positional_kinds`).
        replace: ``"name"``, ``"word"`` or ``"tag"``.
        consistency: ``"document"``, ``"dataset"`` or ``"mention"``.
        spell_addresses: write a person target that is spelt from person names of its
            text (an @handle, e-mail address, profile URL or run-together name) from their
            draws (``plan.spelt``), where mentions share draws (not with
            ``consistency="mention"`` or ``replace="tag"``).
        remembered: per text, the person names drawn in its earlier batches, which an
            address may be spelt from too.
        context_kinds: per target, its kind from context (:func:`name_kinds`); without one,
            its place in a run of ``positions``, then the lists, then ``"any"``.
        keep_origin: a person name's kind carries its origin group
            (``"first@south_asian"``, :func:`~textdp.name_vocabulary.origin_group`) when the
            lists give it one (``name_origin="keep"``).
        continued: the targets that continue a place of several tokens (:func:`place_runs`;
            the run's first target carries the whole place in ``tokens``): no draw.
    """
    of_target = np.empty(len(tokens), dtype=np.int64)
    first: list[int] = []
    kinds: list[str] = []
    keys: list[str | None] = []
    seen: dict[tuple[int, str, str], int] = {}
    spelt = spelt_addresses(tokens, labels, owners, remembered or {}, positions) \
        if spell_addresses and consistency != "mention" and replace != "tag" else {}
    for t, (token, label, owner, position) in enumerate(zip(tokens, labels, owners,
                                                             positions)):
        if t in spelt:
            of_target[t] = -1
            continue
        if t in continued:
            of_target[t] = -2
            continue
        place = label in PLACE_LABELS
        key = None if consistency == "mention" or label == "*" else \
            (token if label in PII_LABELS else place_key(token) if place else name_key(token))
        if key is not None:
            draw = seen.get((owner, label, key))
            if draw is not None:
                of_target[t] = draw
                continue
            seen[(owner, label, key)] = len(first)
        of_target[t] = len(first)
        first.append(t)
        keys.append(key)
        if label in PII_LABELS:
            kinds.append("pii")
        elif replace == "tag":
            kinds.append("tag")
        elif replace == "name" and label == PERSON:
            placed = position if position in ("first", "last") else None
            name = key or name_key(token)
            kind = (context_kinds or {}).get(t) or placed or vocabulary_kind(name) or "any"
            group = origin_group(name) if keep_origin else None
            kinds.append(f"{kind}@{group}" if group else kind)
        elif replace == "name" and place:
            kinds.append(place_kind(token))
        else:
            kinds.append("word")
    return DrawPlan(of_target, np.asarray(first, dtype=np.int64), kinds, keys, spelt,
                    frozenset(continued))


def spelt_addresses(tokens: Sequence[str], labels: Sequence[str], owners: Sequence[int],
                    remembered: Mapping[int, Collection[str]],
                    positions: Sequence[str | None] = ()) -> dict[int, Spelling]:
    """The person targets that are addresses or run-together names spelt from the person
    names of their text that have a draw of their own (the targets that are neither
    addresses nor spelt, and ``remembered``), by target position
    (:func:`textdp.addresses.spell`).

    A run-together word that is itself spelt ("TomLee" beside "Tom Lee") has no draw, so no
    address may be spelt from it ("linkedin.com/in/tomlee" is then read as "tom" + "lee", or
    drawn as a word): the names are narrowed until every part of every spelling has a draw.

    ``positions`` (:func:`positional_kinds` per target, in text order) gives the person spans
    of the batch: an initial reads only the name written beside a whole name of its address
    in them (:class:`textdp.addresses.Speller`), never a name of an earlier batch."""
    persons = [t for t, label in enumerate(labels) if label == PERSON]
    addresses = {t for t in persons if parse_address(tokens[t]) is not None}
    keys = {t: name_key(tokens[t]) for t in persons if t not in addresses}
    # A "first" target is followed by the next word of its span (textdp.addresses.Speller).
    pairs: dict[int, set[tuple[str, str]]] = {}
    for t in persons:
        if t < len(positions) and positions[t] == "first" and t + 1 in keys and t in keys \
                and owners[t + 1] == owners[t]:
            pairs.setdefault(owners[t], set()).add((keys[t], keys[t + 1]))
    spelt: set[int] = set()  # run-together words found spelt so far: never drawn
    while True:
        names = {owner: set(known) for owner, known in remembered.items()}
        for t, key in keys.items():
            if t not in spelt:
                names.setdefault(owners[t], set()).add(key)
        spellers = {owner: Speller(known, pairs.get(owner, ()))
                    for owner, known in names.items()}
        found: dict[int, Spelling] = {}
        for t in persons:
            speller = spellers.get(owners[t])
            # A run-together word needs two other names of its text.
            if speller is not None and (t in addresses or
                                        len(speller.names - {keys[t]}) >= 2):
                spelling = speller.spell(tokens[t])
                if spelling is not None:
                    found[t] = spelling
        grown = {t for t in found if t not in addresses} - spelt
        if not grown:  # ``spelt`` only grows: this ends
            return found
        spelt |= grown
