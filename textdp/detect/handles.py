"""Social-media handles, hashtags, e-mail addresses and profile URLs that carry a person's name.

A tagger trained on prose reads ``@john_smith``, ``#JohnSmith``, ``john.smith@example.com`` or
``linkedin.com/in/john-smith`` as one odd token and marks none of them, so names in tweets,
chats and mail headers would be published unchanged. :class:`HandleDetector` marks such a
token as ``PERSON`` when a part of its body is a person name of the public census lexicon
(:mod:`textdp.detect.lexicon`):

* the body (after ``@`` / ``#``, the local part before an e-mail's ``@``, or the account
  of a profile URL on a listed platform, :mod:`textdp.profile_urls`) is split at
  ``_``, ``.``, ``-``, digits and other non-letters, and at camel-case boundaries
  (``JohnSmith`` → John, Smith; ``DanMISSIONBEAT`` → Dan, MISSIONBEAT); a lower-case
  run-together body may be split by the lexicon (``johnsmith`` → john + smith) unless it is
  a word of the pipeline's vocabulary (``billboard`` is not bill + board);
* it names a person when a part of three letters or more is a first name (ranked
  ``first_name_rank``, 2,000 by default, or better; not an upper-case acronym of three
  letters such as ``#NED``), or two parts are first name + surname (``EdSheeran``); in
  handles and e-mails also initial + surname (``j.smith``, ``@JSmith``, ``jsmith@``);
* a first name that is more often an ordinary word (:data:`ORDINARY_WORDS`: ``#summer``,
  ``#RoyalWedding``) or, in a hashtag, a place (:data:`PLACE_NAMES`: ``#Sydney``) is no
  evidence alone; next to a frequent surname it still is (``#GraceKelly``).

How the embedded spaCy tokenizer splits them, and what is marked:

* ``@john_smith``, ``(@john_smith)`` → one token ``@john_smith`` (also ``.@john``,
  ``RT:@john``): that token;
* ``#JohnSmith`` → ``#`` + ``JohnSmith``: both tokens, as one span;
* ``john.smith@example.com`` → one token: that token (the whole address is replaced; the
  substitute keeps the form of an address, :func:`textdp.surface.surface_form`);
* ``https://twitter.com/john_smith/status/1`` → one token: that token, judged like the
  handle ``@john_smith`` (every profile URL with ``all_mentions=True``); the substitute is a
  profile URL on the same platform, without the path after the account.

Tweet corpora tokenize ``@colgo`` as ``@`` + ``colgo`` (and text rebuilt from them reads
``@ colgo``): a bare ``@`` followed by a word is marked whatever the word, with or without a
space between, since after a lone ``@`` the word is an account nearly always. In the Broad
Twitter Corpus (sections a, e, f, g; b is held out) the 2,188 ``@`` tokens
followed by a word are labelled PER 1,494, ORG 606, LOC 61 and O 27 (mostly ``@ Paris`` for
"at"), and the lexicon rule alone finds 41 % of the person mentions (606 of 1,496 names,
marking 13 of the 692 others); its 218 single-token ``@handles`` are all unannotated (O).
The spaCy tokenizer never splits ``@`` from a handle, so on raw text the lexicon decides
(``@support`` is left alone); ``all_mentions=True`` marks every @-mention for corpora where
any account is personal data. A bare ``#`` followed by a word is read like a hashtag.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from textdp.detect import lexicon
from textdp.detect.base import Span
from textdp.detect.registry import register_detector
from textdp.profile_urls import parse_profile_url
from textdp.surface import EMAIL_AT_DOMAIN, EMAIL_LOCAL

PERSON = "PERSON"

# First names of the census lists that are more often ordinary English words in handles and
# hashtags: no evidence alone (#summer, #RoyalWedding, #WillPower). Chosen by hand from the
# lists (the words ranked past the default cut are for who lifts it) and the hashtags of the
# Broad Twitter Corpus sections a, e, f, g, where #RoyalWedding alone made half the hashtag
# false positives. Frequent names that are also
# words (mark, bill, don, ray, max) are not here: as handles they are nearly always names.
ORDINARY_WORDS = frozenset({
    # months, seasons, days
    "april", "may", "june", "august", "summer", "autumn", "winter", "spring", "sunday",
    "easter",
    # virtues
    "faith", "hope", "joy", "grace", "charity", "chance", "destiny", "harmony", "glory",
    "mercy", "patience", "prudence",
    # plants, colours, stones, weather
    "amber", "berry", "cherry", "crystal", "daisy", "dawn", "forest", "ginger", "hazel",
    "heather", "holly", "iris", "ivory", "ivy", "jewel", "lily", "olive", "opal", "pearl",
    "rose", "ruby", "violet", "sandy", "rocky", "rusty", "misty", "candy", "sunny", "honey",
    "angel", "star", "sun", "moon", "golden", "brook", "coral", "ebony", "fawn", "fern",
    "garnet", "jade", "magnolia", "sunshine", "windy", "dusty", "gale", "herb",
    # other words
    "love", "precious", "tiny", "penny", "art", "brain", "cliff", "clay", "chase", "royal",
    "young", "will", "major", "numbers", "son", "sterling", "king", "prince", "princess",
    "queen", "rich", "lane", "miles", "bud", "buddy", "gay", "earnest", "man", "tad", "page",
    "guy", "alpha", "aura", "blanch", "buck", "chi", "era", "german", "hung", "sung", "sang",
    "junior", "long", "manual", "marry", "marvel", "merry", "meta", "noble", "nova", "santa",
    "soon", "valentine", "vita", "viva", "tiara", "venus", "lacy",
})
# First names that are also places: in a hashtag no evidence alone (#Sydney, #Adelaide,
# #Chelsea); in a handle they are (@sydney is an account, most likely a person's).
PLACE_NAMES = frozenset({
    "austin", "dallas", "houston", "denver", "cleveland", "orlando", "darwin", "bradford",
    "devon", "georgia", "virginia", "carolina", "chelsea", "lincoln", "florence", "savannah",
    "sydney", "jordan", "israel", "kenya", "santiago", "trinidad", "regina", "paris", "china",
    "india", "asia", "america", "adelaide", "madison", "eden", "charlotte", "victoria",
    "florida", "columbus", "milan", "raleigh", "verona", "valencia", "roma", "shasta",
    "carmel", "sierra",
})
# The rare tail of the first-name lists holds words (love: 4,133, golden: 3,969). On the BTC
# @-mentions of sections a, e, f, g (spaced, so the lexicon decides) a cut at 2,000 finds 606
# of 1,496 person mentions and marks 13 others; 1,000: 576 and 14; no cut: 628 and 29.
DEFAULT_FIRST_NAME_RANK = 2000
# Surnames next to a weak first word (ordinary word or place, or an initial) must be this
# frequent: "#GraceKelly" (Kelly: 74) and "j.smith" count, "#RoyalWedding" (Wedding:
# 15,623) and "s.ales" do not.
WEAK_PAIR_SURNAME_RANK = 10000
# One-letter words that are not initials in camel case ("#ILoveNY", "#ATeam").
_NOT_INITIALS = frozenset({"a", "i"})

# An e-mail address inside a token; group 1 is the local part ("mailto:" and brackets are
# not part of it). It starts where a run of local-part characters starts: a match from inside
# a run is one from the run's start, which a search tries first, so the matches are the same;
# trying every position of a run whose "@" never comes took quadratic time (issue 37:
# "x@" + "a-" * 10000).
_EMAIL = re.compile(r"(?<![\w.%+'-])(" + EMAIL_LOCAL + ")" + EMAIL_AT_DOMAIN)
# An @handle inside a token, not preceded by a word character ("x@y" is no mention).
_HANDLE = re.compile(r"(?<![\w@])@+(\w+)")
_HASHTAG = re.compile(r"(?<![\w#])#+(\w+)")
_WORD = re.compile(r"\w+")
# Parts of a body: runs of letters (digits, "_", ".", "-" and other non-letters separate).
_LETTERS = re.compile(r"[^\W\d_]+")


def split_camel(chunk: str) -> list[str]:
    """Camel-case parts of a run of letters: ``JohnSmith`` → John, Smith; ``DanMISSIONBEAT``
    → Dan, MISSIONBEAT; ``LMartinezABC`` → L, Martinez, ABC; ``johnsmith`` stays whole."""
    parts: list[str] = []
    start = 0
    for k in range(1, len(chunk)):
        c = chunk[k]
        if not c.isupper():
            continue
        prev = chunk[k - 1]
        # A capital after a lower-case letter starts a part; so does the last capital of an
        # upper-case run followed by a lower-case letter (the "M" of "LMartinez").
        if prev.islower() or (prev.isupper() and k + 1 < len(chunk) and chunk[k + 1].islower()):
            parts.append(chunk[start:k])
            start = k
    parts.append(chunk[start:])
    return parts


def split_handle(body: str) -> list[str]:
    """The parts of a handle, hashtag or e-mail local part, in order: split at every
    non-letter (``_``, ``.``, ``-``, ``+``, digits) and at camel-case boundaries."""
    return [p for run in _LETTERS.findall(body) for p in split_camel(run)]


@register_detector("handles")
class HandleDetector:
    """Marks handles, hashtags and e-mail addresses whose body names a person.

    Args:
        first_name_rank: rank cut for first names in the census lists (1 = most frequent;
            ``None`` for the whole lists, whose rare tail holds words such as ``love``).
        all_mentions: mark every @-mention whatever its body (an ``@handle`` token, or a bare
            ``@`` followed by a word), for tweets and chats where any account is personal
            data. By default only a bare ``@`` followed by a word is marked that way.
        ordinary_words: first names that are no evidence alone (default
            :data:`ORDINARY_WORDS`).
        place_names: first names that are no evidence alone in a hashtag (default
            :data:`PLACE_NAMES`).
    """

    def __init__(self, *, first_name_rank: int | None = DEFAULT_FIRST_NAME_RANK,
                 all_mentions: bool = False, ordinary_words: Iterable[str] | None = None,
                 place_names: Iterable[str] | None = None) -> None:
        if first_name_rank is not None and first_name_rank < 1:
            raise ValueError(f"first_name_rank must be ≥ 1 or None, got {first_name_rank}")
        self.first_name_rank = first_name_rank
        self.all_mentions = bool(all_mentions)
        self.ordinary_words = ORDINARY_WORDS if ordinary_words is None else \
            frozenset(w.casefold() for w in ordinary_words)
        self.place_names = PLACE_NAMES if place_names is None else \
            frozenset(w.casefold() for w in place_names)

    def __getstate__(self) -> dict[str, Any]:
        # Sorted, so pickles (and dataset fingerprints built from them) are the same in every
        # process: a frozenset of strings pickles in an order that depends on the hash seed.
        state = dict(self.__dict__)
        for key, default in (("ordinary_words", ORDINARY_WORDS), ("place_names", PLACE_NAMES)):
            state[key] = None if state[key] is default else sorted(state[key])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        ordinary = state.pop("ordinary_words")
        places = state.pop("place_names")
        self.__dict__.update(state)
        self.ordinary_words = ORDINARY_WORDS if ordinary is None else frozenset(ordinary)
        self.place_names = PLACE_NAMES if places is None else frozenset(places)

    # ------------------------------------------------------------------ the name test
    def names_person(self, body: str, kind: str = "@", *,
                     known_word: Callable[[str], bool] | None = None) -> bool:
        """Whether a handle (``kind="@"``), hashtag (``"#"``) or e-mail local part
        (``"email"``) body names a person (see the module doc). ``known_word`` tells an
        ordinary word of the vocabulary, which is never split by the lexicon (``billboard``
        is not bill + board)."""
        raw_parts = split_handle(body)
        parts = [p.casefold() for p in raw_parts]
        if not parts:
            return False
        firsts = lexicon.first_names(self.first_name_rank)
        weak = self.ordinary_words | self.place_names if kind == "#" else self.ordinary_words
        # An upper-case part of three letters or fewer is an acronym (#NED, #TEDTalks).
        if any(len(p) >= 3 and p in firsts and p not in weak and
               not (len(p) <= 3 and raw.isupper()) for p, raw in zip(parts, raw_parts)):
            return True
        lasts = lexicon.surnames()
        initials = kind != "#"
        for a, b in itertools.pairwise(parts):
            if len(b) < 2 or b not in lasts:
                continue
            if len(a) >= 2 and a in firsts and (
                    a not in weak or lexicon.surname_rank(b) <= WEAK_PAIR_SURNAME_RANK):
                return True
            if initials and len(a) == 1 and a not in _NOT_INITIALS and len(b) >= 3 and \
                    lexicon.surname_rank(b) <= WEAK_PAIR_SURNAME_RANK:
                return True
        if len(parts) == 1 and body.islower() and \
                (known_word is None or not known_word(parts[0])):
            return self._run_together(parts[0], weak, initials)
        return False

    def _run_together(self, word: str, weak: frozenset[str], initials: bool) -> bool:
        """A lower-case body read as first name + surname (``johnsmith``), or in handles and
        e-mails as initial + surname (``jsmith``)."""
        split = lexicon.split_full_name(word, first_rank=self.first_name_rank)
        if split is not None and (split[0] not in weak or
                                  lexicon.surname_rank(split[1]) <= WEAK_PAIR_SURNAME_RANK):
            return True
        if initials and len(word) >= 5 and word[0] not in _NOT_INITIALS:
            rank = lexicon.surname_rank(word[1:])
            return rank is not None and rank <= WEAK_PAIR_SURNAME_RANK
        return False

    # ------------------------------------------------------------------ tokens
    def _token_names_person(self, text: str, known_word: Callable[[str], bool] | None
                            ) -> bool:
        """A single token that is a profile URL, e-mail address, @handle or #hashtag naming a
        person."""
        profile = parse_profile_url(text)
        if profile is not None:
            return self.all_mentions or \
                self.names_person(profile.body, "@", known_word=known_word)
        if "@" in text:
            email = _EMAIL.search(text)
            if email is not None:
                return self.names_person(email.group(1), "email", known_word=known_word)
            handle = _HANDLE.search(text)
            if handle is not None:
                return self.all_mentions or \
                    self.names_person(handle.group(1), "@", known_word=known_word)
        if "#" in text:
            tag = _HASHTAG.search(text)
            if tag is not None:
                return self.names_person(tag.group(1), "#", known_word=known_word)
        return False

    def spans(self, words: Sequence[str], spaces: Sequence[bool], *,
              known_word: Callable[[str], bool] | None = None) -> list[Span]:
        """``PERSON`` spans of one tokenized text (``spaces``: whether each token is
        followed by whitespace; ``known_word``: see :meth:`names_person`)."""
        out: list[Span] = []
        n = len(words)
        k = 0
        while k < n:
            w = words[k]
            if w in ("@", "#") and k + 1 < n and _WORD.match(words[k + 1]):
                span = self._bare_marker(words, spaces, k, known_word)
                if span is not None:
                    out.append(span)
                    k = span[1]
                    continue
            elif ("@" in w or "#" in w or "/" in w) and \
                    self._token_names_person(w, known_word):
                out.append((k, k + 1, PERSON))
            k += 1
        return out

    def _bare_marker(self, words: Sequence[str], spaces: Sequence[bool], k: int,
                     known_word: Callable[[str], bool] | None) -> Span | None:
        """The span of a bare ``@`` / ``#`` at ``k`` and the word after it when they name a
        person (with the word before it, for an e-mail address split at its ``@``)."""
        body = words[k + 1]
        glued = not spaces[k]
        if words[k] == "#":
            return (k, k + 2, PERSON) if self.names_person(body, "#", known_word=known_word) \
                else None
        if glued and k > 0 and not spaces[k - 1] and _WORD.search(words[k - 1]):
            # "john" "@" "example.com": an address from a tokenizer that splits them.
            named = self.names_person(words[k - 1], "email", known_word=known_word)
            return (k - 1, k + 2, PERSON) if named else None
        # After a lone "@" the word is an account (98.8 % of BTC's a/e/f/g), 68 % a person's;
        # one spelt of ordinary words only is an organisation's or a topic's ("SkySports").
        if not any(c.isalpha() for c in body) or (
                not self.all_mentions and self.ordinary_body(body, known_word)):
            return None
        return (k, k + 2, PERSON)

    def ordinary_body(self, body: str, known_word: Callable[[str], bool] | None) -> bool:
        """Whether a handle body is spelt of two or more ordinary words and no name: each
        camel-case or separated part a word of the vocabulary (``known_word``) that is no
        first name (:attr:`first_name_rank`) and no common surname
        (:data:`WEAK_PAIR_SURNAME_RANK`): ``SkySports``, ``BBC_News``; not ``EdSheeran``,
        ``JohnLewisRetail`` or a single word, which may be a person's account."""
        if known_word is None:
            return False
        parts = [p.casefold() for p in split_handle(body)]
        firsts = lexicon.first_names(self.first_name_rank)
        return len(parts) >= 2 and all(
            known_word(p) and p not in firsts and
            (lexicon.surname_rank(p) or WEAK_PAIR_SURNAME_RANK + 1) > WEAK_PAIR_SURNAME_RANK
            for p in parts)

    def __call__(self, docs: Sequence[Any]) -> list[list[Span]]:
        out: list[list[Span]] = []
        for doc in docs:
            text = doc.text
            # Most texts hold none of these characters: skip their tokens.
            if "@" not in text and "#" not in text and "/" not in text:
                out.append([])
                continue
            words = [t.text for t in doc]
            spaces = [bool(t.whitespace_) for t in doc]
            out.append(self.spans(words, spaces, known_word=_vocabulary_word(doc.vocab)))
        return out

    def __repr__(self) -> str:
        return (f"HandleDetector(first_name_rank={self.first_name_rank}, "
                f"all_mentions={self.all_mentions})")


def _vocabulary_word(vocab: Any) -> Callable[[str], bool]:
    """Whether a lower-case word has a vector of its own in ``vocab`` (an ordinary word of
    the pipeline's vocabulary; md's 514k keys hold ``billboard``, not ``johnsmith``). Looking
    a string's hash up adds nothing to the vocab's string store."""
    key2row = getattr(getattr(vocab, "vectors", None), "key2row", None)
    if not key2row:
        return lambda word: False
    strings = vocab.strings
    return lambda word: strings[word] in key2row
