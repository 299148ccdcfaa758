"""Do first names become first names and surnames surnames, for names of every origin?

    textdp evaluate name-kinds [--texts 600] [--seed 0]

A dev sample of short texts (:func:`dev_sample`): :data:`TEMPLATES` (greetings, sign-offs,
honorifics, full names, particles, hyphenated names) filled with names of the held-apart part
of the multi-origin lists (``textdp/data/names/held_apart.tsv``: a tenth of the names never in
the vocabulary, so their kind must come from the text). Each text is privatized and the
substitute at each slot read back through the template (:func:`evaluate_name_kinds`):

* ``first_as_first``: of the first-name slots replaced, the share whose substitute is a
  first name of the vocabulary; ``last_as_last`` likewise for surnames;
* ``missed``: slots written unchanged (the detector missed the name);
* ``particle_names``: particles replaced by something that is not a particle (they are
  written as a particle drawn from the public list);
* ``compound_shape``: of the hyphenated first names replaced, the share written as two parts
  joined by a hyphen in the original's casing;
* ``initial_shape``: of the initials (``K.``, ``D.A.``, before a surname), the share written
  as as many initials (a letter may come back as itself by chance, so they do not count as
  missed or replaced).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from textdp.name_vocabulary import NAMES_DIR, name_key, name_spaces
from textdp.pipeline.draw_plan import PARTICLE_DRAWS

#: Slots: {F} a first name (Title), {f} a first name in lower case, {L} a surname, {H} a
#: hyphenated first name ("Seo-yeon"), {I} an initial ("K."), {J} two ("D.A."); a particle
#: (:data:`PARTICLE_WORDS`) is written as in the template.
TEMPLATES = (
    "Hi {F}, thanks for the update.",
    "Hey {f} are you coming tonight?",
    "{F} from the plumbing company called about the leak.",
    "happy bday {f}!!",
    "Dear {F},\nplease find the report attached.",
    "Thanks, {F}!",
    "{F} says the package arrived.",
    "Dr. {L} will see you at 10.",
    "Mr {L} said the meeting was moved.",
    "Mrs. {L} called twice this morning.",
    "I spoke with Professor {L} yesterday.",
    "{F} {L} joined the board last year.",
    "We met {F} {L} at the conference in Lagos.",
    "The report by {F} {L} was published on Monday.",
    "{F} van den {L} moved to Utrecht.",
    "{F} de la {L} wrote the letter.",
    "{F} bin {L} arrived this morning.",
    "Hi {H}, see you soon.",
    "{I} {L} took three wickets for 41 runs.",
    "The letter was signed by {J} {L} on Friday.",
)
PARTICLE_WORDS = ("van", "den", "de", "la", "bin")
_SLOT = re.compile(r"\{([FfLHIJ])\}")
_INITIALS = re.compile(r"(?:[A-Z]\.)+")


@dataclass(frozen=True)
class Sample:
    """A dev text and, per slot in order, its kind (``"first"``/``"last"``/``"initial"``),
    the name written there, and whether it is hyphenated."""

    text: str
    template: str
    slots: tuple[tuple[str, str, bool], ...]


def held_apart_names() -> dict[str, list[str]]:
    """The held-apart names by kind: ``"first"`` and ``"last"`` (one-part, listed as that
    kind only) and ``"hyphen"`` (hyphenated first names)."""
    out: dict[str, list[str]] = {"first": [], "last": [], "hyphen": []}
    for line in (NAMES_DIR / "held_apart.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        name, kind, _ = line.split("\t")
        if kind == "first" and re.fullmatch(r"[A-Z][a-z]+-[a-z]+", name.capitalize()):
            out["hyphen"].append(name)
        elif kind in ("first", "last") and name.isalpha() and len(name) > 2:
            out[kind].append(name)
    return out


def dev_sample(n: int = 600, seed: int = 0) -> list[Sample]:
    """``n`` dev texts: templates in turn, names drawn with ``seed``."""
    names = held_apart_names()
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        template = TEMPLATES[i % len(TEMPLATES)]
        slots: list[tuple[str, str, bool]] = []

        def fill(match: re.Match[str], slots: list[tuple[str, str, bool]] = slots) -> str:
            slot = match.group(1)
            if slot in "IJ":
                letters = rng.choice(list("ABCDEFGHIJKLMNOPRSTVW"), size=1 + (slot == "J"))
                name = "".join(f"{c}." for c in letters)
                slots.append(("initial", name, False))
                return name
            if slot == "H":
                a, b = names["hyphen"][rng.integers(len(names["hyphen"]))].split("-", 1)
                name = f"{a.capitalize()}-{b.lower()}"
                slots.append(("first", name, True))
                return name
            kind = "last" if slot == "L" else "first"
            name = names[kind][rng.integers(len(names[kind]))]
            name = name.lower() if slot == "f" else name
            slots.append((kind, name, False))
            return name

        text = _SLOT.sub(fill, template)
        out.append(Sample(text, template, tuple(slots)))
    return out


def _pattern(template: str) -> re.Pattern[str]:
    """The template as a pattern whose groups are its slots; a particle of the template may
    come back as any particle of the public list (they are drawn, whatever they were)."""
    parts = _SLOT.split(template)
    any_particle = "(?:" + "|".join(map(re.escape, PARTICLE_DRAWS)) + ")"

    def literal(text: str) -> str:
        return "".join(any_particle if w in PARTICLE_WORDS else re.escape(w)
                       for w in re.split(r"(\s+)", text))

    return re.compile("".join(literal(p) if i % 2 == 0 else r"(.+?)"
                              for i, p in enumerate(parts)) + r"\Z", re.S)


def evaluate_name_kinds(privatizer: Any, samples: list[Sample]) -> dict[str, Any]:
    """The figures of the module docstring for ``samples`` through ``privatizer``."""
    spaces = name_spaces(privatizer.candidates)
    firsts = {name_key(w) for w in spaces.first.words}
    lasts = {name_key(w) for w in spaces.last.words}
    counts = {"first": [0, 0], "last": [0, 0]}
    missed = unread = particle_names = compounds = compound_ok = initials = initial_ok = 0
    outputs = privatizer.privatize([s.text for s in samples])
    for sample, out in zip(samples, outputs):
        match = _pattern(sample.template).match(out.text)
        if match is None:  # a particle or other template word changed
            unread += 1
            particle_names += any(p in sample.template.split() for p in PARTICLE_WORDS)
            continue
        for (kind, name, hyphen), new in zip(sample.slots, match.groups()):
            if kind == "initial":
                initials += 1
                initial_ok += bool(_INITIALS.fullmatch(new)) and len(new) == len(name)
                continue
            if new == name:
                missed += 1
                continue
            if hyphen:
                compounds += 1
                parts = new.split("-")
                compound_ok += len(parts) == 2 and parts[0].istitle() and parts[1].islower()
                new = new.split("-", 1)[0]
            known = firsts if kind == "first" else lasts
            counts[kind][0] += 1
            counts[kind][1] += name_key(new) in known
    return {
        "texts": len(samples),
        "first_slots": counts["first"][0],
        "first_as_first": counts["first"][1] / max(counts["first"][0], 1),
        "last_slots": counts["last"][0],
        "last_as_last": counts["last"][1] / max(counts["last"][0], 1),
        "missed": missed, "unread": unread, "particle_names": particle_names,
        "compounds": compounds, "compound_shape": compound_ok / max(compounds, 1),
        "initials": initials, "initial_shape": initial_ok / max(initials, 1),
    }
