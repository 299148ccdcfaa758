"""Stage: what replaces a target, and which mentions share one draw.

Two decisions sit between the mechanism and the surface form (docs/architecture.md, data flow):

* **What replaces a target** (``replace``): ``"name"`` decodes person targets to the public
  *name vocabulary*, the words of the candidate table that the census name lists know
  (:func:`name_spaces`), first names to first names and surnames to surnames; ``"word"``
  decodes to the whole table; ``"tag"`` writes a placeholder (``[PERSON]``) and draws
  nothing. The noise (or the exponential-mechanism draw) is the same whatever the candidate
  set: decoding to a public subset is post-processing, so the guarantee is unchanged.
* **Which mentions share a draw** (``consistency``): ``"document"`` draws once per distinct
  name per text (:func:`name_key`: case, possessive and Unicode form do not count), so "Merkel"
  alone and in "Angela Merkel" get the same pseudonym and ε is charged once for that name;
  ``"dataset"`` derives each name's draw from a keyed pseudo-random function of (secret key,
  scope, name) (:func:`keyed_source`), so every process, worker and rerun with the same key
  agrees without shared state; ``"mention"`` draws for every mention (each costs ε).

What consistency releases. Re-using one draw for every mention is post-processing: the
guarantee covers each distinct name's identity, all its mentions together, at ε per name (ε·d
between two names under metric DP). It does not hide the *pattern of repeats*: which mentions
share a name is visible in the output. No name → pseudonym table is stored or written: within a
text the draw lives until the text is done; across texts it is recomputed from the key, which
is therefore as sensitive as ``seed``.

The name kind (first name, surname, either) is chosen from the census lists when the name is
in one of them (first-name lists first), and otherwise from its position (the last word of a
multi-word name is a surname, the words before it first names, a lone word either): the kind is
released without noise, like the casing class, and the guarantee holds between names of the
same kind.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from textdp.addresses import Speller, Spelling
from textdp.detect import lexicon, rules
from textdp.detect.pii import PII_LABELS
from textdp.index import NeighbourIndex, shared_index
from textdp.mechanisms.base import Mechanism
from textdp.rng import RandomSource
from textdp.surface import parse_address
from textdp.tables import EmbeddingTable
from textdp.tokenization import merge_tokens

REPLACEMENTS = ("name", "word", "tag")
CONSISTENCY = ("document", "dataset", "mention")
#: Candidate sets of a person target: its kind.
NAME_KINDS = ("first", "last", "any")
#: The label whose targets decode to the name vocabulary.
PERSON = "PERSON"
#: Rank cuts of the census lists: beyond them the lists hold ordinary words that a few people
#: bear as names ("love", "golden"), which would not read as names.
FIRST_NAME_MAX_RANK = 1000
SURNAME_MAX_RANK = 20000
#: Fewest names per kind for a name vocabulary: with fewer, one name would come back too often.
MIN_NAMES = 100
#: Most frequent census names whose mean direction is "a person's name" in the table.
CENTROID_NAMES = 100
#: A lexicon word is a name candidate when its vector's cosine to that direction is at least
#: this: it drops words whose table vector is not a name's ("In", "China", "January", "Board").
#: On the embedded table 1,144 first-name and 1,926 surname rows are in the lists' rank cuts;
#: with this cut, surnames that are also first names counted as first names, and words more
#: frequent lower-case ("Lady", "Judge") left out, 782 first names and 432 surnames remain.
MIN_NAME_COSINE = 0.35
#: Titles that open a person span and are not part of the name (unambiguous ones only:
#: "Lady" or "King" may be a name).
HONORIFICS = frozenset({"mr", "mrs", "ms", "mx", "miss", "dr", "prof", "professor", "sir",
                        "dame", "rev", "revd", "mme", "mlle", "herr", "frau", "messrs"})
#: Key-derivation label: changes whenever the derivation does, so old keys never collide.
_PRF_LABEL = b"textdp.pseudonym.v2"


def tag(label: str) -> str:
    """The placeholder that ``replace="tag"`` writes for a target of ``label``."""
    return f"[{label}]"


def name_key(token: str) -> str:
    """What makes two mentions the same name: NFKC, case-folded, without a possessive
    (``"MERKEL"``, ``"Merkel's"`` and ``"merkel’s"`` are one name)."""
    return rules.name_key(unicodedata.normalize("NFKC", token))


def drop_honorifics(mask: list[str | None], words: Sequence[str]) -> list[str | None]:
    """``mask`` without the honorifics inside person spans ("Dr." in "Dr. Patel"): a title
    is not a name, and a pseudonym in its place ("Dear Michael Jared") reads wrong. The title
    is then published as it is, like the words around a name."""
    return [None if label == PERSON and words[k].casefold().rstrip(".") in HONORIFICS
            else label for k, label in enumerate(mask)]


def lexicon_kind(key: str) -> str | None:
    """``"first"`` when the census first-name lists (within their rank cut) hold ``key``,
    else ``"last"`` when the surname list does, else ``None`` (the same split as the name
    vocabulary: a word in both lists, like "James", is a first name)."""
    if lexicon.is_first_name(key, FIRST_NAME_MAX_RANK):
        return "first"
    if lexicon.is_surname(key, SURNAME_MAX_RANK):
        return "last"
    return None


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
class NameSpaces:
    """The name vocabulary of a candidate table, per kind (each a table whose candidates are
    the kind's names; ``"any"`` is their union)."""

    first: EmbeddingTable
    last: EmbeddingTable
    any: EmbeddingTable

    def __getitem__(self, kind: str) -> EmbeddingTable:
        return getattr(self, kind)


def name_spaces(table: EmbeddingTable, exclude: frozenset[str] = frozenset()) -> NameSpaces:
    """The name vocabulary of ``table`` (memoised on it).

    A row is a name candidate when its word is a real word, is in a census list within the
    rank cuts, is spelled as a name (Title case; any case in an uncased table, such as a
    transformer's vocabulary) and its vector points towards the mean of the most common
    census names (:data:`MIN_NAME_COSINE`), and is not in ``exclude`` (lower-case words never
    written). Everything here is public: the table, the lists and the exclusions.
    """
    memo = table.__dict__.setdefault("_name_spaces", {})
    if exclude in memo:
        return memo[exclude]
    cased = any(w[:1].isupper() for w in table.row_words[:5000])
    unit = table.lookup_vectors / np.linalg.norm(
        table.lookup_vectors, axis=1, keepdims=True).clip(min=1e-12)
    rows: dict[str, dict[str, int]] = {"first": {}, "last": {}}
    for row, word in enumerate(table.row_words):
        if cased and not (word[:1].isupper() and word[1:].islower()):
            continue
        if not word.isalpha():
            continue
        key = word.casefold()
        if key in exclude:
            continue
        if lexicon.is_first_name(key, FIRST_NAME_MAX_RANK):
            rows["first"].setdefault(key, row)
        if lexicon.is_surname(key, SURNAME_MAX_RANK):
            rows["last"].setdefault(key, row)
    # A surname set of surnames only: "Donald" or "Gary" read as first names.
    rows["last"] = {k: r for k, r in rows["last"].items() if k not in rows["first"]}
    centroid = _name_direction(table, unit, rows)
    chosen = {kind: sorted(r for r in found.values()
                           if unit[r] @ centroid >= MIN_NAME_COSINE
                           and not _mainly_a_word(table, r))
              for kind, found in rows.items()}
    if min(len(rows) for rows in chosen.values()) < MIN_NAMES:
        raise ValueError(f"table {table.name!r} has no public name vocabulary (fewer than "
                         f"{MIN_NAMES} first names or surnames of the census lists); use "
                         "replace='word' or 'tag'")
    spaces = NameSpaces(
        first=table.with_candidates(np.asarray(chosen["first"]), suffix="names:first"),
        last=table.with_candidates(np.asarray(chosen["last"]), suffix="names:last"),
        any=table.with_candidates(np.asarray(sorted(set(chosen["first"]) | set(chosen["last"]))),
                                  suffix="names:any"))
    memo[exclude] = spaces
    return spaces


def _mainly_a_word(table: EmbeddingTable, row: int) -> bool:
    """Whether the lower-case spelling of the name at ``row`` is a word of the table that is
    more frequent than the name ("Lady", "Judge", "Corner"): tables list words by frequency,
    so a lower row comes first."""
    word = table.row_words[row]
    low = table.key_to_row.get(word.lower())
    return low is not None and table.row_words[low] == word.lower() and low < row


def _name_direction(table: EmbeddingTable, unit: np.ndarray,
                    rows: dict[str, dict[str, int]]) -> np.ndarray:
    """The unit mean direction of the most common census names present in the table."""
    common = [e.name for kind in ("female", "male", "last")
              for e in lexicon.census_lists()[kind][:CENTROID_NAMES]]
    found = [rows["first"].get(n, rows["last"].get(n)) for n in common]
    picked = [r for r in found if r is not None]
    if not picked:
        raise ValueError(f"table {table.name!r} has no public name vocabulary (none of the "
                         "common census names); use replace='word' or 'tag'")
    direction = unit[picked].mean(axis=0)
    return direction / max(float(np.linalg.norm(direction)), 1e-12)


def resolve_key(key: bytes | str | None, seed: int | None) -> bytes:
    """The secret key of ``consistency="dataset"``: the caller's (bytes, or a string of at
    least 16 characters), else derived from ``seed`` (reproducible, and NOT private against
    anyone who knows the seed), else 32 bytes from the OS."""
    if key is None:
        if seed is not None:
            return hashlib.sha256(b"textdp.seed-key\0" + str(seed).encode()).digest()
        return os.urandom(32)
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes):
        raise ValueError(f"key must be bytes or a string, got {type(key).__name__}")
    if len(key) < 16:
        raise ValueError(f"key must hold at least 16 bytes (it guards every pseudonym of a "
                         f"dataset, like a seed), got {len(key)}")
    return key


def keyed_source(key: bytes, scope: str, label: str, name: str, kind: str = "",
                 *, secure: bool = False) -> RandomSource:
    """The random source of one name's draw in one scope: the stream of HMAC-SHA256 of
    (scope, label, name, kind) under ``key`` (:meth:`RandomSource.from_digest`: ChaCha20
    keyed with it when ``secure``, else PCG64 seeded with it). The same key gives the same
    draw in any process; without the key the draws are unpredictable; different keys give
    independent draws.

    ``kind`` (the candidate set the draw decodes to: a name kind, ``"word"``, ``"pii"``) is
    part of the message because one noisy point decoded to two candidate sets is two
    releases for the exponential mechanisms, whose draw is over the candidates: a name that
    is a lone word in one text and a surname in another gets one draw per kind. The draw
    reads one vector per name (:func:`canonical_token`), so every text of a scope that names
    it releases the same function of the same noisy vector."""
    message = b"\0".join((_PRF_LABEL, scope.encode("utf-8"), label.encode("utf-8"),
                          name.encode("utf-8"), kind.encode("utf-8")))
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return RandomSource.from_digest(digest, secure=secure)


def canonical_token(key: str) -> str:
    """The form of a name key whose table row a keyed draw (``consistency="dataset"``) reads:
    its Title case, then (by the table's own fall-back) its lower case. A function of the
    key only, so every casing and possessive of one name reads one vector: "SMITH" would
    read the row of "HEY" on the default table and "smith" that of "butcher", and the same
    keyed noise added to two vectors releases their difference, which no ε bounds."""
    return key.title()


@dataclass(frozen=True)
class DrawPlan:
    """Which targets of a batch share a draw.

    Attributes:
        of_target: per target (position in the batch's target list), its draw.
        first: per draw, the target whose input the draw reads (its first mention).
        kinds: per draw, the candidate set: ``"word"`` (the whole table), a name kind,
            ``"tag"``, or ``"pii"`` (a surrogate or tag of the value's format, no ε).
        keys: per draw, the name it stands for (``None`` for per-mention draws); the text's
            remembered draws and keyed draws are looked up by it.
        spelt: the targets spelt from names of their text (addresses, profile URLs and
            run-together names, :mod:`textdp.addresses`): written from those names' draws,
            with no draw of their own (their ``of_target`` is -1).
    """

    of_target: np.ndarray
    first: np.ndarray
    kinds: list[str]
    keys: list[str | None]
    spelt: dict[int, Spelling] = field(default_factory=dict)


def plan_draws(tokens: Sequence[str], labels: Sequence[str], owners: Sequence[int],
               positions: Sequence[str | None], *, replace: str, consistency: str,
               spell_addresses: bool = False,
               remembered: Mapping[int, Collection[str]] | None = None) -> DrawPlan:
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
        key = None if consistency == "mention" or label == "*" else \
            (token if label in PII_LABELS else name_key(token))
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
        else:
            kinds.append("word")
    return DrawPlan(of_target, np.asarray(first, dtype=np.int64), kinds, keys, spelt)


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


def check_replace(replace: str | None, decodes_subsets: bool, mechanism: str) -> str:
    """The effective ``replace``: ``None`` is ``"name"`` where the mechanism can decode to a
    subset of its candidates, else ``"word"`` (and the privatizer falls back to ``"word"``
    when its table turns out to have no name vocabulary); an explicit ``"name"`` the
    mechanism cannot serve fails."""
    if replace is None:
        return "name" if decodes_subsets else "word"
    if replace not in REPLACEMENTS:
        raise ValueError(f"replace must be one of {', '.join(REPLACEMENTS)}, got {replace!r}")
    if replace == "name" and not decodes_subsets:
        raise ValueError(f"replace='name' decodes to the public name vocabulary, which mechanism "
                         f"{mechanism!r} cannot do (it draws from its own vocabulary); use "
                         "replace='word' or 'tag'")
    return replace


#: Each name draw moves to a uniformly random one of its NAME_SPREAD nearest names (itself
#: included). The decoded name is a function of the noisy vector; this step adds randomness
#: that depends on neither the input nor the noise, so it is post-processing. Without it, a few
#: names with isolated vectors ("Kim", "Mick") came back unchanged in 4-6 % of draws at ε 0.3
#: (a noisy point far out in their direction decodes to them); with it the largest share among
#: CoNLL dev person words falls to ~1-2 % and the mean halves (``textdp evaluate pseudonyms``).
NAME_SPREAD = 16


@dataclass(frozen=True)
class CandidateSet:
    """Public candidates a draw decodes to.

    Attributes:
        table: the candidates (``table.words``).
        index: their index in the mechanism's decode space, or ``None`` for the mechanism's
            own (the whole table).
        spread: per candidate, its ``k`` nearest candidates (itself first); a decoded
            candidate is replaced by a uniformly random one of them. ``None``: no spreading.
    """

    table: EmbeddingTable
    index: NeighbourIndex | None = None
    spread: np.ndarray | None = None

    def draw(self, mechanism: Mechanism, vectors: torch.Tensor, inverse: torch.Tensor,
             rng: RandomSource) -> list[str]:
        """One candidate word per token (``vectors[inverse]``), drawn by ``mechanism``."""
        ids = mechanism.sample(vectors, inverse, rng) if self.index is None else \
            mechanism.sample(vectors, inverse, rng, index=self.index)
        picked = ids.cpu().numpy()
        if self.spread is not None:
            picked = self.spread[picked, rng.numpy.integers(0, self.spread.shape[1],
                                                            size=len(picked))]
        words = self.table.words
        return [words[i] for i in picked.tolist()]


def name_candidates(table: EmbeddingTable, mechanism: Mechanism, backend: str,
                    device: torch.device, exclude: frozenset[str] = frozenset()
                    ) -> dict[str, CandidateSet]:
    """Per name kind, the name vocabulary of ``table`` with its index in ``mechanism``'s
    decode space and its :data:`NAME_SPREAD` nearest names (computed on public data only)."""
    out = {}
    for kind in NAME_KINDS:
        names = name_spaces(table, exclude)[kind]
        space = mechanism.decode_space(names.vectors)
        index = shared_index(names, backend, device) if space is names.vectors else \
            NeighbourIndex(space, backend=backend, device=device)
        k = min(NAME_SPREAD, len(names))
        exact = NeighbourIndex(names.vectors, backend="exact", device=device)
        spread = exact.search(torch.from_numpy(names.vectors).to(device), k=k)[1].cpu().numpy()
        out[kind] = CandidateSet(names, index, spread)
    return out


def merge_pii_tokens(docs: Sequence[Any], labels: Sequence[str]) -> list[Any]:
    """``docs`` with the tokens of every ``labels`` match (e-mail, phone, card, ...) that
    spans several tokens ("555 123 4567") made one token, so each value is one target that
    one surrogate or tag replaces (:mod:`textdp.detect.pii`). Only public patterns decide.

    A doc with such a match is replaced by a new one (:func:`textdp.tokenization.merge_tokens`,
    not spaCy's retokenizer, which would leave each value's hash in the shared vocab's
    vectors)."""
    if not labels:
        return list(docs)
    from textdp.detect.pii import PIIDetector

    detector = PIIDetector(labels)
    out = []
    for doc in docs:
        ends = {a: b for a, b, _ in detector([doc])[0] if b - a > 1}
        out.append(merge_tokens(doc, ends) if ends else doc)
    return out


def pii_replacement(label: str, value: str, replace: str, rng: RandomSource) -> str:
    """What replaces a PII ``value`` of ``label``: its tag with ``replace="tag"``, else a
    surrogate of the same format drawn from ``rng`` given the value's shape only (no ε: see
    :mod:`textdp.detect.pii` for exactly what the shape reveals)."""
    from textdp.detect import pii

    if replace == "tag":
        return pii.tag(label)
    return pii.surrogate(label, pii.shape_of(label, value), rng.numpy)
