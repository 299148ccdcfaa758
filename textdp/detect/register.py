"""The register stage: the person spans of an ensemble read in the text's own register.

Users bring clinical notes, e-mail, chats and addresses, where a recall-first tagger takes
labels, abbreviations and place words for names (``Subject:``, ``HTN``, ``RN``, ``Flat 4``,
``Acme Logistics``, ``the Minister of Health``) and misses names that are ordinary words
(``Summer Rain called``). :class:`RegisterStage` takes the ensemble's spans of each doc and

1. **takes out what the register says is no name** (:meth:`RegisterStage.non_names`):
   field and header labels before a colon and the words of quoted-reply markers
   (``-----Original Message-----``); clinical abbreviations, shorthand and drug names, ages
   (``34M``) and side letters (``L knee``); chat interjections; role words and titles, with
   the words they head (``IT Manager``, ``Minister of Health``); capitalised runs that end
   in an organisation word (``Harbor Health``, ``Sterling Legal LLP``) and their other
   mentions; street names after a house number or a preposition (``19 Mill Lane``), address
   words (``Flat``, ``PO Box``) and the city after a street; stop words (``The``, ``he``);
   and, as negative evidence from context, a lone word that the spaCy pipeline's NER reads
   as a place or an organisation (``ORG``, ``GPE``, ``LOC``, ``FAC``) in this mention or in
   another mention of the same text, unless it is a known first name; codes of capitals and
   digits (``CKD3``, ``Apt 3B``); and, in a note written in capitals or a clinical note, the
   words nothing shows as a name (:meth:`RegisterStage.unshown_words`: a common English word
   or a weak reading without a name list, title, kinship word, credential or ``called``
   beside it: ``PT NOTIFIED``, ``Nursing note``, ``walker on unit``);
2. **adds the names the register shows** (:meth:`RegisterStage.names`): the words of a
   signature line after a sign-off, the capitalised mentions of the parts of an e-mail
   address (``summer.rain@…`` → ``Summer``, ``Rain``), a name before ``called``/``phoned``
   or after ``ask for``/``spoke with``, and the speaker labels of a chat transcript (after
   time stamps of many formats: ``[8:48 PM] hope:``, ``[Mon 11:04] bilal:``,
   ``12/03/2024, 14:22 - priya:``; never a role: ``10:03 Customer:``);
3. **one detection for every mention**: when one mention of a word, handle or speaker
   label is a person, every mention of it in the text is (capitalised mentions always,
   lower-case ones where the name was written in lower case or as a handle or label), so a
   name is never replaced in one place and published in another.

Step 1 never removes what step 2 or 3 found elsewhere from a token it took out: a word that
is a label in its place stays a label. The vocabularies are public word lists shipped in
``data/register_*.txt`` (sources and licence in ``data/LICENSE_REGISTER.md``); every rule
also looks at the word's place (before a colon, after a number, at the end of a capitalised
run), so a list alone never decides against a word a person can bear as a name.

Rules were chosen on the dev splits only (``textdp evaluate detection --data
../shared/data`` and the ``dev`` split of :mod:`textdp.evaluate.samples`). The stage keeps,
logs and raises nothing of the text.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from textdp.detect.base import Span
from textdp.detect.delimited import header_cells
from textdp.detect.postcodes import US_STATE_CODES, ZIP_CODE
from textdp.detect.rules import (
    GREETINGS,
    LETTER_OPENINGS,
    NON_NAMES,
    PARTICLES,
    PERSON,
    POSSESSIVES,
    TITLES,
    person_spans,
    runs,
)
from textdp.detect.streets import HAN, HANGUL, KANA, find_streets
from textdp.detect.wordlists import word_sections
from textdp.detect.words import common_words
from textdp.profile_urls import parse_profile_url
from textdp.tokenization import JA_HONORIFICS

DATA_DIR = Path(__file__).resolve().parent / "data"
#: The vocabularies: ``register_<name>.txt`` in :data:`DATA_DIR`.
VOCABULARIES = ("field_labels", "clinical", "drugs", "interjections", "roles", "kinship",
                "organisations", "street", "address", "eponyms", "brands")
#: The vocabularies that are a ``[section]`` of another's file, with that file. The kinship
#: words (section of the roles list) are no name by themselves ("Mother (Rosa Delgado)"),
#: but unlike an office they head no words ("Daughter of Henry VIII" keeps Henry a name).
SECTIONS = {"street": "address", "address": "address", "kinship": "roles"}
#: Kin written in capitals before a name, which the kinship list leaves out because it is a
#: name too ("SON EMEKA", not Son Heung-min).
CAPS_KIN = frozenset({"son"})
#: spaCy NER labels read as "not a person here".
PLACE_LABELS = frozenset({"ORG", "GPE", "LOC", "FAC"})
#: NER labels that overrule a weak tagger reading (:meth:`RegisterStage.weak_evidence`):
#: places, organisations, nationalities, events and laws. Titles, products and facilities
#: are left out: the social-media corpora annotate characters (``Wildcat``) and nicknames
#: (``Le Coq``) as persons.
NOT_PERSON_LABELS = frozenset({"ORG", "GPE", "LOC", "NORP", "EVENT", "LAW"})
#: A tagger score below this is weak evidence: the tagger's recall-first threshold (0.015)
#: lets through place and product words it gives 0.02-0.1; on the dev splits 14 % of the
#: person words it found score below 0.1 and 1 % of the names (chosen on dev data only).
WEAK_SCORE = 0.1
#: Below this a hashtag is weak evidence (hashtags are topics far more often than names:
#: 16 of 632 in BTC's dev section are persons).
WEAK_HASHTAG_SCORE = 0.2
#: A word read weakly at every mention (below this) and as a place or organisation by the
#: NER at two mentions or more is no name at any of them.
DOC_WEAK_SCORE = 0.2
#: A subject-line word needs at least this tagger score (with a census name or the NER's
#: PERSON reading) to stay a name there on its own.
SUBJECT_SCORE = 0.5
#: Credentials written after a clinician's name ("MARCUS RN", "OKONJO, MD").
CREDENTIALS = frozenset({"md", "do", "rn", "lpn", "cna", "np", "pa", "pa-c", "aprn", "crna",
                         "pharmd", "dds", "mbbs", "phd", "msw", "lcsw", "rd", "pt", "ot"})
#: In a text written in capitals, a word no name list knows stays a name from this tagger
#: score up (:meth:`RegisterStage.unshown_words`; in a clinical note from SUBJECT_SCORE).
CAPS_SURE_SCORE = 0.9
#: There a listed name that is also a common English word is a name from this score up
#: ("WALKER ORDERED" 0.26, "RICE" 0.08; "BELL" 0.48 stays) ...
WORD_NAME_SCORE = 0.3
#: ... or as a first name this common ("ANN", "HOPE", "BUDDY"; not "WALKER", 997th).
WORD_NAME_FIRST_RANK = 700
#: Distinct clinical markers that make a text a clinical note (:func:`_clinical`).
CLINICAL_MIN_MARKERS = 2
#: Departments written in capitals that are also names (Ed): no names in a clinical note.
CLINICAL_CAPS = frozenset({"ed", "or", "ir", "cath"})
# Acronyms of codes that are also names or words ("Swift", "Mac", "Pan", "Tin"): in capitals
# before their code, or before "code"/"address"/"number" and the code, a label ("SWIFT code
# LJJAGB3X", "MAC de:7a:36:33:1f:a6", "PAN number ABCPD1234E").
CODE_ACRONYMS = frozenset({"swift", "bic", "mac", "pan", "tin", "imei", "vin", "iban"})
CODE_KINDS = frozenset({"code", "address", "number", "no", "id", "#"})
# A code: capitals and three digits or more ("XJH448821903", "AB-1234"); a handle with digits
# ("andy_carey151", "MrsT_2012") has small letters and stays the other rules'.
_CODE_TOKEN = re.compile(r"(?=(?:[A-Z-]*\d){3})[A-Z0-9-]*[A-Z][A-Z0-9-]*")
#: Clinical shorthand that counts in any case, and slashed shorthand (three tokens).
CLINICAL_SHORTHAND = frozenset({"pt", "pts", "w/", "hx", "dx", "tx", "sx", "prn", "bid",
                                "tid", "qid", "npo", "mg", "mcg", "ml", "q4h", "q6h", "vss"})
SLASHED_SHORTHAND = frozenset({"d/c", "f/u", "s/p", "c/o", "w/o", "n/v", "h/o", "r/o", "y/o",
                               "a/p", "b/l"})
#: Letters a text needs for :func:`_mostly_upper` (a note, not one shouted word).
CAPS_MIN_LETTERS = 40
#: Census first-name rank cut of a name addressed after a greeting (:func:`_addressed`).
ADDRESSED_FIRST_RANK = 2000
#: Census rank cuts of :meth:`RegisterStage.listed_places`: a place that is a first name or a
#: surname this common may be a person ("Jordan", "Houston"); rarer ones ("Berlin" 4,100th
#: surname, "Tripoli" 22,569th) are read as the place.
PLACE_FIRST_RANK = 2000
PLACE_SURNAME_RANK = 2500
# Words never part of a name (capitalised or not): articles, prepositions, pronouns.
STOP_WORDS = frozenset({
    "the", "a", "an", "and", "or", "but", "of", "in", "on", "at", "to", "for", "by", "with",
    "he", "she", "it", "they", "we", "i", "you", "his", "her", "their", "this", "that",
    "him", "them", "our", "your", "my", "me", "us", "is", "was", "are",
})
# Words of quoted-reply and forward markers ("-----Original Message-----").
MARKER_WORDS = frozenset({"original", "message", "forwarded", "forward", "reply", "begin",
                          "end", "by", "on"})
#: Shorthand of notes before an event or a condition ("s/p fall", "h/o CVA", "c/o cough",
#: "r/o MI", "d/t sepsis", "2/2 AKI"), never before a person.
_CONDITION_CUE = re.compile(r"(?:^|(?<=[\s(,;:]))(?i:s/p|h/o|c/o|r/o|d/t|2/2|hx|dx)\s*$")
#: Chats' calls to every member (Slack's and Discord's ``@channel``, ``@here``,
#: ``@everyone``): no account.
GROUP_MENTIONS = frozenset({"channel", "here", "everyone", "all"})
#: Verbs before a drug's name outside a note ("has started Januvia", "taking Lasix").
DRUG_VERBS = frozenset({"started", "starting", "start", "taking", "take", "takes", "took",
                        "prescribed", "stopped", "stopping", "stop", "on", "restarted",
                        "continue", "continued", "increased", "reduced", "switched"})
# Lower-case words of time that a tagger takes for a name ("reply by noon").
TIME_WORDS = frozenset({"noon", "midnight", "today", "tomorrow", "tonight", "yesterday",
                        "morning", "afternoon", "evening", "weekend",
                        # "years" of an age in other languages ("67 años", "45 ans")
                        "años", "anos", "ans", "anni", "jahre", "jaar", "jaren", "år", "lat"})
#: Days of the week and their abbreviations ("callback by Fri"): no name where read weakly.
WEEKDAYS = frozenset({"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "monday",
                      "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
# Two-word sign-offs: the first word is no name before the second ("Kind regards").
SIGN_OFF_HEADS = frozenset({"kind", "best", "warm", "warmest", "many", "with"})
SIGN_OFF_TAILS = frozenset({"regards", "wishes", "thanks"})
# Honorifics kept on a name the tagger took them with ("Mrs Doubtfire", "Lord Hanuman").
HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "lord",
                        "lady", "rev", "reverend", "professor", "doctor"})
#: The honorifics written cut short, which name no noun in lower case ("dr. lim"; not
#: "this lady …").
SHORT_HONORIFICS = frozenset({"mr", "mrs", "ms", "mx", "dr", "prof"})
#: Role words that are surnames too, so the roles list leaves them out: no name in lower case
#: before a name ("account holder Ravi Menon"; "Eric Holder" keeps his name).
LOWER_ROLES = frozenset({"holder"})
# Fields whose value is never a name ("Importance: High").
VALUE_FIELDS = frozenset({"importance", "priority", "sensitivity", "x-priority", "product",
                          "item", "model", "device", "sku"})
#: Fields whose value is a place: a place of the lookup there is the place ("City: Izmir",
#: ``"city": "İzmir"``), whatever name it is too.
PLACE_FIELDS = frozenset({"city", "town", "country", "state", "province", "county", "region",
                          "birthplace", "ville", "ciudad", "cidade", "città", "stadt", "ort",
                          "woonplaats", "plaats", "miasto", "localidade", "localidad",
                          "wohnort", "il", "şehir", "kota"})
#: Labels of a form's fields whose value is an organisation, a place or a thing, not a person
#: ("Employer: Lyft", "Bank: Lloyds", "Make/colour: Ford Fiesta", "Zorgverzekeraar: Zilveren
#: Kruis"): there a value the tagger reads only weakly is no name (a firm named after its
#: founder, "Employer: Wells Fargo", is not the founder; "Employer: Mrs Joan Bright" keeps hers).
ORG_FIELDS = frozenset({"employer", "company", "organisation", "organization", "firm", "bank",
                        "insurer", "insurance", "make", "vehicle", "laptop", "occupation",
                        "hotel", "airline", "school", "university", "college", "employeur",
                        "entreprise", "banque", "assureur", "mutuelle", "arbeitgeber", "firma",
                        "krankenkasse", "versicherung", "empresa", "banco",
                        "aseguradora", "escuela", "azienda", "banca", "datore",
                        "werkgever", "zorgverzekeraar", "verzekeraar", "arbetsgivare",
                        "pracodawca", "empregador"})
#: What a firm or a service runs or employs, after its name ("Spotify support", "Monzo staff").
SERVICE_NOUNS = frozenset({"support", "helpdesk", "staff", "app", "account", "store",
                           "subscription", "website", "employees", "customer"})
#: Street types that are nobody's name: after one or two capitalised words, a street even
#: without a house number or a preposition before it ("Albert Road car park"; "Gary Lane"
#: and "Della Street" need one).
STREET_ONLY = frozenset({"road", "rd", "avenue", "ave", "boulevard", "blvd", "crescent",
                         "drive", "gardens", "highway", "mews", "parkway", "terrace"})
#: Family words that are given names too, so the kinship list leaves them out: in lower case
#: the kin ("pick up gran at 10", "my nan turned 90"; "Nan Goldin", "Papa Censor" keep theirs).
KIN_NAMES = frozenset({"nan", "nana", "nanna", "gran", "granda", "papa", "dadi", "dada",
                       "oma", "bibi"})
#: Articles in lower case: a lower-case word after one that no list holds as a name is a noun.
ARTICLES = frozenset({"a", "an", "the"})
#: Determiners before a product in a mail ("your Kindle Paperwhite", "the Bose QuietComfort").
DETERMINERS = frozenset({"the", "a", "an", "your", "my", "our", "their", "his", "her", "this",
                         "that", "new"})
# Prepositions before a street name ("at Mill Lane"); not "to" or "from", which precede
# persons as often ("a letter from Gary Lane").
STREET_PREPOSITIONS = frozenset({"at", "on", "off", "along", "near", "via", "down", "up",
                                 "into", "onto", "opposite", "in"})
# Sign-offs whose next line (or the rest of their line) is a signature.
SIGN_OFFS = frozenset({"thanks", "thank", "regards", "best", "cheers", "sincerely", "yours",
                       "warmly", "love", "faithfully", "respectfully", "cordially", "ta",
                       # and in other languages ("Un abrazo, Maite", "Kram, Karin")
                       "cordialement", "amitiés", "bises", "bisous", "grüße", "grüsse",
                       "gruß", "gruss", "saludos", "abrazo", "abrazos", "besos", "atentamente",
                       "saluti", "saluto", "abraços", "beijos", "atenciosamente",
                       "cumprimentos", "groet", "groeten", "groetjes", "hälsningar",
                       "hilsen", "kram", "mvh", "pozdrawiam", "pozdrowienia", "saludo",
                       "cordiales", "afectuosamente", "salutations", "mfg", "lg", "vg"})
#: Words a sign-off of other languages opens with ("Un abrazo", "Viele Grüße", "Met
#: vriendelijke groet", "Med vänlig hälsning").
SIGN_OFF_LEADS = frozenset({"un", "muchos", "muchas", "viele", "liebe", "herzliche", "beste",
                            "freundliche", "cordiali", "tanti", "met", "vriendelijke", "med",
                            "vänlig", "vänliga", "com", "muitos", "bons", "gros", "bien",
                            "grosses", "mit", "cordial", "distinti", "sinceras"})
# Mail header fields whose value is a person ("To: Priya Rain", "From: Rain, Priya").
MAIL_FIELDS = frozenset({"from", "to", "cc", "bcc", "attn", "attendees", "sender", "recipient"})
# What ends the name on a signature line ("Zara – Samsung Online Store", "Li Wei, Support").
SIGNATURE_SEPARATORS = frozenset({"-", "–", "—", "|", ",", "/", "(", "@"})
# Verbs and apologies a lower-case name follows in a chat ("tell aoife", "ask bilal", "@ping
# niamh", "sorry kwame!!").
ADDRESS_VERBS = frozenset({"tell", "ask", "ping", "cc", "goodnight", "gn", "gm", "ily", "sorry",
                           "sry", "soz"})
# Verbs after a person's name and phrases before one, in notes and messages.
AFTER_NAME = frozenset({"called", "phoned", "rang", "emailed", "texted", "messaged"})
BEFORE_NAME = (("ask", "for"), ("spoke", "with"), ("spoke", "to"), ("speak", "to"),
               ("talk", "to"), ("talked", "to"), ("call",), ("contact",))
_TIME = re.compile(r"^\d{1,2}:\d{2}(:\d{2})?([ap]m)?$", re.IGNORECASE)
#: Tokens of a date before an unbracketed time stamp ("12/03/2024", ",", "Mon").
_STAMP_PART = re.compile(r"^(\d{1,4}([/.-]\d{1,4}){0,2}|,|[A-Z][a-z]{2}\.?)$")
#: Tokens a time stamp's date, day and AM/PM may take besides the time.
STAMP_TOKENS = 4
_AGE_SEX = re.compile(r"^\d{1,3}(y/?o|yo)?[mf]$", re.IGNORECASE)
#: Codes of capitals and digits: stages and types (``CKD3``, ``DM2``, ``T2DM``), orientation
#: scores (``A&Ox3``), flats and beds (``3B``, ``12A``), quarters and halves (``Q2``, ``H1``).
#: On the dev and train splits 4 of 400 such tokens are names (handles of capitals), so a
#: code is a name only where the tagger is sure of it.
_CODE = re.compile(
    r"^(?:[A-Z][A-Z&/]{0,5}x?\d{1,2}[A-Z]{0,3}|[A-Z]\d[A-Z]{1,4}|\d{1,4}[A-Z]{1,2}|"
    r"G\d{1,2}P\d{1,4}|"  # gravida and para ("G3P2", "G2P1011")
    r"x\d{1,2}[a-z]{0,2}|\d{1,3}(?:yo|mo|wk|wks|yr|yrs|hr|hrs|min|d|h))$")  # "x2", "8yo"
#: A Roman numeral (``II``, ``IV``, ``I.``) and the words of scales and classes it follows
#: (``Mallampati II``, ``cat I``, ``stage IV``, ``NYHA class III``): a grade, not a name.
_ROMAN = re.compile(r"^(?=[IVX])X{0,2}(?:IX|IV|V?I{0,3})\.?$")
#: Scales named after people that are also surnames (Fisher, Hunt, Tanner) are left out:
#: "John Fisher II" is a name.
GRADED = frozenset({"cat", "category", "class", "grade", "stage", "type", "level", "phase",
                    "tier", "mallampati", "asa", "nyha", "gcs"})
#: A product's model code after its brand or line ("V15", "CM1000", "S23", "PX8A").
_MODEL = re.compile(r"^(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z][A-Z0-9-]{1,8}$")
_DASHES = re.compile(r"-{3,}|_{3,}|={3,}")
_ADDRESS_PART = re.compile(r"[._\-+]")
MAX_RUN = 3  # capitalised words taken before a role word or a street type
#: List bullets at the start of a line.
BULLETS = frozenset({"-", "*", "•", "–", "—", "·"})
#: Rooms and beds whose number a patient's name follows in a note ("RM 407 BHATTACHARYA").
ROOM_WORDS = frozenset({"rm", "room", "bed", "bay", "cubicle", "cube"})
#: Companions a name follows like kin's ("roommate Summer", "Dtr April"), besides the kinship
#: words of ``vocabulary("kinship")``.
COMPANIONS = frozenset({"dtr", "hubby", "roommate", "flatmate", "housemate", "friend",
                        "neighbour", "neighbor", "carer", "caregiver", "guardian", "sibling",
                        "fiancé", "fiancée"})
#: Nouns for a person that a name follows in a note written in capitals (``CUSTOMER
#: STRONG NOT HOME``): in capitals the tagger barely reads a name that is also a word.
PERSON_NOUNS = frozenset({"customer", "client", "patient", "caller", "tenant", "resident",
                          "cust", "agent", "user", "member", "guest", "visitor"})
#: Census rank cuts for a capitals word read as a name in those contexts (chosen on the
#: register sample's dev split): after a person noun a common surname or first name; a
#: two-word name before ``CALLED`` needs one census word.
CAPS_FIRST_RANK = 2000
CAPS_SURNAME_RANK = 5000
CAPS_PAIR_SURNAME_RANK = 25000
# Auxiliaries and negations that follow a person noun ("CLIENT WILL CALL"), never a name
# there although the census lists some (Will, May).
_CAPS_NOT_NAME = frozenset({"will", "may", "can", "not", "has", "had", "must", "should",
                            "would", "could", "says", "said", "wants", "called"})


@functools.cache
def vocabulary(name: str) -> frozenset[str]:
    """The lower-case words of one vocabulary of :data:`VOCABULARIES`: a file
    ``register_<name>.txt``, or a ``[section]`` of one (:data:`SECTIONS`: ``street`` and
    ``address`` of ``register_address.txt``, ``kinship`` of ``register_roles.txt``; the
    roles vocabulary is its whole file, kinship words included)."""
    if name not in VOCABULARIES:
        raise ValueError(f"unknown vocabulary {name!r}; known: {', '.join(VOCABULARIES)}")
    sections = word_sections(DATA_DIR / f"register_{SECTIONS.get(name, name)}.txt")
    if name in SECTIONS:
        return sections.get(name, frozenset())
    return frozenset().union(*sections.values())


def key(word: str) -> str:
    """The form a word is looked up by: case-folded, possessive and a final dot or colon
    removed, a leading ``@`` removed (``@amal`` and ``Amal's`` are ``amal``)."""
    low = word.casefold().lstrip("@")
    for end in POSSESSIVES:
        if low.endswith(end) and len(low) > len(end) + 1:
            low = low[: -len(end)]
            break
    return low.rstrip(".:")


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word[:1].isalpha()


def _wordlike(word: str) -> bool:
    return any(c.isalpha() for c in word)


def _is_space(word: str) -> bool:
    return not word.strip()


class _Text:
    """One doc's words with the lookups the rules share (lines, neighbours); ``is_word``:
    whether a capitalised word is mainly an ordinary word of the doc's language
    (:func:`textdp.detect.places.word_test`), ``has_vector``: whether its lower-case form
    has a row in the pipeline's vectors (:func:`textdp.detect.places.vector_test`); ``None``
    where no vocab is known."""

    def __init__(self, words: Sequence[str],
                 is_word: Callable[[str], bool] | None = None,
                 glued: Sequence[bool] | None = None,
                 has_vector: Callable[[str], bool] | None = None) -> None:
        self.words = list(words)
        self.is_word = is_word
        self.has_vector = has_vector
        # glued[k]: no whitespace between token k and k + 1 ("Steuer-ID"); None: unknown
        self.glued = list(glued) if glued is not None else None
        self.n = len(words)
        self.keys = [key(w) for w in words]
        line, lines = 0, []
        for w in words:
            lines.append(line)
            if _is_space(w) and "\n" in w:
                line += 1
        self.line = lines
        self.lines: dict[int, list[int]] = {}
        for k, ln in enumerate(lines):
            if not _is_space(words[k]):
                self.lines.setdefault(ln, []).append(k)

    @functools.cached_property
    def clinical(self) -> bool:
        """Whether the text reads as a clinical note (:func:`_clinical`)."""
        return _clinical(self)

    @functools.cached_property
    def rebuilt(self) -> tuple[str, list[int]]:
        """The text rebuilt from its words (one space where a token is not glued to the
        next) and each token's start in it."""
        glued = self.glued or [False] * self.n
        starts, pos = [], 0
        for w, g in zip(self.words, glued):
            starts.append(pos)
            pos += len(w) + (0 if g else 1)
        return "".join(w + ("" if g else " ") for w, g in zip(self.words, glued)), starts

    def tokens_in(self, ranges: Iterable[tuple[int, int]]) -> set[int]:
        """The tokens overlapping character ranges of :attr:`rebuilt`."""
        starts = self.rebuilt[1]
        out: set[int] = set()
        for a, b in ranges:
            k = max(0, bisect.bisect_right(starts, a) - 1)  # the token holding or before a
            while k < self.n and starts[k] < b:
                if a < starts[k] + len(self.words[k]):
                    out.add(k)
                k += 1
        return out

    @functools.cached_property
    def street_and_header_tokens(self) -> set[int]:
        """The tokens of the text's street addresses
        (:func:`textdp.detect.streets.find_streets`) and of its records' header lines
        (:func:`textdp.detect.delimited.header_cells`: ``first_name,sort_code``)."""
        text = self.rebuilt[0]
        # (a street without a house number stands only after an address cue: not worth the
        # patterns' time on a text without a digit)
        streets = find_streets(text) if any(c.isdigit() for c in text) else []
        return self.tokens_in(streets) | self.tokens_in(header_cells(text))

    @functools.cached_property
    def language(self) -> str | None:
        """The language other than English the text is written in (:func:`text_language`),
        read once for the rules that ask."""
        return text_language(self.words)

    @functools.cached_property
    def speaker_labels(self) -> list[int]:
        """The speaker labels of the text's chat lines (:func:`_speaker_labels`)."""
        return _speaker_labels(self)

    @functools.cached_property
    def plain_labels(self) -> list[int]:
        """The speaker labels of a transcript without stamps (:func:`_plain_labels`)."""
        return _plain_labels(self)

    @functools.cached_property
    def labels(self) -> frozenset[int]:
        """Every speaker label of the text, stamped or not."""
        return frozenset(self.speaker_labels) | frozenset(self.plain_labels)

    @functools.cached_property
    def caps(self) -> bool:
        """Whether the text is written in capitals (:func:`_mostly_upper`)."""
        return _mostly_upper(self.words)

    def glued_run(self, start: int, end: int) -> bool:
        """Whether tokens ``start``..``end`` are written without whitespace between them
        (unknown: no)."""
        return self.glued is not None and end < self.n and \
            all(self.glued[j] for j in range(start, end))

    def next(self, k: int) -> int | None:
        """The next non-space token on ``k``'s line."""
        j = k + 1
        while j < self.n and _is_space(self.words[j]) and "\n" not in self.words[j]:
            j += 1
        return j if j < self.n and not _is_space(self.words[j]) else None

    def prev(self, k: int) -> int | None:
        j = k - 1
        while j >= 0 and _is_space(self.words[j]) and "\n" not in self.words[j]:
            j -= 1
        return j if j >= 0 and not _is_space(self.words[j]) else None

    def cap_run_before(self, k: int, limit: int = MAX_RUN) -> list[int]:
        """Capitalised words right before ``k`` (at most ``limit``), nearest last."""
        out: list[int] = []
        j = self.prev(k)
        while j is not None and len(out) < limit and _capitalised(self.words[j]) and \
                (self.keys[j] not in STOP_WORDS or self.words[j].isupper()):  # "IT Manager"
            out.insert(0, j)
            j = self.prev(j)
        return out

    def cap_run_after(self, k: int, limit: int = MAX_RUN) -> list[int]:
        out: list[int] = []
        j = self.next(k)
        while j is not None and len(out) < limit and _capitalised(self.words[j]) and \
                self.keys[j] not in STOP_WORDS:
            out.append(j)
            j = self.next(j)
        return out


class RegisterStage:
    """Reads an ensemble's person spans in the register of the text (see the module doc).

    Args:
        entities: use the spaCy pipeline's NER (the embedded ``en_core_web_md`` by default,
            or ``nlp``) as negative evidence for lone words read as places or organisations.
        precision: take out the words the register shows are no names (step 1).
        recall: add the names the register shows, and every mention of a name (steps 2, 3).
        nlp: the spaCy pipeline whose NER gives the evidence (``None``: the embedded one).
    """

    name = "register"

    def __init__(self, *, entities: bool = False, precision: bool = True, recall: bool = True,
                 nlp: Any = None) -> None:
        self.entities = bool(entities)
        self.precision = bool(precision)
        self.recall = bool(recall)
        self._nlp = nlp
        self._ner: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_ner": None}

    def __call__(self, docs: Sequence[Any], spans: Sequence[Sequence[Span]],
                 scores: Sequence[dict[int, float] | None] | None = None
                 ) -> list[list[Span]]:
        """Each doc's spans read in its register. ``scores``: per doc, the tagger's score
        of the person tokens only scored members found (:func:`~textdp.detect.ensemble.
        member_scores`); where one is weak, the pipeline's NER is asked about that doc."""
        docs = list(docs)
        # one pass over each doc's tokens: the words, and which are glued to the next
        read = [[(t.text, not t.whitespace_) for t in doc] for doc in docs]
        words = [[w for w, _ in toks] for toks in read]
        from textdp.detect.places import vector_test, word_test

        is_word = word_test(docs[0].vocab) if docs else None
        has_vector = vector_test(docs[0].vocab) if docs else None
        # read once, for the NER question and the rules
        texts = [_Text(ws, is_word, [g for _, g in toks], has_vector)
                 for ws, toks in zip(words, read)]
        if scores is None:
            scores = [None] * len(docs)
        ask = [i for i in range(len(docs)) if self.precision and (
            self.entities or _asks_entities(texts[i], spans[i], scores[i]))]
        entities: list[list[Span] | None] = [None] * len(docs)
        if ask:
            if self._ner is None:
                from textdp.detect.spacy_ner import SpacyNERDetector

                self._ner = SpacyNERDetector(self._nlp)
            from spacy.tokens import Doc

            # Copies: the NER must not set entities on the caller's docs.
            copies = [Doc(docs[i].vocab, words=words[i],
                          spaces=[bool(t.whitespace_) for t in docs[i]]) for i in ask]
            for i, ents in zip(ask, self._ner(copies)):
                entities[i] = list(ents)
        return [self._apply(text, doc_spans, ents, sc)
                for text, doc_spans, ents, sc in zip(texts, spans, entities, scores)]

    # ------------------------------------------------------------------ one doc
    def apply(self, words: Sequence[str], spans: Sequence[Span],
              entities: Iterable[Span] | None = None,
              scores: dict[int, float] | None = None) -> list[Span]:
        """One doc's spans (token indices of ``words``) read in its register; ``entities``
        are the NER's spans of the doc (any labels), ``scores`` the tagger's scores of the
        person tokens only it found (weak ones are weighed against the NER's reading)."""
        return self._apply(_Text(words), spans, entities, scores)

    def _apply(self, text: _Text, spans: Sequence[Span], entities: Iterable[Span] | None,
               scores: dict[int, float] | None) -> list[Span]:
        """:meth:`apply` on a doc's words already read (:class:`_Text`)."""
        persons = {k for s, e, lab in spans if lab == PERSON for k in range(s, e)}
        scores = _effective_scores(text, persons, scores) if scores else {}
        entities = list(entities or ())
        drop: set[int] = set()
        unshown: set[int] = set()
        weak: set[int] = set()
        if self.precision:
            drop = self.non_names(text, persons, scores, entities)
            persons -= drop
            # The NER's evidence is weaker than the text's own: a name the register shows
            # (an address part, a signature) takes back a word it read as a place.
            weak = self.weak_evidence(text, persons, scores, entities)
            persons -= weak
            drop |= weak
            # not dropped for good: a context of step 2 may take them back ("SKY YOUNG CALLED")
            unshown = self.unshown_words(text, persons, scores)
            persons -= unshown
            places = self.listed_places(text, persons)
            persons -= places
            drop |= places
            if self.entities:
                persons -= self.entity_evidence(text, persons, entities)
            persons -= self.stray_lower(text, persons, scores)
            persons -= _foreign_lower(text, persons)
            foreign = _foreign_capitals(text, persons)
            persons -= foreign
            drop |= foreign
        if self.recall:
            # the text's own evidence takes back what only the NER's weak reading dropped
            added = self.names(text, persons, scores) - (drop - weak)
            persons |= added
            # a name's glued lower-case part, though a word alone ("Ji-woo": woo)
            tails = _hyphen_tails(text, persons)
            persons |= tails
            added |= tails
            # an unshown common word in capitals comes back at no other mention (AWARE)
            blocked = {k for k in unshown - added
                       if text.words[k].isupper() and text.keys[k] in common_words()}
            persons |= self.every_mention(text, persons, added) - drop - blocked
        return _rebuild(text, spans, persons)

    # ------------------------------------------------------------------ step 1
    def non_names(self, text: _Text, persons: set[int],
                  scores: dict[int, float] | None = None,
                  entities: Sequence[Span] = ()) -> set[int]:
        """Tokens of ``persons`` that the register shows are no names, and the other
        tokens that are labels, abbreviations or place words in their place (kept from
        step 2 and 3). ``scores`` and ``entities`` weigh the words of subject lines."""
        from textdp.detect.lexicon import is_first_name, is_listed_name, is_surname

        words, keys = text.words, text.keys
        fields, clinical = vocabulary("field_labels"), vocabulary("clinical")
        eponyms = vocabulary("eponyms")
        drugs = vocabulary("drugs")
        interjections, roles = vocabulary("interjections"), vocabulary("roles")
        brands = vocabulary("brands")
        kinship = vocabulary("kinship")
        orgs, streets = vocabulary("organisations"), vocabulary("street")
        address = vocabulary("address")
        out: set[int] = set(_form_labels(text))
        out.update(_weak_field_labels(text, persons, scores))
        # a street address's words ("Calle Juárez 58", "Via Garibaldi 12") are the
        # street's; a records' header line names columns ("first_name,sort_code")
        out.update(text.street_and_header_tokens & persons if persons else ())
        # a bot's or a service's speaker label ("PagerDuty:", "Nightbot:")
        out.update(k for k in persons & text.labels
                   if _bot_label(words[k]))
        for k, w in enumerate(words):
            kk = keys[k]
            if not _wordlike(w):
                continue
            nxt = text.next(k)
            nw = words[nxt] if nxt is not None else ""
            # Labels before a colon ("Subject:", "E:", "X-To:") or a number ("MRN 00482913",
            # "SIN 130 692 544").
            if _ROMAN.match(w) and (p := text.prev(k)) is not None and keys[p] in GRADED:
                out.update((p, k))  # "Mallampati II", "cat I.": a grade and its scale
            elif kk in brands:
                out.add(k)  # an app, a service or a device ("join on Zoom", "via Venmo")
            elif text.clinical and (w.islower() or kk in clinical) and \
                    _CONDITION_CUE.search(text.rebuilt[0], max(0, text.rebuilt[1][k] - 8),
                                          text.rebuilt[1][k]):
                out.add(k)  # "s/p fall", "h/o CABG": an event or a condition, no person
            elif text.clinical and _capitalised(w) and nw == "(" and \
                    (j := text.next(nxt)) is not None and keys[j].rstrip(".") == "dr":
                out.add(k)  # a service before its clinician ("Endo (Dr. Shah) following")
            elif w.startswith("@") and kk in GROUP_MENTIONS:
                out.add(k)  # "@channel", "@here": a chat's call to everyone, no account
            elif w.islower() and kk in ADDRESS_VERBS and k in persons and \
                    text.next(k) in persons:
                out.add(k)  # "tell farai thanks": the verb before the name
            elif _JAMO.fullmatch(w):
                out.add(k)  # "ㅋㅋ", "ㅇㅋ", "ㅠㅠ": Korean letters alone spell no name
            elif len(w.rstrip(".")) == 1 and (p := text.prev(k)) == k - 1 and \
                    words[p] in ("<", ">", "="):
                out.add(k)  # "tremor R>L.", "A=B": a side or a variable, no initial
            elif w.islower() and kk in HOME_NOUNS and (p := text.prev(k)) in persons and \
                    (q := text.prev(p)) is not None and keys[q] in HOME_PREPOSITIONS:
                out.add(k)  # "to jens house": the home, not a surname
            elif _capitalised(w) and kk in common_words() and key(nw) in ROOM_NOUNS and \
                    _capitalised(nw) and not is_first_name(kk):
                out.update((k, nxt))  # "the Oak Room", "Pine Hall": a room's or building's name
            elif kk in UNIT_NOUNS and nxt is not None and _UNIT_NUMBER.fullmatch(nw) and \
                    text.prev(k) not in persons:
                out.add(k)  # "Ward 7", "Bay 3B": a unit of a place, no surname ("Rachel Ward 555")
            elif _SCORE_CODE.fullmatch(w):
                out.add(k)  # "CURB-65", "PHQ-9", "COVID-19": a score or a code
            elif _VERB_FORM.fullmatch(w):
                out.add(k)  # "PT/OT eval'd", "d/c'd", "tx'ing": a verb, spelt short
            elif w.islower() and len(w) >= 7 and w.endswith(MEDICAL_SUFFIXES) and \
                    not is_first_name(kk):
                out.add(k)  # "cellulitis", "hematoma", "cholecystectomy": a condition
            elif "@" in w[1:] and _role_mailbox(w):
                out.add(k)  # "noreply@bank.example", "billing-team@acme.com": no person
            elif k in persons and _capitalised(w) and (p := text.prev(k)) is not None and \
                    keys[p] in PROJECT_HEADS and _capitalised(words[p]) and \
                    not is_first_name(kk):
                out.add(k)  # "Project Falcon", "Operation Sandstone": a code name
            elif k in persons and w.startswith("@") and _service_handle(w):
                out.add(k)  # "@SouthwestAir": a firm's account, words in camel case
            elif k in persons and _hashtag(text, k) and _topic_hashtag(w):
                out.add(k)  # "#proudbigbro", "#SayNoToButter": words run together, a topic
            elif _property_key(text, k):
                out.add(k)  # "BEGIN:VCARD", "N:Deshpande;Anjali", "CN=Nadia": a card's keys
            elif _mid_line_label(text, k):
                out.add(k)  # "…, Ansprechpartner: Herr Mehmet Yılmaz": a field's label
            elif _record_key(text, k):
                out.add(k)  # "full_name": …, "homeCity": …: a record's field, no person
            elif w in ("M", "F") and (p := text.prev(k)) is not None and p == k - 1 and \
                    words[p].isdigit():
                out.add(k)  # "51M" cut by the tokenizer into "51" "M": age and sex
            elif _CODE_TOKEN.fullmatch(w):
                out.add(k)  # "XJH448821903": capitals and digits are a code, not a name
            elif w.casefold().startswith(("http://", "https://", "www.")) and \
                    parse_profile_url(w) is None:
                out.add(k)  # a link, unless to a person's profile (read as a handle)
            elif w.isupper() and kk in CODE_ACRONYMS and nxt is not None and (
                    nw == ":" or _code_like(nw) or (key(nw) in CODE_KINDS and
                                       (n2 := text.next(nxt)) is not None and
                                       _code_like(words[n2]))):
                out.add(k)  # "SWIFT code LJJAGB3X", "MAC de:7a:36:33:1f:a6"
            elif kk in fields and w.islower() and kk not in common_words():
                out.add(k)  # a label's word in lower case ("send everyone's aadhaar no")
            elif w.islower() and nw == "(" and kk in common_words() and \
                    (j := text.next(nxt)) is not None and j in persons and \
                    (e := text.next(j)) is not None and words[e] == ")":
                out.add(k)  # the role a name in brackets follows ("call plumber (Gavin)")
            elif w in US_STATE_CODES and nw == ")" and (p := text.prev(k)) is not None and \
                    words[p] == "(" and (q := text.prev(p)) is not None and _has_digit(words[q]):
                out.add(k)  # a licence's or a plate's state ("W426-545-30-761-0 (FL)")
            elif kk in ("col", "colonia") and _capitalised(w) and \
                    (p := text.prev(k)) is not None and words[p] == "," and \
                    text.prev(p) in text.street_and_header_tokens:
                # a Mexican address's neighbourhood, no colonel ("Av. Insurgentes Sur 1602,
                # Col. Crédito Constructor")
                out.add(k)
                j = text.next(k)
                if j is not None and words[j] == ".":
                    j = text.next(j)
                while j is not None and _capitalised(words[j]):
                    out.add(j)
                    j = text.next(j)
            elif kk in ("st", "saint") and _capitalised(w) and \
                    (saint := _saints_name(text, k, persons)) is not None:
                # a saint's name alone: a church, school, hospital or town ("at St.
                # Vincent's", "St Helens"); not a name's part ("Jill St. John", "St. John
                # Smith")
                out.update((k, saint))
            elif w.islower() and w.isalpha() and (a := text.prev(k)) is not None and \
                    words[a] in ARTICLES and not is_listed_name(kk) and \
                    text.prev(a) not in persons:
                # "prescribed an inhaler": a noun; not "the trump admin", nor a name's
                # epithet ("Nathan the prophet", "roger the roo")
                out.add(k)
            elif kk in fields and (nw in (":", "：") or w.endswith(":") or _has_digit(nw) or
                                 "".join(words[k + 1:k + 4]).startswith("(s):") or
                                 "@" in nw or key(nw) == "number" or (
                    key(nw) in ("is", "no", "nr", "#") and nxt is not None and
                    (n2 := text.next(nxt)) is not None and
                    (_has_digit(words[n2]) or words[n2] == ":"))):
                # "MRN: 0048", "SIN 130 692 544", "Aadhaar is 2341 2345 6708",
                # "Email j.smith@example.com", "NI number QQ 12 34 56 C"
                out.add(k)
                # and the common word that opens the label with it, anywhere on its line
                # ("Okonkwo-Bright    First name: Adaeze    Middle initial: N")
                q = text.prev(k)
                if nw == ":" and w.islower() and q is not None and \
                        text.line[q] == text.line[k] and _capitalised(words[q]) and \
                        keys[q] in common_words() and not is_listed_name(keys[q]):
                    out.add(q)
                p = text.prev(k)
                if p is not None and words[p] == "-":
                    q = text.prev(p)
                    # "X-To:", "Reply-To:"; any word glued to the label ("Steuer-ID 6592…")
                    if q is not None and (keys[q] in ("x", "reply", "in", "message", "resent")
                                          or text.glued_run(q, k)):
                        out.add(q)
            elif w.isupper() and kk in CLINICAL_CAPS and text.clinical:
                out.add(k)  # "ED triage", "OR 3": in a note the department, not Ed or Or
            elif kk in eponyms and ((text.clinical and _eponym_in_use(text, k)) or (
                    _capitalised(w) and key(nw) in EPONYM_THINGS and
                    (p := text.prev(k)) is not None and keys[p] not in EPONYM_TITLES)):
                # "Foley catheter", "Apgar 8/9", "Parkinson's": what it names; outside a
                # note before the thing's own noun ("with a Zimmer frame", "Bell palsy"),
                # which the tagger may have read with it
                out.add(k)
                if nxt is not None and nw.islower() and key(nw) in EPONYM_NOUNS:
                    out.add(nxt)
            elif text.clinical and w[:1].isupper() and (chain := _eponym_chain(text, k)):
                out.update(chain)  # "Dix-Hallpike +", "Wolff-Parkinson-White pattern"
            elif kk == "will" and w.isupper() and text.caps and nxt is not None and \
                    words[nxt].isupper() and words[nxt].isalpha() and \
                    not is_surname(keys[nxt], 5000):
                out.add(k)  # "WILL RECHECK IN 1 HR": the modal (not "WILL SMITH CALLED")
            elif kk in CAPS_KIN and nxt is not None and _capitalised(nw) and (
                    (w.isupper() and nw.isupper() and text.caps) or (
                        w.istitle() and text.clinical and (scores or {}).get(k, 0.0) <
                        WEAK_SCORE and _opens_sentence(text, k))):
                out.add(k)  # kin before a name ("SON EMEKA"; in a note "Son Bao to …")
            elif text.clinical and _lab_in_list(text, k, clinical):
                out.add(k)  # "AST 88, ALT 102": a lab value in a list of lab values
            elif kk in drugs and (text.clinical or (scores or {}).get(k, 0.0) < SUBJECT_SCORE or
                                  ((p := text.prev(k)) is not None and keys[p] in DRUG_VERBS)):
                # a drug name ("Eliquis", "LASIX"); outside a note only a weak reading: drug
                # brands are surnames too ("Evra can cope with Anfield abuse")
                out.add(k)
            elif (kk in PERSON_NOUNS or kk in COMPANIONS or (
                    w.islower() and (kk in kin_words() or kk in KIN_NAMES))) and \
                    not _inside_name(text, k, persons):
                out.add(k)  # "cust Faith Adeleke", "Agent (Imani)", "per son Xu Jian"
            elif kk in clinical or kk.rstrip("+-") in clinical or kk in STOP_WORDS or (
                    # an interjection that is also a name only in lower case ("ty", "Ty")
                    kk in interjections and (w.islower() or not is_listed_name(kk))) or \
                    (w.islower() and _squeeze(kk) in interjections):  # "lmaooo", "heyyyy"
                # "A." and "I." are initials: the one-letter stop words count in lower case
                # (longer ones in any case: "MR. JOHNSON IS A 72 YO MALE");
                # a stop word between two person words is part of the name ("Winnie the
                # Pooh", "Duke of Norfolk").
                if kk in STOP_WORDS and (
                        not (w.islower() or ((w.istitle() or w.isupper()) and len(kk) > 1))
                        or _inside_name(text, k, persons)):
                    continue
                out.add(k)
            elif ((_CODE.match(w) or kk in WEEKDAYS) and
                  (scores or {}).get(k, 0.0) < SUBJECT_SCORE) or \
                    (kk in TIME_WORDS and w.islower()) or _AGE_SEX.match(w) or \
                    (kk in SIGN_OFF_HEADS and key(nw) in SIGN_OFF_TAILS):  # "Kind regards"
                out.add(k)
            elif len(w) == 2 and w[0].isupper() and w[1] == "." and (_slashed(words, k) or (
                    text.clinical and nxt is not None and words[nxt][:1].islower())):
                # "M/R/G.", "B/L."; "H. pylori", "C. diff": in a note the genus, no initial
                out.add(k)
            elif len(w) == 1 and w.isupper():
                p = text.prev(k)
                # "34 M", "L knee": a lone capital after a number or before a lower-case
                # word is not an initial (initials come before a capitalised surname).
                behind = "".join(words[max(0, p - 2):p + 1]).casefold() if p is not None \
                    else ""
                if (w in "MF" and (behind[-1:].isdigit() or behind.endswith(
                        ("y/o", "yo", "old", "yr", "yrs")))) or \
                        (nxt is not None and words[nxt][:1].islower()) or \
                        (nw == "-" and nxt is not None and nxt == k + 1) or \
                        _slashed(words, k):
                    out.add(k)  # "X-ray"; "C/O", "B/L", "M/R/G": letters of an abbreviation
            elif kk in address and (_has_digit(nw) or key(nw) in address):
                out.add(k)
        # Quoted-reply and forward markers: the marker words of a line of dashes, and a
        # line of marker words alone ("Original Message", with or without its dashes).
        for toks in text.lines.values():
            marks = {k for k in toks if _DASHES.sub("", keys[k]) in MARKER_WORDS}
            line_keys = {_DASHES.sub("", keys[k]) for k in toks if _wordlike(words[k])}
            if any(_DASHES.search(words[k]) for k in toks) or (
                    line_keys and line_keys <= MARKER_WORDS and
                    line_keys & {"message", "forwarded"}):
                out.update(marks)
        # Acronyms: a run of ALL-CAPS words in a text written in lower case ("TW", "FERC",
        # "ECOELECTRICA") none of which is a common name ("Abby LOPEZ" stays).
        if _mostly_lower(words) and len(text.lines) >= 3:  # mail and notes, not a post
            signed = _signature_lines(text)
            # (a form's name in capitals after its label is none: "First name(s): NEHA
            # RAJESH")
            labelled = set(_labelled_names(text))
            for a, b in runs(persons):
                toks = [k for k in range(a, b) if _wordlike(words[k])]
                if len(toks) == 1 and _beside_person(text, toks[0], persons):
                    continue  # "Lohman, TK": initials beside a name
                # A signature in capitals ("Best regards,\nAZMAT") is a name, the run the
                # tagger carried over the line break into the next line's acronym aside.
                toks = [k for k in toks if text.line[k] not in signed]
                if toks and all(words[k].isalpha() and words[k].isupper() and
                                len(words[k]) >= 2 and not is_first_name(words[k], 1000)
                                and not is_surname(words[k], 5000) and k not in labelled
                                for k in toks):
                    out.update(toks)
        # Month names read as months ("the April numbers", "12% on March, but May looks
        # softer"), and their other mentions ("April was up 12%").
        out.update(_months(text, persons))
        # A run the tagger carried from a name into the common words around it ("Dave the
        # plumber"): those words are no name.
        out.update(_common_edges(text, persons))
        # Subject lines are titles: a person run there stays only with a first name in it,
        # a name the tagger is sure of (with a census name or the NER's PERSON reading), or
        # a mention of its words as a person outside the subject lines that is not itself
        # a weak tagger reading ("SoCalGas Developments" … "SoCalGas sent out").
        subject_lines = _subject_lines(text)
        if subject_lines:
            out.update(self.subject_words(text, persons - out, subject_lines, scores or {},
                                          entities))
        # Role words, and the capitalised words they head: "IT Manager", "Minister of
        # Health", "Prime Minister" (the name after a title stays: "Senator Lee").
        for k, w in enumerate(words):
            if keys[k] not in roles or not _capitalised(w):
                continue
            if len(w) > 1 and w.isupper() and keys[k] not in kinship and keys[k] not in (
                    "ceo", "cfo", "coo", "cto", "cio", "vp", "svp", "evp"):
                continue  # ALL-CAPS notes: left to the other rules ("SON MIGUEL" is kin)
            nxt = text.next(k)
            # An honorific the tagger took with the name stays with it ("Mrs Doubtfire":
            # the social-media corpora count it as part of the name).
            if keys[k] not in HONORIFICS or nxt is None or nxt not in persons:
                out.add(k)
            if keys[k] in kinship:
                continue  # "Daughter of Henry VIII": a kinship word heads no office
            if nxt is not None and keys[nxt] == "of":
                j = text.next(nxt)
                if j is not None and keys[j] == "the":
                    j = text.next(j)
                if j is not None and _capitalised(words[j]):
                    out.add(j)  # one word: "Secretary of State John Kornblum"
            ends_run = nxt is None or not _capitalised(words[nxt]) or keys[nxt] in roles
            if ends_run:
                out.update(j for j in text.cap_run_before(k) if not _name_before_role(text, j))
        # A title written before a name that the tagger read as a name of its own ("King
        # Norodom Sihanouk", "Cardinal Bernardin", "president Ronald Reagan"): the office,
        # kept like the honorifics before a name ("Mrs", "Dr" stay with the name they head).
        for k in sorted(persons):
            w, kk = words[k], keys[k]
            title = kk in TITLES and kk not in HONORIFICS and not (len(w) > 1 and w.isupper())
            if not (title or ((kk in roles or kk in LOWER_ROLES) and w.islower())):
                continue
            p, nxt = text.prev(k), text.next(k)
            if nxt is not None and words[nxt] == ".":  # "Sr . Gutiérrez", "dhr . Jansen"
                nxt = text.next(nxt)
            # (a greeting or a letter's opening before it is no name: "Chère Madame X")
            if (p is None or p not in persons or keys[p] in LETTER_OPENINGS or
                    keys[p] in GREETINGS) and nxt is not None and nxt in persons and \
                    _capitalised(words[nxt]):
                out.add(k)
        # A letter's opening before a title ("Cher M. Dupont", "Gentile dott.ssa Ferrari").
        for k in sorted(persons):
            nxt = text.next(k)
            if keys[k] in LETTER_OPENINGS and nxt is not None and \
                    (keys[nxt] in TITLES or keys[nxt] == "m"):
                out.add(k)
        # Products: the capitalised words before a model code ("Dyson V15", "Netgear
        # CM1000", "Galaxy S23"; a code of capitals and digits, not a number or a score).
        for k, w in enumerate(words):
            if _MODEL.match(w) and not _AGE_SEX.match(w):
                run = text.cap_run_before(k, 2)
                if run:
                    out.update([*run, k])
        # Organisations: a capitalised run ending in an organisation word, and its words'
        # other lone mentions ("A spokesperson for Acme").
        org_keys: set[str] = set()
        for k, w in enumerate(words):
            if keys[k] in orgs and _capitalised(w):
                before = text.cap_run_before(k)
                p = text.prev(k)
                if not before and p is not None and words[p].lower() in ("'s", "’s"):
                    # a saint's institution: "St. Mary's Hospital", "St John's College",
                    # "ST. JUDE'S REHAB" (where the tokenizer cuts "ST" from its ".")
                    saint = text.cap_run_before(p, 2)
                    if len(saint) == 1 and (q := text.prev(saint[0])) is not None and \
                            words[q] == "." and (q := text.prev(q)) is not None:
                        saint = [q, *saint]
                    if len(saint) == 2 and keys[saint[0]] in ("st", "saint"):
                        before = saint
                if before:
                    # a partnership's names: "Cardwell & Rice LLP", "Smith & Co"
                    amp = text.prev(before[0])
                    if amp is not None and words[amp] == "&":
                        before = [*text.cap_run_before(amp, 2), amp, *before]
                    run = [*before, k]
                    out.update(run)
                    org_keys.update(keys[j] for j in run if keys[j] not in orgs)
        # One name on both sides of "&" is a firm's: "Johnson & Johnson".
        for k, w in enumerate(words):
            if w == "&" and (p := text.prev(k)) is not None and \
                    (n := text.next(k)) is not None and _capitalised(words[p]) and \
                    words[p] == words[n] and k - p == 1 and n - k == 1:
                out.update((p, n))
                org_keys.add(keys[p])
        if org_keys:
            lone = _lone_person_tokens(text, persons)
            out.update(k for k in lone if keys[k] in org_keys)
        # Streets: capitalised words before a street type, after a house number or a
        # preposition ("19 Mill Lane", "at Oak Avenue"), and the city after it.
        for k, w in enumerate(words):
            if keys[k] not in streets or not _capitalised(w):
                continue
            before = text.cap_run_before(k)
            if not before:
                continue
            p = text.prev(before[0])
            if (p is None or not (_has_digit(words[p]) or keys[p] in STREET_PREPOSITIONS)) \
                    and not (keys[k] in STREET_ONLY and len(before) <= 2):
                continue  # "Albert Road car park": a type no person bears needs no number
            out.update([*before, k])
            nxt = text.next(k)
            if nxt is not None and words[nxt] == ",":
                out.update(text.cap_run_after(nxt, 2))
            elif nxt is None:  # the city opens the next line
                nl = text.lines.get(text.line[k] + 1, [])
                if nl and any(_has_digit(words[j]) for j in nl):
                    out.update(j for j in nl if _capitalised(words[j]) and not
                               _has_digit(words[j]))
        # Products in a mail: a run read weakly right after a determiner ("Your Kindle
        # Paperwhite will arrive", "I returned the Bose QuietComfort headphones"): a listed
        # surname that is also a brand keeps the run from the mail's weak-reading rule.
        if scores and _mail(text):
            for a, b in runs(persons):
                toks = [k for k in range(a, b) if _wordlike(words[k])]
                p = text.prev(a)
                if toks and p is not None and keys[p] in DETERMINERS and all(
                        k in scores and scores[k] < DOC_WEAK_SCORE for k in toks):
                    out.update(toks)
        # A firm's or a service's name before what it runs or employs, read weakly
        # ("contacting Spotify support", "not even Monzo staff", "my Venmo account").
        if scores:
            for k, w in enumerate(words):
                if keys[k] not in SERVICE_NOUNS or not w.islower():
                    continue
                run = text.cap_run_before(k, 2)
                if run and all(j in persons and scores.get(j, 1.0) < DOC_WEAK_SCORE
                               for j in run):
                    out.update(run)
            # Values of an organisation's or a thing's field read weakly ("Employer: Lyft").
            for label, bare, after in _line_labels(text):
                if not bare or (bare[0] not in ORG_FIELDS and bare[-1] not in ORG_FIELDS):
                    continue
                out.update(label)  # the label is no name either ("Employeur : SNCF")
                toks = [k for k in after if _wordlike(words[k])]
                if toks and keys[toks[0]].rstrip(".") not in HONORIFICS and all(
                        scores.get(k, 0.0) < DOC_WEAK_SCORE for k in toks):
                    out.update(toks)
        # The place a place's field holds ("City: Izmir", '"city": "İzmir"').
        for k in range(len(words)):
            if keys[k] in PLACE_FIELDS and (j := _field_value(text, k)) is not None:
                out.update(_listed_run(text, j))
        # Values of fields that never hold a name ("Importance: High", "Product: Sonos Arc").
        for k in range(len(words)):
            if keys[k] in VALUE_FIELDS and text.next(k) is not None and \
                    words[text.next(k)] == ":":  # type: ignore[index]
                j = text.next(text.next(k))  # type: ignore[arg-type]
                while j is not None:
                    out.add(j)
                    j = text.next(j)
        # Organisation units of a mail path ("Sheri Righi/Internal/Accenture",
        # "Kirk McDaniel / HOU / EES") and addresses of an organisation's own name
        # ("Accenture@Accenture", "ENRON_DEVELOPMENT@ENRON_DEVELOPMENT").
        for k, w in enumerate(words):
            p = text.prev(k)
            # (a unit is written with a capital: a lower-case word after "/" is a file path's
            # folder, "/home/karen/notes/Karen_Whitfield_CV.pdf", whose chain must not reach
            # the name after it)
            if p is not None and words[p] == "/" and _wordlike(w) and "@" not in w and \
                    not w.islower():
                q = text.prev(p)
                nxt = text.next(k)
                # A unit goes on ("/HOU/EES") or is written in capitals; "Blair / Teb" is
                # two people, a first name after a unit is a person ("Dev Team / Sam"), and
                # so is one in capitals (an airline's "HOLLOWAY/SARAH MS").
                unit = (w.isupper() and not is_first_name(keys[k], 1000)) or \
                    (nxt is not None and words[nxt] in ("/", "@")) or \
                    (q in out and not is_first_name(keys[k], 1000))
                if q is not None and unit and (q in persons or q in out) and \
                        _wordlike(words[q]):
                    out.add(k)
            if "@" in w and not w.startswith("@"):
                local, _, domain = w.casefold().partition("@")
                if local and local == domain.split(".")[0]:
                    out.add(k)
        # The organisation of the text's mail: the name of a domain that two addresses or
        # more share ("sheri.a.righi@accenture.com", "dan.lee@accenture.com") or of an
        # organisation's own address ("Accenture@Accenture") is an organisation at its
        # capitalised mentions ("Accenture will address this"), unless a census name (a
        # family's domain: "ann@lee.org", "bob@lee.org").
        org_names = _organisation_domains(words)
        out.update(k for k in persons if keys[k] in org_names and _capitalised(words[k])
                   and words[k].isalpha() and not is_first_name(keys[k])
                   and not is_surname(keys[k], 20000))
        # Its mail system's routing forms: "@ENRON" after an address, and an address of
        # the organisation's own unit ("ENRON_DEVELOPMENT@ENRON").
        out.update(k for k in persons if _organisation_route(words[k], org_names))
        out.update(_role_line_words(text, persons))
        # An honorific that heads no name once the words after it are out ("Title: Mr
        # Forename(s): Daniel": a field's value; a honorific stays with the name it heads).
        left = persons - out
        for k in sorted(left):
            if keys[k].rstrip(".") not in SHORT_HONORIFICS:
                continue
            n = text.next(k)
            if n is not None and words[n] == ".":  # "Mr . Eriksen"
                n = text.next(n)
            if n is None or n not in left:
                out.add(k)
        return out

    def subject_words(self, text: _Text, persons: set[int], subject_lines: set[int],
                      scores: dict[int, float], entities: Sequence[Span]) -> set[int]:
        """Person words of the subject lines that nothing shows are names (see
        :meth:`non_names`)."""
        from textdp.detect.lexicon import is_first_name, is_surname

        words, keys = text.words, text.keys
        ner_person = {k for s, e, lab in entities if lab == PERSON for k in range(s, e)}
        elsewhere = {keys[k] for k in persons if text.line[k] not in subject_lines
                     and scores.get(k, 1.0) >= SUBJECT_SCORE}
        out: set[int] = set()
        titles: set[tuple[str, ...]] = set()
        for a, b in runs(k for k in persons if text.line[k] in subject_lines):
            toks = [k for k in range(a, b) if _wordlike(words[k])]
            if toks and text.is_word is not None and all(
                    words[k].isalpha() and text.is_word(words[k])
                    and not is_first_name(keys[k], 1000) and not is_surname(keys[k], 5000)
                    for k in toks):
                # A title of ordinary words ("Common Data Migration", "Mosquitoes"): no
                # name here, nor where the text repeats it.
                out.update(toks)
                titles.add(tuple(keys[k] for k in toks))
                continue
            if any(is_first_name(keys[k], 1000) or keys[k] in elsewhere or (
                    scores.get(k, 0.0) >= SUBJECT_SCORE and
                    (k in ner_person or is_surname(keys[k], 20000)))
                   for k in toks):
                continue
            out.update(toks)
        for a, b in runs(persons):
            toks = [k for k in range(a, b) if _wordlike(words[k])]
            for title in titles:
                n = len(title)
                for i in range(len(toks) - n + 1):
                    if tuple(keys[k] for k in toks[i:i + n]) == title:
                        out.update(toks[i:i + n])
        return out

    def weak_evidence(self, text: _Text, persons: set[int], scores: dict[int, float],
                      entities: Sequence[Span]) -> set[int]:
        """Person words the tagger alone found with a weak score (below
        :data:`WEAK_SCORE`) that the text reads as something else: a word the pipeline's
        NER reads as a place, an organisation, a nationality or an event
        (:data:`NOT_PERSON_LABELS`: "Arbil", "OSCE", "Transwestern"), and a hashtag
        (below :data:`WEAK_HASHTAG_SCORE`, "#truefriends", "#Kent"). Never a census
        name (in a hashtag: of its camel-case parts, "#MitchMyths"), a handle, or a word
        of a name that holds a stronger reading in the same text ("Teb Lokey" … "Teb")."""
        if not scores:
            return set()
        from textdp.detect.lexicon import is_first_name, is_listed_name, is_surname

        words, keys = text.words, text.keys
        labels = {k: lab for s, e, lab in entities for k in range(s, e)}
        # Words of a person run of two words or more with a strong reading in this text.
        strong = {keys[k] for a, b in runs(persons)
                  if sum(_wordlike(words[j]) for j in range(a, b)) > 1
                  and any(scores.get(j, 1.0) >= WEAK_SCORE for j in range(a, b))
                  for k in range(a, b)}
        # and words read as a name with confidence at another mention (document agreement)
        strong |= {keys[k] for k in persons if scores.get(k, 1.0) >= SUBJECT_SCORE}
        # A word the tagger reads weakly at every person mention and the NER as a place or
        # organisation at two mentions or more, never as a person ("SoCalGas").
        best: dict[str, float] = {}
        for k in persons:
            best[keys[k]] = max(best.get(keys[k], 0.0), scores.get(k, 1.0))
        placed: dict[str, int] = {}
        for k, lab in labels.items():
            if lab == PERSON:
                placed[keys[k]] = -len(words)
            elif lab in NOT_PERSON_LABELS and _capitalised(words[k]):
                placed[keys[k]] = placed.get(keys[k], 0) + 1
        sure = {k for k in persons if scores.get(k, 1.0) >= WEAK_SCORE}
        out: set[int] = {k for k in persons if placed.get(keys[k], 0) >= 2
                         and best.get(keys[k], 1.0) < DOC_WEAK_SCORE and keys[k] not in strong
                         and words[k].isalpha() and not words[k].isupper()
                         and not is_first_name(keys[k]) and not is_surname(keys[k], 20000)}
        for k in _weak_candidates(text, persons, scores):
            kk = keys[k]
            if kk in strong:
                continue
            if _hashtag(text, k):
                # A hashtag read as a word of the sentence ("#Attenborough shows us") may be
                # its subject; tags after the sentence or before a link are topics.
                nxt = text.next(k)
                if nxt is not None and text.words[nxt][:1].islower():
                    continue
                if scores[k] < WEAK_HASHTAG_SCORE and labels.get(k) != PERSON and not any(
                        is_first_name(p, 1000) or is_surname(p, 20000)
                        for p in _camel_parts(words[k].lstrip("#"))):
                    out.add(k)
            elif scores[k] < WEAK_SCORE and labels.get(k) in NOT_PERSON_LABELS and \
                    not is_first_name(kk) and not is_surname(kk, 20000) and \
                    not (words[k].islower() and kk not in common_words()
                         and is_listed_name(kk)) and \
                    not _beside_person(text, k, sure):  # "Quigley, Dutch"
                out.add(k)
        return out

    def unshown_words(self, text: _Text, persons: set[int],
                      scores: dict[int, float]) -> set[int]:
        """Person words of a note that no public list names and nothing in the text shows
        as a name, where the tagger is known to misread the register:

        * a text written in capitals (:func:`_mostly_upper`: old record exports, pager
          messages, handoffs), where it reads ordinary and medical words as names
          (``NOTIFIED`` 0.997, ``AWARE`` 0.99, ``HEMATEMESIS`` 0.69): such a word stays a name
          only when the tagger is sure of it (:data:`CAPS_SURE_SCORE`);
        * a clinical note (:func:`_clinical`: abbreviations and drug names), where section
          heads, devices and shorthand get weak readings (``Nursing`` 0.02, ``Tele`` 0.02,
          ``Cont`` 0.04, ``walker`` 0.04): there from :data:`SUBJECT_SCORE`;
        * a mail (:func:`_mail`), where products and shops get weak readings (``Garmin``
          0.02, ``Peloton`` 0.05): there from :data:`WEAK_SCORE`.

        A common English word (:func:`common_words`) needs more than the tagger: a name
        list that knows it (:func:`~textdp.detect.lexicon.is_listed_name`; a common or
        lower-case word with a reading of :data:`WORD_NAME_SCORE` or as a first name of
        :data:`WORD_NAME_FIRST_RANK`: ``RICE DIET`` is no name) or a cue. A word is shown as
        a name by such a list, by a cue right before it (a title, kinship word, person noun
        or credential: ``MRS. X``, ``HUSBAND X``, ``PT X``, ``RN X``; across one more listed
        name: ``pt willow banks``; for a word that is no common word a room or bed number,
        ``RM 407 BHATTACHARYA``, or a bullet where two other bullets open with listed names,
        ``- ODUYA NPO`` beside ``- BIANCHI …`` and ``- REYES …``), a listed name before it
        across ``and`` or a comma (``MEI AND JING``), a credential or a verb of
        :data:`AFTER_NAME` after it (``MARCUS RN``, ``OKONJO, MD``, ``SKY KAUR CALLED``) or a
        possessive (``GASCOIGNE'S``), or a mail field (``To: X``); the listed words of a cued
        run stay with it, and in a shown run so do the other words but common ones in
        capitals. The words found here are not dropped for good: the contexts of step 2 may
        take them back, and every other mention of a name comes back with it (step 3) but for
        a common word in capitals (``AWARE``)."""
        if not persons:
            return set()
        caps = text.caps
        if caps:
            sure = CAPS_SURE_SCORE
        elif text.clinical:
            sure = SUBJECT_SCORE
        elif _mail(text):
            sure = WEAK_SCORE
        else:
            return set()
        from textdp.detect.lexicon import is_first_name, is_listed_name

        words, keys = text.words, text.keys
        common = common_words()
        cues = HONORIFICS | vocabulary("kinship") | PERSON_NOUNS | CREDENTIALS
        # A listed name that is also a common word ("RICE", "RASH") or written in lower case
        # ("walker on unit") needs a reading or to be a common first name ("HOPE").
        listed = {k for k in persons if words[k].isalpha() and is_listed_name(keys[k])
                  and ((keys[k] not in common and not words[k].islower())
                       or scores.get(k, 1.0) >= WORD_NAME_SCORE
                       or is_first_name(keys[k], WORD_NAME_FIRST_RANK))}

        def cue_before(k: int) -> bool:  # "MRS. X", "HUSBAND X", "MEI AND X", "LEE, X"
            p = text.prev(k)
            if p is not None and words[p] == ":":  # "Pt: X", "To: X"
                p = text.prev(p)
                return p is not None and (keys[p] in cues or keys[p] in MAIL_FIELDS)
            if p is not None and words[p] in (".", "("):  # "MRS. X", "Daughter (X)"
                p = text.prev(p)
            if p is not None and keys[p] in (",", "and", "&"):
                p = text.prev(p)
                return p is not None and p in listed
            if p is not None and words[p].isalpha() and is_listed_name(keys[p]) and \
                    is_listed_name(keys[k]):
                p = text.prev(p)  # "pt willow banks": two listed names after the cue
            return p is not None and keys[p] in cues

        def placed(k: int) -> bool:  # "RM 407 BHATTACHARYA", "BED 2 - TRAN": a patient
            p = text.prev(k)
            if p is not None and words[p] in ("-", ":"):
                p = text.prev(p)
            q = text.prev(p) if p is not None and words[p].isdigit() else None
            return q is not None and keys[q] in ROOM_WORDS and keys[k] not in common

        # Bullets that open with a listed name ("- BIANCHI NEEDS …", "- REYES D/C"): a
        # handoff's list of patients, whose other bullets open with names too ("- ODUYA").
        bullets = {ln: toks[1] for ln, toks in text.lines.items()
                   if len(toks) > 1 and words[toks[0]] in BULLETS}
        named_bullets = sum(k in listed for k in bullets.values())

        def slot(k: int) -> bool:
            return bullets.get(text.line[k]) == k and keys[k] not in common and \
                named_bullets - (k in listed) >= 2

        def cue_after(k: int) -> bool:  # "MARCUS RN", "OKONJO, MD", "SKY KAUR CALLED"
            n = text.next(k)
            if n is not None and keys[n] in AFTER_NAME:
                return True
            if n is not None and words[n] == ",":
                n = text.next(n)
            return n is not None and keys[n] in CREDENTIALS

        out: set[int] = set()
        for a, b in runs(persons):
            toks = [k for k in range(a, b) if _wordlike(words[k])]
            if not toks or _handle(text, toks[0]):
                continue
            nxt = text.next(toks[-1])
            cued = cue_before(toks[0]) or cue_after(toks[-1]) or placed(toks[0]) or \
                slot(toks[0])
            shown = cued or any(k in listed for k in toks) or \
                (nxt is not None and words[nxt].casefold() in POSSESSIVES)
            for k in toks:
                if not words[k].isalpha() or k in listed or keys[k] in cues or \
                        cue_before(k) or cue_after(k) or placed(k) or slot(k) or \
                        (cued and is_listed_name(keys[k])):
                    continue  # a name, a cue, the word after a cue or before a credential,
                    # a listed name in a cued run ("pt willow banks", "PT MATEO HALL")
                weak = scores.get(k, 1.0) < sure
                if ((keys[k] in common and caps) or (weak and not shown)) and \
                        not (shown and keys[k] in PARTICLES):  # "VAN DER BERG"
                    out.add(k)
        return out

    def listed_places(self, text: _Text, persons: set[int]) -> set[int]:
        """Lone person words that the public lookup list names as a place
        (:func:`~textdp.detect.places.listed_kind`), written as a place is, where the text
        reads them as one: a country or US state anywhere ("Tunisia", "England"); a city
        after a place cue ("in Berlin", :data:`~textdp.detect.places.PLACE_CUES`), before a
        score or a date ("Tripoli 2", "BONN 1996-08-22"). Never a common census name
        (:data:`PLACE_FIRST_RANK`, :data:`PLACE_SURNAME_RANK`: "Jordan", "Houston"), a word
        with a person word beside it ("Irving Berlin") or an honorific before it: a city
        named alone is a surname as often ("Ikeda", "Anand")."""
        from textdp.detect.lexicon import is_first_name, is_surname
        from textdp.detect.places import PLACE_CUES, listed_kind
        from textdp.detect.postal_formats import ends_with_town_code

        out: set[int] = set()
        for k in persons:
            kind = listed_kind(text.words[k])
            if kind not in ("country", "state", "city") or _beside_person(text, k, persons):
                continue
            kk = text.keys[k]
            if is_first_name(kk, PLACE_FIRST_RANK) or is_surname(kk, PLACE_SURNAME_RANK):
                continue
            p, n = text.prev(k), text.next(k)
            if p is not None and text.keys[p].rstrip(".") in HONORIFICS:
                continue
            if kind == "city" and not (
                    (p is not None and text.keys[p] in PLACE_CUES) or
                    (n is not None and text.words[n][:1].isdigit())):
                continue
            out.add(k)
        # A place after a town line's postal code, or after a street address and a comma,
        # is the address's town, whatever name it is too ("00-590 Warszawa", "00184 Roma",
        # "Av Paulista 1000, São Paulo").
        for k in sorted(persons - out):
            run = _listed_run(text, k)
            if not run or (p := text.prev(k)) in persons or text.next(run[-1]) in persons:
                continue
            rebuilt, starts = text.rebuilt
            if ends_with_town_code(rebuilt[max(0, starts[k] - 24):starts[k]]) or (
                    p is not None and text.words[p] == "," and
                    text.prev(p) in text.street_and_header_tokens):
                out.update(j for j in run if j in persons)
        # A city before a US state's code is the city, whatever name it is too
        # ("Charlotte NC", "Madison, WI"; not a code that is a word: "Austin OK?").
        for k in persons - out:
            n = text.next(k)
            if n is not None and text.words[n] == ",":
                n = text.next(n)
            if n is not None and (text.words[n] in _STATE_CODES or _zip_after(text, n)) and \
                    listed_kind(text.words[k]) in ("city", "town") and \
                    not _beside_person(text, k, persons):
                out.add(k)  # (a code that is a word too counts before a ZIP: "VA 23220")
        return out

    def stray_lower(self, text: _Text, persons: set[int],
                    scores: dict[int, float] | None = None) -> set[int]:
        """Lone lower-case person words in a text of three lines or more (mail, notes,
        transcripts: "reply by noon", "pepper"), unless a known first name or a word the
        tagger is sure of (:data:`SUBJECT_SCORE`: "what priya posted" in a chat log); in a
        shorter clinical note, those that no list holds as a name either ("Pt restless,
        pulled at IV"; not "pt destiny gold seen"). Names written in lower case there come
        back through their handles, labels and addresses (steps 2 and 3), which this never
        blocks."""
        short = len(text.lines) < 3
        if short and not text.clinical:
            return set()
        from textdp.detect.lexicon import is_first_name, is_listed_name

        scores = scores or {}
        return {k for k in _lone_person_tokens(text, persons)
                if text.words[k].isalpha() and text.words[k].islower()
                and scores.get(k, 0.0) < SUBJECT_SCORE
                and not is_first_name(text.words[k], 1000)
                and not (short and is_listed_name(text.words[k]))}

    def entity_evidence(self, text: _Text, persons: set[int], entities: Sequence[Span]
                        ) -> set[int]:
        """Person words that the NER reads as a place or an organisation: a lone word
        (a one-word person run, not beside another person word) read so here or at another
        mention of the text, and a word read so at most of its two or more mentions;
        never a known first name, an address, a handle or an ALL-CAPS word."""
        if not entities:
            return set()
        from textdp.detect.lexicon import is_first_name

        placed = {k for s, e, lab in entities if lab in PLACE_LABELS for k in range(s, e)}
        # Words of a name of two words or more in this text are names (Teb Lokey … Teb).
        named = {text.keys[k] for a, b in runs(persons)
                 if sum(_wordlike(text.words[j]) for j in range(a, b)) > 1
                 for k in range(a, b)}
        place_keys = {text.keys[k] for k in placed if _capitalised(text.words[k])}
        # A word read as a place or organisation at one mention and as a person by the NER
        # at none, in a run with no first name: not a person at any mention ("SoCalGas
        # Developments" … "SoCalGas sent out").
        ner_person = {text.keys[k] for s, e, lab in entities if lab == PERSON
                      for k in range(s, e)}
        mentions: dict[str, int] = {}
        for k, w in enumerate(text.words):
            if _capitalised(w):
                mentions[text.keys[k]] = mentions.get(text.keys[k], 0) + 1
        votes: dict[str, int] = {}
        for k in placed:
            if _capitalised(text.words[k]):
                votes[text.keys[k]] = votes.get(text.keys[k], 0) + 1
        # Read as a place or organisation at most of its mentions (and never a person).
        mostly = {kk for kk, v in votes.items() if 2 * v > mentions.get(kk, 0) >= 2
                  and kk not in ner_person}
        out = set()
        for a, b in runs(persons):
            toks = [k for k in range(a, b) if _wordlike(text.words[k])]
            if any(is_first_name(text.keys[k], 1000) for k in toks):
                continue
            out.update(k for k in toks if text.keys[k] in mostly and text.words[k].isalpha()
                       and text.words[k].istitle()
                       and not (len(toks) == 1 and _beside_person(text, k, persons)))
        for k in _lone_person_tokens(text, persons):
            w = text.words[k]
            if not (w.isalpha() and w.istitle()) or is_first_name(text.keys[k], 1000):
                continue  # addresses, handles, ALL CAPS and first names are left alone
            # "Ivanova, Nadia": a word beside another person word is part of a name.
            if _beside_person(text, k, persons) or text.keys[k] in named:
                continue
            if k in placed or text.keys[k] in place_keys:
                out.add(k)
        return out

    # ------------------------------------------------------------------ step 2
    def names(self, text: _Text, persons: set[int],
              scores: dict[int, float] | None = None) -> set[int]:
        """Tokens the register shows are names: signatures, e-mail address parts, names
        before "called" or after "ask for" or before a credential, chat speaker labels
        (``scores``: the tagger's, of the person tokens it alone found)."""
        from textdp.detect.lexicon import is_first_name, is_listed_name

        words, keys = text.words, text.keys
        out: set[int] = set()
        ok = _plain_name_word
        # Signatures: the line after a sign-off, or the rest of its line ("Thanks, Ann").
        for ln, toks in text.lines.items():
            at = _sign_off_at(text, toks)
            if at is None:
                at = _closing_sign_off(text, toks)
            if at is None:
                continue
            rest = [k for k in toks[at + 1:] if words[k] not in (",", "!", ".")]
            if rest and len(rest) <= 3 and all(ok(words[k]) or _initials(words[k])
                                               for k in rest):
                out.update(rest)
            elif not rest:
                nxt = text.lines.get(ln + 1, [])
                # up to a separator: "Zara – Samsung Online Store", "Hannah | Care Team"
                cut = next((i for i, k in enumerate(nxt) if words[k] in SIGNATURE_SEPARATORS),
                           len(nxt))
                nxt = nxt[:cut]
                if 0 < len(nxt) <= 3 and all(ok(words[k]) or _initials(words[k])
                                             for k in nxt):
                    out.update(nxt)
        # E-mail addresses: their parts' capitalised mentions ("summer.rain@…" → "Summer").
        parts: set[str] = set()
        for w in words:
            if "@" in w and not w.startswith("@"):
                pieces = _address_parts(w)
                if len(pieces) >= 2:
                    parts.update(pieces)
        if parts:
            out.update(k for k, w in enumerate(words)
                       if _capitalised(w) and keys[k] in parts and ok(w))
        # Contexts: "Summer Rain called", "ask for Summer", "spoke with Ivy Banks".
        for k, w in enumerate(words):
            if keys[k] in AFTER_NAME and w.islower():
                run = text.cap_run_before(k, 2)
                # one a listed name or no common word ("Summer Rain called"; not "Nobody
                # called", "Someone called")
                if run and all(ok(words[j]) for j in run) and any(
                        keys[j] not in common_words() or is_listed_name(keys[j]) for j in run):
                    out.update(run)
            for phrase in BEFORE_NAME:
                if keys[k] != phrase[-1]:
                    continue
                j, match = k, True
                for word in reversed(phrase[:-1]):
                    j = text.prev(j) if j is not None else None
                    match = match and j is not None and keys[j] == word
                if match:
                    run = text.cap_run_after(k, 2)
                    if run and all(ok(words[j]) for j in run):
                        out.update(run)
        # A kin or companion before a name ("Husband Will asked", "Dtr April", "sister
        # Hope"), and a person noun or role before a name in brackets ("roommate (Summer)",
        # "A technician (Jordan) will visit"), and a name its kin follows in brackets
        # ("Family (Chinedu, son) notified", "Chinedu (son) at bedside"): the word is a name
        # although it is a word or unlisted.
        cues = kin_words() | COMPANIONS | LANGUAGE_KIN.get(text.language or "", frozenset())

        def uncommon(j: int) -> bool:  # no common word, or a listed name
            return keys[j] not in common_words() or is_listed_name(keys[j])

        for k in range(len(words)):
            if keys[k] in cues and (p := text.prev(k)) is not None and words[p] in (",", "("):
                j = text.prev(p)
                if j is not None and _cued_name(words[j]) and uncommon(j) and \
                        ((b := text.prev(j)) is not None and words[b] == "(") != (words[p] == "("):
                    out.add(j)
            if keys[k] not in cues and keys[k] not in PERSON_NOUNS and \
                    keys[k] not in vocabulary("roles"):
                continue
            j = text.next(k)
            bracket = j is not None and words[j] == "("
            if bracket:
                j = text.next(j)
            elif keys[k] not in cues:
                continue
            if j is not None and _cued_name(words[j]) and (
                    not bracket or ((e := text.next(j)) is not None and words[e] == ")")):
                out.add(j)
        brands = vocabulary("brands")
        # A lower-case name before the home or party it owns ("at kemi's party"), also
        # without its apostrophe ("at marcos place", "to jens house": a listed name, or one
        # with its "s"); no common word, no brand.
        for k, w in enumerate(words):
            if not (w.isalpha() and w.islower()) or keys[k] in common_words() or \
                    (p := text.prev(k)) is None or keys[p] not in HOME_PREPOSITIONS or \
                    (n := text.next(k)) is None:
                continue
            owned = keys[n] in ("'s", "’s")
            if owned:
                n = text.next(n)
            if n is not None and keys[n] in HOME_NOUNS and keys[k] not in brands and (
                    owned or is_listed_name(keys[k]) or
                    (w.endswith("s") and is_listed_name(keys[k][:-1]))):
                out.add(k)
        # A name written in lower case after an abbreviated honorific ("pt seen w/ dr.
        # lim", "mrs okafor called"; not "this lady poops"): a word no common-word list
        # holds, or a listed name.
        for k in range(len(words)):
            if keys[k] not in SHORT_HONORIFICS:
                continue
            j = text.next(k)
            if j is not None and words[j] == ".":
                j = text.next(j)
            if j is not None and words[j].isalpha() and words[j].islower() and \
                    len(words[j]) > 1 and keys[j] not in STOP_WORDS and uncommon(j):
                out.add(j)
        # A clinician before a credential: "— Price, PA-C", "Okafor, MD", "Lin RN", and in
        # a note in capitals "SEEN BY SAOIRSE NP" (a word no common-word list holds).
        def named(j: int) -> bool:  # in capitals: a listed name or a word with no vector
            return ok(words[j]) or (text.caps and _caps_word(words[j]) and
                                    keys[j] not in common_words() and (
                                        is_listed_name(keys[j]) or text.has_vector is None
                                        or not text.has_vector(words[j])))

        for k, w in enumerate(words):
            if keys[k] in CREDENTIALS and w.isupper() and len(w) > 1:
                p = text.prev(k)
                if p is not None and words[p] == ",":
                    p = text.prev(p)
                # not "Pharmacy, PT", "CHARGE RN", nor a city before its state; in capitals
                # a common first name that is a word too ("FROM DAWN RN")
                if p is None or _city_state(text, p, k):
                    continue
                if named(p):
                    run = [*text.cap_run_before(p, 1), p]
                    out.update(j for j in run if named(j) and uncommon(j))
                elif text.caps and _caps_word(words[p]) and is_first_name(keys[p], 1000):
                    out.add(p)
        # A patient before an age and sex ("BED 2 - TRAN, 54F", "Halloran, 66M"), and a
        # note's signature after a dash at its very end ("NOW AWAKE. -PRIYA").
        for k, w in enumerate(words):
            if _AGE_SEX.match(w) and (c := text.prev(k)) is not None and words[c] == ",":
                run = [j for j in text.cap_run_before(c, 2) if named(j) and uncommon(j)]
                if run and run[-1] == text.prev(c):  # not "Admitted, 54F"
                    out.update(run)
        last = next((k for k in range(len(words) - 1, -1, -1) if _wordlike(words[k])), 0)
        if last > 0 and words[last - 1] in ("-", "—", "–") and \
                text.glued_run(last - 1, last) and named(last):
            out.add(last)
        out.update(_caps_names(text))
        out.update(_coordinated_names(text, persons, scores or {}))
        out.update(_introduced_names(text))
        out.update(_addressed(text))
        out.update(_addressed_handles(text))
        out.update(_addressed_lower(text))
        out.update(_labelled_uncased_names(text))
        out.update(_honored_names(text))
        out.update(_labelled_names(text))
        out.update(_tagged_names(text))
        out.update(_staff_names(text))
        # Chat transcripts: the speaker labels of timestamped or <bracketed> lines.
        labels = text.speaker_labels
        if len(labels) >= 2:  # not a role ("10:03 Customer:", "<Agent>")
            out.update(k for k in labels if keys[k] not in vocabulary("field_labels")
                       and keys[k] not in vocabulary("roles") and keys[k] not in PERSON_NOUNS
                       and not _bot_label(words[k]))
        # Transcripts without stamps ("amal: hi" / "bob: amal's bag?"): when a label is a
        # person, the speakers of every such line are (one kind of label, one detection).
        plain = text.plain_labels
        if any(k in persons or k in out for k in plain) or _unknown_labels(text, plain):
            out.update(k for k in plain if not _bot_label(words[k]))
        return out

    # ------------------------------------------------------------------ step 3
    def every_mention(self, text: _Text, persons: set[int], extra: set[int] = frozenset()
                      ) -> set[int]:
        """Every other mention of a name some mention of which is a person: capitalised
        mentions always; lower-case ones where the name is no common word (``jhun``) or was
        found in lower case, as a handle or as a speaker label (``rose``); handles where it
        was found so; and its run-together and address forms
        (``@chiamaka_eze``, ``@chiamakaeze``, ``@tnkosi``, ``summer.rain@…`` beside
        ``Chiamaka Eze``, ``Thandiwe Nkosi``, ``Summer Rain``), whose parts, when the form
        itself is the person (``<wanjiru_mwangi>``), are names at their other mentions."""
        words, keys = text.words, text.keys
        from textdp.detect.lexicon import is_first_name, is_surname

        labels = text.labels
        multi = {k for k in persons if _in_full_name(text, persons, k)}
        found: set[str] = set()
        lower: set[str] = set()
        for k in persons:
            w = words[k]
            kk = keys[k]
            handle = w.startswith("@") or k in labels
            pieces = _form_parts(w)
            if len(pieces) >= 2 and (handle or "_" in w or "@" in w):
                # A handle, label or address that is a person: its parts are names
                # ("wanjiru_mwangi" → "Wanjiru", "wanjiru").
                found.update(p for p in pieces if _part_is_name(p))
                lower.update(p for p in pieces if _part_is_name(p))
                continue
            if len(kk) < 2 or not kk.replace("-", "").replace("'", "").isalpha() or \
                    kk in STOP_WORDS or _in_any_vocabulary(kk):
                continue
            # A mention is evidence for the others when it is part of a full name, a
            # handle or speaker label, a name found by the register, or a census name: a
            # tagger's one-word slip ("Cards" in a subject line) must not spread.
            if not (handle or k in multi or k in extra or is_first_name(kk)
                    or is_surname(kk, 20000) or _coordinated(text, k)):
                continue
            found.add(kk)
            if handle:
                lower.add(kk)
        full = _full_names(text, persons)
        if not found and not full:
            return set()
        out = set()
        for k, w in enumerate(words):
            if k in persons:
                continue
            mention = keys[k] in found and (
                _capitalised(w) or w.startswith("@") or keys[k] in lower or
                (k in labels and w.islower()) or _uncommon_lower(text, k))
            if mention and keys[k] in _MONTH_NAMES and _dated(text, k):
                continue  # "Dtr April ... can stay 1-2 wks in April": the month
            if mention or _run_together(w, found, full):
                out.add(k)
        return out


#: What a person owns or holds, after their name ("at marcos place", "kemi's party"), and
#: the words before the name that say where.
HOME_NOUNS = frozenset({"place", "house", "home", "flat", "apartment", "apt", "crib", "pad",
                        "party", "birthday", "wedding", "funeral", "bbq"})
HOME_PREPOSITIONS = frozenset({"at", "to", "from", "by", "near", "over"})
#: The heads of a code name ("Project Falcon", "Operation Sandstone").
PROJECT_HEADS = frozenset({"project", "operation", "codename", "programme", "program",
                           "initiative"})
#: Rooms and buildings a common word names ("Oak Room", "Cedar Hall", "Garden Suite").
ROOM_NOUNS = frozenset({"room", "hall", "suite", "lounge", "auditorium", "theatre",
                        "theater", "pavilion", "boardroom", "annex", "annexe"})
#: The units of a hospital or a building before their number or code ("Ward 7", "Bay 3B");
#: "Ward" and "Wing" are surnames too.
UNIT_NOUNS = frozenset({"ward", "wing", "bay", "pod", "unit", "block"})
_UNIT_NUMBER = re.compile(r"(?:\d{1,4}[A-Za-z]?|[A-Z]\d{0,3})\.?")
#: A score's, a test's or a disease's short name with its number ("CURB-65", "PHQ-9",
#: "COVID-19", "SARS-CoV-2").
_SCORE_CODE = re.compile(r"[A-Z]{2,}(?:-[A-Za-z]+)*-\d+")
#: A lower-case verb with its ending glued on by an apostrophe ("eval'd", "d/c'd", "tx'ing").
_VERB_FORM = re.compile(r"[a-z/]+['’](?:d|ed|ing)")
#: Word endings of conditions and procedures ("cellulitis", "stenosis", "anaemia",
#: "cholecystectomy", "arthroplasty", "neuropathy"): a lower-case word of seven letters or
#: more ending so is no name, unless a first name ("euphemia").
MEDICAL_SUFFIXES = ("itis", "osis", "emia", "ectomy", "otomy", "ostomy", "plasty", "scopy",
                    "algia", "pathy", "penia", "plegia", "megaly", "rrhea", "rrhoea")
_QUOTES = frozenset({'"', "'"})


def _property_key(text: _Text, k: int) -> bool:
    """Whether the word at ``k`` is a key or a keyword of a card or calendar entry (vCard,
    iCalendar): capitals glued to the ``:``, ``;`` or ``=`` after them (``N:Deshpande``,
    ``ORGANIZER;CN=Nadia``), or after ``BEGIN:`` or ``END:`` (``VCARD``, ``VEVENT``)."""
    words = text.words
    w = words[k]
    if not (w.isupper() and w.replace("-", "").isalpha()) or text.glued is None:
        return False
    if k + 1 < len(words) and text.glued[k] and words[k + 1] in (":", ";", "=") and \
            (k + 2 >= len(words) or text.glued[k + 1]):
        return True
    return k >= 2 and words[k - 1] == ":" and text.glued[k - 1] and text.glued[k - 2] and \
        words[k - 2] in ("BEGIN", "END")


def _mid_line_label(text: _Text, k: int) -> bool:
    """Whether the capitalised word at ``k`` labels a field inside a line of two fields or
    more: after a comma or semicolon, before a colon and a value, itself no listed name
    (``Kunde: …, Ansprechpartner: Herr Mehmet``, ``…, Lieferadresse: Sonnenallee 45``; not
    ``ok, Chioma: offered $10``)."""
    words = text.words
    p, n = text.prev(k), text.next(k)
    if not (_capitalised(words[k]) and words[k].isalpha() and p is not None and
            words[p] in (",", ";") and n is not None and words[n] == ":" and
            text.line[p] == text.line[k] and (v := text.next(n)) is not None and
            text.line[v] == text.line[k]):
        return False
    from textdp.detect.lexicon import is_listed_name

    if is_listed_name(text.keys[k]):
        return False
    line = text.lines[text.line[k]]
    return sum(words[j] == ":" and j > line[0] and _capitalised(words[j - 1])
               for j in line) >= 2


def _record_key(text: _Text, k: int) -> bool:
    """Whether the word at ``k`` is a quoted key before a colon (``"full_name": …``,
    ``'homeCity': …``) spelt of common words and field labels (``id``, ``dob``), split at
    underscores, hyphens, dots and camel case: a record's field. A key that is a name
    (``{"Maria": 5}``) stays one."""
    words = text.words
    p, n = text.prev(k), text.next(k)
    if p is None or n is None or p != k - 1 or n != k + 1 or words[p] not in _QUOTES or \
            words[n] != words[p] or (c := text.next(n)) is None or words[c] != ":":
        return False
    known = common_words() | vocabulary("field_labels")
    parts = _identifier_parts(words[k])
    return bool(parts) and all(part in known for part in parts)


def _identifier_parts(word: str) -> list[str]:
    """The lower-case words of an identifier, split at underscores, hyphens, dots, colons
    and camel case (``full_name``, ``homeCity``, ``patient-name`` → two words each)."""
    from textdp.detect.handles import split_camel

    return [part.lower() for piece in re.split(r"[_\-.:]+", word)
            for part in split_camel(piece) if part]


def _field_value(text: _Text, k: int) -> int | None:
    """The first token of the value of the field label at ``k`` (``City: Izmir``, a JSON
    key's ``"city": "İzmir"``), or ``None`` where no colon follows the label."""
    def step(j: int | None) -> int | None:
        j = text.next(j) if j is not None else None
        while j is not None and text.words[j] in ('"', "'"):
            j = text.next(j)
        return j

    colon = step(k)
    return step(colon) if colon is not None and text.words[colon] == ":" else None


def _listed_run(text: _Text, k: int) -> list[int]:
    """The tokens from ``k`` on (up to three words) that spell a name of the place lookup
    (:func:`~textdp.detect.places.lookup_names`: ``Warszawa``, ``São Paulo``), the longest;
    none where they spell none."""
    from textdp.detect.places import lookup_names

    names = lookup_names()
    run = [k]
    while len(run) < 3 and (j := text.next(run[-1])) is not None and j == run[-1] + 1 and \
            _wordlike(text.words[j]):
        run.append(j)
    for n in range(len(run), 0, -1):
        if " ".join(text.words[j] for j in run[:n]) in names:
            return run[:n]
    return []


#: What a writer says before introducing themselves ("this is hope from the dentist", "it's
#: jamie here", "hi, I'm rose with Acme"), and the words after the name that close it.
SELF_INTRODUCTIONS = (("this", "is"), ("it", "'s"), ("it's",), ("its",), ("i", "'m"), ("i'm",),
                      ("im",), ("name", "is"))
INTRODUCTION_ENDS = frozenset({"from", "at", "with", "here", "of"})
#: Saying "I am", a capitalised name needs no more than a sentence's end or "and" after it
#: ("Hi, I'm Summer and I'm writing about my order", "My name is Hope.").
FIRST_PERSON_INTRODUCTIONS = (("i", "'m"), ("i'm",), ("im",), ("i", "am"), ("name", "is"))
FIRST_PERSON_ENDS = frozenset({"and", ",", ".", "!", ";"})


def _introduced_names(text: _Text) -> set[int]:
    """A name a writer introduces themselves with, in any case, before ``from``, ``at``,
    ``with``, ``here`` or ``of`` (``this is hope from the dentist``, ``it's Jamie here``),
    and a capitalised one after "I'm" or "my name is" before "and" or a sentence's end
    (``I'm Summer and I'm writing``): a first name of the lists
    (:func:`~textdp.detect.lexicon.is_first_name`, or the multi-origin list's), though it is
    a word too; not ``this is great from``, nor ``it's Summer and``."""
    from textdp.detect.lexicon import is_first_name, vocabulary_first_names

    out: set[int] = set()
    keys = text.keys
    for k in range(text.n):
        n = text.next(k)
        first_person = _capitalised(text.words[k]) and (n is None or keys[n] in FIRST_PERSON_ENDS)
        if not (first_person or (n is not None and keys[n] in INTRODUCTION_ENDS)) or \
                not text.words[k].isalpha() or \
                not (is_first_name(keys[k], 2000) or keys[k] in vocabulary_first_names()):
            continue
        before: list[str] = []
        j = text.prev(k)
        while j is not None and len(before) < 2:
            before.insert(0, keys[j])
            j = text.prev(j)
        if any(tuple(before[-len(p):]) == p
               for p in (FIRST_PERSON_INTRODUCTIONS if first_person and not (
                   n is not None and keys[n] in INTRODUCTION_ENDS) else SELF_INTRODUCTIONS)):
            out.add(k)
    return out


def _coordinated_names(text: _Text, persons: set[int], scores: dict[int, float]) -> set[int]:
    """A capitalised word joined by ``&``, ``and`` or ``or`` to a lone person word read
    surely (:data:`SUBJECT_SCORE`; ``scores``: the tagger's), that no common-word list,
    vocabulary or place lookup holds (``tell Migs & Bea``, ``Bea and Migs``): names are
    listed with names. Not beside a weak reading (``Douglas & Lomason shares``), nor a word
    with a capitalised word beyond it."""
    from textdp.detect.places import listed_kind

    out: set[int] = set()
    for k in persons:
        if scores.get(k, 1.0) < SUBJECT_SCORE or _beside_person(text, k, persons):
            continue
        for step, o in _joined(text, k):
            if not _plain_name_word(w := text.words[o]) or \
                    text.keys[o] in common_words() or listed_kind(w) is not None:
                continue
            beyond = step(o)
            if beyond is None or not _capitalised(text.words[beyond]):
                out.add(o)
    return out


def _joined(text: _Text, k: int) -> list[tuple[Callable[[int], int | None], int]]:
    """The words joined to ``k`` by ``and``, ``&`` or ``or`` on either side, each with the
    step (:meth:`_Text.prev` or :meth:`_Text.next`) that leads from ``k`` to it."""
    out = []
    for step in (text.prev, text.next):
        j = step(k)
        if j is not None and text.keys[j] in ("and", "&", "or") and \
                (o := step(j)) is not None:
            out.append((step, o))
    return out


def _coordinated(text: _Text, k: int) -> bool:
    """Whether person token ``k`` is joined by ``and``, ``&`` or ``or`` to a capitalised
    word that a list holds as a name, a person word or not yet (``Met with Summer and
    Rain``, ``Rain & Summer``)."""
    from textdp.detect.lexicon import is_first_name, is_surname

    return any(_capitalised(text.words[o]) and (
        is_first_name(text.keys[o]) or is_surname(text.keys[o], 20000))
        for _, o in _joined(text, k))


def _in_full_name(text: _Text, persons: set[int], k: int) -> bool:
    """Whether person token ``k`` is in a run of two person words or more."""
    a = b = k
    while a - 1 in persons:
        a -= 1
    while b + 1 in persons:
        b += 1
    return sum(_wordlike(text.words[j]) for j in range(a, b + 1)) > 1


def _full_names(text: _Text, persons: set[int]) -> list[tuple[str, ...]]:
    """The names of two words or more among ``persons``, as their words' keys (letters
    only), e.g. ``("thandiwe", "nkosi")``."""
    out = []
    for a, b in runs(persons):
        parts = tuple(text.keys[k] for k in range(a, b)
                      if text.keys[k].isalpha() and len(text.keys[k]) > 1)
        if len(parts) >= 2:
            out.append(parts)
    return out


def _form_parts(word: str) -> list[str]:
    """The alphabetic parts of a handle, label or address (``@chiamaka_eze`` →
    ``chiamaka``, ``eze``; ``summer.rain@x.com`` → ``summer``, ``rain``; ``EMAIL:anjali.d@…``
    → ``anjali``, ``d``); one-letter parts kept (initials)."""
    local = word.lstrip("<(\"'@").split("@", 1)[0].rstrip(">):,.;!?\"'").casefold()
    local = local.rsplit(":", 1)[-1]  # after a glued label or scheme ("EMAIL:", "mailto:")
    for end in POSSESSIVES:
        if local.endswith(end) and len(local) > len(end) + 1:
            local = local[: -len(end)]
            break
    return [p for p in _ADDRESS_PART.split(local) if p]


def _part_is_name(part: str) -> bool:
    return len(part) > 1 and part.isalpha() and part not in STOP_WORDS and \
        not _in_any_vocabulary(part)


def _run_together(word: str, found: set[str], full: Sequence[tuple[str, ...]]) -> bool:
    """Whether ``word`` is a handle, an underscored label or an address spelt from a name
    of the text: parts that are all names found (initials allowed beside one), or one part
    that runs a full name together (``chiamakaeze``), its initial and surname (``tnkosi``)
    or first name and initial (``thandiwen``)."""
    if not (word.startswith("@") or "_" in word or ("@" in word and not word.startswith("@"))):
        return False
    parts = [p for p in _form_parts(word) if p.isalpha()]
    if not parts:
        return False
    if len(parts) >= 2:
        named = [p for p in parts if len(p) > 1]
        if "@" in word and not word.startswith("@"):  # an e-mail address: one part is enough
            # beside another name part or an initial ("anjali.d@…")
            return (len(named) >= 2 or len(parts) > len(named)) and \
                any(p in found for p in named)
        return bool(named) and all(p in found for p in named)
    joined = parts[0]
    if len(joined) < 4:
        return joined in found and word.startswith("@")
    if joined in found:
        return True
    for name in full:
        first, last = name[0], name[-1]
        if joined in ("".join(name), first + last, first[0] + last, first + last[0]):
            return True
    return False


def _plain_labels(text: _Text) -> list[int]:
    """The speaker labels of a transcript without stamps: ``name:`` (or ``name (role):``)
    opening three lines or more, with two different names or more, or two lines or more
    where every label is an unknown word (:func:`_unknown_labels`: "Victor: … / Ines: on
    it", "Chioma (agent): … / Chioma: closing"); none of them a field label or a word of
    the vocabularies (a mail header or a clinical note's ``Plan:`` is no transcript). A
    label is one word, or a name of two (``Małgorzata Wiśniewska:``, no common word in
    it) or a hyphenated one (``Ji-woo:``), with emoji after it (``Kasia 🌸:``); the
    exporter's own ``You:`` is no speaker and no reason to doubt the others."""
    words, keys = text.words, text.keys
    runs = []
    own = 0  # the exporter's own lines ("You: …")
    spoken = 0  # lines whose words after the label read as speech, not as a form's value
    for toks in text.lines.values():
        if len(toks) >= 2 and _label_word(words[toks[0]]) and _wordlike(words[toks[0]]):
            run = _label_run(text, toks)
            if run and keys[toks[0]] in SELF_LABELS and len(run) == 1:
                own += 1
            elif run:
                runs.append(run)
                spoken += _spoken(text, toks[toks.index(run[-1]) + 1:])
    out = [k for run in runs for k in run if words[k] != "-"]
    names: set[str] = set()
    for run in runs:
        if len(run) == 3 and words[run[1]] == "-":  # one name: the "woo" of "Ji-woo" is no
            names.add(key("".join(words[k] for k in run)))  # interjection here
        else:
            names.update(keys[k] for k in run)
    if not runs or len(runs) + own < 2 or any(
            n in STOP_WORDS or _in_any_vocabulary(n) or n in NON_NAMES for n in names):
        return []
    if 2 * spoken < len(runs):
        # a form's labels ("Deductible: $500.", "Adjuster: Samantha Price") unless names by a
        # list or words no vector row holds (a list of contacts: "Tom: 0413 555 020",
        # "Chiamaka: 0414 555 021")
        from textdp.detect.lexicon import is_listed_name

        out = [k for k in out if is_listed_name(keys[k]) or (
            text.has_vector is not None and not text.has_vector(words[k]))]
    if len(runs) >= 3 and len({keys[run[0]] for run in runs}) >= 2:
        return out
    return out if _unknown_labels(text, out) else []


def _spoken(text: _Text, toks: Sequence[int]) -> bool:
    """Whether the words after a label read as something said: a word in lower case or in a
    script without case, a question or an exclamation, or an emoji ("on it", "ok!", "where r
    u?", "👍", "وصلت الشقة؟"); a form's values ("$500.", "Samantha Price", "PL-22", "0412 555
    019") have none."""
    for k in toks:
        w = text.words[k]
        if w in ("?", "!", "؟") or any(c.isalpha() and not c.isupper() for c in w[:1]) or (
                w and not any(c.isalnum() or c.isspace() for c in w) and
                any(ord(c) > 0x2000 for c in w)):
            return True
    return False


_NAME_PREFIX_CAPS = re.compile(r"(?:Mc|Mac|De|Di|Da|Du|Le|La|Van|Von|Fitz)[A-Z]")


def _bot_label(word: str) -> bool:
    """Whether a speaker label is a bot's or a service's, not a person's: a word ending in
    ``bot`` (``Nightbot``, ``StatusBot``; not ``Abbot``, ``Cabot``) or written in camel case
    (``PagerDuty``, ``GitHub``), that no name list holds, in camel case with no part a first
    name or a common surname (``KaiCenat``, ``JohnSmith`` are persons' user names) and no
    name prefix
    (``McDonald``, ``DeShawn``, ``LeBron``)."""
    from textdp.detect.lexicon import is_first_name, is_listed_name, is_surname

    if not word.isalpha() or word.isupper() or is_listed_name(word.casefold()):
        return False
    parts = [p.casefold() for p in re.findall(r"[A-Z][a-z]+", word)]
    camel = word[:1].isupper() and len(parts) >= 2 and not _NAME_PREFIX_CAPS.match(word) \
        and not any(is_first_name(p) or is_surname(p, 5000) for p in parts)
    return camel or (word.casefold().endswith("bot") and (word[-3] == "B" or len(word) >= 7))


def _label_word(word: str) -> bool:
    """Letters, digits, ``_`` and ``-`` only, and the marks of scripts that write vowels as
    marks (Devanagari's "राहुल": ``str.isalnum`` refuses it); or words joined by dots, each
    opening with a letter (a user name: ``tunde.a``, ``hope.adams``)."""
    if "." in word:  # a user name, not a document's "Fig.1:", "Art.5:"
        return _DOTTED_NAME.fullmatch(word) is not None
    return all(c.isalnum() or c in "_-" or unicodedata.category(c).startswith("M")
               for c in word)


_DOTTED_NAME = re.compile(r"[^\W\d_][\w-]*(?:\.[^\W\d_][\w-]*)+")


#: A chat export's label of the exporter's own lines: no speaker's name.
SELF_LABELS = frozenset({"you", "me", "i"})


#: Words glued after a name with a hyphen that make it an adjective, not a longer name
#: ("Biden-led", "Obama-era", "Kenya-born").
COMPOUND_SUFFIXES = frozenset({"led", "era", "run", "made", "like", "born", "type", "free",
                               "wide", "based", "style", "owned", "ish", "esque", "bred",
                               "fed", "less", "ism", "ist", "ite", "ian", "year", "day", "time",
                               "side", "land", "town", "ward", "ii", "iii", "jr", "sr",
                               "san", "kun", "chan", "sama", "nim", "ssi"})


def _hyphen_tails(text: _Text, persons: set[int]) -> set[int]:
    """The lower-case second part glued to a person's name with a hyphen (``Ji-woo``,
    ``Min-young``, ``Seo-yeon``): a word of five letters or fewer, not a suffix that makes
    the name an adjective or a title of address (:data:`COMPOUND_SUFFIXES`: ``Biden-led``,
    ``Sato-san``), nor a stop word (``Nye-on``). Left alone it stayed as written beside
    the pseudonym of the first part."""
    words = text.words
    out: set[int] = set()
    for k in persons:
        if k + 2 < text.n and words[k][:1].isupper() and words[k + 1] == "-" and \
                text.glued_run(k, k + 2):
            tail = words[k + 2]
            longer = k + 3 < text.n and words[k + 3] == "-" and text.glued_run(k + 2, k + 3)
            if tail.isalpha() and tail.islower() and len(tail) <= 5 and not longer and \
                    tail not in COMPOUND_SUFFIXES and tail not in STOP_WORDS:
                out.add(k + 2)
    return out


def _label_run(text: _Text, toks: Sequence[int]) -> list[int]:
    """The tokens of the speaker label opening a line (``toks``), or none: one word before a
    colon (:func:`_label_colon`); or a name of two capitalised words or a hyphenated one,
    then any emoji, then a colon or a role in brackets and a colon."""
    words = text.words
    if _label_colon(words, toks):
        return [toks[0]]
    run = [toks[0]]
    j = 1
    if len(toks) > 3 and words[toks[1]] == "-" and words[toks[2]].isalpha() and \
            text.glued_run(toks[0], toks[2]):
        run += [toks[1], toks[2]]  # "Ji-woo:"
        j = 3
    elif len(toks) > 2 and _capitalised(words[toks[0]]) and _capitalised(words[toks[1]]) and \
            words[toks[1]].isalpha() and not any(
                text.keys[k] in common_words() for k in toks[:2]):
        run.append(toks[1])  # "Małgorzata Wiśniewska:"
        j = 2
    while j < len(toks) and not any(c.isalnum() or c in ":()" for c in words[toks[j]]):
        j += 1  # emoji after the name ("Kasia 🌸:")
    if j == 1 or j >= len(toks):
        return []
    rest = [words[k] for k in toks[j:j + 4]]
    return run if rest[:1] == [":"] or _role_colon(rest) else []


def _label_colon(words: Sequence[str], toks: Sequence[int]) -> bool:
    """Whether a line's first token ``toks[0]`` is followed by a colon, straight away or
    after a role in brackets (``Chioma (agent):``, which the tokenizer cuts ``(``,
    ``agent``, ``):``)."""
    nxt = [words[k] for k in toks[1:5]]
    if nxt[:1] == [":"] and toks[1] == toks[0] + 1:
        return True
    return _role_colon(nxt)


def _role_colon(nxt: Sequence[str]) -> bool:
    """Whether the words after a label (``nxt``) are a role in brackets and a colon
    (``(agent):``, cut ``(``, ``agent``, ``):`` by the tokenizer)."""
    return len(nxt) >= 3 and nxt[0] == "(" and nxt[1].isalpha() and (
        nxt[2] == "):" or (nxt[2] == ")" and nxt[3:4] == [":"]))


#: Korean letters (jamo) written alone, not in syllables: laughter, abbreviations, emoticons
#: ("ㅋㅋ", "ㅇㅋ", "ㅠㅠ"), never a name (names are written in syllables).
_JAMO = re.compile(r"[\u1100-\u11ff\u3131-\u318e]+")  # (NFKC writes them conjoining)
#: Letters of the Arabic, Devanagari and Hebrew scripts (no case either).
ARABIC, DEVANAGARI, HEBREW = "\u0621-\u064a", "\u0900-\u097f", "\u05d0-\u05ea"
#: A given name written in a script without case: two to four Hangul syllables, kana or Han
#: characters ("민지", "準一", "さくら"), the length of a Korean, Japanese or Chinese name;
#: a word of Arabic, Devanagari or Hebrew letters ("أحمد", "राहुल", "נועה").
_UNCASED_NAME = re.compile(f"[{HANGUL}]{{2,4}}|[{KANA}{HAN}]{{2,4}}|[{ARABIC}]{{2,10}}|"
                           f"[{DEVANAGARI}]{{2,12}}|[{HEBREW}]{{2,10}}")


#: Labels of a person's name in Korean, Japanese and Chinese forms (name, full name, contact,
#: addressee, person in charge): the value after them is a name, which those scripts do not
#: mark with a capital ("성명: 이서연", "氏名: 田中 太郎", "联系人: 王建国").
UNCASED_NAME_LABELS = frozenset({
    "이름", "성명", "성함", "받는사람", "받는분", "수령인", "담당자", "名前", "お名前", "氏名",
    "宛名", "受取人", "担当者", "姓名", "名字", "联系人", "聯絡人", "收件人", "收货人",
    # a contract's parties, an applicant, a patient, an account's holder (Chinese)
    "出租方", "承租方", "甲方", "乙方", "买方", "卖方", "借款人", "经办人", "负责人", "申请人",
    "委托人", "房东", "租客", "患者", "病人", "客户", "收款人", "付款人", "持卡人", "户名",
    "开户名", "開戶名"})
#: Japanese honorifics after a name (``田中さん``, ``鈴木様``; split off by the tokenizer,
#: :data:`textdp.tokenization.GLUED_HONORIFIC`) and Korean titles and honorifics after one
#: (``정다은 대리``, ``민수 님``): the Han, katakana or Hangul word before them is a name.
NAME_HONORIFICS = frozenset({*JA_HONORIFICS, "님", "씨", "대리", "과장", "부장", "팀장", "차장",
                             "사원", "주임", "실장", "선생님", "교수님", "사장님"})
# A name before an honorific: two to four Han characters or Hangul syllables, or katakana
# (not a word opening with the polite お or ご: お客様, ご主人様).
_HONORED_NAME = re.compile(f"(?![おご])(?:[{HAN}]{{2,4}}|[\u30a0-\u30ff]{{2,8}}|"
                           f"[{HANGUL}]{{2,4}})")
# A Han surname before a Han given name ("高橋" before "健一 様").
_HAN_SURNAME = re.compile(f"[{HAN}]{{1,3}}")
_HAN_WORD = re.compile(f"[{HAN}]+")


#: Labels of a person's name in forms of Latin script, as word sequences before the colon
#: ("Name:", "First name(s):", "Surname:", "Passenger:", "Cardholder:", "Nombre:",
#: "Vorname:", "Prénom:"): the value after them on their line is a name.
NAME_LABELS = frozenset({
    ("name",), ("full", "name"), ("first", "name"), ("last", "name"), ("surname",),
    ("surnames",), ("given", "name"), ("given", "names"), ("forename",), ("forenames",),
    ("middle", "name"), ("family", "name"), ("maiden", "name"), ("first", "names"),
    ("patient", "name"), ("customer", "name"), ("client", "name"), ("employee", "name"),
    ("contact", "name"), ("applicant", "name"), ("passenger", "name"), ("passenger",),
    ("cardholder",), ("card", "holder"), ("cardholder", "name"), ("account", "holder"),
    ("account", "name"), ("beneficiary",), ("beneficiary", "name"), ("tenant",),
    ("landlord",), ("guest", "name"), ("nombre",), ("apellido",), ("apellidos",),
    ("nombre", "completo"), ("nom",), ("prénom",), ("prénoms",), ("nom", "complet"),
    ("vorname",), ("nachname",), ("familienname",), ("naam",), ("voornaam",),
    ("achternaam",), ("nome",), ("cognome",), ("sobrenome",), ("nome", "completo"),
    ("imię",), ("nazwisko",), ("ad",), ("soyad",), ("soyadı",), ("họ", "tên"),
    ("họ", "và", "tên")})
#: Values of a name field that say no name is given.
_NO_NAME_VALUES = frozenset({"n/a", "none", "unknown", "tbd", "tba", "same", "redacted",
                             "anonymous", "withheld", "required", "optional", "not",
                             "provided", "see", "above", "below"})


def _line_start(text: _Text, toks: Sequence[int]) -> int:
    """Where a line's words start after a list marker ("2.", "2)", "-", "•")."""
    first = 0
    while first < len(toks) and (text.words[toks[first]].isdigit() or
                                 text.words[toks[first]] in (".", ")", "-", "•", "*")):
        first += 1
    return first


def _line_labels(text: _Text) -> Iterable[tuple[list[int], tuple[str, ...], list[int]]]:
    """Each line's field label: the one to five words between the line's start (after a list
    number) and a colon, their keys without a plural ``(s)`` (``First name(s):`` is
    ``("first", "name")``), and the words after the colon."""
    words, keys = text.words, text.keys
    for toks in text.lines.values():
        first = _line_start(text, toks)
        colon = next((i for i in range(first + 1, min(first + 6, len(toks)))
                      if words[toks[i]] in (":", "):", "：")), None)
        if colon is not None:
            label = toks[first:colon]
            yield label, tuple(keys[k] for k in label if words[k] not in ("(", "s")), \
                toks[colon + 1:]


def _form_labels(text: _Text) -> list[int]:
    """The words of a form's field label of several words before its colon, opening its line
    or after a list number: a name label (:data:`NAME_LABELS`: ``First name(s):``, ``Card
    holder:``), or a capitalised common word or field label that is no first name and small
    words after it (``Date of birth:``, ``Place of issue:``, ``Next of kin:``, ``Né(e)
    le :``; not ``Rose said:``)."""
    from textdp.detect.lexicon import is_first_name

    words, keys = text.words, text.keys
    common, fields = common_words(), vocabulary("field_labels")
    out: list[int] = []
    for label, bare, _ in _line_labels(text):
        head = keys[label[0]]
        if bare in NAME_LABELS or (
                len(label) >= 2 and _capitalised(words[label[0]]) and
                (head in common or head in fields) and not is_first_name(head) and
                all((words[k].isalpha() and words[k].islower()) or words[k] in "()"
                    for k in label[1:])):
            out += label
    return out


#: Label lines (a label, then a colon, opening the line) that make a text a form.
FORM_MIN_LABELS = 3


def _weak_field_labels(text: _Text, persons: set[int],
                       scores: dict[int, float] | None) -> set[int]:
    """A form's field labels of one word that the tagger reads weakly (below
    :data:`SUBJECT_SCORE`) and no list holds as a name, in a text with
    :data:`FORM_MIN_LABELS` label lines or more and no speaker labels ("Cuota: 62",
    "Kenmerk: 2024.01.118", "Förälder: Johan", "Adjuster: Samantha Price"): labels of other
    languages and trades that no word list holds. A listed name stays ("Priya: 0412 555 019"
    in a list of contacts), and so does a label the tagger reads surely."""
    if not scores or not persons or text.labels:
        return set()
    from textdp.detect.lexicon import is_listed_name

    labels = [label for label, _, _ in _line_labels(text)]
    if len(labels) < FORM_MIN_LABELS:
        return set()
    return {label[0] for label in labels if len(label) == 1 and label[0] in persons and
            scores.get(label[0], 1.0) < SUBJECT_SCORE and
            not is_listed_name(text.keys[label[0]])}


def _labelled_names(text: _Text) -> list[int]:
    """The name after a name label of a form and its colon (:data:`NAME_LABELS`; a plural
    ``(s)`` after it too: ``First name(s): NEHA RAJESH``), the label opening its line or
    after a number (``2. Surname: PATEL``): one to four words of letters to the line's end or
    a comma, none a stop word (``Name: N/A``, ``Name: see above`` give none)."""
    out: list[int] = []
    words, keys = text.words, text.keys
    for _, bare, after in _line_labels(text):
        if bare not in NAME_LABELS:
            continue
        value = []
        for k in after:
            if words[k] in (",", ";"):
                break
            if words[k] != "/":  # an airline's SURNAME/GIVEN
                value.append(k)
        while value and (keys[value[-1]] in TITLES or keys[value[-1]] == "mstr"):
            value.pop()  # "HOLLOWAY/SARAH MS"
        if 0 < len(value) <= 4 and all(
                words[k].isalpha() and keys[k] not in STOP_WORDS and
                keys[k] not in _NO_NAME_VALUES for k in value):
            out += value
    return out


def _tagged_names(text: _Text) -> list[int]:
    """The value of an XML or HTML element named as a name field (:data:`NAME_LABELS`, the
    tag split at underscores, hyphens and camel case: ``<name>Haruto Sato</name>``,
    ``<first_name>``, ``<patientName lang="en">``): one to four words of letters, none a stop
    word, between its opening tag and the next tag."""
    out: list[int] = []
    words, keys = text.words, text.keys
    for k, w in enumerate(words):
        j = k + 1
        if w != "<" or j >= len(words) or not words[j][:1].isalpha():
            continue
        if tuple(_identifier_parts(words[j])) not in NAME_LABELS:
            continue
        end = next((g for g in range(j + 1, min(j + 16, len(words))) if words[g] == ">"), None)
        close = None if end is None else \
            next((v for v in range(end + 1, min(end + 10, len(words))) if words[v] == "<"), None)
        if close is None:
            continue
        value = [v for v in range(end + 1, close) if not _is_space(words[v])]
        if 0 < len(value) <= 4 and all(
                words[v].isalpha() and keys[v] not in STOP_WORDS and
                keys[v] not in _NO_NAME_VALUES for v in value):
            out += value
    return out


#: The roles of a note's or a ticket's staff written as a field before a name ("Midwife:
#: Nomvula", "Scribe: Ryo", "Assignee: Priya Natarajan").
#: (Not "Interpreter:", whose value is as often a language: "Interpreter: Spanish".)
STAFF_LABELS = frozenset({"attending", "resident", "midwife", "scribe", "nurse", "rn",
                          "chaplain", "surgeon", "physician", "pcp",
                          "therapist", "pharmacist", "technician", "caseworker", "author",
                          "reviewer", "assignee", "reporter", "requester", "agent", "advisor",
                          "supervisor", "consultant", "dictated", "transcribed", "cosigned"})


def _staff_names(text: _Text) -> list[int]:
    """The name after a staff role's field label and its colon, anywhere on a line
    (:data:`STAFF_LABELS`; ``Dictated by:`` too): one to three capitalised words or initials
    up to the next other token, one a plain name word (:func:`_plain_name_word`) that is no
    common English word unless a listed name (``Agent: Online`` gives none)."""
    from textdp.detect.lexicon import is_listed_name

    out: list[int] = []
    words, keys = text.words, text.keys
    for k, kk in enumerate(keys):
        if kk not in STAFF_LABELS or not _capitalised(words[k]):
            continue
        j = text.next(k)
        if j is not None and keys[j] == "by":  # "Dictated by:"
            j = text.next(j)
        if j is None or words[j] != ":":
            continue
        value: list[int] = []
        j = text.next(j)
        while j is not None and len(value) < 3 and (
                _plain_name_word(words[j]) or _initials(words[j])):
            value.append(j)
            j = text.next(j)
        if any(_plain_name_word(words[v]) and (keys[v] not in common_words() or
                                               is_listed_name(keys[v])) for v in value):
            out += value
    return out


def _honored_names(text: _Text) -> list[int]:
    """Names of Han, katakana or Hangul before an honorific or title
    (:data:`NAME_HONORIFICS`: ``田中さん``, ``高橋 健一 様``, ``담당자 정다은 대리``), with a
    surname of Han before a given name (``高橋`` before ``健一``)."""
    out: list[int] = []
    for k, kk in enumerate(text.keys):
        if kk not in NAME_HONORIFICS:
            continue
        j = text.prev(k)
        if j is None or not _HONORED_NAME.fullmatch(text.words[j]):
            continue
        out.append(j)
        i = text.prev(j)
        if i is not None and _HAN_SURNAME.fullmatch(text.words[i]) and \
                _HAN_WORD.fullmatch(text.words[j]):
            out.append(i)
    return out


def _labelled_uncased_names(text: _Text) -> list[int]:
    """The name after a name label of a Korean, Japanese or Chinese form and its colon: one
    or two words of Hangul, kana or Han of a name's length (:data:`_UNCASED_NAME`)."""
    out: list[int] = []
    words = text.words
    for k, kk in enumerate(text.keys):
        if kk not in UNCASED_NAME_LABELS:
            continue
        j = text.next(k)
        if j is None or words[j] not in (":", "："):
            continue
        j = text.next(j)
        run: list[int] = []
        while j is not None and len(run) < 2 and _UNCASED_NAME.fullmatch(words[j]):
            run.append(j)
            j = text.next(j)
        out += run
    return out


def _unknown_labels(text: _Text, labels: Sequence[int]) -> bool:
    """Whether the speaker labels ``labels`` are names by their form alone, whatever the
    tagger read ("Chioma: offered $10 credit", "민지: 보냈어!"): each a capitalised word of
    three letters or more that no list holds as a common word or a place, or a name's length
    of Hangul, kana or Han, or a word of Arabic, Devanagari or Hebrew letters
    (:data:`_UNCASED_NAME`, not a field label: those scripts have no capitals to tell a
    name). Labels in those scripts need a label heading two lines or
    more: a conversation takes turns, a form names each field once."""
    from textdp.detect.places import listed_kind

    def unknown(k: int) -> bool:
        w = text.words[k]
        if _UNCASED_NAME.fullmatch(w):
            return text.keys[k] not in vocabulary("field_labels")
        return _capitalised(w) and w.isalpha() and len(w) >= 3 and \
            text.keys[k] not in common_words() and listed_kind(w) is None and \
            text.keys[k] not in _CALENDAR

    if any(_UNCASED_NAME.fullmatch(text.words[k]) for k in labels) and \
            len({text.keys[k] for k in labels}) == len(labels):
        return False  # every label once: a form's fields ("出租人: … 承租人: …"), no turns
    return bool(labels) and all(unknown(k) for k in labels)


def _beside_person(text: _Text, k: int, persons: set[int]) -> bool:
    """Whether a person token stands right beside ``k``, or across a comma."""
    near = [j for j in (text.prev(k), text.next(k)) if j is not None]
    near += [i for j in near if text.words[j] == ","
             for i in (text.prev(j), text.next(j)) if i is not None and i != k]
    return any(j in persons for j in near)


_REPEATS = re.compile(r"(\w)\1{2,}")


def _squeeze(word: str) -> str:
    """``word`` with each letter written three times or more written once (``lmaooo`` →
    ``lmao``, ``heyyy`` → ``hey``)."""
    return _REPEATS.sub(r"\1", word)


# Nouns after a medical eponym that make it the thing it names ("Foley catheter", "Bell
# palsy", "Glasgow Coma Scale", "Morse fall scale").
#: The nouns after an eponym that say it names a thing outside a note too.
EPONYM_THINGS = frozenset({"catheter", "frame", "palsy", "disease", "syndrome", "sign",
                           "maneuver", "manoeuvre", "reflex", "cyst", "procedure"})
EPONYM_NOUNS = frozenset({"catheter", "monitor", "score", "scale", "sign", "signs", "test",
                          "palsy", "disease", "syndrome", "maneuver", "manoeuvre", "procedure",
                          "cyst", "criteria", "classification", "stage", "reflex", "drain",
                          "line", "tube", "coma", "fall", "fundoplication", "lymphoma",
                          "tumor", "tumour", "encephalopathy", "thyroiditis", "phenomenon",
                          "position", "index", "point", "grade", "ulcer", "removed",
                          "placed", "inserted", "in",
                          # a sign's or test's finding ("Romberg negative", "McMurray neg",
                          # "Babinski absent", "Nissen not performed", "Denver II")
                          "negative", "neg", "positive", "pos", "absent", "present",
                          "equivocal", "upgoing", "downgoing", "pouch", "pattern", "protocol",
                          "not", "ii", "iii", "exercises",
                          # a walking aid ("Zimmer frame")
                          "frame"})
# Before a sign or test, its finding: "+Kernig", "negative Romberg", "(-) Homans".
EPONYM_FINDINGS = frozenset({"+", "-", "(+)", "(-)", "+ve", "-ve", "positive", "negative",
                             "neg", "pos"})
# Titles before a name: with one, an eponym is the person ("Dr. Foley", "Mr Morse", "pt
# Morse").
EPONYM_TITLES = HONORIFICS | {"nurse", "rn", "sister", "pt", "patient"}


def _eponym_in_use(text: _Text, k: int) -> bool:
    """Whether the medical eponym at ``k`` names its disease, sign, scale or device: a
    possessive ``'s`` on it, a number or a noun of :data:`EPONYM_NOUNS` after it, or a
    finding of :data:`EPONYM_FINDINGS` before it, and no title before it."""
    w = text.words[k]
    p = text.prev(k)
    if p is not None and text.keys[p] in EPONYM_TITLES:
        return False
    if p is not None and text.words[p].lower() in EPONYM_FINDINGS:
        return True
    nxt = text.next(k)
    if w.lower().endswith(("'s", "’s")):
        return True
    if nxt is None:
        return False
    following = text.words[nxt].lower().rstrip(".,;:")
    if following in ("'s", "’s", "s") or (following in ("'", "’") and w[-1:] in "sS"):
        return True  # the tokenizer cuts "Parkinson's", "Graves'"
    if following == "d" and (n2 := text.next(nxt)) is not None and text.words[n2] == "/":
        return True  # "FOLEY D/C'D": removed
    return following[:1].isdigit() or following in EPONYM_NOUNS


def _eponym_chain(text: _Text, k: int) -> list[int]:
    """The words of a hyphenated chain of capitalised names that starts at ``k`` and names a
    sign, test or syndrome: written without spaces and followed by a finding or a noun of
    :data:`EPONYM_NOUNS` ("Dix-Hallpike +", "Brandt-Daroff exercises", "Wolff-Parkinson-White
    pattern"), no title before it; empty otherwise. A hyphenated given name ("Jean-Pierre
    called") is followed by neither."""
    p = text.prev(k)
    if p is not None and (text.words[p] == "-" or text.keys[p] in EPONYM_TITLES):
        return []
    chain, j = [k], k
    while (d := text.next(j)) is not None and text.words[d] == "-" and \
            (n := text.next(d)) is not None and text.glued_run(j, n) and \
            text.words[n][:1].isupper():
        chain += [d, n]
        j = n
    nxt = text.next(j)
    if len(chain) < 3 or nxt is None:
        return []
    following = text.words[nxt].lower().rstrip(".,;:")
    return chain if following in EPONYM_NOUNS or following in EPONYM_FINDINGS else []


def _code_like(word: str) -> bool:
    """A code's token: it holds a digit, or is six capitals or more ("LJJAGB3X",
    "DEUTDEFF")."""
    return _has_digit(word) or (word.isupper() and len(word) >= 6)


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def _in_any_vocabulary(word: str) -> bool:
    return any(word in vocabulary(v) for v in VOCABULARIES)


def _plain_name_word(word: str) -> bool:
    """A title-case word that may be a name: letters (hyphens, apostrophes), in no
    vocabulary and no stop word (ALL-CAPS words are left out: in a note written in
    capitals every word looks like one)."""
    core = word.replace("-", "").replace("'", "").replace("’", "")
    return _capitalised(word) and core.isalpha() and not core.isupper() and \
        key(word) not in STOP_WORDS and key(word) not in NON_NAMES and \
        key(word) not in SIGN_OFFS and not _in_any_vocabulary(key(word))


#: Month names that are also given names (``April``, ``May``, ``June``, ...).
MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august",
                    "september", "october", "november", "december"})
#: Months cut short (``Mar 5, 2026``): a month only where the text dates them.
MONTHS_CUT = frozenset({"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
                        "nov", "dec"})
_MONTH_NAMES = MONTHS | MONTHS_CUT
#: Month and weekday names, written out or cut: no speaker and no addressed name.
_CALENDAR = MONTHS | WEEKDAYS
#: Words before a month: "in April", "by June", "next May".
_MONTH_BEFORE = frozenset({"in", "by", "since", "until", "till", "from", "through", "early",
                           "late", "mid", "next", "last", "of", "this", "during"})


def _dated(text: _Text, k: int) -> bool:
    """Whether word ``k`` (a month name) stands as a month: after a preposition of time or
    beside a number ("in April", "April 4", "4 April")."""
    p, n = text.prev(k), text.next(k)
    return (p is not None and (text.keys[p] in _MONTH_BEFORE or _has_digit(text.words[p]))) \
        or (n is not None and _has_digit(text.words[n]))


# US state codes after a city, but those that are words or names in capitals too.
_STATE_CODES = US_STATE_CODES - {"IN", "OR", "ME", "HI", "OK", "OH", "AS", "AL", "LA", "MA",
                                 "PA", "DE", "ID", "GA", "AA", "AE", "AP", "MO", "VA"}


def _saints_name(text: _Text, k: int, persons: set[int]) -> int | None:
    """The name after ``St``/``St.``/``Saint`` at ``k`` when it stands alone: capitalised,
    no capitalised word after it, no person word before ``k``."""
    n = text.next(k)
    if n is not None and text.words[n] == ".":
        n = text.next(n)
    if n is None or not _capitalised(text.words[n]) or (
            (p := text.prev(k)) is not None and p in persons):
        return None
    after = text.next(n)
    return n if after is None or not _capitalised(text.words[after]) else None


#: Sentence openings a text needs, capitalised in the main, to read as written in cased
#: prose (not a chat written in lower case).
CASED_MIN_OPENINGS = 2


def _cased_prose(text: _Text) -> bool:
    """Whether the text writes its sentences with a capital: :data:`CASED_MIN_OPENINGS` or
    more sentence openings of letters, at most one of them in lower case."""
    lower = upper = 0
    for k, w in enumerate(text.words):
        if w[:1].isalpha() and _opens_sentence(text, k):
            if w[:1].islower():
                lower += 1
            elif w[:1].isupper():
                upper += 1
    return upper >= CASED_MIN_OPENINGS and lower <= 1


#: Lower-case words a text needs, and the share of them that no vector row of the English
#: pipeline holds, to read as written in another language.
FOREIGN_MIN_WORDS = 5
FOREIGN_MIN_SHARE = 0.3


def _foreign_lower(text: _Text, persons: set[int]) -> set[int]:
    """In cased prose of another language (sentences open with a capital), the lower-case
    words inside a sentence that no ``@`` or ``#`` heads: words of that language ("la
    riunione è spostata a giovedì", "domani passa", "Importo richiesto"), which the tagger,
    trained on English, reads as names. Where sentences open with a capital, names are
    written with one too; English text, where a lower-case name is a slip or a handle, is
    left alone. The language is told by its function words (:func:`text_language`): then a
    word no name list holds, or a function word of that language (``al``, ``le``), is taken
    out; or, where the lists tell none, by the English vectors (of the lower-case words,
    :data:`FOREIGN_MIN_WORDS` or more, :data:`FOREIGN_MIN_SHARE` have no row): then a word
    that no vector row and no name list holds."""
    if not any(text.words[k].isalpha() and text.words[k].islower() for k in persons) or \
            not _cased_prose(text):
        return set()
    from textdp.detect.lexicon import is_listed_name

    language = text.language
    if language is not None:
        stops = stop_words()[language]

        def foreign(w: str, kk: str) -> bool:
            return kk in stops or not is_listed_name(kk)
    else:
        if text.has_vector is None:
            return set()
        has_vector = text.has_vector
        lower = [w for w in text.words if w.isalpha() and w.islower()]
        unknown = sum(not has_vector(w) for w in lower)
        if len(lower) < FOREIGN_MIN_WORDS or unknown < FOREIGN_MIN_SHARE * len(lower):
            return set()

        def foreign(w: str, kk: str) -> bool:
            return not has_vector(w) and not is_listed_name(kk)

    return {k for k in persons if (w := text.words[k]).isalpha() and w.islower() and
            not _opens_sentence(text, k) and foreign(w, text.keys[k]) and
            ((p := text.prev(k)) is None or text.words[p] not in ("@", "#"))}


#: The share of a text's lower-case words that are function words of a language other than
#: English, and how many times English's share it must be, for the text to read as written
#: in that language.
LANGUAGE_MIN_SHARE = 0.25
LANGUAGE_OVER_ENGLISH = 1.5


@functools.lru_cache(maxsize=1)
def stop_words() -> dict[str, frozenset[str]]:
    """The function words of English and of twenty languages written in Latin letters, by
    ISO 639-1 code (``data/stop_words.txt``, from spaCy's lists, MIT)."""
    return {code: words for code, words in word_sections(DATA_DIR / "stop_words.txt").items()
            if code is not None}


#: The words before a noun in German, which writes every noun with a capital ("Ihr Paket",
#: "an unseren Kundenservice"): the capitalised word after one is a noun.
GERMAN_DETERMINERS = frozenset({
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer",
    "eines", "ihr", "ihre", "ihren", "ihrem", "ihrer", "ihres", "unser", "unsere", "unseren",
    "unserem", "unserer", "mein", "meine", "meinen", "meinem", "meiner", "dein", "deine",
    "sein", "seine", "seinen", "seinem", "kein", "keine", "keinen", "keinem", "dieser",
    "diese", "diesen", "diesem", "dieses", "jeder", "jede", "jeden", "jedem"})


#: Kin words of other languages before a name ("Oma Hildegard", "tía Carmen", "nonna
#: Pina"), read as kin in text of that language only (:func:`text_language`): elsewhere some
#: are given names or words (Oma, Tata, Zia).
LANGUAGE_KIN = {
    "de": frozenset({"oma", "opa", "tante", "onkel", "mutti", "vati", "cousine", "schwester",
                     "bruder"}),
    "nl": frozenset({"oma", "opa", "tante", "oom", "neef", "nicht"}),
    "fr": frozenset({"tante", "tonton", "tata", "mamie", "papi", "papy", "mémé", "pépé",
                     "cousin", "cousine"}),
    "es": frozenset({"tía", "tío", "tia", "tio", "abuelita", "abuelito", "prima", "primo"}),
    "it": frozenset({"zia", "zio", "nonna", "nonno", "cugina", "cugino"}),
    "pt": frozenset({"tia", "tio", "vovó", "vovô", "avó", "avô", "prima", "primo"}),
    "pl": frozenset({"ciocia", "wujek", "babcia", "dziadek", "kuzyn", "kuzynka"}),
}


def _foreign_capitals(text: _Text, persons: set[int]) -> set[int]:
    """In cased prose of another language (:func:`text_language`), the capitalised person
    words that are its function words (``Ihr``, ``Bei``, ``Para``), and in German the nouns:
    a capitalised word after a determiner (``Ihr Paket``, ``unseren Kundenservice``) that no
    list holds as a name, at every capitalised mention of the text (a signature's
    ``Kundenservice`` too)."""
    if not persons or not _cased_prose(text):
        return set()
    language = text.language
    if language is None:
        return set()
    from textdp.detect.lexicon import is_listed_name

    words, keys = text.words, text.keys
    stops = stop_words()[language]
    nouns = {keys[k] for k in persons if language == "de" and _capitalised(words[k]) and
             (p := text.prev(k)) is not None and keys[p] in GERMAN_DETERMINERS and
             not is_listed_name(keys[k])}
    return {k for k in persons if _capitalised(words[k]) and (keys[k] in stops or
                                                              keys[k] in nouns)}


def text_language(words: Sequence[str]) -> str | None:
    """The language other than English that a text's words are written in, by the share of
    its lower-case words (:data:`FOREIGN_MIN_WORDS` or more) that are function words of it
    (:func:`stop_words`): at least :data:`LANGUAGE_MIN_SHARE`, and
    :data:`LANGUAGE_OVER_ENGLISH` times English's share; ``None`` for English, too few
    words, or no clear language."""
    lower = [w for w in words if w[:1].isalpha() and w.islower()]
    if len(lower) < FOREIGN_MIN_WORDS:
        return None
    shares = {code: sum(w in listed for w in lower) / len(lower)
              for code, listed in stop_words().items()}
    english = shares.pop("en")
    code, share = max(shares.items(), key=lambda item: item[1])
    return code if share >= LANGUAGE_MIN_SHARE and share >= LANGUAGE_OVER_ENGLISH * english \
        else None


def _opens_sentence(text: _Text, k: int) -> bool:
    """Whether ``k`` opens the text, its line or a sentence."""
    p = text.prev(k)
    return p is None or text.line[p] != text.line[k] or text.words[p] in (".", "!", "?", ";")


def _lab_in_list(text: _Text, k: int, clinical: frozenset[str]) -> bool:
    """Whether ``k`` is a lab's short name with its value in a note's list of lab values
    (``Labs: plt 98, AST 88, ALT 102``): a word of up to five letters with a number after it
    and, before it, a comma after a number that a word of the clinical list heads (a name
    written so in a list of lab values is no name's use: ``ALT`` is a surname too)."""
    w = text.words[k]
    n, c = text.next(k), text.prev(k)
    if not (w.isalpha() and len(w) <= 5 and _capitalised(w)) or n is None or c is None or \
            text.words[c] != "," or not _NUMBER.fullmatch(text.words[n]):
        return False
    v = text.prev(c)
    if v is None or not _NUMBER.fullmatch(text.words[v]):
        return False
    lab = text.prev(v)
    return lab is not None and text.keys[lab] in clinical


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?%?")


def _zip_after(text: _Text, code: int) -> bool:
    """Whether ``code`` is a US state's code with a ZIP code after it (``VA 23220``)."""
    n = text.next(code)
    return text.words[code] in US_STATE_CODES and n is not None and \
        ZIP_CODE.fullmatch(text.words[n]) is not None


def _city_state(text: _Text, k: int, code: int) -> bool:
    """Whether ``k`` is a city before its US state's code ``code`` that is also a credential
    (``Philadelphia, PA``, ``Baltimore, MD``): a ZIP code after the code, or a city of the
    place list that is no common name (:data:`PLACE_FIRST_RANK`, :data:`PLACE_SURNAME_RANK`:
    ``Houston, PA`` stays a clinician)."""
    from textdp.detect.lexicon import is_first_name, is_surname
    from textdp.detect.places import listed_kind

    if text.words[code] not in US_STATE_CODES:
        return False
    if _zip_after(text, code):
        return True
    kk = text.keys[k]
    return listed_kind(text.words[k]) == "city" and not is_first_name(kk, PLACE_FIRST_RANK) \
        and not is_surname(kk, PLACE_SURNAME_RANK)


def _common_edges(text: _Text, persons: set[int]) -> set[int]:
    """The lower-case words at either end of a person run holding a capitalised word that
    are common English words and no listed name, particle or word joining two name words,
    peeled one by one (``Dave the plumber``: ``plumber``, then ``the``; not ``Vincent van
    Gogh``, ``Will smith``, ``Winnie the`` before ``Pooh``); in a note in capitals, such a
    word in capitals ending a run of two words or more too (``DR. HOLLOWAY PAGED``)."""
    from textdp.detect.lexicon import is_listed_name

    out: set[int] = set()

    def common(k: int, caps: bool = False) -> bool:
        kk, w = text.keys[k], text.words[k]
        if caps:  # a word in capitals: the pipeline's vectors tell ordinary words too
            known = w.isupper() and w.isalpha() and (kk in common_words() or (
                text.is_word is not None and text.is_word(w)))
        else:
            known = w.islower() and kk in common_words()
        return known and kk not in PARTICLES and not is_listed_name(kk) and \
            not _inside_name(text, k, persons - out)

    for a, b in runs(persons):
        toks = [k for k in range(a, b) if _wordlike(text.words[k])]
        if not any(_capitalised(text.words[k]) for k in toks):
            continue
        # (in a note in capitals, a word in capitals that ends the run: "DR. HOLLOWAY PAGED")
        while len(toks) > 1 and common(toks[-1], caps=text.caps):
            out.add(toks.pop())
        while toks and common(toks[-1]):
            out.add(toks.pop())
        while toks and common(toks[0]):
            out.add(toks.pop(0))
    return out


def _months(text: _Text, persons: set[int]) -> set[int]:
    """Person tokens that are a month's name in a text that uses that name as a month: at
    one mention at least it stands after a preposition of time or beside a number
    (:func:`_dated`), after ``the`` before a lower-case word (``the April numbers``), or
    on a line with another month's name (``on March, but May``). Not a name that is a
    person's in a full name of the text (``Theresa May``, ``April Mensah`` … ``April,``), a
    word after a kin word, a companion or a title (``Dtr April``), or a speaker's label."""
    months = [k for k in range(text.n) if text.keys[k] in _MONTH_NAMES]
    if not any(k in persons for k in months):
        return set()
    on_line: dict[int, set[str]] = {}
    for k in months:
        on_line.setdefault(text.line[k], set()).add(text.keys[k])
    read_as_month = set()
    for k in months:
        p, n = text.prev(k), text.next(k)
        determined = p is not None and text.keys[p] == "the" and n is not None and \
            text.words[n].islower()
        if _dated(text, k) or determined or len(on_line[text.line[k]]) > 1:
            read_as_month.add(text.keys[k])
    # a month's name that is a person's in a full name of the text is read as the person's
    # at every mention ("April Mensah" … "April, I'll present")
    read_as_month -= {text.keys[k] for k in months
                      if k in persons and _in_full_name(text, persons, k)}
    labels = text.labels
    out = set()
    for k in months:
        p = text.prev(k)
        cued = p is not None and (text.keys[p] in kin_words() or text.keys[p] in COMPANIONS
                                  or text.keys[p] in TITLES)
        if k in persons and text.keys[k] in read_as_month and not cued and k not in labels:
            out.add(k)
    return out


@functools.cache
def kin_words() -> frozenset[str]:
    """Kin a name follows (``Husband Will``, ``per son Xu Jian``): the kinship list, and
    ``son``/``sons``, which it leaves out as names too (:data:`CAPS_KIN`)."""
    return vocabulary("kinship") | CAPS_KIN | {"sons"}


def _slashed(words: Sequence[str], k: int) -> bool:
    """Whether token ``k`` is joined by a slash to the token before or after it."""
    return (k + 1 < len(words) and words[k + 1] == "/") or (k > 0 and words[k - 1] == "/")


def _cued_name(word: str) -> bool:
    """A title-case word after a kinship or person cue that reads as a name: a plain name
    word (:func:`_plain_name_word`), or a listed first name that is also a word (``Will``,
    ``April``, ``Hope``)."""
    from textdp.detect.lexicon import is_first_name

    return _plain_name_word(word) or (word.istitle() and word.isalpha() and
                                      is_first_name(word) and not _in_any_vocabulary(key(word)))


def _addressed(text: _Text) -> set[int]:
    """First names addressed after a greeting and before a stop ("Hey Summer, see you",
    "Thanks Ivy!", "Hi Will.", "Oi Camila,"): one or two title-case name words
    (:func:`_plain_name_word`), the first a census first name
    (:data:`ADDRESSED_FIRST_RANK`) or a first name of the multi-origin list that is no
    common word (not "Hi Man,"), followed by a comma, a full stop, ``!``, ``?``, a colon or
    the end of the line. A word that is also an ordinary word ("Summer", "Will") reads as a
    name there, where a tagger trained on prose barely reads it. A letter's opening line
    (the text's first, a greeting, the name and a comma alone: "Beste Sanne,") names its
    reader whatever the lists hold, where no word of it is a common word ("Dear Team,")."""
    from textdp.detect.lexicon import is_first_name, vocabulary_first_names

    words, keys = text.words, text.keys
    out: set[int] = set()
    first_line = min(text.lines) if text.lines else None
    for k, w in enumerate(words):
        if keys[k] not in GREETINGS or not w[:1].isalpha():
            continue
        run = text.cap_run_after(k, 2)
        if not run or not all(_plain_name_word(words[j]) for j in run):
            continue
        after = text.next(run[-1])
        opening = text.lines.get(first_line, [])[:1] == [k] and after is not None and \
            words[after] == "," and text.next(after) is None and \
            all(keys[j] not in common_words() for j in run)
        if not (opening or is_first_name(keys[run[0]], ADDRESSED_FIRST_RANK) or
                (keys[run[0]] in vocabulary_first_names() and
                 keys[run[0]] not in common_words())):
            continue
        if after is None or words[after] in (",", ".", "!", "?", ":") or \
                text.line[after] != text.line[run[-1]]:
            out.update(run)
    return out


#: Second-person words after a handle that opens a line: it is spoken to ("@jaz you owe me").
SECOND_PERSON = frozenset({"you", "u", "ur", "your", "youre", "you're", "r", "are"})


def _addressed_handles(text: _Text) -> set[int]:
    """@handles spoken to: after a greeting or ``tell``/``ask``/``ping``/``cc`` ("yo
    @jaz_the_great", "thanks @li.wen", "cc @tolu"), or opening a line before a second-person
    word ("@jaz you still owe me"). A handle spoken to is a person's account nearly always,
    whatever its letters (not one that is a common word: ``ask @support``); the lexicon rule
    of the handle detector reads only handles with a listed name in them."""
    from textdp.detect.lexicon import is_listed_name
    from textdp.surface import parse_address

    words, keys = text.words, text.keys
    out: set[int] = set()
    for k, w in enumerate(words):
        if not w.startswith("@") or (address := parse_address(w)) is None or address.email:
            continue
        body = address.body.casefold()
        if body in common_words() and not is_listed_name(body):
            continue  # a service's account: "ask @support", "cc @helpdesk"
        p, n = text.prev(k), text.next(k)
        if (p is not None and text.line[p] == text.line[k] and
                (keys[p] in GREETINGS or keys[p] in ADDRESS_VERBS)) or (
                (p is None or text.line[p] != text.line[k]) and n is not None and
                keys[n] in SECOND_PERSON):
            out.add(k)
    return out


def _addressed_lower(text: _Text) -> set[int]:
    """A name written in lower case right after a greeting (``hey siobhan!!``, ``thx li``,
    ``goodnight idris``, ``tell aoife``): a lower-case word that a name list knows
    (:func:`~textdp.detect.lexicon.is_listed_name`) and that is no common English word
    (:func:`common_words`: ``hey man``, ``thanks all`` stay) and in no vocabulary, with
    a second such word after it (``hey eun ji``); and in a chat transcript such a word that
    is a listed first name, no month, weekday, country, state or city, and ends a line of
    three words or more after its label (``have fun mila!``; not ``see u in june``, ``paste
    the code in a gist``, ``<joao> bom dia``). Chats write names in lower case, where the
    tagger barely reads them (``siobhan`` 0.00)."""
    from textdp.detect.lexicon import is_listed_name

    words, keys = text.words, text.keys
    common = common_words()

    def name(j: int) -> bool:
        w = words[j]
        return w.isalpha() and w.islower() and len(w) > 1 and keys[j] not in common and \
            keys[j] not in STOP_WORDS and not _in_any_vocabulary(keys[j]) and \
            is_listed_name(keys[j])

    out: set[int] = set()
    for k in range(text.n):
        if keys[k] not in GREETINGS and keys[k] not in ADDRESS_VERBS:
            continue
        j = text.next(k)
        if j is not None and keys[j] in ("u", "you") and keys[k] in ("thank", "thanks"):
            j = text.next(j)  # "ok thank u sunny"
        if j is not None and _vocative(text, j) and keys[k] in GREETINGS:
            out.add(j)  # "thanks joy!", "hey summer,": a common first name, addressed
            continue
        if j is None or not name(j):
            continue
        out.add(j)
        after = text.next(j)
        if after is not None and name(after):
            out.add(after)
    # In a chat transcript, a listed first name that ends its line ("have fun mila!",
    # "waiting on review from siobhan"): where chats address or name a colleague.
    if len(text.speaker_labels) >= 2 or text.plain_labels:
        from textdp.detect.lexicon import is_first_name
        from textdp.detect.places import listed_kind

        for toks in text.lines.values():
            said = [k for k in toks if _wordlike(words[k])]
            # the label and three words at least: not a two-word greeting ("<joao> bom dia")
            if len(said) >= 4 and name(said[-1]) and is_first_name(keys[said[-1]]) and \
                    keys[said[-1]] not in _CALENDAR and \
                    listed_kind(words[said[-1]].title()) in (None, "town"):  # "mila": a town
                out.add(said[-1])
    return out


#: Words of address that are first names too ("thanks buddy!", "hey man").
_ENDEARMENTS = frozenset({"buddy", "angel", "man", "love", "honey", "babe", "baby", "dear",
                          "mate", "bro", "boss", "champ", "hun", "sweetie", "darling", "doll",
                          "girl", "dude", "guys", "all", "sunshine", "sugar", "king", "queen",
                          "chief", "captain", "sister", "brother"})


def _vocative(text: _Text, j: int) -> bool:
    """Whether lower-case word ``j`` after a greeting is a common first name addressed
    (``thanks joy!``, ``hey summer,``): one of the 1,000 most common census first names, not
    a word of address (:data:`_ENDEARMENTS`), a month or a weekday, and the last word of its
    clause (punctuation, an emoji or the line's end after it; not ``thanks, will do``)."""
    from textdp.detect.lexicon import is_first_name

    w, kk = text.words[j], text.keys[j]
    if not (w.isalpha() and w.islower() and is_first_name(kk, 1000)) or \
            kk in _ENDEARMENTS or kk in _CALENDAR:
        return False
    n = text.next(j)
    return n is None or not _wordlike(text.words[n])


def _caps_word(word: str) -> bool:
    """An ALL-CAPS word that may be a name: letters only, in no vocabulary, no stop word."""
    low = word.casefold()
    return len(word) >= 2 and word.isalpha() and word.isupper() and \
        low not in STOP_WORDS and low not in NON_NAMES and low not in SIGN_OFFS and \
        low not in _CAPS_NOT_NAME and low not in PERSON_NOUNS and low not in AFTER_NAME \
        and not _in_any_vocabulary(low)


def _caps_names(text: _Text) -> set[int]:
    """Names in a note written in capitals, read from their context: the one or two words
    after a person noun, a kinship word or ``PT`` (``CUSTOMER STRONG NOT HOME``, ``MOM
    CHARITY``, ``PT ADEWALE``: a common census name first, a listed name that is no
    common word, or a word no list or vector knows, :func:`_unknown_caps`), a common census
    surname before ``IN`` and a room number (``EXCEPT PRICE IN 9``), and a
    name of two words opening a line or sentence before ``CALLED`` (``SKY KAUR CALLED RE
    …``: one of them a census name). Only ALL-CAPS words and contexts: in mixed case the
    tagger reads these, and the title-case rules of :meth:`RegisterStage.names` apply."""
    from textdp.detect.lexicon import is_first_name, is_listed_name, is_surname

    words, keys = text.words, text.keys
    kinship = vocabulary("kinship")
    out: set[int] = set()
    for k, w in enumerate(words):
        if w == "IN" and text.caps and (j := text.prev(k)) is not None and \
                (r := text.next(k)) is not None and words[r].isdigit() and \
                _caps_word(words[j]) and is_surname(keys[j], CAPS_SURNAME_RANK):
            out.add(j)  # a patient by surname and room: "EXCEPT PRICE IN 9"
        if not (w.isalpha() and w.isupper() and (len(w) > 2 or keys[k] == "pt")):
            continue
        if keys[k] in PERSON_NOUNS or keys[k] in kinship or keys[k] == "pt" or \
                keys[k] in CAPS_KIN:
            j = text.next(k)
            if j is None or not _caps_word(words[j]):
                continue
            common = keys[j] in common_words()
            if not ((keys[k] != "pt" or not common) and (  # "PT STATES" is no name
                    is_first_name(keys[j], CAPS_FIRST_RANK)
                    or is_surname(keys[j], CAPS_SURNAME_RANK)
                    or (not common and is_listed_name(keys[j])) or _unknown_caps(text, j))):
                continue
            out.add(j)
            j2 = text.next(j)
            # a common word only as a common surname ("HUNTER PRICE", not "MOM X STATES")
            if j2 is not None and _caps_word(words[j2]) and (is_surname(
                    keys[j2], CAPS_SURNAME_RANK if keys[j2] in common_words()
                    else CAPS_PAIR_SURNAME_RANK) or _unknown_caps(text, j2)):
                out.add(j2)
        elif keys[k] in AFTER_NAME:
            second = text.prev(k)
            first = text.prev(second) if second is not None else None
            if first is None or not (_caps_word(words[first]) and _caps_word(words[second])):
                continue
            before = text.prev(first)
            if before is not None and words[before] not in (".", "!", "?", ":"):
                continue  # opening its line or a sentence
            if is_first_name(keys[first], CAPS_FIRST_RANK) or \
                    is_surname(keys[second], CAPS_PAIR_SURNAME_RANK):
                out.update((first, second))
    return out


def _unknown_caps(text: _Text, k: int) -> bool:
    """Whether the ALL-CAPS word ``k`` is a word of three letters or more that no list and
    no vector of the pipeline's language knows in lower case: after ``PT`` or a kin word it
    is a name the lists lack (``PT ADEWALE``, ``PT AKOSUA MENSAH``), where the note's own
    words (``AMBULATING``, ``DIAPHORETIC``) have vectors and its codes are in the clinical
    vocabulary."""
    w, kk = text.words[k], text.keys[k]
    return text.has_vector is not None and len(w) >= 3 and w.isalpha() and \
        kk not in common_words() and not _in_any_vocabulary(kk) and not text.has_vector(w)


def _inside_name(text: _Text, k: int, persons: set[int]) -> bool:
    """Whether the stop word ``k`` joins two name words ("Winnie the Pooh", "roger the
    roo"), not a role and its field ("Minister of Health")."""
    p, n = text.prev(k), text.next(k)
    if p is None or n is None or p not in persons:
        return False
    if _in_any_vocabulary(text.keys[p]) or _in_any_vocabulary(text.keys[n]):
        return False
    # in capitals every word is capitalised: there the next word must be a name too
    return n in persons or (_capitalised(text.words[n]) and not text.words[n].isupper())


#: Local parts of a mailbox that a service, not a person, reads or sends from.
ROLE_MAILBOXES = frozenset({"noreply", "donotreply", "postmaster", "webmaster", "hostmaster",
                            "mailerdaemon", "info", "admin", "enquiries", "hr", "it"})


def _role_mailbox(word: str) -> bool:
    """Whether the e-mail address ``word`` is a service's mailbox: every part of its local
    part a common word or :data:`ROLE_MAILBOXES` (``noreply@…``, ``no-reply@…``,
    ``billing-team@…``), none a listed name (``hope@…`` stays a person's)."""
    from textdp.detect.lexicon import is_listed_name

    local = word.split("@", 1)[0].lstrip("<(\"'").casefold()
    parts = [p for p in _ADDRESS_PART.split(local) if p and not p.isdigit()]
    if not parts or "".join(parts).replace("-", "") in ROLE_MAILBOXES:
        return bool(parts)
    return all((p in common_words() or p in ROLE_MAILBOXES) and not is_listed_name(p)
               for p in parts)


def _address_parts(word: str) -> list[str]:
    """The alphabetic parts (two letters or more) of an e-mail address's local part, after a
    glued label or scheme (``EMAIL:anjali.d@…``, ``mailto:nadia.rahman@…``)."""
    local = word.split("@", 1)[0].lstrip("<(\"'").rsplit(":", 1)[-1].casefold()
    return [p for p in _ADDRESS_PART.split(local) if len(p) > 1 and p.isalpha()]


def _initials(word: str) -> bool:
    """Two to four capitals, as people sign ("SPR", "TK")."""
    return word.isalpha() and word.isupper() and 2 <= len(word) <= 4


def _letter_cases(words: Sequence[str]) -> tuple[int, int]:
    """How many lower-case and upper-case letters the words hold."""
    lower = upper = 0
    for w in words:
        for c in w:
            if c.islower():
                lower += 1
            elif c.isupper():
                upper += 1
    return lower, upper


def _mostly_lower(words: Sequence[str]) -> bool:
    """Whether most letters of the text are lower case (so ALL CAPS stands out)."""
    lower, upper = _letter_cases(words)
    return lower > 2 * upper


def _clinical(text: _Text) -> bool:
    """Whether the text reads as a clinical note: at least :data:`CLINICAL_MIN_MARKERS`
    distinct markers: clinical abbreviations or drug names that are not common English
    words (``HTN``, ``Eliquis``; not ``us``, ``echo``) unless written in capitals (``PT``,
    ``BP``), the shorthand of :data:`CLINICAL_SHORTHAND` (``pt``, ``w/``), slashed
    shorthand (``d/c``, ``s/p``, ``c/o`` read as three tokens) and ages with a sex (``67M``)."""
    clinical, drugs, common = vocabulary("clinical"), vocabulary("drugs"), common_words()
    words, keys = text.words, text.keys
    seen: set[str] = set()
    for i, (k, w) in enumerate(zip(keys, words)):
        if k in CLINICAL_SHORTHAND or _AGE_SEX.match(w) or (
                (k in clinical or k in drugs) and k not in STOP_WORDS
                and (k not in common or (w.isupper() and len(w) > 1))):
            seen.add(k)
        elif w == "/" and 0 < i < len(words) - 1 and \
                f"{keys[i - 1]}/{keys[i + 1]}" in SLASHED_SHORTHAND:
            seen.add(f"{keys[i - 1]}/{keys[i + 1]}")
        if len(seen) >= CLINICAL_MIN_MARKERS:
            return True
    return False


def _mostly_upper(words: Sequence[str]) -> bool:
    """Whether most letters of the text are capitals (a note written in capitals), with
    at least :data:`CAPS_MIN_LETTERS` letters (a shouted line is not a register)."""
    lower, upper = _letter_cases(words)
    return upper >= CAPS_MIN_LETTERS and upper > 4 * lower


def _name_before_role(text: _Text, j: int) -> bool:
    """Whether the capitalised word ``j`` before a role word is a name ("Ann Lee,
    Director" has a comma; "Lee Director" does not), i.e. a known first name or a word
    after a title."""
    p = text.prev(j)
    return p is not None and text.keys[p] in TITLES


def _lone_person_tokens(text: _Text, persons: set[int]) -> list[int]:
    """Person tokens that are a person run of one word (ignoring spaces), not half of a
    hyphenated name ("eun-ji": the tokenizer cuts it at the hyphen)."""
    out = []
    for a, b in runs(persons):
        toks = [k for k in range(a, b) if not _is_space(text.words[k])]
        if len(toks) == 1 and not _hyphen_partner(text, toks[0], persons):
            out.append(toks[0])
    return out


def _hyphen_partner(text: _Text, k: int, persons: set[int]) -> bool:
    """Whether person token ``k`` is written glued to another across a hyphen."""
    words = text.words
    return (k + 2 < text.n and words[k + 1] == "-" and k + 2 in persons
            and text.glued_run(k, k + 2)) or \
        (k >= 2 and words[k - 1] == "-" and k - 2 in persons and text.glued_run(k - 2, k))


#: A game's or chat room's channel in brackets before a speaker (``[Team] kenji: …``): read
#: like a time stamp. Chat words only: a log's ``[INFO] Database: …`` is no transcript.
CHANNEL_TAGS = frozenset({"all", "team", "party", "guild", "whisper", "global", "trade",
                          "local", "say", "yell", "squad", "raid", "clan", "lobby", "dm",
                          "pm", "group", "spectator"})


def _stamp_end(words: Sequence[str], toks: Sequence[int]) -> int:
    """How many of a line's first tokens ``toks`` are its time stamp (0 for none): a time
    (``10:02``, ``9:42am``) with at most :data:`STAMP_TOKENS` tokens of date, day or
    AM/PM around it, bracketed (``[10:02]``, ``[8:48 PM]``, ``[Mon 11:04]``,
    ``[05/07/2024 00:02]``) or opening the line, or a channel in brackets
    (:data:`CHANNEL_TAGS`: ``[Team]``), then an optional dash (``10:02 -``,
    ``12/03/2024, 14:22 -``)."""
    if not toks:
        return 0
    head = [words[k] for k in toks[:STAMP_TOKENS + 2]]
    if head[0] in ("[", "("):
        close = next((j for j, w in enumerate(head) if w in ("]", ")")), None)
        if close is None or not (any(_TIME.match(w) for w in head[1:close]) or (
                close == 2 and head[1].casefold() in CHANNEL_TAGS)):
            return 0
        end = close + 1
    else:
        times = [j for j, w in enumerate(head[:STAMP_TOKENS]) if _TIME.match(w)]
        if not times or not all(_STAMP_PART.match(w) for w in head[:times[0]]):
            return 0
        end = times[0] + 1
        if end < len(head) and head[end].casefold() in ("am", "pm"):
            end += 1
    if end < len(head) and head[end] in ("-", "–", "—"):
        end += 1
    return end


def _speaker_labels(text: _Text) -> list[int]:
    """The speaker label of each chat line: after a ``[hh:mm]`` stamp, ``name:`` or
    ``<name>``; or ``<name>`` opening a line, unless the text closes it as markup
    (``</name>``); or the name of a header line of a chat
    export, a name and the time alone (``Siobhan Reilly  9:41 AM``) or an account, a dash,
    its day and time (``lupita_gg — Today at 8:15 PM``)."""
    words = text.words
    # markup's elements, closed somewhere in the text ("<row> … </row>"), are no speakers
    closed = {w.lstrip("<")[1:].casefold() for w in words if w.lstrip("<").startswith("/")}
    out = []
    for toks in text.lines.values():
        i = _stamp_end(words, toks)
        stamped = i > 0
        rest = toks[i:]
        if len(rest) >= 3 and words[rest[0]] == "<" and words[rest[2]] == ">" and \
                _wordlike(words[rest[1]]):
            if words[rest[1]].casefold() not in closed:
                out.append(rest[1])
        elif len(rest) >= 5 and words[rest[0]] == "<" and (inner := _bracketed_label(
                text, rest)):
            out.extend(inner)
        elif not stamped and (head := _header_name(words, toks) or _discord_header(words, toks)):
            out.extend(head)
        elif stamped and rest and _wordlike(words[rest[0]]) and (
                (len(rest) >= 2 and rest[1] == rest[0] + 1 and words[rest[1]] == ":")
                or (words[rest[0]].endswith(":") and len(words[rest[0]]) > 1)):
            out.append(rest[0])
    return out


def _discord_header(words: Sequence[str], toks: Sequence[int]) -> list[int]:
    """The account of a Discord-style message header, one word alone before a dash and its
    day and time (``lupita_gg — Today at 8:15 PM``, ``shadowfox — 03/02/2024 9:14 PM``):
    whatever its form, the line says it is a speaker, unless it is a common word
    (``Standup — Today at 9:30 AM``); ``[]`` for any other line."""
    rest = [words[k] for k in toks[1:]]
    if len(rest) < 3 or rest[0] not in ("—", "–", "-") or not _wordlike(words[toks[0]]) or \
            key(words[toks[0]]) in common_words():  # a schedule's "Standup — Today at 9:30"
        return []
    rest = rest[1:]
    if rest[-1].casefold() in ("am", "pm"):
        rest = rest[:-1]
    if not rest or not _TIME.match(rest[-1]):
        return []
    day = [w.casefold() for w in rest[:-1]]
    return [toks[0]] if day in (["today", "at"], ["yesterday", "at"]) or (
        len(day) == 1 and re.fullmatch(r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}", day[0])) else []


def _header_name(words: Sequence[str], toks: Sequence[int]) -> list[int]:
    """The name of a line that holds one to three capitalised words and a time after them
    (then ``AM``/``PM`` at most), as chat apps export a message's header (``Dev Patel
    9:42 AM``): no common word among them but a listed name, one word alone only when a
    list holds it; ``[]`` for any other line."""
    n = len(toks)
    if n >= 2 and words[toks[-1]].casefold() in ("am", "pm"):
        n -= 1
    if not 2 <= n <= 4 or not _TIME.match(words[toks[n - 1]]):
        return []
    from textdp.detect.lexicon import is_listed_name

    name = list(toks[:n - 1])
    keys = [key(words[k]) for k in name]
    # names, not a schedule's items ("Standup 9:30 AM", "Team Sync 10:00 AM"): no common
    # word but a listed name, and a single word only when a list holds it
    if not all(_capitalised(words[k]) and words[k].isalpha() for k in name) or any(
            kk in common_words() and not is_listed_name(kk) for kk in keys) or (
            len(keys) == 1 and not is_listed_name(keys[0])):
        return []
    return name


def _bracketed_label(text: _Text, toks: Sequence[int]) -> list[int]:
    """The words of a ``<name>`` label the tokenizer cut at a hyphen, an underscore or a dot
    (``<eun-ji>``): the tokens between ``<`` and ``>`` written glued, words and those
    joiners only, a listed name among the words or no word a vector knows; ``[]`` when the
    line opens with no such label."""
    words = text.words
    close = next((j for j in range(2, min(len(toks), 8)) if words[toks[j]] == ">"), None)
    if close is None or not text.glued_run(toks[0], toks[close]):
        return []
    inner = toks[1:close]
    if not _wordlike(words[inner[0]]) or not all(
            _wordlike(words[k]) or words[k] in ("-", "_", ".") for k in inner):
        return []
    from textdp.detect.lexicon import is_listed_name

    parts = [k for k in inner if _wordlike(words[k])]
    keys = [text.keys[k] for k in parts]
    # a bot's or a team's account is made of words ("<standup-bot>", "<ops-bot>"): a name
    # has a listed name among its parts, or only words no vector knows, and no common word
    unknown = text.has_vector is not None and not any(text.has_vector(w) for w in keys)
    if any(k in common_words() for k in keys) or not (
            unknown or any(is_listed_name(k) for k in keys)):
        return []
    return parts


def _rebuild(text: _Text, spans: Sequence[Span], persons: set[int]) -> list[Span]:
    """Person spans of ``persons`` (runs, cut where an original person span started and at
    line breaks) and the other spans that hold no person token."""
    starts = {s for s, _, lab in spans if lab == PERSON}
    persons = {k for k in persons if not _is_space(text.words[k])}
    out = person_spans(persons, starts)
    for s, e, lab in spans:
        if lab != PERSON and not any(k in persons for k in range(s, e)):
            out.add((s, e, lab))
    return sorted(out)


def _uncommon_lower(text: _Text, k: int) -> bool:
    """Whether lower-case word ``k`` is a name's mention whatever the case the name was
    found in: no common English word, and no word with a row in the pipeline's vectors
    where the text knows them (``Aoife`` … ``aoife said``; not ``rose``, ``sims``)."""
    w, kk = text.words[k], text.keys[k]
    return w.islower() and len(w) >= 3 and kk not in common_words() and \
        not (text.has_vector is not None and text.has_vector(kk))


def mention_targets(words: Sequence[str], persons: Iterable[int]) -> set[int]:
    """The tokens of ``words`` that the every-mention rule adds to the person tokens
    ``persons``: their other mentions and their run-together, handle and address forms
    (:meth:`RegisterStage.every_mention`). For the selection stage, which joins entities a
    front end carries (spaCy's ``doc.ents``) after the detector's own register stage."""
    text = _Text(words)
    persons = {k for k in persons if 0 <= k < text.n}
    return RegisterStage().every_mention(text, persons) - persons


def partial_mentions(words: Sequence[str], persons: Iterable[int],
                     counted: Iterable[int] | None = None) -> int:
    """How many names, handles or speaker labels are person tokens at some mentions and not
    at others (the review signal's ``partial_mention``): a word targeted somewhere whose
    other mention is left (capitalised mentions, handles, and lower-case ones where it is no
    common word or was targeted in lower case, as a handle or as a label), or a handle,
    underscored label or address spelt from targeted names and left. No evidence is asked
    of the targeted mention: a one-word slip the every-mention rule would not spread counts
    here, which is what a reviewer should see; nor are the pipeline's vectors, which the
    words alone do not give (:func:`_uncommon_lower`). ``counted``: the tokens whose being
    left counts (a chunk's core; ``None``: all). Reads the words, returns a count only."""
    text = _Text(words)
    persons = {k for k in persons if 0 <= k < text.n}
    if not persons:
        return 0
    words, keys = text.words, text.keys
    labels = text.labels
    found: set[str] = set()
    lower: set[str] = set()
    for k in persons:
        w, kk = words[k], keys[k]
        pieces = _form_parts(w)
        if len(pieces) >= 2 and (w.startswith("@") or k in labels or "_" in w or "@" in w):
            parts = {p for p in pieces if _part_is_name(p)}
            found |= parts
            lower |= parts
            continue
        if len(kk) < 2 or not kk.replace("-", "").replace("'", "").isalpha() or \
                kk in STOP_WORDS or _in_any_vocabulary(kk):
            continue
        found.add(kk)
        if w.startswith("@") or k in labels or w.islower():
            lower.add(kk)
    full = _full_names(text, persons)
    left: set[str] = set()
    for k in (range(text.n) if counted is None else counted):
        if k in persons or not 0 <= k < text.n:
            continue
        w = words[k]
        mention = keys[k] in found and (_capitalised(w) or w.startswith("@")
                                        or keys[k] in lower or _uncommon_lower(text, k))
        if mention or _run_together(w, found, full):
            left.add(keys[k])
    return len(left)


def _effective_scores(text: _Text, persons: set[int], scores: dict[int, float]
                      ) -> dict[int, float]:
    """The members' scores with one for each person token the rules added: the best score
    of its run, else of the scored mentions of its word, else 1.0 (nothing says it is
    weak)."""
    out = dict(scores)
    by_key: dict[str, float] = {}
    for k, v in scores.items():
        if k in persons:
            by_key[text.keys[k]] = max(by_key.get(text.keys[k], 0.0), v)
    for a, b in runs(persons):
        known = [scores[j] for j in range(a, b) if j in scores]
        for j in range(a, b):
            if j not in out:
                out[j] = max(known) if known else by_key.get(text.keys[j], 1.0)
    return out


def _organisation_domains(words: Sequence[str]) -> set[str]:
    """Names of the organisations whose mail a text holds: the first label of a domain
    that two different addresses share, and the name of an ``X@X`` address."""
    locals_of: dict[str, set[str]] = {}
    for w in words:
        if "@" in w and not w.startswith("@"):
            local, _, domain = w.casefold().strip("<>()[]\"',;").partition("@")
            name = domain.split(".")[0]
            if local and name.isalpha() and len(name) > 2:
                locals_of.setdefault(name, set()).add(local)
    return {name for name, locs in locals_of.items() if len(locs) >= 2 or name in locs}


def _organisation_route(word: str, org_names: set[str]) -> bool:
    """Whether ``word`` is ``@ORG`` or ``ORG_UNIT@ORG`` for an organisation of
    :func:`_organisation_domains` (a Lotus Notes route, not a person's address)."""
    local, at, domain = word.casefold().strip("<>()[]\"',;").partition("@")
    if not at or domain not in org_names:
        return False
    return not local or re.split(r"[_.\-]", local)[0] in org_names


def _role_line_words(text: _Text, persons: set[int]) -> set[int]:
    """The capitalised person words of a signature's role line: the line after a signature's
    name, of up to four words and nothing else, with a lower-case word that is no particle
    and no listed name (``Claire Dubois`` / ``Secrétariat médical``, ``Jan Nowak`` /
    ``Kierownik działu sprzedaży``): a role or a department. A tagger reading a signature in
    another language carried the name over the line break."""
    from textdp.detect.lexicon import is_listed_name

    signed = _signature_lines(text)
    out: set[int] = set()
    for ln in signed:
        if ln + 1 in signed or not (toks := text.lines.get(ln + 1)):
            continue
        words = [k for k in toks if _wordlike(text.words[k])]
        if len(words) <= 4 and len(words) == len(toks) and \
                not any(is_listed_name(text.keys[k]) for k in words) and \
                any(text.words[k].isalpha() and text.words[k].islower() and
                    text.keys[k] not in PARTICLES for k in words):
            out.update(k for k in words if k in persons and _capitalised(text.words[k]))
    return out


def _signature_lines(text: _Text) -> set[int]:
    """The lines of a signature: the rest of a sign-off's line, and the line after a
    sign-off that ends its line ("Best regards,")."""
    out = set()
    for ln, toks in text.lines.items():
        if _sign_off_at(text, toks) is not None:
            out.add(ln)
            if all(not _wordlike(text.words[k]) or text.keys[k] in SIGN_OFFS
                   or text.keys[k] in SIGN_OFF_HEADS or text.keys[k] in SIGN_OFF_LEADS
                   for k in toks):
                out.add(ln + 1)
    return out


def _closing_sign_off(text: _Text, toks: Sequence[int]) -> int | None:
    """Where in the line ``toks`` a sign-off after a sentence's end stands when a comma and
    one or two words close the line after it, each a listed name or no common word (``…
    went to our old flat. Thanks, Summer``: a message written on one line; not ``!
    Sincerely, Viewers Management``), or ``None``."""
    words, keys = text.words, text.keys
    tail = [k for k in toks if not _is_space(words[k])]
    for i in (len(tail) - 3, len(tail) - 4):
        if i < 1 or words[tail[i - 1]] not in (".", "!", "?") or \
                keys[tail[i]] not in SIGN_OFFS or words[tail[i + 1]] != ",":
            continue
        from textdp.detect.lexicon import is_listed_name

        if all(keys[k] not in common_words() or is_listed_name(keys[k]) for k in tail[i + 2:]):
            return toks.index(tail[i])
    return None


def _sign_off_at(text: _Text, toks: Sequence[int]) -> int | None:
    """Where in the line ``toks`` its opening sign-off word stands (``Regards,``; after up
    to two words of :data:`SIGN_OFF_LEADS`: ``Un abrazo,``, ``Met vriendelijke groet,``), or
    ``None`` where the line opens with none."""
    for i, k in enumerate(toks[:3]):
        if text.keys[k] in SIGN_OFFS:
            return i
        if text.keys[k] not in SIGN_OFF_LEADS:
            return None
    return None


def _mail(text: _Text) -> bool:
    """Whether the text reads as a letter or a mail: three lines or more with a greeting
    opening its first line (``Hi Tomasz,``), a sign-off (``Best regards,``) or mail headers
    (``From:``, ``Subject:``)."""
    if len(text.lines) < 3:
        return False
    first = text.lines[min(text.lines)]
    if first and text.keys[first[0]] in GREETINGS:
        return True
    return bool(_signature_lines(text) or _subject_lines(text)) or any(
        len(toks) > 1 and text.keys[toks[0]] in ("from", "to", "cc", "sent")
        and text.words[toks[1]] == ":" for toks in text.lines.values())


def _subject_lines(text: _Text) -> set[int]:
    """The lines that are a subject: ``Subject:`` lines, and lines that open with a reply
    or forward prefix (``RE:``, ``FW:``, ``Fwd:``) as quoted subjects do."""
    out = set()
    for ln, toks in text.lines.items():
        if len(toks) > 1 and text.words[toks[1]] == ":" and (
                text.keys[toks[0]] in ("subject", "subj", "re", "fw", "fwd")):
            out.add(ln)
    return out


def _hashtag(text: _Text, k: int) -> bool:
    """Whether token ``k`` is a hashtag (``#Kent``, or ``Kent`` right after a ``#``)."""
    if text.words[k].startswith("#"):
        return True
    p = text.prev(k)
    return p is not None and text.words[p] == "#"


def _topic_hashtag(word: str) -> bool:
    """Whether a hashtag's text is words and no name, two words or more: its camel-case
    parts, each a common word or a short acronym in capitals (``#SayNoToButter``,
    ``#MadDogs``, ``#NBAFinals``), or a lower-case run that is no listed name and splits into common
    words of three letters or more (``#proudbigbro``, ``#thebiggestloser``); none a common
    first name (not ``#TaylorSwift``, ``#summerrain``, ``#JusticeForJohn``, ``#Ximena``,
    ``#Attenborough``, ``#churchill``). A surname that is a word too (``big``, ``black``) is
    read as the word."""
    from textdp.detect.handles import split_camel
    from textdp.detect.lexicon import is_first_name, is_listed_name, vocabulary_first_names

    body = word.lstrip("#")
    if not body.isalpha() or len(body) > 40:
        return False
    common = common_words()
    if body.islower():
        split = None if is_listed_name(body) else _common_word_split(body)
        words = split or []
        acronyms = 0
    else:
        parts = split_camel(body)
        acronyms = sum(p.isupper() and len(p) <= 3 for p in parts)
        words = [p.lower() for p in parts if not (p.isupper() and len(p) <= 3)]
        if any(w not in common for w in words):
            return False
    return len(words) + acronyms >= 2 and bool(words) and \
        not any(is_first_name(w, 2000) or w in vocabulary_first_names() for w in words)


def _service_handle(word: str) -> bool:
    """Whether an @handle is a firm's or a service's account: camel-case parts that are
    common words, two or more, none a common first name (``@SouthwestAir``); not a
    lower-case or underscored one, where people's names hide (``@jaz_the_great``,
    ``@johnsmith``), nor ``@AvaRose``."""
    body = word.lstrip("@")
    return not body.islower() and "_" not in body and _topic_hashtag(body)


def _common_word_split(run: str) -> list[str] | None:
    """``run`` split into the fewest common words of three letters or more
    (``proudbigbro`` → ``proud``, ``big``, ``bro``), or ``None`` where it does not split so
    (``attenborough``: not ``at``, ``ten``, ``borough``)."""
    common = common_words()
    best: list[list[str] | None] = [[]] + [None] * len(run)
    for end in range(3, len(run) + 1):
        for start in range(max(0, end - 20), end - 2):
            prev = best[start]
            if prev is not None and run[start:end] in common and \
                    (best[end] is None or len(prev) + 1 < len(best[end])):
                best[end] = [*prev, run[start:end]]
    return best[len(run)]


def _handle(text: _Text, k: int) -> bool:
    if text.words[k].startswith("@"):
        return True
    p = text.prev(k)
    return p is not None and text.words[p] == "@"


_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _camel_parts(word: str) -> list[str]:
    """The lower-case parts of a camel-case word (``MitchMyths`` → ``mitch``, ``myths``),
    the whole word first."""
    return [word.casefold(), *(p.casefold() for p in _CAMEL.findall(word))]


def _weak_candidates(text: _Text, persons: set[int], scores: dict[int, float]) -> list[int]:
    """Person words the tagger alone found below :data:`WEAK_HASHTAG_SCORE`: letters only
    (a hashtag's ``#`` aside), not ALL CAPS of one or two letters (initials), no handle."""
    out = []
    for k in sorted(persons):
        score = scores.get(k)
        if score is None or score >= max(WEAK_SCORE, WEAK_HASHTAG_SCORE):
            continue
        w = text.words[k].lstrip("#")
        if not w.isalpha() or (w.isupper() and len(w) <= 2) or _handle(text, k):
            continue
        if score >= WEAK_SCORE and not _hashtag(text, k):
            continue
        out.append(k)
    return out


def _asks_entities(text: _Text, spans: Sequence[Span],
                   scores: dict[int, float] | None) -> bool:
    """Whether the NER's reading of a doc is needed: a weak person word, or a person word
    on a subject line."""
    if not scores:
        return False
    persons = {k for s, e, lab in spans if lab == PERSON for k in range(s, e)}
    if _weak_candidates(text, persons, scores):
        return True
    lines = _subject_lines(text)
    return bool(lines) and any(text.line[k] in lines for k in persons)
