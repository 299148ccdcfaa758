"""Folds of disguised names for the normalised view (:mod:`textdp.detect.normalise`).

A name can be written so that a tagger no longer reads it, and is then published unchanged:

* **homoglyphs**: letters of another script that look like Latin ones (``Каrеn Whіtfіеld``
  with Cyrillic ``а``, ``е``, ``і``). A word that mixes scripts, or, in a text mostly in Latin
  letters, whose every foreign letter has a Latin look-alike, is read by its skeleton: each
  such letter replaced by the Latin letter that the Unicode confusables data (UTS #39,
  ``confusables.txt``, as shipped by the ``confusable-homoglyphs`` package, MIT) gives for
  it;
* **Cyrillic script**: a word in Cyrillic that is not a disguise (``Владимир Петров``) is
  transliterated to Latin letters (:data:`CYRILLIC`, the BGN/PCGN romanisation of Russian,
  with the Ukrainian, Belarusian, Serbian and Macedonian letters), so the tagger reads
  ``Vladimir Petrov``;
* **character references**: ``&#74;ohn``, ``&#x4A;ohn``, ``Jos&eacute;``: a reference to a
  letter is read as the letter (``&amp;``, ``&lt;`` and other non-letters are left alone);
* **tags inside or around a name**: ``Jo<b></b>hn``, ``<b>John</b>``: a run of markup tags is
  read as nothing inside a word (a lower-case letter follows it) and as a space between two
  words; a run that touches no letter or digit (the chat speaker label ``<yusuf> hi``) hides
  nothing and is read as written; a run that opens an element of a record, not of HTML,
  before its value is read as the field's label on a line of its own
  (``<record><first_name>Hope</first_name>`` → ``first name: Hope``), as a form writes it;
* **letter-spacing and dotted letters**: ``J o h n  S m i t h``, ``J.o.h.n``: a run of three
  single letters or more, one space or one dot apart, is read as the word it spells when
  it is title case, three letters a word or more (``John``; a capital after a lower-case
  letter starts a new word) or a name of the census lexicon not in capitals; ``U S A``,
  ``Q n A`` and ``U.S.A.`` are left alone;
* **leetspeak**: ``M4r14 G4rc14``: a word of letters and digits is read with its digits as
  the letters they stand for (``0`` o, ``1`` i or l, ``3`` e, ``4`` a, ``5`` s, ``6`` g or b,
  ``7`` t, ``8`` b, ``9`` g) when that spells a name of the census lexicon (so ``B2B``,
  ``mp3`` and ``2nd`` are left alone); a word needs two letters or more, not all capitals
  (``51M``, a patient's age and sex, would spell ``Sim``).

Each fold is a list of :class:`Edit`: a range of its input replaced by new characters, each
of which names the input characters it stands for, so the view maps every span back to the
original characters exactly (the disguised name is what gets replaced, never its
neighbours).
"""

from __future__ import annotations

import functools
import html
import itertools
import re
import unicodedata
from typing import NamedTuple

from textdp.detect import lexicon

#: Rank cuts of the census lists for the folds that need a name to fire (leetspeak, and
#: spaced or dotted letters that are not title case).
FIRST_NAME_RANK = 2000
SURNAME_RANK = 20000

# BGN/PCGN romanisation of Cyrillic (Russian; Ukrainian, Belarusian, Serbian and Macedonian
# letters by their own BGN/PCGN tables), lower case; capitals are derived.
CYRILLIC = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z",
    "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r",
    "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh",
    "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
    "є": "ye", "і": "i", "ї": "yi", "ґ": "g", "ў": "w", "ђ": "dj", "ј": "j", "љ": "lj",
    "њ": "nj", "ћ": "c", "џ": "dz", "ѓ": "gj", "ќ": "kj", "ѕ": "dz",
}


class Edit(NamedTuple):
    """Input ``[start, end)`` replaced by ``chars``; ``sources[i]`` is the input range the
    i-th new character stands for."""

    start: int
    end: int
    chars: str
    sources: tuple[tuple[int, int], ...]


def _same(start: int, end: int, chars: str) -> Edit:
    """An edit whose every new character stands for the whole input range."""
    return Edit(start, end, chars, ((start, end),) * len(chars))


def _is_name(word: str) -> bool:
    return len(word) >= 3 and (lexicon.is_first_name(word, FIRST_NAME_RANK) or
                               lexicon.is_surname(word, SURNAME_RANK))


# ---------------------------------------------------------------------------- homoglyphs
@functools.lru_cache(maxsize=1)
def skeletons() -> dict[str, str]:
    """Non-Latin letter → the Latin letter it is confusable with (UTS #39 data of the
    ``confusable-homoglyphs`` package), for every letter that has one; the look-alike of the
    letter's own case where there is one."""
    from confusable_homoglyphs import confusables

    out: dict[str, str] = {}
    for char, entries in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii() or not char.isalpha():
            continue
        if unicodedata.name(char, "").startswith("LATIN"):
            continue
        latin = [e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii()
                 and e["c"].isalpha()]
        if not latin:
            continue
        cased = [c for c in latin if c.isupper() == char.isupper()]
        pick = (cased or latin)[0]
        out[char] = pick.upper() if char.isupper() else pick.lower() if char.islower() \
            else pick
    return out


_WORD = re.compile(r"[^\s]+")


def fold_scripts(text: str) -> list[Edit]:
    """Homoglyph skeletons and Cyrillic transliteration (see the module doc), word by word."""
    if text.isascii():
        return []
    table = skeletons()
    # A word of look-alikes only is a disguise in Latin text, a word in Greek or Cyrillic text.
    letters = [c for c in text if c.isalpha()]
    latin_text = 2 * sum(c.isascii() for c in letters) >= len(letters)
    edits: list[Edit] = []
    for m in _WORD.finditer(text):
        word = m.group()
        if word.isascii():
            continue
        foreign = [i for i, c in enumerate(word) if c.isalpha() and not c.isascii()
                   and not unicodedata.name(c, "").startswith("LATIN")]
        if not foreign:
            continue
        mixed = any(c.isascii() and c.isalpha() for c in word)
        if mixed or (latin_text and all(word[i] in table for i in foreign)):
            fold = {i: table[word[i]] for i in foreign if word[i] in table}
        elif any(word[i].lower() in CYRILLIC for i in foreign):
            fold = {}
            for i in foreign:
                latin = CYRILLIC.get(word[i].lower())
                if latin is None:
                    continue
                if word[i].isupper() and latin:
                    rest_upper = len(word) > 1 and word.isupper()
                    latin = latin.upper() if rest_upper else latin[0].upper() + latin[1:]
                fold[i] = latin
        else:
            continue
        for i, latin in fold.items():
            at = m.start() + i
            edits.append(_same(at, at + 1, latin))
    return edits


# ---------------------------------------------------------------------------- references
_REFERENCE = re.compile(r"&#[0-9]{1,7};|&#[xX][0-9a-fA-F]{1,6};|&[A-Za-z][A-Za-z0-9]{1,31};")


def fold_references(text: str) -> list[Edit]:
    """HTML character references to letters, as the letters."""
    if "&" not in text:
        return []
    edits = []
    for m in _REFERENCE.finditer(text):
        char = html.unescape(m.group())
        if len(char) == 1 and char.isalpha() and unicodedata.is_normalized("NFKC", char):
            edits.append(_same(m.start(), m.end(), char))
    return edits


# ---------------------------------------------------------------------------- tags
_TAGS = re.compile(r"(?:</?[A-Za-z][\w.:-]*(?:\s+[A-Za-z_:][-\w:.]*"
                   r"(?:\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'|[^\s\"'<>=]+))?)*\s*/?>)+")
_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)[^<>]*?(/?)>")
#: The elements of HTML (the WHATWG list, with a few obsolete ones still written): their tags
#: shape text, they name no field.
_HTML_NAMES = """
a abbr address area article aside audio b base bdi bdo big blockquote body br button canvas
caption center cite code col colgroup data datalist dd del details dfn dialog div dl dt em
embed fieldset figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html
i iframe img input ins kbd label legend li link main map mark menu meta meter nav noscript
object ol optgroup option output p param picture pre progress q rp rt ruby s samp script
search section select slot small source span strike strong style sub summary sup table tbody
td template textarea tfoot th thead time title tr track tt u ul var video wbr
"""
HTML_ELEMENTS = frozenset(_HTML_NAMES.split())


def _field_label(run: str) -> str | None:
    """The field a run of tags opens, as words (``<record><first_name>`` → ``first name``,
    ``<patientName id="3">`` → ``patient Name``): its last tag's name where that tag opens an
    element that is not HTML's, else ``None``."""
    tags = list(_TAG.finditer(run))
    if not tags or tags[-1].group(1) or tags[-1].group(3):
        return None
    name = tags[-1].group(2)
    if name.lower() in HTML_ELEMENTS:
        return None
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", re.sub(r"[_.:-]+", " ", name)).split()
    return " ".join(words) or None


def fold_tags(text: str) -> list[Edit]:
    """Runs of markup tags that touch a word: nothing inside a word, a space between two
    words.

    A run with no letter or digit on either side hides nothing and is left as written: the
    chat speaker label ``<yusuf> running late`` has the form of a tag, and folding it away
    took the name out of the view every detector reads (the speaker was never replaced)."""
    if "<" not in text:
        return []
    edits = []
    for m in _TAGS.finditer(text):
        a, b = m.span()
        before = text[a - 1] if a else " "
        after = text[b] if b < len(text) else " "
        if not before.isalnum() and not after.isalnum():
            continue
        inside = before.isalpha() and after.isalpha() and after.islower()
        label = None if inside or not after.isalnum() else _field_label(m.group())
        if label is not None:
            # a record's field: its value on a line of its own after its name and a colon
            # ("<name>Haruto Sato</name>" → "name: Haruto Sato"), as a form writes it
            edits.append(_same(a, b, f"\n{label}: "))
            continue
        space = not inside and not before.isspace() and not after.isspace()
        edits.append(_same(a, b, " " if space else ""))
    return edits


# ---------------------------------------------------------------------------- spacing
_SPACED = re.compile(r"(?<![^\W\d_])[^\W\d_](?: [^\W\d_]){2,}(?![^\W\d_])")
_DOTTED = re.compile(r"(?<![\w.])[^\W\d_](?:\.[^\W\d_]){2,}(?![\w])")


def _spelt(letters: str) -> list[str] | None:
    """The words a run of single letters spells: title-case words (a capital after a
    lower-case letter starts the next), or the run as one word when it is a lexicon name not
    in capitals; ``None`` when it is neither (``USA``, ``DODGE``, ``abc``)."""
    words: list[str] = []
    for k, c in enumerate(letters):
        if k and c.isupper() and letters[k - 1].islower():
            words.append(c)
        elif words:
            words[-1] += c
        else:
            words.append(c)
    if all(len(w) >= 3 and w[0].isupper() and w[1:].islower() for w in words):
        return words
    return [letters] if not letters.isupper() and _is_name(letters) else None


def fold_spacing(text: str) -> list[Edit]:
    """Letter-spaced and dotted words, as the words they spell."""
    edits = []
    for pattern, sep in ((_SPACED, " "), (_DOTTED, ".")):
        if sep == "." and "." not in text:
            continue
        for m in pattern.finditer(text):
            a = m.start()
            letters = m.group().replace(sep, "")
            words = _spelt(letters)
            if words is None:
                continue
            chars: list[str] = []
            sources: list[tuple[int, int]] = []
            k = 0
            for w, word in enumerate(words):
                if w:  # the separator before the word's first letter stands for itself
                    chars.append(" ")
                    sources.append((a + 2 * k - 1, a + 2 * k))
                for c in word:
                    chars.append(c)
                    sources.append((a + 2 * k, a + 2 * k + 1))
                    k += 1
            edits.append(Edit(a, m.end(), "".join(chars), tuple(sources)))
    return edits


# ---------------------------------------------------------------------------- leetspeak
_LEET = {"0": "o", "1": "il", "3": "e", "4": "a", "5": "s", "6": "gb", "7": "t", "8": "b",
         "9": "g"}
_MIXED = re.compile(r"(?<![\w])(?=[A-Za-z0-9]*[A-Za-z])(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{3,}"
                    r"(?![\w])")


def fold_leet(text: str) -> list[Edit]:
    """Words of letters and digits that spell a lexicon name with the digits read as
    letters."""
    edits = []
    for m in _MIXED.finditer(text):
        word = m.group()
        letters = [c for c in word if c.isalpha()]
        if len(letters) < 2 or all(c.isupper() for c in letters):
            continue  # a code (B2B, MP3, COVID19) or a number and its unit (51M, 300k)
        if not all(c in _LEET for c in word if c.isdigit()):
            continue
        options = [_LEET[c] if c.isdigit() else c for c in word]
        for choice in itertools.islice(itertools.product(*options), 16):
            spelt = "".join(choice)
            if _is_name(spelt):
                edits.extend(_same(m.start() + i, m.start() + i + 1, spelt[i])
                             for i, c in enumerate(word) if c.isdigit())
                break
    return edits


#: The folds, in the order the view applies them (each on the output of the one before).
FOLDS = (fold_references, fold_tags, fold_spacing, fold_scripts, fold_leet)
# What a text must hold for a fold other than scripts to change it (plain text holds none).
HINT = re.compile(r"&|<|[^\W\d_] [^\W\d_] [^\W\d_]|[^\W\d_]\.[^\W\d_]\.[^\W\d_]|"
                  r"[A-Za-z][0-9]|[0-9][A-Za-z]")
