"""Names as units through the whole privatizer (textdp.pipeline.substitution): particles drawn,
hyphenated names written whole in their shape, first names drawn as first names."""

from __future__ import annotations

import pytest

from textdp import Privatizer
from textdp.name_vocabulary import name_key, name_spaces, origin_group
from textdp.pipeline.draw_plan import PARTICLE_DRAWS
from textdp.pipeline.substitution import name_units

NAME_WORDS = {"sofia", "van", "den", "heuvel", "carlos", "de", "la", "fuente", "noor", "al",
              "hashimi", "sayed", "seo", "yeon", "qzyxa", "qzyxb", "aditya", "okafor"}


def names(docs):
    """A fixed detector: the words of NAME_WORDS are persons (the hyphens are not)."""
    return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text.casefold() in NAME_WORDS]
            for doc in docs]


@pytest.fixture(scope="module")
def units_privatizer():
    return Privatizer(seed=5, detector=names)


def test_name_units_join_hyphenated_names_and_leave_the_rest():
    words = ["Hi", "Seo", "-", "yeon", ",", "Obama", "-", "era"]
    spaced = [True, False, False, False, True, False, False, True]
    mask = [None, "PERSON", None, "PERSON", None, "PERSON", None, None]
    joined, texts, blank = name_units(words, spaced, mask, lambda w: w == "era")
    assert joined == [None, "PERSON", None, None, None, "PERSON", None, None]
    assert texts[1] == "Seo-yeon" and blank == [2, 3]


def test_particles_are_drawn_and_compounds_keep_their_shape(units_privatizer):
    texts = ["Sofia van den Heuvel called.", "Carlos de la Fuente wrote.",
             "Noor Al-Hashimi arrived.", "Ask AL-SAYED now.", "Hi Seo-yeon, thanks"] * 20
    spaces = name_spaces(units_privatizer.candidates)
    firsts, lasts = set(spaces.first.words), set(spaces.last.words)
    drawn = []  # the particles written for "van den" and "de la"
    for out in units_privatizer.privatize(texts):
        words = out.text.split(" ")
        if out.text.endswith("called."):
            assert set(words[1:3]) <= set(PARTICLE_DRAWS)  # particles, never a name
            assert words[0] in firsts and words[3] in lasts
            drawn += words[1:3]
        elif out.text.endswith("wrote."):
            assert set(words[1:3]) <= set(PARTICLE_DRAWS) and words[3] in lasts
            drawn += words[1:3]
        elif out.text.endswith("arrived."):
            prefix, surname = words[1].split("-")
            assert prefix == "Al" and surname in lasts and name_key(surname) != "hashimi"
        elif out.text.endswith("now."):
            prefix, surname = words[1].split("-")
            assert prefix == "AL" and surname.isupper() and surname != "SAYED"
        else:
            first, second = words[1].rstrip(",").split("-")
            assert first.istitle() and second.islower() and first in firsts
            assert (first, second) != ("Seo", "yeon")
    # Drawn uniformly from the public list whatever the input: 80 draws over 30 particles
    # show many of them, and the originals no more often than chance (expected 80/30 each).
    assert len(set(drawn)) >= 15
    assert sum(w in ("van", "den", "de", "la") for w in drawn) <= 25


@pytest.mark.parametrize("text", ["Hi Qzyxa, see you", "Qzyxa from the plumbing company",
                                  "happy birthday qzyxa"])
def test_an_unlisted_name_greeted_becomes_a_first_name(units_privatizer, text):
    firsts = {name_key(w) for w in name_spaces(units_privatizer.candidates).first.words}
    outs = units_privatizer.privatize([text] * 50)
    at = [w.casefold() for w in text.replace(",", "").split(" ")].index("qzyxa")
    assert all(name_key(o.text.replace(",", "").split(" ")[at]) in firsts for o in outs)


def test_name_origin_keep_draws_within_the_group_and_says_so(units_privatizer):
    texts = ["Aditya Okafor called."] * 60
    keep = Privatizer(seed=5, detector=names, name_origin="keep")
    kept = keep.privatize(texts)
    assert {origin_group(name_key(o.text.split(" ")[0])) for o in kept} == {"south_asian"}
    assert {origin_group(name_key(o.text.split(" ")[1])) for o in kept} == {"west_african"}
    assert "origin group" in kept[0].report.holds_between
    across = units_privatizer.privatize(texts)  # the default: across all origins
    assert len({origin_group(name_key(o.text.split(" ")[0])) for o in across}) >= 4
    assert "origin group" not in across[0].report.holds_between
