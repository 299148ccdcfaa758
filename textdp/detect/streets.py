"""Street addresses: the ``STREET_ADDRESS`` recogniser and its surrogate.

A house number and a street name place a person to a door: HIPAA counts a street address
among its identifiers, and Presidio's evaluation data has a label for it. Without this label
the ``quasi`` preset replaced the street's words as places or names (``19 Mill Lane`` →
``19 Malaysia``) and published the house number. A street address is taken in these forms
(a street type from the public list of ``data/street_types.txt``: USPS Publication 28's
suffixes, British and European street words):

* a house number, one to four capitalised words (or ordinals, ``5th``) and a street type
  after them, with an optional direction and unit: ``19 Mill Lane``, ``5650 Ellis Burgs
  Apt. 289``, ``1600 Pennsylvania Avenue NW``, ``Flat 4, 19 Mill Lane``;
* a house number and a type written first: ``3 rue de la Paix``, ``14 Rua das Flores``
  (Spain's ``C/`` and, before ``de``, ``C.`` count as ``calle``);
* a type written first, the name and the number: ``Via Roma 12``, ``Canale Faggiani, 240``,
  ``ulica Konopnickiej 042``, ``бул. 8 Марта, д. 48``, ``Avenida 5 de Mayo 120`` (a name
  may open with a date's day or an ordinal); without a number only right after an address
  cue (``lives at rue de Maillard``, ``Send to: Alameda Oliveira``);
* a name with its type glued on and the number: ``Hauptstraße 5``, ``Björkgatan 561``,
  ``Jost-Klingelhöfer-Straße 93-15``, ``테헤란0길 831``; with ``-ring`` or ``-hof``, which
  also end surnames, only right after an address cue (``lives at Simonhof 942``);
* a unit in the house number's place: ``Studio 9⏎Phillips Fort``, ``H.No. 442⏎Kadakia
  Street``; a house number alone on the line before its street: ``049⏎Chokshi Path``;
* U.S. military mail before its ``APO``, ``FPO`` or ``DPO`` line: ``PSC 8792, Box 2432``,
  ``Unit 5069 Box 9205``, a ship ``USNS Ray``;
* Japanese block addresses, the town and its chōme, ban and gō (``南赤田3丁目4番11号``,
  ``港区六本木6-10-1`` with a city, ward, town or village before the numbers), with the
  building and room after them; Chinese ones, a road or street and its number
  (``建国路88号``, ``朝阳路U座``); Korean road names with their number (``석촌호수163거리 957``,
  ``가락48길 지하594``, ``종로3가 12``, and a road ending in ``가`` right after its district:
  ``동대문구 백제고분가 지하818``) and the town in brackets after them;
* right after words that say an address follows (``lives at``, ``address``, ``send to``,
  ``deliver to``, ``moved to``, ``Adresse``, ``dirección``, ...; not ``at`` or ``to``
  alone), a house number or a unit and one to three capitalised words whatever the last
  one is (``lives at 32 Robin Lees``, ``Suite 963 2 Smith Part``, ``H.No. 124, Mangat``,
  ``50⏎Srivastava``), unless the words are a town of the place lookup or a sign-off.

Not taken: a house number that reads as a year (1800–2099) without an address cue before
it (``at``, ``to``, ``lives``, ``address``: ``the 1979 Democracy Wall``, ``in 2019 Apple
Park``); a street with a number right after it (a score: ``Dunvant 21 Ebbw Vale 10``),
unless the street opens with its house number and the number after is a postcode before its
town (``3 rue de la Paix 75002 Paris``); a name run holding an article or a preposition in
capitals (``12 Cue The Lonely Island``).

The surrogate (:func:`surrogate`) keeps the address's layout: random digits and
letters in the number's places, the street type and unit words as written (public words of
closed lists, and the characters of a Japanese or Chinese number: 丁目, 番, 号, 座), and in
the name's place one name drawn at random from the public street names of
``data/street_names.txt`` (in the name's case; for a name in Japanese, Chinese or Korean
script, one of the common town and road names of that script in
``data/street_names_cjk.txt``). It releases that layout (and with it the street type and,
for some types, the language and script), nothing of the name or the number.

Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np

from textdp.detect.places import lookup_names
from textdp.detect.rules import ADDRESS_WORDS
from textdp.detect.wordlists import word_lines, word_sections

STREET_ADDRESS = "STREET_ADDRESS"
DATA_DIR = Path(__file__).resolve().parent / "data"

_NUM = r"\d{1,6}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?)?"
#: A letter that opens a name: not a small one of the Latin or Cyrillic alphabets (capitals
#: of any Latin or Cyrillic letter, and the letters of scripts without case).
NAME_OPENING = r"(?![a-zß-öø-ÿа-яё])[^\W\d_]"
_CAP = rf"{NAME_OPENING}[\w'’.-]*"
# (not an article or a preposition in capitals: "12 Cue The Lonely Island" is a song)
_NAME_WORD = rf"(?!(?:The|A|An|And|Of|For|To|In|On|At|By)\b)(?:{_CAP}|\d{{1,3}}(?:st|nd|rd|th))"
_PARTICLE = r"(?:de|del|della|dei|degli|delle|di|da|do|dos|das|la|le|les|du|des|von|van|der|den)"
#: Words of a unit in an address (flat, floor, suite, ...): written as they are.
UNIT_WORDS = ("Apt", "Apartment", "Suite", "Ste", "Unit", "Flat", "Floor", "Fl", "Room", "Rm",
              "Bldg", "Building", "Studio", "H.No", "Piso", "Puerta", "Piano", "Appartamento",
              "Interno", "Scala", "Etage", "Whg", "Level", "PSC", "CMR", "Box", "к", "кв",
              "стр")
_UNIT = r"(?:" + "|".join(re.escape(w) for w in UNIT_WORDS) + \
    r"|#)\.?\s?#?\s?\d{1,5}[A-Za-z]?(?:/\d{1,4})?"
# Blanks inside a street's line (a street never runs over a line break; a unit may stand on
# the line before it: "Studio 9\nPhillips Fort").
_S = r"[ \t\u00a0]+"
_DIRECTION = r"(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b\.?"
# Words before a house number that say an address follows ("lives at 1900 Main Street"):
# without one, a year-like number is a year ("the 1979 Democracy Wall movement").
_ADDRESS_CUE = re.compile(r"\b(?:at|to|address|addr|lives|living|located|ship|deliver|send|"
                          r"mail|visit|resides|reside|office|is)\W*$", re.IGNORECASE)
# Words that say a street address follows whatever its last word ("lives at 32 Robin Lees",
# "Send to:⏎79104 Hardy Flat", "Address: H.No. 124, Mangat"): not "at" or "to" alone.
_STRONG_CUE = re.compile(r"(?:\baddress(?:e|e?s)?|\baddr|\b(?:lives|living|resides?|located|"
                         r"moved|moving)\s+(?:at|to)|\b(?:ship|deliver|send|mail|post)\s+to|"
                         r"\bdomicile|\bendereço|\bdirecci[óo]n|\badresse?|\bindirizzo)\W*$",
                         re.IGNORECASE)
# The line that ends U.S. military mail, after its unit or ship ("APO AP 68084").
_MILITARY_LINE = re.compile(r",?[ \t]*\n?[ \t]*(?:APO|FPO|DPO)\b")
# A number after the street on its line: a score or a table ("Dunvant 21 Ebbw Vale 10"); a
# postcode on the next line is an address's ("Södingweg 990\n00339 Monschau").
_NUMBER_AFTER = re.compile(r"[ \t]+\d")
_POSTCODE_AFTER = re.compile(rf"[ \t]+\d{{4,5}}[ \t]+{NAME_OPENING}")
# Street types written short, with a dot ("St.", "Rd.").
_ABBREVIATIONS = frozenset({"st", "rd", "ave", "av", "dr", "ln", "ct", "blvd", "pl", "sq", "ter",
                            "hwy", "pkwy", "cres", "gdns", "cir", "trl", "brg", "expy", "aly",
                            "gr", "hts"})
# Placeholders of a layout (private-use characters: no text holds them).
_DIGIT, _CAPITAL, _SMALL, _TITLE_NAME, _UPPER_NAME = "\ue000", "\ue001", "\ue002", "\ue003", \
    "\ue004"
# A name in Japanese (kana), Chinese (Han only) or Korean (Hangul) script.
_SCRIPT_NAMES = {"ja": "\ue005", "zh": "\ue006", "ko": "\ue007"}
# Japanese and Chinese addresses: kanji (with 々 and the small ヶ/ヵ of place names) and
# katakana; a Japanese number's block (chōme), lot (ban, banchi) and house (gō) marks; a
# Chinese road or street word and its number's marks. Hangul syllables for Korean.
#: Character ranges (for a regex class) of Hangul syllables, of kana (hiragana and katakana)
#: and of the common Han characters.
HANGUL = "\uac00-\ud7a3"
KANA = "\u3040-\u30ff"
HAN = "\u4e00-\u9fff"
_KANJI = HAN + "\u3005\u30f5\u30f6"
_KATAKANA = "\u30a0-\u30ff"
_DASH = "[-\u2212\uff0d]"
# A Japanese place's last administrative word: prefecture, city, ward, town, village, county.
_JA_ADMIN = "[都道府県市区町村郡]"
_SCRIPT_LETTERS = {v: k for k, v in _SCRIPT_NAMES.items()}
# Which script a name is written in, tried in this order (kana: hiragana and katakana).
_SCRIPTS = (("ko", re.compile(f"[{HANGUL}]")), ("ja", re.compile(f"[{KANA}]")),
            ("zh", re.compile(f"[{HAN}]")))
# Characters that end a Chinese sentence's words before an address ("我住在…", "地址：…").
_ZH_NOT_NAME = "在於于至到是住址"
# After a Japanese address's numbers, its building and room or floor (一ツ橋ハイツ134, 12号室,
# グランドビル 5F: a space before the number only after a building word's last character).
_JA_BUILDING = rf"(?:[ \u3000]?(?P<ja_building>[{_KANJI}{_KATAKANA}のが]{{1,16}}?)" \
    r"(?:(?<=[ルツンースポ荘館棟])[ \u3000])?(?P<unit2>\d{1,5}(?:号室|階|[FＦ])?))?"


@lru_cache(maxsize=1)
def street_types() -> dict[str, frozenset[str]]:
    """The street types of ``data/street_types.txt`` by where they stand: ``after`` the name,
    ``before`` it, or ``glued`` to its end (lower case)."""
    return {k: v for k, v in word_sections(DATA_DIR / "street_types.txt").items() if k}


@lru_cache(maxsize=1)
def street_names() -> tuple[str, ...]:
    """The public street names of ``data/street_names.txt`` a surrogate draws from."""
    return tuple(dict.fromkeys(word_lines(DATA_DIR / "street_names.txt")))


@lru_cache(maxsize=1)
def script_street_names() -> dict[str, tuple[str, ...]]:
    """The public town and road names of ``data/street_names_cjk.txt`` by script (``ja``,
    ``zh``, ``ko``), sorted: a surrogate of a name in that script draws from them."""
    return {k: tuple(sorted(v)) for k, v in
            word_sections(DATA_DIR / "street_names_cjk.txt").items() if k}


def _script(name: str) -> str | None:
    """``ko`` for a name with Hangul, ``ja`` with kana, ``zh`` with Han characters only,
    ``None`` for others."""
    for script, letters in _SCRIPTS:
        if letters.search(name):
            return script
    return None


def _alternation(words: frozenset[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _cased(words: frozenset[str]) -> str:
    """An alternation of ``words`` in lower case, capitalised, and in capitals when longer
    than two letters (``rue``, ``Rue``, ``VIA``; not ``BD``, a code's letters)."""
    forms = {f for w in words for f in (w, w[:1].upper() + w[1:]) if f}
    forms |= {w.upper() for w in words if len(w.rstrip(".")) > 2}
    return "|".join(re.escape(w) for w in sorted(forms, key=len, reverse=True))


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], ...]:
    types = street_types()
    # an abbreviation ("St.", "Rd.") takes its dot, a whole word leaves the sentence's
    abbreviations = types["after"] & _ABBREVIATIONS
    after = rf"(?=[A-Z])(?:(?i:{_alternation(abbreviations)})(?![\w'’-])\.?|" \
            rf"(?i:{_alternation(types['after'] - abbreviations)})(?![\w'’-]))"
    # (and Spain's "C/" and "C." for calle: "C/ Mayor 5", "C. de Evita Castells 438"; "C."
    # only before "de", an initial otherwise)
    before = rf"(?:{_cased(types['before'])}|C/|C\.(?={_S}del?\b))(?![\w'’-])"
    # (and the Korean 가 of a numbered street: 종로3가)
    glued = rf"(?:(?i:{_alternation(types['glued'])})|(?<=\d)가)"
    fence = r"(?<![\w/.,:-])"
    end = r"(?![\w'’-]|[.,:-]?\d)"
    unit = rf"(?:,?{_S}(?P<unit2>{_UNIT}))?"
    name_run = rf"(?:(?:{_NAME_WORD}|{_PARTICLE}){_S}){{0,3}}{_NAME_WORD}"
    # after a type written first, a name may open with a date's day or an ordinal, before a
    # Cyrillic word or a particle ("бул. 8 Марта", "наб. 60 лет СССР", "ул. 8-е Марта",
    # "Avenida 5 de Mayo"; not a score: "Vale 2 Oxford 0")
    # (between a number and the name: "," or "/", or a line break)
    gap = r"(?:[ \t]*[,/]?[ \t]*|[ \t]*\n[ \t]*)"
    dated_run = rf"(?:\d{{1,3}}(?:-[а-яё]{{1,2}})?{_S}(?:лет{_S}|{_PARTICLE}{_S}|(?=[А-ЯЁ])))?" \
        rf"{name_run}"
    return (
        # 19 Mill Lane / Flat 4, 19 Mill Lane / 5650 Ellis Burgs Apt. 289 / 1600 … Avenue NW
        re.compile(rf"{fence}(?:(?P<unit1>{_UNIT}),?\s+)?(?P<num>{_NUM}),?{_S}"
                   rf"(?P<name>(?:{_NAME_WORD}{_S}){{0,3}}?{_NAME_WORD}){_S}(?P<type>{after})"
                   rf"(?:{_S}(?P<dir>{_DIRECTION}))?{unit}" + r"(?![\w'’-])"),
        # 3 rue de la Paix
        re.compile(rf"{fence}(?P<num>{_NUM}),?{_S}(?P<type>{before}){_S}(?P<name>{name_run})"
                   r"(?![\w'’-])"),
        # Via Roma 12 / Canale Faggiani, 240 / ulica Konopnickiej 042 (not after a house
        # number: "14 Rua das Flores, 1200-195 Lisboa" ends in a postcode)
        re.compile(rf"(?<![\w-])(?<!\d )(?P<type>{before}){_S}(?P<name>{dated_run}),?{_S}"
                   rf"(?:д\.\s*)?(?P<num>{_NUM}){unit}{end}"),
        # (lives at) rue de Maillard / Alameda Oliveira: a type written first and the name,
        # without a number; the empty group "cue": only right after an address cue
        # (:func:`_not_an_address`)
        re.compile(rf"(?<![\w-])(?P<type>{before}){_S}(?P<name>{dated_run})(?P<cue>)"
                   r"(?![\w'’-]|,?[ \t]*\d)"),
        # (lives at) Simonhof 942 / Senol-Löffler-Ring 7-1: a glued type that also ends
        # surnames ("Spiring 130" is a cricket score), only right after an address cue
        re.compile(rf"(?<![\w-])(?P<name>{NAME_OPENING}[\w'’-]*?)(?P<type>(?i:ring|hof))(?P<cue>)"
                   rf"{_S}(?P<num>{_NUM}){unit}{end}"),
        # Hauptstraße 5 / Björkgatan 561 / Jost-Klingelhöfer-Straße 93-15
        re.compile(rf"(?<![\w-])(?P<name>{NAME_OPENING}[\w'’-]*?)(?P<type>{glued}){_S}"
                   rf"(?:지하(?:{_S})?)?(?P<num>{_NUM}){unit}{end}"
                   rf"(?:{_S}\((?P<town>[{HANGUL}]{{1,12}})\))?"),
        # Studio 9, Phillips Fort / H.No. 442 Kadakia Street: a unit in the number's place
        re.compile(rf"{fence}(?P<unit1>{_UNIT}),?\s+"
                   rf"(?P<name>(?:{_NAME_WORD}{_S}){{0,3}}?{_NAME_WORD}){_S}(?P<type>{after})"
                   r"(?![\w'’-])"),
        # 049⏎Chokshi Path: a house number alone on the line before its street (or after
        # "at": "lives at 049⏎Chokshi Path"; not "Invoice 4411⏎⏎Hi River")
        re.compile(rf"(?:^|(?<=\n)|(?<=\bat ))[ \t]*(?P<num>{_NUM}),?[ \t]*\n[ \t]*"
                   rf"(?P<name>(?:{_NAME_WORD}{_S}){{0,3}}?{_NAME_WORD}){_S}(?P<type>{after})"
                   r"(?![\w'’-])"),
        # U.S. military mail (USPS Publication 28, section 225): a unit or a ship before
        # its APO, FPO or DPO line ("PSC 8792, Box 2432⏎APO AP 68084", "USNS Ray⏎FPO AE")
        # (the empty group "military": only before that line, :func:`_not_an_address`)
        re.compile(r"(?<![\w-])(?:(?P<unit1>(?:PSC|CMR|Unit) \d{1,5}),? (?P<num>Box \d{1,5})|"
                   rf"(?P<type>USNS|USS) (?P<name>{_CAP}(?: {_CAP})?))(?P<military>)"
                   r"(?![\w'’-])"),
        # 동대문구 백제고분가 지하818 (수민이마을): a road ending in 가 right after its
        # district (구, 시, 군; 가 alone is also a subject particle: "친구가 3명")
        re.compile(rf"(?<=[{HANGUL}][구시군] )(?P<name>[{HANGUL}]{{1,10}}?)(?P<type>가){_S}"
                   rf"(?:지하(?:{_S})?)?(?P<num>{_NUM}){unit}{end}"
                   rf"(?:{_S}\((?P<town>[{HANGUL}]{{1,12}})\))?"),
        # (lives at) 32 Robin Lees / Suite 963 2 Smith Part / H.No. 124, Mangat / 50⏎
        # Srivastava: a house number or unit and a name of capitalised words, whatever its
        # last word, only right after a word that says an address follows (the empty group "strong":
        # :data:`_STRONG_CUE`, :func:`_not_an_address`)
        re.compile(rf"{fence}(?=(?:{_UNIT}|\d))(?:(?P<unit1>{_UNIT}){gap})?"
                   rf"(?:(?P<num>{_NUM}){gap})?(?<=[\d,/ \t\n])"
                   rf"(?P<name>(?:{_NAME_WORD}{_S}){{0,2}}{_NAME_WORD})(?P<strong>)"
                   r"(?<!\.)(?![\w'’-])"),  # (not the sentence's full stop)
        # (Adresse:) Schönhauser Allee 12 / Unter den Linden 5: a name, a type written after
        # it and the number, as German and Dutch write them, only right after a word that
        # says an address follows (English puts the number first: "Penny Lane 2" is a count)
        re.compile(rf"(?<![\w-])(?P<name>(?:(?:{_NAME_WORD}|{_PARTICLE}){_S}){{0,2}}{_NAME_WORD})"
                   rf"{_S}(?P<type>{after}){_S}(?P<num>{_NUM})(?P<strong>){unit}{end}"),
        # 南赤田3丁目4番11号 一ツ橋ハイツ134 / 港区六本木6-10-1 (a town with its chōme, ban
        # and gō; a number in dashes after a city, ward, town or village)
        re.compile(rf"(?P<ja_name>[{_KANJI}{_KATAKANA}の]{{1,24}}?)"
                   rf"(?P<num>\d{{1,4}}丁目(?:\d{{1,4}}番地?(?:\d{{1,4}}号)?|"
                   rf"\d{{1,4}}(?:{_DASH}\d{{1,4}})?)?|\d{{1,4}}番地?(?:\d{{1,4}}号)?)"
                   rf"{_JA_BUILDING}(?!\d)"),
        re.compile(rf"(?P<ja_name>(?=[{_KANJI}{_KATAKANA}の]*?{_JA_ADMIN})"
                   rf"[{_KANJI}{_KATAKANA}の]{{2,24}}?)"
                   rf"(?P<num>\d{{1,4}}{_DASH}\d{{1,4}}(?:{_DASH}\d{{1,4}})?)"
                   rf"{_JA_BUILDING}(?![\d-])"),
        # 北京市朝阳区建国路88号 / 朝阳路U座: a road or street and its number
        re.compile(rf"(?P<name>(?:(?![{_ZH_NOT_NAME}])[{HAN}]){{1,20}}?)"
                   r"(?P<type>大道|大街|路|街|巷|胡同)"
                   r"(?P<num>\d{1,5}(?:弄\d{1,4})?号院?|[A-Za-z0-9]{1,3}座)"
                   r"(?P<unit2>\d{1,4}(?:号楼|栋|幢|单元|层|楼|室)(?:\d{1,4}(?:单元|层|楼|室))*)?"),
    )


def _not_an_address(text: str, m: re.Match[str]) -> bool:
    """A year-like house number or a street without a number, without an address cue
    before it; military mail without its APO, FPO or DPO line after it; or a number right
    after the street (see :data:`_ADDRESS_CUE`, :data:`_MILITARY_LINE`,
    :data:`_NUMBER_AFTER`)."""
    if _NUMBER_AFTER.match(text, m.end()) and _script(m.group()) in (None, "ko") and not (
            m.groupdict().get("num") and m.start("num") == m.start() and
            _POSTCODE_AFTER.match(text, m.end())):
        # (a Chinese or Japanese address's postcode may follow it, and a postcode and its
        # town a street that opens with its number: "3 rue de la Paix 75002 Paris")
        return True
    if "military" in m.re.groupindex:  # "USNS Ray⏎FPO AE 68920", not "USS Enterprise"
        return _MILITARY_LINE.match(text, m.end()) is None
    if "strong" in m.re.groupindex:  # "lives at 32 Robin Lees", not "see you at 3 PM", nor
        # a number before a town ("moved to 12 Bristol") or a greeting ("Address: 12⏎Thanks")
        return _STRONG_CUE.search(text, max(0, m.start() - 24), m.start()) is None or \
            m.group("name") in lookup_names() or \
            m.group("name").split()[0].casefold() in ADDRESS_WORDS | {"best", "kind"}
    if "cue" in m.re.groupindex:  # "lives at rue de Maillard", not "sent via Paris", nor a
        # town named so ("moved to Vila Flor": a place of the lookup, PLACE's to replace)
        return _ADDRESS_CUE.search(text, max(0, m.start() - 16), m.start()) is None or \
            m.group() in lookup_names()
    num = m.groupdict().get("num")
    return num is not None and bool(re.fullmatch(r"1[89]\d\d|20\d\d", num)) and \
        _ADDRESS_CUE.search(text, max(0, m.start() - 16), m.start()) is None


def find_streets(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each street address of ``text`` (see the module doc), in order,
    without overlaps (the longer first)."""
    found = [(m.start(), m.end()) for p in _patterns() for m in p.finditer(text)
             if not _not_an_address(text, m)]
    kept: list[tuple[int, int]] = []
    for a, b in sorted(found, key=lambda s: (s[0] - s[1], s[0])):
        if all(b <= x or y <= a for x, y in kept):
            kept.append((a, b))
    return sorted(kept)


def layout(value: str) -> str:
    """What a surrogate of the street address ``value`` may depend on: each digit and letter
    of its numbers as a placeholder, its name as one placeholder (title case or capitals),
    the street type, unit words, directions and separators as written. A value no pattern
    reads whole is all placeholders and separators."""
    for p in _patterns():
        m = p.fullmatch(value)
        if m is not None:
            break
    else:
        return _number_layout(value)
    out, pos = [], 0
    spans = sorted((m.start(g), m.end(g), g) for g in m.re.groupindex if m.start(g) >= 0)
    for a, b, group in spans:
        out.append(value[pos:a])
        piece = value[a:b]
        if group in ("ja_name", "ja_building"):
            out.append(_SCRIPT_NAMES["ja"])
        elif group in ("name", "town"):
            # ("Jost-Klingelhöfer-" before a glued "Straße": its hyphen)
            script = _script(piece)
            out.append(_SCRIPT_NAMES[script] if script else
                       (_UPPER_NAME if piece.isupper() else _TITLE_NAME) +
                       ("-" if piece.endswith("-") else ""))
        elif group in ("num", "unit1", "unit2"):
            out.append(_number_layout(piece, marks=True))
        else:  # the street type, a direction: public words of closed lists
            out.append(piece)
        pos = b
    out.append(value[pos:])
    return "".join(out)


def _number_layout(piece: str, marks: bool = False) -> str:
    """A number's (or a unit's) digits and letters as placeholders, the unit word (``Apt``,
    ``Flat``: a closed list) as written; with ``marks`` (a number a pattern read), also the
    letters of scripts without case as written: the marks of a Japanese or Chinese number
    (丁目, 番, 号, 座, 室), the only ones its patterns take."""
    unit = re.match("(?:" + "|".join(re.escape(w) for w in UNIT_WORDS) + r")(?![^\W\d_])",
                    piece)
    head = unit.group() if unit else ""
    rest = piece[len(head):]
    return head + "".join(_DIGIT if c.isdigit() else _CAPITAL if c.isupper() else
                          _SMALL if c.isalpha() and (c.islower() or not marks) else c
                          for c in rest)


def surrogate(layout_: str, rng: np.random.Generator) -> str:
    """A street address of ``layout_`` (:func:`layout`) drawn from ``rng``: random digits (a
    number's first not ``0``) and letters, a random public street name."""
    names = street_names()
    out, first = [], True
    for c in layout_:
        if c == _DIGIT:
            out.append(str(int(rng.integers(1 if first else 0, 10))))
            first = False
            continue
        first = first or not (c.isascii() and c.isalnum())  # (丁目, 番: a new number)
        if c == _CAPITAL:
            out.append(chr(65 + int(rng.integers(26))))
        elif c == _SMALL:
            out.append(chr(97 + int(rng.integers(26))))
        elif c in (_TITLE_NAME, _UPPER_NAME):
            name = names[int(rng.integers(len(names)))]
            out.append(name.upper() if c == _UPPER_NAME else name)
        elif c in _SCRIPT_LETTERS:
            pool = script_street_names()[_SCRIPT_LETTERS[c]]
            out.append(pool[int(rng.integers(len(pool)))])
        else:
            out.append(c)
    return "".join(out)
