"""The census name lexicon: shipped, loaded once, cut by rank."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from textdp.detect import lexicon

ROOT = Path(__file__).resolve().parents[2]


def test_lists_load_in_rank_order():
    lists = lexicon.census_lists()
    assert {k: len(v) for k, v in lists.items()} == {"female": 4275, "male": 1219,
                                                     "last": 88799}
    assert lists["female"][0] == lexicon.NameEntry("mary", 2.629, 1)
    assert lists["male"][0].name == "james" and lists["last"][0].name == "smith"
    for rows in lists.values():
        assert [e.rank for e in rows] == list(range(1, len(rows) + 1))
        assert all(e.name == e.name.lower() and e.name.isalpha() for e in rows[:500])
    assert lexicon.census_lists() is lists  # read once per process


def test_lookups_and_rank_cuts():
    assert lexicon.is_first_name("John") and lexicon.is_first_name("JULIA")
    assert lexicon.is_surname("smith") and not lexicon.is_first_name("smith")
    assert lexicon.first_name_rank("john") == 2  # male rank 2 (female rank is worse)
    assert lexicon.first_name_rank("Zzyzx") is None and lexicon.surname_rank("Zzyzx") is None
    assert lexicon.is_first_name("love") and not lexicon.is_first_name("love", max_rank=2000)
    assert "john" in lexicon.first_names(10) and "love" not in lexicon.first_names(2000)
    assert len(lexicon.surnames(100)) == 100
    assert lexicon.first_names() is lexicon.first_names()  # cached


@pytest.mark.parametrize(("word", "split"), [
    ("johnsmith", ("john", "smith")),
    ("JuliaRoberts", ("julia", "roberts")),
    ("annabellejones", ("annabelle", "jones")),  # the longest first name wins
    ("support", None),
    ("ab", None),
])
def test_split_full_name(word, split):
    assert lexicon.split_full_name(word) == split


def test_data_file_is_shipped_with_its_licence():
    assert lexicon.DATA_FILE.is_file()
    notice = (lexicon.DATA_FILE.parent / "LICENSE_NAMES.md").read_text(encoding="utf-8")
    assert "public domain" in notice and "names" in notice and "0.3.0" in notice
    # pyproject's package data must take the file into wheels.
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["textdp"]
    relative = lexicon.DATA_FILE.relative_to(ROOT / "textdp").as_posix()
    assert any(fnmatch.fnmatch(relative, p) for p in patterns)
    assert any(fnmatch.fnmatch("detect/data/LICENSE_NAMES.md", p) for p in patterns)


def test_listed_names_come_from_the_census_and_the_multi_origin_vocabulary():
    from textdp.detect.lexicon import is_listed_name

    # census first names and surnames; names of many origins the census lists lack
    assert all(is_listed_name(w) for w in ("Maria", "DELGADO", "okonkwo", "Saoirse", "Priya"))
    # the census surnames' ordinary-word tail is cut ("iron", 37,758th), unless asked for
    assert not is_listed_name("iron") and is_listed_name("iron", None)
    assert not any(is_listed_name(w) for w in ("notified", "hematemesis", "xqzv"))
