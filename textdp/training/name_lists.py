"""Build the multi-origin name lists shipped in ``textdp/data/names/`` from Faker.

Faker (MIT licence) has per-locale person providers with first-name and surname lists. This
module reads the Latin-script ones, groups the locales into coarse public origin groups
(:data:`ORIGIN_GROUPS`), and writes two tab-separated files: ``vocabulary.tsv`` (the names a
person may become) and ``held_apart.tsv`` (a deterministic tenth of the names, never in the
vocabulary: the dev sample of :mod:`textdp.evaluate.name_kinds` draws its names from it, so the
kind of those names must come from their context). Faker is needed only to rebuild the files
(``python -m textdp.training.name_lists``); it is no dependency of textdp.

Each line is ``name<TAB>kind<TAB>group``: ``kind`` is ``first``, ``last`` or ``both`` (listed
as either), ``group`` the origin group whose locales list the name in the largest share
(ties: the order of :data:`ORIGIN_GROUPS`). Names in upper case (Faker's romanized zh_TW) are
written in Title case; the vocabulary holds one-part alphabetic names only.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
import re
import sys
from collections import defaultdict
from pathlib import Path

#: Coarse public origin groups and the Faker locales each is built from. The label is
#: released with ``name_origin="keep"`` (see ``PrivatizerConfig.name_origin``).
ORIGIN_GROUPS: dict[str, tuple[str, ...]] = {
    "anglo": ("en", "en_GB", "en_US", "en_NZ", "en_IE", "ga_IE"),
    "germanic": ("de_AT", "de_CH", "de_DE", "de_LI", "de_LU", "nl_BE", "nl_NL"),
    "nordic_finnic": ("da_DK", "sv_SE", "no_NO", "is_IS", "fi_FI", "et_EE"),
    "romance": ("es_AR", "es_CA", "es_CL", "es_CO", "es_ES", "es_MX", "pt_BR", "pt_PT",
                "it_IT", "fr_FR", "fr_BE", "fr_CA", "fr_CH", "ro_RO"),
    "central_eastern_european": ("cs_CZ", "sk_SK", "pl_PL", "hr_HR", "sl_SI", "lt_LT",
                                 "lv_LV", "hu_HU"),
    "south_asian": ("en_IN", "en_PK"),
    "west_african": ("yo_NG", "ig_NG", "ha_NG", "en_NG", "tw_GH"),
    "east_southern_african": ("en_KE", "sw", "zu_ZA"),
    "arabic_turkic": ("fr_DZ", "tr_TR", "az_AZ", "uz_UZ"),
    "east_asian": ("ja_JP", "zh_CN", "zh_TW"),
    "southeast_asian": ("id_ID", "vi_VN", "en_TH"),
}
FIRST_ATTRS = ("first_names", "first_names_male", "first_names_female",
               "first_names_nonbinary", "first_romanized_names", "first_romanized_names_male",
               "first_romanized_names_female", "first_names_male_romanized")
LAST_ATTRS = ("last_names", "last_romanized_names", "last_names_romanized")
LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿĀ-ž'\-]+")
#: One name in this many (by a hash of its spelling) is held apart from the vocabulary.
HELD_APART_EVERY = 10
OUT = Path(__file__).resolve().parent.parent / "data" / "names"


def _locale_names(locale: str) -> dict[str, set[str]]:
    """The Latin-script first names and surnames of one Faker locale, Title-cased when the
    provider writes them in upper case."""
    provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
    own = [c for c in provider.__mro__
           if c.__module__.startswith(f"faker.providers.person.{locale}")]

    def get(attrs: tuple[str, ...]) -> set[str]:
        found: set[str] = set()
        for attr in attrs:
            for cls in own:
                value = cls.__dict__.get(attr)
                if value is not None and not isinstance(value, property):
                    found |= set(value.keys() if isinstance(value, dict) else value)
                    break
        return {_normal(n) for n in found if LATIN.fullmatch(n)}

    return {"first": get(FIRST_ATTRS), "last": get(LAST_ATTRS)}


def _normal(name: str) -> str:
    """Title case per hyphen part for names written all upper case."""
    return "-".join(p.capitalize() for p in name.split("-")) if name.isupper() else name


def held_apart(name: str) -> bool:
    """Whether ``name`` is held apart from the vocabulary (a fixed tenth, by hash)."""
    digest = hashlib.sha256(name.casefold().encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % HELD_APART_EVERY == 0


def build() -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """The vocabulary and held-apart rows ``(name, kind, group)``, sorted."""
    import faker.providers.person as person

    available = {m.name for m in pkgutil.iter_modules(person.__path__)}
    listed: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    kinds: dict[str, set[str]] = defaultdict(set)
    for group, locales in ORIGIN_GROUPS.items():
        for locale in locales:
            if locale not in available:
                raise SystemExit(f"Faker has no person provider {locale!r}")
            for kind, names in _locale_names(locale).items():
                for name in names:
                    listed[name][group].add(locale)
                    kinds[name].add(kind)
    order = list(ORIGIN_GROUPS)
    vocabulary, apart = [], []
    for name in sorted(listed):
        share = {g: len(locs) / len(ORIGIN_GROUPS[g]) for g, locs in listed[name].items()}
        group = max(share, key=lambda g: (share[g], -order.index(g)))
        kind = "both" if len(kinds[name]) == 2 else next(iter(kinds[name]))
        row = (name, kind, group)
        if held_apart(name):
            apart.append(row)
        elif name.isalpha() and len(name) > 1:
            vocabulary.append(row)
    return vocabulary, apart


def write(out: Path = OUT) -> None:
    """Write ``vocabulary.tsv`` and ``held_apart.tsv`` under ``out``."""
    import faker

    vocabulary, apart = build()
    out.mkdir(parents=True, exist_ok=True)
    header = f"# derived from Faker {faker.VERSION} (MIT licence, see LICENSE.md) by " \
             "python -m textdp.training.name_lists\n"
    for file, rows in (("vocabulary.tsv", vocabulary), ("held_apart.tsv", apart)):
        (out / file).write_text(header + "".join("\t".join(r) + "\n" for r in rows),
                                encoding="utf-8")
    print(f"{len(vocabulary)} vocabulary names, {len(apart)} held apart -> {out}")


if __name__ == "__main__":  # python -m textdp.training.name_lists [OUT_DIR]
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
