"""Draw plan: which targets of a batch share one draw, and from which candidate set.

* **Which mentions share a draw** (``consistency``): ``"document"`` draws once per distinct
  name per text (:func:`~textdp.name_vocabulary.name_key`: case, possessive and Unicode form do
  not count), so "Merkel" alone and in "Angela Merkel" get the same pseudonym and ε is charged
  once for that name; ``"dataset"`` derives each name's draw from a keyed pseudo-random
  function of (secret key, scope, name) (:func:`textdp.keyed_sources.keyed_source`), so every
  process, worker and rerun with the same key agrees without shared state; ``"mention"`` draws
  for every mention (each costs ε).
* **What each draw decodes to**: its kind, a name kind (:func:`positional_kinds`,
  :func:`~textdp.name_vocabulary.lexicon_kind`), a place kind
  (:func:`~textdp.place_vocabulary.place_kind`), ``"word"``, ``"tag"`` or ``"pii"``.
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

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from textdp.addresses import Speller, Spelling
from textdp.detect.pii import PII_LABELS
from textdp.name_vocabulary import PERSON, lexicon_kind, name_key
from textdp.place_vocabulary import PLACE_LABELS, place_key, place_kind
from textdp.surface import parse_address


def positional_kinds(mask: Sequence[str | None]) -> list[str | None]:
    """Per token of one text, the kind its position gives a person target: in a run of
    consecutive person targets the last is a surname (``"last"``), the ones before it first
    names, a lone target ``"any"``; ``None`` for other tokens."""
    kinds: list[str | None] = [None] * len(mask)
    k = 0
    while k < len(mask):
        if mask[k] != PERSON:
            k += 1
            continue
        end = k
        while end + 1 < len(mask) and mask[end + 1] == PERSON:
            end += 1
        if end == k:
            kinds[k] = "any"
        else:
            for j in range(k, end):
                kinds[j] = "first"
            kinds[end] = "last"
        k = end + 1
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
            kinds.append(lexicon_kind(key or name_key(token)) or position or "any")
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
