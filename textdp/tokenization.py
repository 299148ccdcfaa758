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
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

#: Brackets and quotes glued between two non-space characters.
GLUED_BRACKETS = r"(?<=\S)[()\[\]{}\"“”«»](?=\S)"
#: A colon or semicolon glued between two letters.
GLUED_COLONS = r"(?<=[^\W\d_])[:;](?=[^\W\d_])"


def split_glued_punctuation(nlp: Any) -> Any:
    """Add :data:`GLUED_BRACKETS` and :data:`GLUED_COLONS` to ``nlp``'s tokenizer infixes (in
    place, idempotent); returns ``nlp``. For your own pipeline in front of ``dp_privatizer``:
    ``split_glued_punctuation(nlp)`` before ``nlp.add_pipe("dp_privatizer")``."""
    from spacy.util import compile_infix_regex

    infixes = list(nlp.Defaults.infixes or ())
    current = getattr(nlp.tokenizer, "infix_finditer", None)
    pattern = getattr(getattr(current, "__self__", None), "pattern", "")
    if GLUED_BRACKETS in pattern:
        return nlp
    regex = compile_infix_regex([*infixes, GLUED_BRACKETS, GLUED_COLONS])
    nlp.tokenizer.infix_finditer = regex.finditer
    return nlp


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
