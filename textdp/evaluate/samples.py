"""A labelled sample of the texts users bring, generated: where a name detector over-targets.

Newswire and tweets (the dev corpora) say little about clinical notes, e-mail with headers
and signatures, chats, addresses or names that are ordinary words, yet those are the texts
users privatize. This module generates such texts from templates and fixed public word and
name pools, with a label for every whitespace-separated chunk (a token with its attached
punctuation): ``O`` (an ordinary word), ``PER`` (a name) or ``PER_WORD`` (a name that is also
an ordinary English word: ``Summer Rain``, ``Hunter Price``). Nothing here is real data.

Kinds (:data:`KINDS`): ``clinical`` (HTN, T2DM, 34M, L knee, RN, MRN, DOB, NSAIDs),
``email`` (headers, quoted replies, signatures, field labels ``E:``/``M:``), ``chat``
(speaker labels, interjections), ``address`` (street and city lines), ``org`` (organisation
names), ``role`` (President, Minister, titles), ``caps`` (ALL-CAPS notes) and ``wordnames``
(names that are words, in clear person contexts, beside the same words used as words).

Two splits, so rules are chosen on one and reported on the other: ``dev`` and ``report``
draw from disjoint halves of every pool (names, places, organisations, subjects) with their
own seeds (:data:`SPLIT_SEEDS`); the templates are shared.

A third split, ``written``, is not generated: 280 texts written by hand for textdp
(``data/written_dev.jsonl``, fictional people), 70 each of clinical notes with their
shorthand and drug names, notes written in capitals, chat logs with time stamps and speaker
labels, and support mail with products and signatures, names marked ``[[...]]``
(:func:`read_written`). Templates repeat themselves; these do not, so they show what the
templates miss. The register's rules for notes in capitals, clinical notes, mail and chats
were chosen on them: they are a dev split too, not held out.

    textdp evaluate samples --split dev            # figures for the default
    textdp evaluate samples --split dev --write dev.jsonl   # a JSONL sample for
    textdp evaluate detection --data dev.jsonl                        # the other tools

Figures (:func:`measure`): ordinary words replaced (share of ``O`` word chunks changed),
word-like names surviving (share of ``PER_WORD`` chunks unchanged) and names surviving (all
name chunks), through the full privatizer, per kind and overall.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORD, PER, PER_WORD = "O", "PER", "PER_WORD"  # chunk labels
#: A chunk the figures leave out: an e-mail address or an account name the written texts do
#: not mark (one spelt of a name is replaced, as it should be, one of a shop is not; a chat
#: nickname, ``<anon42>``, ``kernel_panic:``, is an account's identifier, which textdp
#: replaces with the speaker's other mentions on purpose, and no ordinary word).
SKIP = "SKIP"
#: An account name: an ``@mention``, a ``<nick>``, or a chunk of four characters or more
#: that opens with two letters and holds digits or an underscore (``valkyrie99:``,
#: ``ferris_fan``; not ``q3``, ``7pm``, ``3rd``).
_ACCOUNT = re.compile(r"@\w+|<[^<>\s]+>|(?=[\w.-]{4})[A-Za-z]{2}[\w.-]*[\d_][\w.-]*:?")
#: The hand-written split (:func:`read_written`).
WRITTEN = "written"
WRITTEN_FILE = Path(__file__).resolve().parent / "data" / "written_dev.jsonl"
_MARK = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
#: The seed of each split: rules are chosen on ``dev``; ``report`` is read for the final
#: figures only.
SPLIT_SEEDS = {"dev": 20261125, "report": 977}

# ---------------------------------------------------------------------------- pools
# Names of many origins that are not English words (public, common given names and
# surnames).
FIRST = ("Anna", "Haruto", "Wanjiru", "Chiamaka", "Thandiwe", "Priya", "Mateo", "Fatima",
         "Olga", "Sofia", "Leonardo", "Amal", "Jenna", "Kevin", "Mei", "Tomasz", "Aisha",
         "Diego", "Ingrid", "Rahul", "Yusuf", "Nadia", "Kofi", "Elena", "Hiroshi", "Lucia",
         "Omar", "Svetlana", "Tariq", "Camille", "Sanjay", "Bridget", "Joaquin", "Ayesha",
         "Declan", "Ngozi", "Marek", "Leila", "Stefan", "Rosalind", "Emeka", "Keiko",
         "Arjun", "Zanele", "Pedro", "Greta", "Dmitri", "Anjali")
LAST = ("Schmidt", "Nakamura", "Mwangi", "Eze", "Nkosi", "Sharma", "Fernandez", "Haddad",
        "Ivanova", "Rossi", "Kowalski", "Osei", "Novak", "Lindqvist", "Okafor", "Tanaka",
        "Moreau", "Gupta", "Petrov", "Oliveira", "Nguyen", "Mensah", "Kaur", "Dubois",
        "Yamamoto", "Abubakar", "Jansen", "Costa", "Horvat", "Chowdhury", "Mueller",
        "Papadopoulos", "Kaplan", "Ortiz", "Sato", "Adeyemi", "Larsen", "Romero", "Kim",
        "Wojcik", "Bianchi", "Otieno", "Reyes", "Fischer", "Hashemi", "Castillo")
# Names that are also ordinary English words (first names and surnames borne by many).
WORD_FIRST = ("Crystal", "Summer", "Hunter", "Ivy", "Rose", "Grace", "Hope", "Joy", "Faith",
              "Dawn", "Autumn", "River", "Sky", "Amber", "Ruby", "Pearl", "Jade", "Violet",
              "Lily", "Daisy", "Heather", "Holly", "Iris", "Olive", "Hazel", "Sunny", "Chase",
              "Grant", "Drew", "Miles", "Reed", "Wade", "Dean", "Lance", "Misty", "Brook",
              "Willow", "Melody", "Destiny", "Robin", "Sterling", "Forrest")
WORD_LAST = ("Waters", "Price", "Banks", "Rain", "Stone", "Wood", "Fields", "Hill", "Brooks",
             "Mills", "Walker", "Baker", "Cook", "Bird", "Fox", "Wolf", "Young", "King",
             "Little", "Long", "Black", "White", "Green", "Gray", "Sharp", "Bishop", "Mason",
             "Porter", "Carter", "Page", "Lane", "Ford", "Rivers", "Marsh", "Frost", "Snow",
             "Winter", "Swift", "Strong", "Hunt", "Cross", "Bell", "Hall", "Moss", "Burns",
             "Lake", "Knight", "Wise", "Gold", "Fisher", "Hart", "Booth")
CITIES = ("Bristol", "Lyon", "Leeds", "Austin", "Denver", "Porto", "Nairobi", "Osaka",
          "Glasgow", "Toulouse", "Seville", "Cork", "Dayton", "Tampa", "Gdansk", "Accra",
          "Utrecht", "Bergen", "Halifax", "Perth", "Bologna", "Lagos", "Pune", "Ghent",
          "Boulder", "Reno", "Salford", "Aarhus")
STREETS = ("Mill", "Church", "Victoria", "Station", "Park", "High", "Oak", "Maple", "Elm",
           "Queen", "Kings", "Bridge", "Market", "Chapel", "Orchard", "Meadow", "Cedar",
           "Harbour", "Willow", "Garden", "Lincoln", "Franklin", "Jefferson", "Madison")
STREET_KINDS = ("Lane", "Road", "Street", "Avenue", "Close", "Drive", "Way", "Crescent",
                "Place", "Terrace")
ORGS = ("Acme Logistics", "Northwind Traders", "Harbor Health", "Blue Ridge Capital",
        "Summit Dental Group", "Riverside Clinic", "Apex Analytics Ltd", "Crescent Foods Inc",
        "Greenfield Energy", "Lakeside Insurance", "Pioneer Freight LLC", "Silverline Media",
        "Oakwood Properties", "Granite Bank", "Beacon Software", "Meridian Labs",
        "Evergreen Solar", "Redwood Partners", "Bluewater Shipping", "Cobalt Systems GmbH",
        "Sterling Legal LLP", "Horizon Airlines", "Keystone Pharma", "Atlas Consulting")
ROLES = ("IT Manager", "Account Executive", "Senior Analyst", "Practice Manager",
         "Operations Director", "Office Coordinator", "Head of Finance", "Sales Associate",
         "Customer Success Lead", "Project Engineer", "HR Business Partner",
         "Claims Adjuster")
SUBJECTS = ("Damaged parcel", "Invoice 4411", "Meeting on Thursday", "Quarterly figures",
            "Contract renewal", "Parking permit", "Budget review", "Delivery delay",
            "New starter paperwork", "Server outage", "Refund request", "Team lunch",
            "Site visit", "Holiday cover", "Policy update", "Access badge")
CONDITIONS = ("HTN", "T2DM", "CKD", "COPD", "CHF", "GERD", "OA", "AF", "hyperlipidemia",
              "asthma", "hypothyroidism", "migraine")
COMPLAINTS = ("chest pain", "SOB", "cough", "dizziness", "fever", "back pain", "nausea",
              "headache", "swelling", "fatigue", "palpitations", "rash")
MEDS = ("metformin", "lisinopril", "amlodipine", "atorvastatin", "ibuprofen", "omeprazole",
        "levothyroxine", "salbutamol", "paracetamol", "naproxen", "warfarin", "sertraline")
BODY = ("knee", "ankle", "shoulder", "hip", "wrist", "elbow", "foot", "hand")
INTERJECTIONS = ("lol", "omg", "haha", "lmao", "ok", "yep", "nah", "brb", "ikr", "ugh",
                 "hmm", "yay", "oops", "tbh", "idk", "wow")
CHAT_LINES = ("are u coming tonight", "running late sorry", "did you see the game",
              "can you send the file", "meeting moved to 3", "where are we eating",
              "just landed", "call me when you can", "that was hilarious",
              "who has the keys", "traffic is awful", "see you at the station")
WORD_USES = ("The summer rain flooded the lane again.",
             "She bought a crystal vase and a gold frame.",
             "A hunter paid the price for the stone wall.",
             "The ivy grew over the banks of the river.",
             "We will grant the reed beds some hope of recovery.",
             "Lily pads float on the lake near the mill.",
             "The white fox crossed the green field at dawn.",
             "Olive oil and hazel nuts are on the list.",
             "The bishop moved before the knight in that game.",
             "Frost and snow are forecast for the long winter.")


@dataclass
class Builder:
    """Lines of labelled chunks, joined by single spaces and newlines."""

    lines: list[list[tuple[str, str]]] = field(default_factory=lambda: [[]])

    def w(self, text: str) -> Builder:
        """Ordinary words (split on spaces)."""
        self.lines[-1].extend((c, WORD) for c in text.split())
        return self

    def p(self, text: str, *, word: bool | Sequence[bool] = False, end: str = "") -> Builder:
        """A name of one or more chunks (``end`` is glued to the last, ``"Rain,"``); ``word``
        marks the chunks that are ordinary words too (one flag, or one per chunk)."""
        chunks = text.split()
        flags = [word] * len(chunks) if isinstance(word, bool) else list(word)
        for k, (c, f) in enumerate(zip(chunks, flags)):
            self.lines[-1].append((c + (end if k == len(chunks) - 1 else ""),
                                   PER_WORD if f else PER))
        return self

    def nl(self, n: int = 1) -> Builder:
        for _ in range(n):
            self.lines.append([])
        return self

    def chunks(self) -> list[list[tuple[str, str]]]:
        return self.lines


@dataclass(frozen=True)
class Sample:
    """One generated text: its kind, lines of chunks, and a label per chunk."""

    kind: str
    lines: tuple[tuple[str, ...], ...]
    labels: tuple[tuple[str, ...], ...]

    @property
    def text(self) -> str:
        return "\n".join(" ".join(line) for line in self.lines)

    def spans(self) -> list[tuple[int, int, str]]:
        """Character spans ``[start, end, "PERSON"]`` of the name chunks (the chunk without
        its leading and trailing punctuation: ``Rain,`` → ``Rain``)."""
        out = []
        line_start = 0
        for line, labels in zip(self.lines, self.labels):
            pos = line_start
            line_start += len(" ".join(line)) + 1
            for chunk, label in zip(line, labels):
                if label != WORD:
                    a, b = 0, len(chunk)
                    while a < b and not chunk[a].isalnum():
                        a += 1
                    while b > a and not chunk[b - 1].isalnum():
                        b -= 1
                    if a < b:
                        out.append((pos + a, pos + b, "PERSON"))
                pos += len(chunk) + 1
        return out


class Pools:
    """The half of every pool one split draws from, and its random stream."""

    def __init__(self, split: str) -> None:
        if split not in SPLIT_SEEDS:
            raise ValueError(f"split must be one of {', '.join(SPLIT_SEEDS)}, got {split!r}")
        half = 0 if split == "dev" else 1
        self.rng = random.Random(SPLIT_SEEDS[split])

        def pick(pool: Sequence[str]) -> tuple[str, ...]:
            return tuple(x for k, x in enumerate(pool) if k % 2 == half)

        self.first, self.last = pick(FIRST), pick(LAST)
        self.wfirst, self.wlast = pick(WORD_FIRST), pick(WORD_LAST)
        self.cities, self.streets, self.orgs = pick(CITIES), pick(STREETS), pick(ORGS)
        self.subjects, self.roles = pick(SUBJECTS), pick(ROLES)

    def c(self, pool: Sequence[str]) -> str:
        return self.rng.choice(list(pool))

    def person(self, word_like: float = 0.3) -> tuple[str, str, bool, bool]:
        """A first name and a surname, each a word-like one with probability ``word_like``."""
        wf = self.rng.random() < word_like
        wl = self.rng.random() < word_like
        return (self.c(self.wfirst if wf else self.first), self.c(self.wlast if wl else self.last),
                wf, wl)


# ---------------------------------------------------------------------------- kinds
def clinical(p: Pools) -> Builder:
    b = Builder()
    first, last, wf, wl = p.person()
    _, dr, _, dwl = p.person()
    rn, _, rwf, _ = p.person()
    age = p.rng.randint(19, 91)
    sex = p.c("MF")
    side = p.c(("L", "R"))
    b.w("Pt:").p(f"{first} {last}", word=[wf, wl]).w(f"MRN {p.rng.randint(10**7, 10**8 - 1)}"
                                                     f" DOB {p.rng.randint(1, 28):02d}/"
                                                     f"{p.rng.randint(1, 12):02d}/"
                                                     f"{p.rng.randint(1935, 2004)}").nl()
    style = p.rng.randint(0, 2)
    if style == 0:
        b.w(f"{age} y/o {sex}, Hx of {p.c(CONDITIONS)} and {p.c(CONDITIONS)}. Presents with "
            f"{p.c(COMPLAINTS)} x {p.rng.randint(2, 9)} days.").nl()
    elif style == 1:
        b.w(f"{age}{sex} c/o {p.c(COMPLAINTS)} re: {side} {p.c(BODY)}, worse on weight "
            "bearing. PMH:").w(f"{p.c(CONDITIONS)}, {p.c(CONDITIONS)}.").nl()
    else:
        b.w(f"HPI: {age} yo {'male' if sex == 'M' else 'female'} with {p.c(COMPLAINTS)} "
            f"since Monday. No {p.c(COMPLAINTS)}. NKDA.").nl()
    b.w(f"Meds: {p.c(MEDS)} {p.c(('5', '10', '20', '500'))} mg BID, {p.c(MEDS)} PRN. Avoid "
        "NSAIDs.").nl()
    b.w(f"Vitals: BP {p.rng.randint(100, 170)}/{p.rng.randint(60, 100)}, HR "
        f"{p.rng.randint(55, 110)}, SpO2 {p.rng.randint(91, 99)}% RA.").nl()
    b.w("Seen by Dr.").p(dr, word=dwl, end=".").w("RN").p(rn, word=rwf).w("notified.").nl()
    b.w(f"Plan: {p.c(('X-ray', 'MRI', 'CBC, BMP', 'ECG'))}, f/u in "
        f"{p.rng.randint(1, 6)} wks. Pt agrees with plan.")
    if p.rng.random() < 0.5:
        b.nl().w("Discussed with").p(first, word=wf).w(f"and daughter; next appt "
                                                        f"{p.c(('Tue', 'Wed', 'Fri'))}.")
    return b


def email(p: Pools) -> Builder:
    b = Builder()
    f1, l1, wf1, wl1 = p.person()
    f2, l2, wf2, wl2 = p.person()
    org = p.c(p.orgs)
    dom = org.split()[0].lower() + ".example.com"
    subject = p.c(p.subjects)
    b.w("From:").p(f"{f1} {l1}", word=[wf1, wl1]).p(f"<{f1.lower()}.{l1.lower()}@{dom}>",
                                                   word=wf1 and wl1).nl()
    b.w("Sent: Monday, March 3, 2014 9:12 AM").nl()
    b.w("To:").p(f"{f2} {l2}", word=[wf2, wl2]).nl()
    b.w(f"Subject: {p.c(('', 'RE: ', 'FW: '))}{subject}").nl(2)
    b.w(p.c(("Hi", "Hello", "Dear"))).p(f2, word=wf2, end=",").nl(2)
    b.w(p.c(("Please see the attached and let me know if anything is missing.",
             "Following up on our call, the revised figures are below.",
             "Could you confirm the new date before Friday?",
             "Apologies for the delay, the courier lost the first parcel.")))
    b.w(p.c(("Action: reply by noon.", "Thanks in advance.", "Happy to discuss.",
             "Best wishes for the weekend."))).nl(2)
    b.w(p.c(("Thanks,", "Regards,", "Best,", "Cheers,", "Kind regards,"))).nl()
    b.p(f1, word=wf1).nl(2)
    b.p(f"{f1} {l1}", word=[wf1, wl1]).nl()
    b.w(f"{p.c(p.roles)} | {org}").nl()
    b.w("E:").p(f"{f1.lower()}.{l1.lower()}@{dom}", word=wf1 and wl1).nl()
    b.w(f"M: +44 7700 {p.rng.randint(100000, 999999)}").nl(2)
    b.w("-----Original Message-----").nl()
    b.w("From:").p(f"{l2},", word=wl2).p(f2, word=wf2).nl()
    b.w("Sent: Friday, February 28, 2014 4:40 PM").nl()
    b.w("To:").p(f"{l1},", word=wl1).p(f1, word=wf1).nl()
    b.w(f"Subject: {subject}").nl(2)
    b.w("> Can you check the order status and the delivery address?").nl()
    b.w("> Thanks,").p(f2, word=wf2)
    return b


def chat(p: Pools) -> Builder:
    b = Builder()
    people = [p.person() for _ in range(3)]
    for k in range(p.rng.randint(5, 8)):
        first, _, wf, _ = people[k % len(people)]
        stamp = f"[{p.rng.randint(8, 22):02d}:{p.rng.randint(0, 59):02d}]"
        label = p.rng.randint(0, 2)
        b.w(stamp)
        if label == 0:
            b.p(f"{first.lower()}:", word=wf)
        elif label == 1:
            b.p(f"<{first.lower()}>", word=wf)
        else:
            b.p(f"{first}:", word=wf)
        if p.rng.random() < 0.5:
            b.w(p.c(INTERJECTIONS))
        b.w(p.c(CHAT_LINES))
        if p.rng.random() < 0.3:
            other, _, owf, _ = people[(k + 1) % len(people)]
            b.p(f"@{other.lower()}", word=owf)
        if p.rng.random() < 0.4:
            b.w(p.c(INTERJECTIONS))
        b.nl()
    return b


def address(p: Pools) -> Builder:
    b = Builder()
    first, last, wf, wl = p.person()
    street = f"{p.rng.randint(1, 240)} {p.c(p.streets)} {p.c(STREET_KINDS)},"
    city = p.c(p.cities)
    style = p.rng.randint(0, 2)
    if style == 0:
        b.w("Please send the replacement to").p(f"{first} {last},", word=[wf, wl]).nl()
        b.w(f"Flat {p.rng.randint(1, 30)}, {street}").nl()
        b.w(f"{city} {p.c(('BS1 4DJ', 'LS6 2AB', 'G12 8QQ', '69002', '78701'))}").nl()
    elif style == 1:
        b.w(f"Deliver to: {street} {city}. Ask for").p(first, word=wf, end=".").nl()
        b.w(f"We are moving to {p.c(p.cities)} in May; the {city} office closes in June.")
    else:
        b.p(f"{first} {last}", word=[wf, wl]).w(f"lives at {street} {city}, near "
                                                 f"{p.c(p.streets)} Park.").nl()
        b.w(f"Shipping: {street} {city}. Billing: PO Box {p.rng.randint(100, 999)}, "
            f"{p.c(p.cities)}.")
    return b


def org(p: Pools) -> Builder:
    b = Builder()
    first, last, wf, wl = p.person()
    o1, o2 = p.c(p.orgs), p.c(p.orgs)
    style = p.rng.randint(0, 2)
    if style == 0:
        b.p(f"{first} {last}", word=[wf, wl]).w(f"joined {o1} as {p.c(p.roles)} after six "
                                                 f"years at {o2}.")
    elif style == 1:
        b.w(f"{o1} signed a supply deal with {o2} on Tuesday. A spokesperson for "
            f"{o1.split()[0]} declined to comment.")
    else:
        b.w(f"Contact: {p.c(p.roles)}, {o1}.").w("Ask for").p(f"{first} {last}",
                                                          word=[wf, wl], end=".")
    return b


def role(p: Pools) -> Builder:
    b = Builder()
    first, last, wf, wl = p.person()
    style = p.rng.randint(0, 3)
    if style == 0:
        b.w("The President said on Monday that the Minister would resign.")
        b.w("Prime Minister").p(f"{first} {last}", word=[wf, wl]).w("disagreed.")
    elif style == 1:
        b.w("Senator").p(last, word=wl).w("asked the Secretary of State about the Treaty.")
        b.w("The Governor and the Mayor were not present.")
    elif style == 2:
        b.w("The Chief Executive, the Chairman and the Finance Director met the Board.")
        b.w("Director").p(f"{first} {last}", word=[wf, wl]).w("chaired.")
    else:
        b.w("He told the Committee that the Minister of Health had been briefed, and she "
            "agreed.")
    return b


def caps(p: Pools) -> Builder:
    b = Builder()
    first, last, wf, wl = p.person()
    side = p.c(("L", "R"))
    style = p.rng.randint(0, 2)
    if style == 0:
        b.w("PT").p(f"{first.upper()} {last.upper()}", word=[wf, wl]).w(
            f"SEEN TODAY. C/O PAIN {side} {p.c(BODY).upper()}. HX "
            f"{p.c(CONDITIONS).upper()}. CALL BACK TMRW.")
    elif style == 1:
        b.p(f"{first.upper()} {last.upper()}", word=[wf, wl]).w(
            f"CALLED RE INVOICE {p.rng.randint(1000, 9999)}. WANTS REFUND. ACTION: CALL "
            "BACK BEFORE FRIDAY.")
    else:
        b.w(f"URGENT: DELIVERY TO {p.c(p.streets).upper()} {p.c(STREET_KINDS).upper()} "
            f"DELAYED. CUSTOMER").p(f"{last.upper()}", word=wl).w("NOT HOME. RETRY "
                                                                   "MONDAY.")
    return b


def wordnames(p: Pools) -> Builder:
    b = Builder()
    first, last = p.c(p.wfirst), p.c(p.wlast)
    style = p.rng.randint(0, 3)
    if style == 0:
        b.p(f"{first} {last}", word=True).w("called again today.").p(first, word=True).w(
            "says the").p(last, word=True).w("family cannot pay until March. Contact:")
        b.p(f"{first.lower()}.{last.lower()}@example.com", word=True)
    elif style == 1:
        b.w("Support note: spoke with").p(f"{first} {last}", word=True, end=".").w(
            "Will call").p(first, word=True).w("back tomorrow about the refund.")
    elif style == 2:
        b.w(f"Meet at {p.c(p.streets)} Lane at noon. Ask for").p(first, word=True, end=".")
        b.w("Thanks,").nl().p(f"{first} {last}", word=True)
    else:
        b.w("pt").p(f"{first.lower()} {last.lower()}", word=True).w(
            "seen in clinic, bp ok.")
    if p.rng.random() < 0.6:
        b.nl().w(p.c(WORD_USES))
    return b


KINDS: dict[str, Callable[[Pools], Builder]] = {
    "clinical": clinical, "email": email, "chat": chat, "address": address, "org": org,
    "role": role, "caps": caps, "wordnames": wordnames,
}


def read_written(path: str | Path = WRITTEN_FILE) -> list[Sample]:
    """The hand-written texts of ``path`` (JSONL: ``kind``, ``text`` with names marked
    ``[[...]]``) as samples: a whitespace chunk that holds a letter of a marked name is a
    name (``PER_WORD`` when the name is a common English word: ``[[Hope]]``; not a name
    particle: ``de``), an unmarked e-mail address, and in a chat an unmarked account name,
    is left out (:data:`SKIP`), every other chunk is a word."""
    from textdp.detect.words import common_words
    from textdp.pipeline.draw_plan import PARTICLES

    common = common_words() - PARTICLES  # "de" in "Anneke de Vries" is a particle
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            marked, text, pos = [], [], 0
            for m in _MARK.finditer(record["text"]):
                text.append(record["text"][pos:m.start()])
                start = sum(map(len, text))
                text.append(m.group(1))
                marked.append((start, start + len(m.group(1))))
                pos = m.end()
            text.append(record["text"][pos:])
            plain = "".join(text)
            lines, labels, offset = [], [], 0
            for ln in plain.split("\n"):
                chunks, chunk_labels = ln.split(" "), []
                for chunk in chunks:
                    a, b = offset, offset + len(chunk)
                    offset = b + 1
                    name = any(s < b and a < e and any(c.isalpha() for c in plain[max(a, s):
                                                                                 min(b, e)])
                               for s, e in marked)
                    core = "".join(c for c in chunk if c.isalpha()).casefold()
                    chunk_labels.append((PER_WORD if core in common else PER) if name else
                                        SKIP if "@" in chunk.strip("@") or
                                        (record["kind"] == "chat" and
                                         _ACCOUNT.fullmatch(chunk.strip(",.!?")))
                                        else WORD)
                lines.append(tuple(chunks))
                labels.append(tuple(chunk_labels))
            out.append(Sample(record["kind"], tuple(lines), tuple(labels)))
    return out


def generate(split: str = "dev", per_kind: int = 60) -> list[Sample]:
    """``per_kind`` texts of every kind of :data:`KINDS` for ``split`` (``"dev"`` or
    ``"report"``), the same every time; for ``"written"`` the hand-written texts
    (:func:`read_written`, all of them)."""
    if split == WRITTEN:
        return read_written()
    pools = Pools(split)
    out = []
    for kind, make in KINDS.items():
        for _ in range(per_kind):
            lines = make(pools).chunks()
            while len(lines) > 1 and not lines[-1]:
                lines.pop()
            out.append(Sample(kind, tuple(tuple(c for c, _ in ln) for ln in lines),
                              tuple(tuple(lab for _, lab in ln) for ln in lines)))
    return out


# ---------------------------------------------------------------------------- measuring
@dataclass
class Counts:
    """Word chunks of one kind: ordinary (and replaced), names (and surviving), word-like
    names (and surviving)."""

    ordinary: int = 0
    replaced: int = 0
    names: int = 0
    names_surviving: int = 0
    word_names: int = 0
    word_names_surviving: int = 0

    def add(self, other: Counts) -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(other, k))

    @staticmethod
    def _pct(a: int, b: int) -> float:
        return 100.0 * a / b if b else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__,
                "ordinary_replaced_pct": self._pct(self.replaced, self.ordinary),
                "names_surviving_pct": self._pct(self.names_surviving, self.names),
                "word_names_surviving_pct": self._pct(self.word_names_surviving,
                                                      self.word_names)}

    def summary(self, kind: str) -> str:
        d = self.as_dict()
        return (f"{kind:9s} ordinary words replaced {d['ordinary_replaced_pct']:5.1f} % of "
                f"{self.ordinary:5d} | names surviving {d['names_surviving_pct']:5.1f} % of "
                f"{self.names:4d} | word-like names surviving "
                f"{d['word_names_surviving_pct']:5.1f} % of {self.word_names}")


def _is_word(chunk: str) -> bool:
    return any(c.isalpha() for c in chunk)


def count(sample: Sample, output: str) -> Counts:
    """Compare one sample with its privatized text chunk by chunk (the privatizer keeps the
    whitespace skeleton)."""
    out_lines = output.split("\n")
    if len(out_lines) != len(sample.lines):
        raise ValueError("the privatizer changed the line structure of a sample")
    c = Counts()
    for line, labels, out in zip(sample.lines, sample.labels, out_lines):
        if not line:
            continue
        new = out.split(" ")
        if len(new) != len(line):
            raise ValueError("the privatizer changed the whitespace skeleton of a sample")
        for chunk, label, res in zip(line, labels, new):
            if not _is_word(chunk) or label == SKIP:
                continue
            same = chunk.casefold() == res.casefold()
            if label == WORD:
                c.ordinary += 1
                c.replaced += not same
            else:
                c.names += 1
                c.names_surviving += same
                if label == PER_WORD:
                    c.word_names += 1
                    c.word_names_surviving += same
    return c


def measure(privatizer: Any, samples: Sequence[Sample]) -> dict[str, Counts]:
    """Counts per kind and ``"all"``, the samples privatized by ``privatizer`` (its
    ``privatize`` on the texts)."""
    outputs = [r.text for r in privatizer.privatize([s.text for s in samples])]
    per: dict[str, Counts] = {}
    total = Counts()
    for s, out in zip(samples, outputs):
        c = count(s, out)
        per.setdefault(s.kind, Counts()).add(c)
        total.add(c)
    per["all"] = total
    return per


def write_jsonl(samples: Sequence[Sample], path: str) -> None:
    """The samples as JSONL for ``textdp evaluate detection --data``: ``text``, ``spans``
    (character offsets of the names) and ``kind``."""
    with open(path, "w", encoding="utf-8") as f:
        for s in samples:
            f.write(json.dumps({"text": s.text, "spans": [list(x) for x in s.spans()],
                                "kind": s.kind}) + "\n")


def evaluate_samples(split: str = "dev", per_kind: int = 60, *, detector: str | None = None,
                     write: str | None = None, log: Callable[[str], Any] = print
                     ) -> dict[str, dict[str, Any]]:
    """Generate a split and measure it through the default privatizer (or ``detector``),
    names only, seed 0: per kind and in all, the figures of :class:`Counts`. ``write``: also
    write the sample as JSONL (:func:`write_jsonl`); ``log`` gets one summary line a kind."""
    samples = generate(split, per_kind)
    if write:
        write_jsonl(samples, write)
    from textdp.privatizer import Privatizer

    per = measure(Privatizer(detector=detector, seed=0), samples)
    for kind, c in per.items():
        log(c.summary(kind))
    return {k: c.as_dict() for k, c in per.items()}
