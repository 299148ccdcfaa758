"""Places drawn as names are (issue 36, part 3c): the gazetteer, the place vocabulary of the
embedded table, the draws end to end (Privatizer and CLI), and how often a place comes back
unchanged at the default ε, with a positive control."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from textdp import Privatizer
from textdp.detect.places import REGION_CODES
from textdp.place_vocabulary import (
    MIN_PLACES,
    PLACE_LABELS,
    REGION,
    gazetteer,
    place_key,
    place_kind,
    place_spaces,
    place_vector,
    region_code,
)


@pytest.fixture(scope="module")
def table():
    from textdp.defaults import default_table

    return default_table()


@pytest.fixture(scope="module")
def spaces(table):
    return place_spaces(table)


def test_place_key_and_kind_come_from_the_gazetteer():
    assert place_key("the UNITED  Kingdom's") == "united kingdom"
    assert place_key("New York’s") == "new york"
    assert place_kind("Germany") == place_kind("the United Kingdom") == "country"
    assert place_kind("Paris") == place_kind("New York") == place_kind("Lagos") == "city"
    # a town of the detectors' lookup draws among cities, not among countries too; a
    # country's short form of the lookup is a country; a state's code a region code
    assert place_kind("Edenbridge") == place_kind("EDENBRIDGE") == "city"
    assert place_kind("USA") == place_kind("U.S.") == "country"
    assert place_kind("IL") == place_kind("ON") == REGION and place_kind("Texas") == "place"
    # Not in the gazetteer: any place; a country that is also a city's name is a country.
    assert place_kind("the Alps") == place_kind("Gatwick") == "place"
    assert place_kind("Singapore") == "country"
    kinds = list(gazetteer().values())
    assert kinds.count("country") >= 240 and kinds.count("city") >= 4000


def test_countries_decode_to_countries_and_cities_to_cities(spaces):
    """On the embedded table each kind's candidates are places of that kind, and enough of
    them; the union is both."""
    assert len(spaces.country.words) >= MIN_PLACES and len(spaces.city.words) >= MIN_PLACES
    assert {place_kind(w) for w in spaces.country.words} == {"country"}
    assert {place_kind(w) for w in spaces.city.words} == {"city"}
    assert set(spaces.place.words) == set(spaces.country.words) | set(spaces.city.words)
    for known in ("France", "China", "India", "Germany", "Brazil"):
        assert known in spaces.country.words
    for known in ("London", "Paris", "Tokyo", "Berlin", "Chicago"):
        assert known in spaces.city.words
    # Words that read as other words or as a person's first name are left out.
    for word in ("International", "Independence", "Nice", "Austin", "Jordan"):
        assert word not in spaces.place.words


def test_a_place_of_several_words_reads_the_mean_of_their_rows(table):
    rows = table.lookup(["New", "York"])
    expected = table.lookup_vectors[rows].mean(axis=0)
    assert np.allclose(place_vector(table, "New York"), expected)
    assert np.allclose(place_vector(table, "the New York"), expected)  # article left out
    assert np.allclose(place_vector(table, "Paris"),
                       table.lookup_vectors[table.lookup(["Paris"])[0]])
    assert place_vector(table, "Qzxqzx Vvqqk") is None


TEXT = ("I flew from New York to Paris, then on to Germany. New York was cold; "
        "Germany was not.")


def _places(words):
    return [w for w in words if w in gazetteer() or place_key(w) in gazetteer()]


def test_privatizer_quasi_replaces_places_by_places_of_their_kind():
    """End to end through the embedded models: spaCy's NER finds the places beside the name
    detector, each distinct place is drawn once, "New York" is one target written as one
    place, countries stay countries and cities cities, and the report states it."""
    from textdp.place_vocabulary import HOLDS_BETWEEN_PLACES

    p = Privatizer(targets="quasi", seed=3)
    changed = 0
    for r in p.privatize([TEXT] * 20):
        out = r.text
        first, second = out.split(". ", 1)
        # "I flew from <city> to <city>, then on to <country>"
        head = first.removeprefix("I flew from ")
        a, rest = head.split(" to ", 1)
        b, c = rest.split(", then on to ")
        assert (place_kind(a), place_kind(b), place_kind(c)) == ("city", "city", "country")
        assert " " not in a  # one place for "New York"
        # every mention of a place gets the same draw
        assert second == f"{a} was cold; {c} was not."
        changed += (a, b, c) != ("New York", "Paris", "Germany")
        assert r.report.holds_between.endswith(HOLDS_BETWEEN_PLACES) or \
            HOLDS_BETWEEN_PLACES in r.report.holds_between
        assert "places:" in r.report.guarantee
    assert changed == 20


def test_region_codes_are_drawn_uniformly_from_the_list():
    """The code replacing a state's code is drawn from the public list without looking at the
    code: uniform over the 64 codes (chi-square on 32,000 draws, fixed seed)."""
    rng = np.random.default_rng(0)
    draws = [region_code(rng) for _ in range(32_000)]
    assert set(draws) == REGION_CODES
    counts = [draws.count(c) for c in sorted(REGION_CODES)]
    assert stats.chisquare(counts).pvalue > 1e-3


def test_a_state_code_after_a_place_becomes_another_code_at_no_epsilon():
    p = Privatizer(targets="quasi", seed=0, report_spans=True)
    texts = ["Moved from Austin, TX to Portland, OR last May."] * 30
    seen = set()
    for r in p.privatize(texts):
        words = r.text.replace(",", " ").split()
        a, b = words[words.index("from") + 2], words[words.index("last") - 1]
        assert {a, b} <= REGION_CODES
        seen |= {a, b}
        # two cities drawn (ε each); the codes cost nothing
        assert r.report.draws == 2
    assert len(seen) > 20  # not one code again and again


def test_cli_privatize_targets_quasi_replaces_places(tmp_path):
    from textdp.cli import main

    src = tmp_path / "in.txt"
    src.write_text(TEXT + "\n")
    out = tmp_path / "out.txt"
    assert main(["privatize", str(src), "-o", str(out), "--targets", "quasi", "--seed", "0",
                 "--no-progress"]) == 0
    text = out.read_text()
    assert "New York" not in text and "Paris" not in text and "Germany" not in text
    assert len(_places(text.replace(",", " ").replace(".", " ").replace(";", " ").split())) \
        >= 3


def test_targeting_a_place_label_with_the_default_detector_finds_places():
    """Before, ``targets="GPE"`` with the default (person) detector found nothing."""
    r = Privatizer(targets="GPE", seed=0).privatize(["We met in Berlin."])[0]
    assert r.report.tokens_replaced == 1 and "Berlin" not in r.text


def _unchanged(epsilon, seed):
    """Per draw, whether a country or city of the vocabulary came back as itself, and
    whether it came back as itself or one of its NAME_SPREAD nearest places (its own draw,
    spread)."""
    from textdp.defaults import default_table
    from textdp.index import NeighbourIndex
    from textdp.pipeline.candidates import NAME_SPREAD

    spaces = place_spaces(default_table())
    p = Privatizer(targets="GPE", seed=seed, consistency="mention", epsilon=epsilon)
    words = (spaces.country.words + spaces.city.words) * 4
    docs = [p.nlp.make_doc(w) for w in words]
    out = [ws[0] for ws, _ in p.privatize_docs(docs, spans=[[(0, 1, "GPE")]] * len(docs))]
    near = set()
    for kind in ("country", "city"):
        table = spaces[kind]
        index = NeighbourIndex(table.vectors, backend="exact", device="cpu")
        import torch

        ids = index.search(torch.from_numpy(table.vectors), k=NAME_SPREAD + 1)[1].numpy()
        near |= {(table.words[i], table.words[j]) for i in range(len(ids)) for j in ids[i]}
    return (np.asarray([a == b for a, b in zip(words, out)]),
            np.asarray([(a, b) in near for a, b in zip(words, out)]))


@pytest.mark.slow
def test_a_place_rarely_comes_back_unchanged_at_the_default_epsilon(monkeypatch):
    """At the default ε (0.3) a place of the vocabulary comes back as itself in 0.5 % of
    1,300 draws (7; seed 11; 0.7 % of 11,700 over nine seeds); bound: the 99 % upper
    Clopper-Pearson limit below 2 % (uniform over its kind would be 1/130 for a country,
    1/195 for a city). At ε = 1000 the draw decodes to the place itself, which the spreading
    leaves out: it comes back as one of its 16 nearest other places (98 %), never as itself.
    Positive control: without the spreading, at ε = 1000 it comes back as itself (at least
    95 %, the 99 % lower limit)."""
    same, near_default = _unchanged(None, 11)
    upper = stats.binomtest(int(same.sum()), len(same)).proportion_ci(0.98).high
    print(f"default ε: unchanged {same.mean():.4f} (99 % upper {upper:.4f}), among its 16 "
          f"nearest {near_default.mean():.3f}")
    assert upper < 0.02, (same.mean(), upper)
    same, near = _unchanged(1000.0, 11)
    print(f"ε 1000: unchanged {same.mean():.4f}, among its 16 nearest {near.mean():.3f}")
    assert not same.any()
    # Nearest in the unclipped table: the candidates are the clipped table's, whose order
    # differs at a few ties.
    assert near.mean() > 0.95 and near_default.mean() < 0.5
    from textdp.pipeline import candidates

    monkeypatch.setattr(candidates, "spread_table",
                        lambda vectors, device, k=0: np.arange(len(vectors))[:, None])
    same, _ = _unchanged(1000.0, 11)
    lower = stats.binomtest(int(same.sum()), len(same)).proportion_ci(0.98).low
    print(f"ε 1000 without the spreading: unchanged {same.mean():.4f} (99 % lower {lower:.4f})")
    assert lower > 0.95, (same.mean(), lower)


def test_place_labels_are_in_the_quasi_preset():
    from textdp.targets import resolve_targets

    assert set(PLACE_LABELS) <= set(resolve_targets("quasi"))
    assert not set(PLACE_LABELS) & set(resolve_targets("pii"))
