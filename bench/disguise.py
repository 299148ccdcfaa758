"""Disguised and glued names: how many survive the default privatizer, per form.

    python bench/disguise.py [--seed 0] [--json bench/results/disguise.json]

24 texts per form, each with another full name (census first name + surname) in another
template, through the default ``Privatizer()`` (names only). A text *leaks* when a part of
its name can be read back from the output: the part as disguised is still there verbatim, or
the output read plainly (character references decoded, tags removed, look-alike letters
replaced by their Latin skeleton, spaced or dotted single letters joined, digits read as
letters) holds the part as a whole word. Forms: Cyrillic/Greek look-alikes for every letter
and for one letter per word, letter-spacing, dotted letters, leetspeak, character
references, tags inside a name, a name glued by commas, Windows paths, a domain account,
URL paths and query strings, and names in Cyrillic script. ``glued`` forms also count texts
whose characters outside the name changed (data loss).

The look-alikes come from the ``confusable-homoglyphs`` package (Unicode UTS #39 data), not
from the library under test, so the benchmark also runs on older versions of textdp.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NAMES = [("John", "Smith"), ("Karen", "Whitfield"), ("Maria", "Garcia"), ("David", "Kowalski"),
         ("Linda", "Johnson"), ("Robert", "Miller"), ("Susan", "Taylor"), ("James", "Anderson"),
         ("Patricia", "Thomas"), ("Michael", "Moore"), ("Elizabeth", "Martin"),
         ("William", "Jackson"), ("Barbara", "Thompson"), ("Richard", "White"),
         ("Jennifer", "Harris"), ("Charles", "Clark"), ("Nancy", "Lewis"),
         ("Daniel", "Robinson"), ("Sarah", "Walker"), ("Thomas", "Hall"), ("Lisa", "Allen"),
         ("Steven", "Young"), ("Helen", "Hernandez"), ("Kevin", "Wright")]
CYRILLIC_NAMES = [("Владимир", "Петров"), ("Ольга", "Смирнова"), ("Сергей", "Иванов"),
                  ("Наталья", "Кузнецова"), ("Дмитрий", "Соколов"), ("Елена", "Попова"),
                  ("Алексей", "Лебедев"), ("Татьяна", "Козлова"), ("Андрей", "Новиков"),
                  ("Ирина", "Морозова"), ("Михаил", "Волков"), ("Светлана", "Павлова"),
                  ("Николай", "Семенов"), ("Анна", "Голубева"), ("Павел", "Виноградов"),
                  ("Мария", "Богданова"), ("Игорь", "Воробьев"), ("Юлия", "Федорова"),
                  ("Олег", "Михайлов"), ("Екатерина", "Беляева"), ("Виктор", "Тарасов"),
                  ("Людмила", "Белова"), ("Борис", "Комаров"), ("Галина", "Орлова")]
TEMPLATES = [
    "Please ask {n} about the invoice before Friday.",
    "Meeting notes: {n} will present the budget.",
    "The package was signed for by {n} at the front desk.",
    "Hi team, {n} joined us today as a data analyst.",
    "Reminder: call {n} back regarding the lease.",
    "Patient {n} was seen in clinic this morning.",
    "Thanks to {n} for the quick review!",
    "Ticket 4821 was reassigned to {n} yesterday.",
    "We spoke with {n} and agreed on the dates.",
    "Contact person: {n}",
    "According to {n}, the server went down at noon.",
    "Congrats {n} on the promotion.",
    "The report by {n} is attached.",
    "Can someone forward this to {n} please?",
    "Interview scheduled with {n} on Tuesday.",
    "Approved by {n} (finance).",
    "Our new neighbour is {n}, who moved in last week.",
    "Shift swap: {n} covers Saturday.",
    "Feedback from {n}: the form is too long.",
    "Delivery address confirmed by {n}.",
    "The lecture will be given by {n} in room 3.",
    "Lost badge belongs to {n}.",
    "Minutes taken by {n}.",
    "Escalated to {n} after two failed attempts.",
]
GLUED_TEMPLATES = {
    "csv": "{i},{F} {L},active",
    "path": "Saved to C:\\Users\\{F}.{L}\\Desktop\\notes.txt yesterday.",
    "domain": "Login failed for CORP\\{f0}{l} at 09:14.",
    "url_path": "Profile: https://intranet.acme.com/staff/{f}-{l}/profile",
    "query": "See https://acme.com/search?name={F}+{L}&page=2 for details.",
    "tags": "See <b>{F}</b> <i>{L}</i> now.",
    "pipe": "Ask {F}|{L} about it.",
    "nul": "Ask {F}\x00{L} about it.",
}
LEET = str.maketrans({"a": "4", "i": "1", "e": "3", "o": "0", "s": "5", "t": "7"})
UNLEET = str.maketrans({"4": "a", "1": "i", "3": "e", "0": "o", "5": "s", "7": "t"})


def look_alikes() -> tuple[dict[str, str], dict[str, str]]:
    """Latin letter → a Cyrillic or Greek look-alike, and any look-alike → its Latin letter."""
    from confusable_homoglyphs import confusables

    to_latin: dict[str, str] = {}
    for char, entries in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii() or not char.isalpha():
            continue
        name = unicodedata.name(char, "")
        if not name.startswith(("CYRILLIC", "GREEK")):
            continue
        latin = [e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii()
                 and e["c"].isalpha() and e["c"].isupper() == char.isupper()]
        if latin:
            to_latin[char] = latin[0]
    from_latin: dict[str, str] = {}
    for char, latin in sorted(to_latin.items(), key=lambda kv: not unicodedata.name(
            kv[0]).startswith("CYRILLIC")):
        from_latin.setdefault(latin, char)
    return from_latin, to_latin


FROM_LATIN, TO_LATIN = look_alikes()


def swap_all(word: str) -> str:
    return "".join(FROM_LATIN.get(c, c) for c in word)


def swap_one(word: str) -> str:
    for k, c in enumerate(word):
        if c in FROM_LATIN and k:
            return word[:k] + FROM_LATIN[c] + word[k + 1:]
    return swap_all(word[:1]) + word[1:]


DISGUISES = {
    "homoglyph_every_letter": lambda w: swap_all(w),
    "homoglyph_one_letter": lambda w: swap_one(w),
    "letter_spaced": lambda w: " ".join(w),
    "dotted": lambda w: ".".join(w),
    "leetspeak": lambda w: w[0] + w[1:].translate(LEET),
    "html_entity": lambda w: f"&#{ord(w[0])};" + w[1:],
    "tag_inside": lambda w: w[:2] + "<b></b>" + w[2:],
}
JOINERS = {"letter_spaced": "  "}


def reveal(text: str) -> str:
    """The output read plainly (see the module doc)."""
    text = html.unescape(text)
    text = re.sub(r"</?[A-Za-z][^<>]*>", "", text)
    text = "".join(TO_LATIN.get(c, c) for c in text)
    text = re.sub(r"(?<![^\W\d_])[^\W\d_](?:[ .][^\W\d_]){2,}(?![^\W\d_])",
                  lambda m: re.sub(r"[ .]", "", m.group()), text)
    return re.sub(r"\w+", lambda m: m.group().translate(UNLEET)
                  if re.search(r"[A-Za-z]", m.group()) else m.group(), text)


def leaked(out: str, parts: list[str], disguised: list[str]) -> bool:
    words = {w.casefold() for w in re.findall(r"[^\W\d_]+", reveal(out))}
    return any(d in out for d in disguised) or any(p.casefold() in words for p in parts)


def cases() -> dict[str, list[tuple[str, list[str], list[str], str | None]]]:
    """Per form: (text, name parts, disguised parts, the text with the name cut out)."""
    out: dict[str, list[tuple[str, list[str], list[str], str | None]]] = {}
    out["plain"] = [(t.format(n=f"{f} {last}"), [f, last], [f, last], None)
                    for t, (f, last) in zip(TEMPLATES, NAMES)]
    for form, fold in DISGUISES.items():
        join = JOINERS.get(form, " ")
        rows = []
        for t, (f, last) in zip(TEMPLATES, NAMES):
            df, dl = fold(f), fold(last)
            rows.append((t.format(n=df + join + dl), [f, last], [df, dl], None))
        out[form] = rows
    out["cyrillic_script"] = [(t.format(n=f"{f} {last}"), [], [f, last], None)
                              for t, (f, last) in zip(TEMPLATES, CYRILLIC_NAMES)]
    for form, template in GLUED_TEMPLATES.items():
        rows = []
        for i, (f, last) in enumerate(NAMES):
            fields = {"F": f, "L": last, "f": f.lower(), "l": last.lower(),
                      "f0": f[0].lower(), "i": 40 + i}
            text = template.format(**fields)
            parts = [last] if form == "domain" else [f, last]
            disguised = [f"{f[0].lower()}{last.lower()}"] if form == "domain" else [f, last]
            rows.append((text, parts, disguised, template))
        out["glued_" + form] = rows
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    from textdp import Privatizer

    privatizer = Privatizer(seed=args.seed)
    results = {}
    print(f"{'form':28} {'leaks':>7} {'neighbours changed':>19}")
    for form, rows in cases().items():
        outs = [r.text for r in privatizer.privatize([text for text, *_ in rows])]
        leaks = sum(leaked(out, parts, disguised)
                    for out, (_, parts, disguised, _) in zip(outs, rows))
        changed = None
        if form.startswith("glued_"):
            changed = 0
            for out, (_, _, _, template) in zip(outs, rows):
                # The template's fixed text around the name must survive byte for byte.
                fixed = [p for p in re.split(r"\{\w+\}", template) if p]
                changed += not all(p in out for p in fixed)
        results[form] = {"leaks": leaks, "texts": len(rows), "neighbours_changed": changed}
        extra = "" if changed is None else f"{changed:>12}/{len(rows)}"
        print(f"{form:28} {leaks:>4}/{len(rows)} {extra}", flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
