"""spaCy's entity spans and the place lookup beside any detector (textdp.detect.places)."""

from __future__ import annotations

import pytest

from textdp.detect.places import (
    PLACE_LABELS,
    EntityUnion,
    GazetteerPlaces,
    listed_kind,
    lookup_names,
    with_entities,
    word_test,
)
from textdp.detect.spacy_ner import SpacyNERDetector


def _doc():
    """A doc of twelve plain words for the stand-in detectors' token spans."""
    import spacy

    return spacy.blank("en")(" ".join(f"w{chr(ord('a') + i)}" for i in range(12)))


def _inner(docs):
    return [[(0, 2, "PERSON")] for _ in docs]


def _ner(docs):
    return [[(1, 2, "GPE"), (3, 5, "GPE"), (6, 7, "ORG"), (8, 9, "LOC")] for _ in docs]


def _listed(docs):
    # inside the person, overlapping the NER's place, and one place of its own
    return [[(1, 2, "GPE"), (4, 6, "GPE"), (9, 11, "GPE")] for _ in docs]


def test_place_spans_join_off_the_detectors_persons():
    union = EntityUnion(_inner, ["GPE"], ner=_ner, gazetteer=_listed)
    # "Jordan" inside a person the detector found stays a name; ORG and LOC are not wanted;
    # the lookup adds what overlaps no person, and a name overlapping a place of the NER
    # makes one place with it ("South East" + "East London": "South East London").
    assert union([_doc()]) == [[(0, 2, "PERSON"), (3, 6, "GPE"), (9, 11, "GPE")]]
    found = union.findings([_doc()])[0]
    assert [(f.start, f.end, f.label, f.detector) for f in found if f.label == "GPE"] == \
        [(3, 6, "GPE", "spacy"), (9, 11, "GPE", "gazetteer")]


def test_every_mention_of_a_place_is_one(nlp):
    """A place read in one mention is read in every other one of the doc, also where the
    lookup alone would leave it (beside a word the detector took for a person)."""
    doc = nlp.make_doc("Edenbridge Job : Dressage Groom : Edenbridge , Kent # Edenbridge")

    def inner(docs):  # "Job" taken for a person
        return [[(1, 2, "PERSON")] for _ in docs]

    union = EntityUnion(inner, ["GPE"], ner=lambda docs: [[] for _ in docs])
    spans = union([doc])[0]
    assert [(doc[s:e].text, s, lab) for s, e, lab in spans] == [
        ("Edenbridge", 0, "GPE"), ("Job", 1, "PERSON"), ("Edenbridge", 6, "GPE"),
        ("Kent", 8, "GPE"), ("Edenbridge", 10, "GPE")]
    # a mention inside a person stays the person's
    doc = nlp.make_doc("Paris Hilton flew to Paris .")
    union = EntityUnion(lambda docs: [[(0, 2, "PERSON")]], ["GPE"],
                        ner=lambda docs: [[(4, 5, "GPE")]])
    assert union([doc])[0] == [(0, 2, "PERSON"), (4, 5, "GPE")]


def test_a_sure_place_takes_a_persons_tokens_and_a_longer_name_the_ners():
    def inner(docs):  # persons at 3 (a lone word) and 7-9 (a two-word name)
        return [[(3, 4, "PERSON"), (7, 9, "PERSON")] for _ in docs]

    def ner(docs):  # a place that is part of a longer name of the list
        return [[(11, 12, "GPE")] for _ in docs]

    class Listed:
        def find(self, docs):  # sure at 3; not sure at 8 (inside the name); 11-13 longer
            return [[((3, 4, "GPE"), True), ((8, 9, "GPE"), False), ((11, 13, "GPE"), False)]
                    for _ in docs]

    union = EntityUnion(inner, ["GPE"], ner=ner, gazetteer=Listed())
    assert union([_doc()]) == [[(3, 4, "GPE"), (7, 9, "PERSON"), (11, 13, "GPE")]]
    found = union.findings([_doc()])[0]
    assert [(f.start, f.label, f.detector) for f in found if f.label == "GPE"] == \
        [(3, "GPE", "gazetteer"), (11, "GPE", "gazetteer")]


def test_sure_places_follow_a_cue_and_are_no_common_name(nlp):
    docs = [nlp.make_doc(t) for t in ("She moved to Mayotte last year.", "We visited Chandler.",
                                       "Mayotte is far.")]
    assert [[sure for _, sure in found] for found in GazetteerPlaces().find(docs)] == \
        [[True], [False], [False]]


@pytest.mark.parametrize("text, sure", [
    ("He was born in Garland and grew up there.", True),  # a strong cue
    ("The office in Chandler closed.", True),
    ("Flights from Sutton were cancelled.", True),  # "from" after a travel word
    ("She moved to Thornton last year.", True),
    ("Our team visited Chad twice.", True),  # a country after a cue
    ("She moved to Saint Pierre and Miquelon.", True),  # several words, not all names
    ("The office in Bonaire, Saint Eustatius and Saba closed.", True),  # GeoNames' space
    ("Our team visited Chandler twice.", False),  # a person is as likely
    ("I will talk to Chad tomorrow.", False),  # a bare "to"
    ("We met in Chandler's office.", False),  # a possessive
])
def test_a_strong_cue_or_a_place_word_makes_a_common_name_a_sure_place(nlp, text, sure):
    found = GazetteerPlaces().find([nlp.make_doc(text)])[0]
    assert [s for _, s in found] == [sure]


def test_the_lookup_joins_only_for_gpe():
    assert isinstance(EntityUnion(_inner, ["GPE"], ner=_ner).gazetteer, GazetteerPlaces)
    assert EntityUnion(_inner, ["LOC", "FAC"], ner=_ner).gazetteer is None


@pytest.fixture(scope="module")
def nlp():
    from textdp.defaults import load_pipeline

    return load_pipeline()


@pytest.mark.parametrize("text, places", [
    ("She moved to Wuppertal last year.", ["Wuppertal"]),  # a town spaCy's NER misses
    ("We met in New York City and Los Angeles.", ["New York City", "Los Angeles"]),
    ("China and Canada signed.", ["China", "Canada"]),  # countries anywhere
    ("Born in Reading, raised in Nice.", ["Reading", "Nice"]),  # words after a cue
    ("Time to go to Mobile, AL.", ["Mobile", "AL"]),
    ("PT LIVES IN KHARKIV WITH SON", ["KHARKIV"]),  # capitals
    ("moving to london next week", ["london"]),  # lower case, a city that is no word
    ("Flew Winston-Salem to St. Louis via the UK.", ["Winston-Salem", "St. Louis", "UK"]),
    # without diacritics, as English text writes them; an apostrophe in a capital's name
    ("From Liege to Montreal, then N'Djamena.", ["Liege", "Montreal", "N'Djamena"]),
    ("N'DJAMENA 1996-08-30", ["N'DJAMENA"]),
    ("Oh my God, thank GOD.", []),  # Göd, a town: towns are not folded
    ("New jobs #Dudley, moving to Edenbridge.", ["Dudley", "Edenbridge"]),  # '#' a cue; a town
    ("Dudley called about the jobs.", []),  # a first name without a cue
    ("forecast at 07:01 in # cheadle for next 12 hours", ["cheadle"]),  # a town after a cue
    ("Dressage Groom : Edenbridge , Kent - Jobs", ["Edenbridge", "Kent"]),  # after a place
    ("Kent called , Edenbridge office", ["Edenbridge"]),  # a first name before a comma
    ("went to # reading and to # bath", []),  # words in lower case stay words
    ("Expense Manager # Jobs # PottersBar", ["PottersBar"]),  # a camel-case hashtag
    ("# TheBestDay # PotterBar", []),
    # a state's or province's code after a listed place and a comma
    ("Moved from Austin, TX to Portland, OR.", ["Austin", "TX", "Portland", "OR"]),
    ("Toronto, ON M5H 2M9", ["Toronto", "ON"]),
    ("Call me, OR text me. Yes, IN time.", []),
    # negative controls: words, months, first names and run-together words
    ("Reading is fun and the weather was Nice.", []),
    ("I was reading in March about a lot of things.", []),
    ("Florence called today.", []),
    ("A lot of people saw it, I wo n't go.", []),  # "Alot", "Iwo" are places
    ("we went to the mobile shop in reading", []),
    # a listed code in capitals stands alone; the town of an address, before its postcode
    ("NYC Sky !", ["NYC"]),
    ("Flat 3, 12 Mill Lane, Leeds LS6 2AB", ["Leeds"]),
    ("Leeds called about the match.", []),
    # a town after a town line's postal code, by its own language's name too
    ("Via Caracciolo 156, 80134 Napoli", ["Napoli"]),
    ("Via Nazionale 10, 00184 Roma", ["Roma"]),
    ("Rua Augusta 100, 1100-053 Lisboa", ["Lisboa"]),
    ("ul. Marszałkowska 10, 00-590 Warszawa", ["Warszawa"]),
    ("Roma called in 1996 about the match.", []),
    # a news dateline: a listed place in capitals opening a line, before an ISO date or a
    # comma and a month (a city that is also a word: "Tripoli" has a lower-case key)
    ("TRIPOLI 1996-08-30", ["TRIPOLI"]),
    ("THE HAGUE 1996-08-30", ["THE HAGUE"]),
    ("LONDON , March 3 ( Reuters ) - Shares", ["LONDON"]),
    ("BATH 2/3 ASSIST WITH SHOWER", []),
    # in lower case after a cue, a city whose lower-case form has no row of its own
    ("my sister lives in manchester and i'm in leeds", ["manchester", "leeds"]),
    ("i love leeds", []),  # no cue: a word in a chat as often as a place
])
def test_the_lookup_finds_places_and_not_words(nlp, text, places):
    doc = nlp.make_doc(text)
    spans = GazetteerPlaces()([doc])[0]
    assert [doc[s:e].text for s, e, _ in spans] == places
    assert all(label == "GPE" for *_, label in spans)


def test_lookup_list_and_word_test(nlp):
    names = lookup_names()
    assert len(names) > 30_000 and set(names.values()) == {"country", "state", "city", "town"}
    assert names["Wuppertal"] == "city" and names["Texas"] == "state"
    assert names["England"] == "country" and min(map(len, names)) >= 2
    is_word = word_test(nlp.vocab)
    assert is_word("Reading") and is_word("Nice") and not is_word("Chicago")
    assert not word_test(type("V", (), {"strings": nlp.vocab.strings})())("Reading")


def test_with_entities_only_where_an_entity_label_is_a_target():
    assert with_entities(_inner, ("PERSON", "EMAIL")) is _inner
    assert with_entities(_inner, ("PERSON", "DATE")) is _inner  # the date recogniser's
    assert with_entities(_inner, "all") is _inner
    assert with_entities(_inner, None) is _inner
    ner = SpacyNERDetector()
    assert with_entities(ner, PLACE_LABELS) is ner  # spaCy's NER finds them already
    wrapped = with_entities(_inner, ("PERSON", "GPE", "FAC", "ORG", "NORP"))
    assert isinstance(wrapped, EntityUnion) and wrapped.labels == ("GPE", "FAC", "ORG", "NORP")


def test_organisations_and_groups_are_found_beside_the_default_detector():
    """`targets="pii,ORG"` (docs/pii.md) or `NORP` with the default detector, which finds
    persons only, used to replace nothing: the NER's spans of those labels join it, off the
    detector's persons."""
    from textdp import Privatizer

    text = "Anna Berg, a French Catholic, left Google for the Red Cross."
    for label, words in (("ORG", {"Google", "Red", "Cross"}), ("NORP", {"French", "Catholic"})):
        out = Privatizer(targets=["PERSON", label], seed=0, report_spans=True)(text)
        found = {text[a:b] for a, b, lab, *_ in out.report.spans if lab == label}
        # spaCy's spans may hold the article ("the Red Cross", "a French")
        assert words <= {w for span in found for w in span.split()} <= words | {"the", "a"}
        assert not any(w in out.text for w in words | {"Anna", "Berg"})
        assert out.text.startswith(tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) and " left " in out.text


def test_listed_kind_as_written_or_in_capitals():
    assert listed_kind("Berlin") == listed_kind("BERLIN") == "city"
    assert listed_kind("Texas") == "state" and listed_kind("Tunisia") == "country"
    assert listed_kind("Sandviken") == "town"
    assert listed_kind("berlin") is None and listed_kind("March") is None
    assert listed_kind("Blorpville") is None and listed_kind("") is None


def test_a_lone_code_in_capitals_is_a_place_only_where_it_stands_as_one(nlp):
    union = EntityUnion(lambda docs: [[] for _ in docs], ["GPE"],
                         gazetteer=lambda docs: [[] for _ in docs])
    texts = ["NI number JG 10 37 51 A.", "PA to the director", "Springfield, IL 62704",
             "The US team", "moved to NY last year"]
    docs = [nlp.make_doc(t) for t in texts]
    got = [[d[s:e].text for s, e, _ in spans] for d, spans in zip(docs, union(docs))]
    assert got[:2] == [[], []]  # a label and a role the NER reads as states
    assert "IL" in got[2] and got[3] == ["US"] and got[4] == ["NY"]


def test_a_span_of_digit_tokens_is_no_place(nlp):
    """The NER reads flight numbers and versions as places; a span whose every token holds a
    digit is none."""
    union = EntityUnion(lambda docs: [[] for _ in docs], ["GPE", "FAC"],
                         gazetteer=lambda docs: [[] for _ in docs])
    texts = ["They noted flight LH2021 in the file.", "The total was v13.9.78.",
             "She lives on Route 66 now.", "See item v17.3.04."]
    docs = [nlp.make_doc(t) for t in texts]
    found = [[d[s:e].text for s, e, _ in spans] for d, spans in zip(docs, union(docs))]
    assert found[:2] == [[], []]
    assert found[2] == ["Route 66"]
    assert found[3] == []  # a span holding a version number ("item v17.3.04")


def test_a_place_beside_a_handle_is_a_place():
    """A handle is no part of a name beside it: the lookup's place after one stands (it was
    dropped as "beside a person's token", and the output kept it)."""
    from textdp import Privatizer

    texts = ["@tonipayne nigeria is the only country", "RT @ tonipayne nigeria is the only one"]
    for out in Privatizer(targets="quasi", seed=0).privatize(texts):
        assert "nigeria" not in out.text and "tonipayne" not in out.text


def test_a_hospital_clinic_or_school_is_a_place_with_the_persons_in_its_name():
    """spaCy's NER reads facilities as organisations (or a saint's hospital as a GPE); under
    a FAC target their names are places, whole, persons inside them too ("St. Mary's")."""
    from textdp import Privatizer

    p = Privatizer(targets="quasi", seed=0, report_spans=True)
    for text, name in (("Pt transferred from Mercy General Hospital on 3/4.", "Mercy General"),
                       ("She was admitted to St. Mary's General Hospital.", "Mary"),
                       ("Follow up at Riverside Family Clinic next week.", "Riverside"),
                       ("He teaches at Lincoln Nursing Home.", "Lincoln")):
        out = p(text)
        assert name not in out.text
        assert any(label == "FAC" for _, _, label, _, _ in out.report.spans)
    kept = "I work at Acme Logistics in the IT department."  # an organisation, no place
    assert p(kept).text == kept
    # not a target without FAC: the organisation is left (names only)
    assert "Riverside Family Clinic" in Privatizer(seed=0)("Follow up at Riverside Family "
                                                          "Clinic next week.").text
