"""The name-kind dev sample (textdp.evaluate.name_kinds): held-apart names of many origins in
templates, through the default privatizer and its detector."""

from __future__ import annotations

from textdp import Privatizer
from textdp.evaluate.name_kinds import TEMPLATES, dev_sample, evaluate_name_kinds, held_apart_names
from textdp.name_vocabulary import listed_names, name_key


def test_dev_sample_uses_held_apart_names_of_many_origins_in_every_template():
    names = held_apart_names()
    assert len(names["first"]) > 1000 and len(names["last"]) > 1000 and names["hyphen"]
    vocabulary = listed_names()
    assert not any(name_key(n) in vocabulary for kind in names.values() for n in kind)
    samples = dev_sample(len(TEMPLATES) * 2, seed=1)
    assert {s.template for s in samples} == set(TEMPLATES)
    assert samples == dev_sample(len(TEMPLATES) * 2, seed=1)  # seeded


def test_first_names_become_first_names_and_surnames_surnames():
    figures = evaluate_name_kinds(Privatizer(seed=0), dev_sample(len(TEMPLATES) * 12, seed=0))
    assert figures["first_slots"] > 100 and figures["last_slots"] > 80
    assert figures["first_as_first"] >= 0.98 and figures["last_as_last"] >= 0.98
    assert figures["particle_names"] == 0 and figures["unread"] == 0
    assert figures["compounds"] >= 8 and figures["compound_shape"] == 1.0
    # "K. Smith", "D.A. Smith": initials come back as as many initials
    assert figures["initials"] >= 20 and figures["initial_shape"] == 1.0
