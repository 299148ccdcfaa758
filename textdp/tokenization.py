"""Tokenizer rules that keep names apart from glued punctuation.

spaCy's English tokenizer splits punctuation at token edges but not brackets, quotes, colons
or semicolons glued between two words: ``"(Angela Merkel)met[John Smith]in"`` gives the tokens
``Merkel)met[John`` and ``Smith]in``. A detector that finds the name then replaces the whole
token, and the neighbours "met" and "in" are lost with it. The infix rule added here splits
those characters off wherever they sit between two non-space characters (``)met[`` → ``)``,
``met``, ``[``), and a colon or semicolon glued between letters (``said:Hi``,
``Bob;Alice``). Times (``12:30``), URLs (``http://``), apostrophes and hyphens are untouched.

The rule only adds token boundaries; the text of every token still concatenates back to the
input, so output whitespace is unchanged.

:func:`merge_tokens` joins runs of tokens (a phone number over three tokens) without spaCy's
retokenizer, which would leave a trace of every merged value in the shared vocab's vectors.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

#: Brackets and quotes glued between two non-space characters.
GLUED_BRACKETS = r"(?<=\S)[()\[\]{}\"“”«»](?=\S)"
#: A colon or semicolon glued between two letters.
GLUED_COLONS = r"(?<=[^\W\d_])[:;](?=[^\W\d_])"
#: The full-width punctuation of Chinese and Japanese, which their text writes without spaces
#: (``出租方：陈建国``, ``承租方：刘婷，身份证``, ``田中さん、明日``), and the ASCII forms a
#: normalised view gives it (``了解です!佐藤``).
_KANA_HAN = "\u3040-\u30ff\u4e00-\u9fff"  # hiragana, katakana and the common Han characters
GLUED_CJK = r"[：，、。；！？（）「」『』【】]|(?<=[" + _KANA_HAN + r"])[!?,;](?=\S)"
#: A Japanese honorific right after a name in Han or kana (``田中さん``, ``鈴木様``,
#: ``山本先生``): its own token, so the name before it is one.
JA_HONORIFICS = ("さん", "さま", "様", "くん", "ちゃん", "先生", "氏")
GLUED_HONORIFIC = r"(?<=[" + _KANA_HAN + r"])(?:" + "|".join(JA_HONORIFICS) + ")"
#: Hyphens glued before a letter at a word's start: a signature's dash (``-kenzie``, ``-PRIYA``)
#: or a bullet (``-apples``), as spaCy already splits an en or em dash there (``—Maria``).
GLUED_DASH = r"-+(?=[^\W\d_])"


def split_glued_punctuation(nlp: Any) -> Any:
    """Add :data:`GLUED_BRACKETS`, :data:`GLUED_COLONS`, :data:`GLUED_CJK` and
    :data:`GLUED_HONORIFIC` to ``nlp``'s tokenizer infixes and :data:`GLUED_DASH` to its
    prefixes (in place, idempotent); returns ``nlp``. For your own
    pipeline in front of ``dp_privatizer``: ``split_glued_punctuation(nlp)`` before
    ``nlp.add_pipe("dp_privatizer")``."""
    from spacy.util import compile_infix_regex, compile_prefix_regex

    infixes = list(nlp.Defaults.infixes or ())
    current = getattr(nlp.tokenizer, "infix_finditer", None)
    pattern = getattr(getattr(current, "__self__", None), "pattern", "")
    if GLUED_BRACKETS in pattern:
        return nlp
    regex = compile_infix_regex([*infixes, GLUED_BRACKETS, GLUED_COLONS, GLUED_CJK,
                                 GLUED_HONORIFIC])
    with _one_reload(nlp.tokenizer):
        nlp.tokenizer.infix_finditer = regex.finditer
        nlp.tokenizer.prefix_search = compile_prefix_regex(
            [*(nlp.Defaults.prefixes or ()), GLUED_DASH]).search
        tail_suffix_search(nlp)
    return nlp


@contextlib.contextmanager
def _one_reload(tokenizer: Any) -> Iterator[None]:
    """Set several of ``tokenizer``'s affix functions in the block and load its special cases
    once, at the end, as spaCy's own ``Tokenizer.from_bytes`` does: every setter reloads all
    of them (en_core_web_md's 8,082, about 0.08 s each; four setters were a tenth of a
    one-line job's start). Nested blocks reload once, at the outermost end."""
    rules = getattr(tokenizer, "rules", None)
    if not rules:  # not a spaCy Tokenizer, or nothing to reload (inside an outer block)
        yield
        return
    tokenizer.rules = {}  # flushes; the setters then reload nothing
    try:
        yield
    finally:
        tokenizer.rules = rules


class TailSearch:
    """A suffix regex searched from near the end of the string, with the same result as its
    own ``search`` (:func:`tail_suffix_search`). ``pattern`` and ``search`` stand in for the
    compiled regex's, so spaCy serialises and pickles the tokenizer as before."""

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex
        self.pattern = regex.pattern
        self.flags = regex.flags
        bounded, unbounded = _split_by_width(regex)
        self.width = bounded
        self.unbounded = None if not unbounded else \
            re.compile("|".join(unbounded), regex.flags)

    def search(self, string: str) -> re.Match[str] | None:
        """``self.regex.search(string)``: every alternative of a bounded width (at most
        ``self.width`` characters, ``$`` also matching before a final newline) must start in
        the last ``width + 1`` characters; only the others (spaCy's English: ``\\.\\.+$``)
        are searched from the start, and where one of them starts first, the regex is
        matched there (where its ``search`` would have found it)."""
        lo = len(string) - self.width - 1
        if lo <= 0:
            return self.regex.search(string)
        if self.unbounded is not None:
            first = self.unbounded.search(string)
            if first is not None and first.start() < lo:
                return self.regex.match(string, first.start())
        return self.regex.search(string, lo)  # its look-behinds still see before `lo`

    def __reduce__(self) -> tuple[Any, ...]:
        return (TailSearch, (self.regex,))


def tail_suffix_search(nlp: Any) -> Any:
    """Search ``nlp``'s tokenizer suffixes from near the end of each string, and match its
    URL pattern without backtracking over colons (:class:`UrlMatch`), in place and
    idempotent; returns ``nlp``. Same tokens, in linear time per affix.

    Why: spaCy's tokenizer strips one prefix or suffix at a time off a string without
    whitespace and searches the suffix regex (alternatives anchored with ``$``) over the whole
    rest each time; Python's ``re`` tries every start position, so ``"#" * 10000`` cost
    10,000 searches of up to 10,000 positions each (12 s; 20,000 characters 104 s, issue 37).
    A suffix of bounded width can only start near the end (:class:`TailSearch`)."""
    tokenizer = nlp.tokenizer
    with _one_reload(tokenizer):
        current = getattr(tokenizer, "suffix_search", None)
        regex = getattr(current, "__self__", None)
        if isinstance(regex, re.Pattern):
            tokenizer.suffix_search = TailSearch(regex).search
        current = getattr(tokenizer, "url_match", None)
        regex = getattr(current, "__self__", None)
        if isinstance(regex, re.Pattern) and _USERINFO in regex.pattern:
            tokenizer.url_match = UrlMatch(regex).match
    return nlp


#: The user-information part of spaCy's URL pattern (``user:password@``). After a string's
#: ``\S+`` the engine tried ``:\S*`` from every colon to the end, looking for an ``@``:
#: ``"a:" * 10000`` took 3.8 s, 20,000 pairs 15 s (issue 37). ``\S+@`` is the same language
#: (a colon is a non-space), found in linear time.
_USERINFO = r"(?:\S+(?::\S*)?@)?"


class UrlMatch:
    r"""spaCy's URL pattern with its user-information part written as ``(?:\S+@)?``: the
    same strings match (spaCy reads the match as a yes or no); ``pattern`` and ``match``
    stand in for the compiled regex's, so the tokenizer serialises and pickles as before."""

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex
        self.pattern = regex.pattern
        self.flags = regex.flags
        self.linear = re.compile(regex.pattern.replace(_USERINFO, r"(?:\S+@)?"), regex.flags)

    def match(self, string: str) -> re.Match[str] | None:
        """A match of ``string`` where the regex's ``match`` has one (``None`` where not)."""
        return self.linear.match(string)

    def __reduce__(self) -> tuple[Any, ...]:
        return (UrlMatch, (self.regex,))


def _split_by_width(regex: re.Pattern[str]) -> tuple[int, list[str]]:
    """The largest width of ``regex``'s top-level alternatives that have a bounded one, and
    the source of the others (each must end with ``$``, as spaCy's suffixes do)."""
    try:  # the parser of the regex engine: widths as the engine reads them
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_parse as _parser

    parts = _top_level_alternatives(regex.pattern)
    width = 0
    unbounded: list[str] = []
    for part in parts:
        high = _parser.parse(part, regex.flags).getwidth()[1]
        if high >= _parser.MAXREPEAT:
            unbounded.append(part)
        else:
            width = max(width, high)
    return width, unbounded


def _top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at the ``|`` outside groups and character classes."""
    parts: list[str] = []
    depth = 0
    in_class = False
    start = i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":  # a "]" first in a class is a member
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


#: The longest stretch of a whitespace-free run spaCy's tokenizer reads in one go
#: (:func:`tokenize`): a run longer than this is cut where it has symbols side by side.
MAX_RUN_CHARS = 1000
#: How far before the limit a cut may move to fall at such a place (:func:`_run_cut`).
_CUT_WINDOW = 200
# Characters that join what is around them (ZWJ, variation selectors, combining marks,
# emoji skin tones): never cut before one, nor after a zero-width joiner.
_JOINING = frozenset(("Mn", "Mc", "Me", "Cf", "Sk"))
_RUN = re.compile(r"\S+")


def tokenize(tokenizer: Any, text: str, limit: int = MAX_RUN_CHARS) -> Any:
    """``tokenizer(text)`` (a spaCy tokenizer) in time linear in ``len(text)``: a
    whitespace-free run longer than ``limit`` characters is cut where two symbols (neither
    a letter nor a digit) stand side by side (:func:`_run_cut`), about every ``limit``
    characters, the text between cuts tokenized alone and the docs joined
    (``Doc.from_docs``, which keeps every token attribute the tokenizer set). A text
    without such a run is ``tokenizer(text)`` itself.

    Why: spaCy's tokenizer strips the prefixes and suffixes of a whitespace-free string one
    at a time, and each step copies and hashes the whole rest of the string
    (``_split_affixes``), so a stretch of ``n`` affix characters (``#``, emoji, brackets)
    costs time quadratic in ``n``: ``"#" * 20000`` cost 3.5× the time of ``"#" * 10000``, an
    emoji run 5× (issue 37). Affixes are symbols; a symbol next to a letter or digit stops
    the stripping, so a run without two symbols side by side (a URL, ``a:a:a:``) is read in
    linear time as it is, and is not cut: its tokens, and what a detector reads in them,
    stay the tokenizer's. Where two symbols meet, the tokenizer splits them anyway."""
    if len(text) <= limit or not any(len(run) > limit for run in text.split()):
        return tokenizer(text)
    from spacy.tokens import Doc

    cuts = [0]
    for m in _RUN.finditer(text):
        start, end = m.span()
        while end - start > limit:
            cut = _run_cut(text, start, end, limit)
            if cut is None:
                break
            cuts.append(cut)
            start = cut
    if len(cuts) == 1:
        return tokenizer(text)
    cuts.append(len(text))
    docs = [tokenizer(text[a:b]) for a, b in itertools.pairwise(cuts)]
    return Doc.from_docs(docs, ensure_whitespace=False)


def _run_cut(text: str, start: int, end: int, limit: int) -> int | None:
    """Where to cut the whitespace-free run ``text[start:end]`` (longer than ``limit``):
    between two symbols (``#|#``, ``😀|😀``, ``(|(``), never before a joining character
    (:data:`_JOINING`) nor after a zero-width joiner; the last such place in the
    :data:`_CUT_WINDOW` characters up to ``start + limit``, else the first one after it,
    else ``None`` (nowhere)."""
    import unicodedata

    def safe(i: int) -> bool:
        return not text[i - 1].isalnum() and not text[i].isalnum() and \
            text[i - 1] != "\u200d" and unicodedata.category(text[i]) not in _JOINING

    high = start + limit
    for i in range(high, max(start + 1, high - _CUT_WINDOW) - 1, -1):
        if safe(i):
            return i
    for i in range(high + 1, end):
        if safe(i):
            return i
    return None


def warm_tokenizer(nlp: Any, words: Iterable[str]) -> int:
    """Tokenize public ``words`` (and the title-case form of each lower-case one) outside any
    memory zone, so their lexemes and the tokenizer's cache entries for them are permanent;
    returns how many forms were warmed. The tokenizer's cache is enlarged to hold them.

    Why: textdp tokenizes user text inside a memory zone (:func:`transient_strings`), where
    spaCy neither caches a tokenization nor keeps a lexeme, so every batch used to build the
    lexeme of every word again, "the" included: about a sixth of static end-to-end time. Only
    public words are warmed (the pipeline's own vector vocabulary), so nothing of a text
    outlives its zone; the tokens are the same either way (spaCy's cache stores the result of
    the same rules, and setting a tokenizer rule later flushes it).
    """
    if getattr(nlp.vocab, "in_memory_zone", False):
        raise RuntimeError("warm_tokenizer() inside a memory zone would keep nothing")
    forms: dict[str, None] = {}
    for word in words:
        if word and not any(c.isspace() for c in word):
            forms[word] = None
            if word.islower() and word[0].isalpha():
                forms[word[0].upper() + word[1:]] = None
    tokenizer = nlp.tokenizer
    if hasattr(tokenizer, "max_cache_size"):
        tokenizer.max_cache_size = max(tokenizer.max_cache_size, 2 * len(forms))
    for form in forms:  # one call each: after a special case (``n't``) spaCy caches nothing
        tokenizer(form)  # more of the same call (spaCy #1250); ~0.5 s for 28,634 forms
    return len(forms)


# Words to warm a pipeline's tokenizer with before its second memory zone (defer_warm).
_PENDING: weakref.WeakKeyDictionary[Any, list[str]] = weakref.WeakKeyDictionary()
_ZONES_SEEN: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def defer_warm(nlp: Any, words: Iterable[str]) -> None:
    """Warm ``nlp``'s tokenizer with public ``words`` (:func:`warm_tokenizer`) before its
    second memory zone (:func:`transient_strings`), not now.

    Why: warming the default pipeline takes about 0.6 s, which a one-line job (``echo … |
    textdp privatize -``: one batch, one zone) never earns back; a job of many batches pays
    it once, before its second batch, and runs warm from there. The tokens are the same
    either way."""
    _PENDING[nlp] = list(words)


def _warm_if_due(nlp: Any) -> None:
    """Before a zone (under the zone lock): warm a deferred pipeline at its second zone."""
    if nlp not in _PENDING:
        return
    if not _ZONES_SEEN.get(nlp):
        _ZONES_SEEN[nlp] = True
        return
    warm_tokenizer(nlp, _PENDING.pop(nlp))


# spaCy memory zones are per vocabulary and neither nest nor mix with other threads' zones.
# One lock for every zone textdp opens; a thread that holds it (a detector's own pipeline
# inside the privatizer's zone) nests without waiting, any other thread waits for the zone
# to close. Which thread holds it is tracked here, not read from ``vocab.in_memory_zone``:
# that flag is per vocabulary, so a second thread would see the first one's zone as its own,
# run inside it and have its strings freed under it (issue 37: KeyError E018, and a word
# read through a freed hash replaced).
_ZONE_LOCK = threading.RLock()
_HELD = threading.local()


@contextlib.contextmanager
def transient_strings(nlp: Any) -> Iterator[None]:
    """Run the block in a spaCy memory zone (spaCy ≥ 3.8): the strings the tokenizer and
    detectors add to ``nlp``'s string store for the texts (names among them) are dropped at
    the end, so they never reach ``nlp.to_disk()``/``to_bytes()`` nor grow the store. Docs
    made inside must not be used after it.

    Thread-safe: spaCy's zones are not, so the blocks of one process run one at a time (a
    privatizer shared by threads serialises its batches here); a block nested in one this
    thread already runs, or in a zone the caller opened, just runs inside it. Without zone
    support the block runs under the same lock."""
    if getattr(_HELD, "depth", 0):  # nested in this thread's own block: already serialised
        _HELD.depth += 1
        try:
            yield
        finally:
            _HELD.depth -= 1
        return
    with _ZONE_LOCK:
        _HELD.depth = 1
        try:
            zone = getattr(nlp, "memory_zone", None)
            if zone is None or getattr(nlp.vocab, "in_memory_zone", True):
                yield  # no zones (spaCy < 3.8), or inside the caller's own zone
            else:
                _warm_if_due(nlp)
                with zone():
                    yield
        finally:
            _HELD.depth = 0


#: Token annotations a merged doc keeps (of a merged run, its first token's), with the name
#: ``Doc.has_annotation`` knows each by. Dependencies are not kept: merging moves heads.
_CARRIED = (("TAG", "TAG"), ("POS", "POS"), ("MORPH", "MORPH"), ("LEMMA", "LEMMA"),
            ("NORM", "NORM"), ("SENT_START", "SENT_START"), ("ENT_IOB", "ENT_IOB"),
            ("ENT_TYPE", "ENT_IOB"))
_IOB_I, _IOB_O, _IOB_B = 1, 2, 3  # spaCy's ENT_IOB codes (0: missing)


def merge_tokens(doc: Any, ends: Mapping[int, int]) -> Any:
    """A new doc in which the tokens ``k`` to ``ends[k] - 1`` of ``doc`` are one token, for
    each ``k`` of ``ends`` (runs that do not overlap); the text is unchanged.

    spaCy's retokenizer would store the vector of every merged token in the shared vocab:
    its key stays in the vectors table that ``nlp.to_disk`` writes (the hash of a phone
    number is found by trying every number), and the table grows with every merge. A new doc
    adds nothing to the vocab but the merged tokens' lexemes (transient in a memory zone).
    It keeps, per token, the tags, morphology, lemma, norm, sentence start and entity of the
    doc (of a merged run, its first token's), its span groups (labels only), categories,
    user data and context."""
    from spacy.tokens import Doc, Span

    words: list[str] = []
    spaces: list[bool] = []
    firsts: list[int] = []
    new_of_old = np.empty(len(doc), dtype=np.int64)
    k = 0
    while k < len(doc):
        end = ends.get(k, k + 1)
        new_of_old[k:end] = len(words)
        words.append(doc[k:end].text)
        spaces.append(bool(doc[end - 1].whitespace_))
        firsts.append(k)
        k = end
    new = Doc(doc.vocab, words=words, spaces=spaces)
    attrs = [attr for attr, name in _CARRIED if doc.has_annotation(name)]
    if attrs:
        values = doc.to_array(attrs)[firsts]
        if "ENT_IOB" in attrs:  # a run that began inside an entity now begins it
            iob = values[:, attrs.index("ENT_IOB")]
            for i in range(len(iob)):
                if iob[i] == _IOB_I and (i == 0 or iob[i - 1] in (0, _IOB_O)):
                    iob[i] = _IOB_B
        new.from_array(attrs, values)
    for key, group in doc.spans.items():
        new.spans[key] = [Span(new, int(new_of_old[s.start]), int(new_of_old[s.end - 1]) + 1,
                               label=s.label) for s in group if len(s)]
    new.cats = dict(doc.cats)
    new.user_data = dict(doc.user_data)
    new._context = doc._context
    return new


#: Annotations a piece of a cut token takes from its token (:func:`split_tokens`): the tag,
#: POS and morphology describe the whole string, which the piece is part of.
_SPLIT_CARRIED = (("TAG", "TAG"), ("POS", "POS"), ("MORPH", "MORPH"))
#: Annotations an uncut token keeps but a piece does not: its lemma and norm are strings
#: computed from the whole token (a name glued into a path among them); a piece gets no
#: lemma, and its norm falls back to its own lexeme's.
_SPLIT_WHOLE_ONLY = (("LEMMA", "LEMMA"), ("NORM", "NORM"))
# A piece of a cut token that stays in its token's entity: a word (letters or digits, joined
# by apostrophes or hyphens). Separators, markup and path pieces ("C:\\Users\\", "</i",
# "_CV.pdf") never belong to an entity a tagger drew over the glued string.
_ENTITY_PIECE = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def split_tokens(doc: Any, cuts: Mapping[int, Sequence[int]]) -> Any:
    """A new doc in which token ``k`` of ``doc`` is cut at the offsets ``cuts[k]`` (inside
    it, sorted) into tokens of its own; the text is unchanged. The counterpart of
    :func:`merge_tokens`, and like it free of spaCy's retokenizer (which would store every
    piece's vector in the shared vocab).

    For a doc an earlier pipeline annotated (the spaCy component's input), each piece keeps
    what can be said of it: its token's tag, POS and morphology (:data:`_SPLIT_CARRIED`),
    no lemma and no norm (strings computed from the whole token; an uncut token keeps
    both), the sentence start on the first piece, and its token's entity if it is a word
    (:data:`_ENTITY_PIECE`; the first such piece of an entity's first token begins it).
    Span groups (labels only) cover the pieces of the tokens they covered; categories, user
    data (keyed by character offsets, which stay token boundaries) and context are kept. A
    doc straight from a tokenizer gives the doc ``Doc(vocab, words=..., spaces=...)`` of the
    pieces."""
    from spacy.tokens import Doc, Span

    words: list[str] = []
    spaces: list[bool] = []
    origin: list[int] = []  # per piece, its token in ``doc``
    first_piece = np.empty(len(doc) + 1, dtype=np.int64)
    for token in doc:
        text = token.text
        first_piece[token.i] = len(words)
        bounds = [0, *cuts.get(token.i, ()), len(text)]
        for a, b in itertools.pairwise(bounds):
            words.append(text[a:b])
            spaces.append(False)
            origin.append(token.i)
        spaces[-1] = bool(token.whitespace_)
    first_piece[len(doc)] = len(words)
    new = Doc(doc.vocab, words=words, spaces=spaces)
    attrs = [attr for attr, name in _SPLIT_CARRIED if doc.has_annotation(name)]
    whole = [attr for attr, name in _SPLIT_WHOLE_ONLY if doc.has_annotation(name)]
    sents = doc.has_annotation("SENT_START")
    ents = doc.has_annotation("ENT_IOB")
    if attrs or whole or sents or ents:
        names = [*attrs, *whole, *(["SENT_START"] if sents else []),
                 *(["ENT_IOB", "ENT_TYPE"] if ents else [])]
        values = doc.to_array(names).reshape(len(doc), len(names))[origin].copy()
        later = np.zeros(len(words), dtype=bool)  # a piece after its token's first
        later[1:] = np.asarray(origin[1:]) == np.asarray(origin[:-1])
        pieces = later.copy()  # every piece of a cut token
        pieces[:-1] |= later[1:]
        for attr in whole:
            values[pieces, names.index(attr)] = 0
        if sents:
            col = names.index("SENT_START")
            values[later, col] = np.where(values[later, col] == 0, 0, -1)
        if ents:
            iob, typ = names.index("ENT_IOB"), names.index("ENT_TYPE")
            cut = {k for k in cuts if cuts[k]}
            inside = False  # the previous piece is in the same entity
            for i, (w, k) in enumerate(zip(words, origin)):
                code = values[i, iob]
                if k in cut and code in (_IOB_B, _IOB_I) and not _ENTITY_PIECE.fullmatch(w):
                    values[i, iob], values[i, typ] = _IOB_O, 0
                    inside = False
                    continue
                if code == _IOB_I and not inside:
                    values[i, iob] = _IOB_B
                elif code == _IOB_B and later[i] and inside:
                    values[i, iob] = _IOB_I
                inside = code in (_IOB_B, _IOB_I)
        new.from_array(names, values)
    for key, group in doc.spans.items():
        new.spans[key] = [Span(new, int(first_piece[s.start]), int(first_piece[s.end]),
                               label=s.label) for s in group if len(s)]
    new.cats = dict(doc.cats)
    new.user_data = dict(doc.user_data)
    new._context = doc._context
    return new
