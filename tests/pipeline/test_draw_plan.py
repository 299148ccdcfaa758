"""Draw plan: which mentions share a draw, of which kind, at ε once per name
(textdp.pipeline.draw_plan)."""

from __future__ import annotations

import pytest
from name_detectors import PERSONS, TEXT

from textdp.name_vocabulary import PERSON, name_spaces
from textdp.pipeline.draw_plan import (
    compound_names,
    compound_substitute,
    is_particle,
    name_kinds,
    plan_draws,
    positional_kinds,
)
from textdp.surface import surface_form

P = PERSON


def test_positional_kinds_read_runs_of_person_targets():
    mask = ["PERSON", "PERSON", None, "PERSON", None, "PERSON", "PERSON", "PERSON", "ORG"]
    assert positional_kinds(mask) == ["first", "last", None, "any", None, "first", "first",
                                      "last", None]


def test_plan_groups_mentions_per_text_and_label():
    tokens = ["Merkel", "MERKEL", "Merkel's", "Smith", "Merkel", "Merkel"]
    labels = ["PERSON", "PERSON", "PERSON", "PERSON", "PERSON", "ORG"]
    owners = [0, 0, 0, 0, 1, 0]
    plan = plan_draws(tokens, labels, owners, ["any"] * 6, replace="name",
                      consistency="document")
    assert plan.of_target.tolist() == [0, 0, 0, 1, 2, 3]  # new text, new label: new draw
    assert plan.first.tolist() == [0, 3, 4, 5]
    assert plan.kinds == ["last", "last", "last", "word"]  # ORG decodes to the whole table
    mention = plan_draws(tokens, labels, owners, ["any"] * 6, replace="name",
                         consistency="mention")
    assert mention.of_target.tolist() == list(range(6))
    tags = plan_draws(tokens, labels, owners, ["any"] * 6, replace="tag",
                      consistency="document")
    assert set(tags.kinds) == {"tag"}
    every = plan_draws(["the", "the"], ["*", "*"], [0, 0], [None, None], replace="name",
                       consistency="document")
    assert every.of_target.tolist() == [0, 1]  # targets="all": each token draws


def test_names_become_consistent_names_charged_once(names_privatizer):
    out = names_privatizer(TEXT)
    words = out.text.split(" ")
    source = TEXT.split(" ")
    for i, kind in PERSONS.items():
        assert words[i] != source[i]
        assert words[i][0].isupper() and words[i].isalpha()  # "McClean" too
        assert words[i] in set(name_spaces(names_privatizer.candidates)[kind].words)
    assert words[2] == "met" and words[5:7] == ["in", "Berlin."]
    # Every Merkel mention: the same pseudonym, in each mention's own form.
    merkel = words[1]
    assert words[8] == f"{merkel}'s" and words[11] == merkel.upper()
    report = out.report
    assert report.tokens_replaced == 6 and report.draws == 4
    assert report.epsilon_total == pytest.approx(4 * names_privatizer.epsilon)
    assert report.replace == "name" and report.consistency == "document"
    assert "same kind" in report.holds_between and "repeated names" in report.holds_between


def test_consistency_holds_across_chunks_of_one_long_text(names_privatizer, monkeypatch):
    import textdp.pipeline.chunking as chunking

    monkeypatch.setattr(chunking, "CHUNK_CHARS", 60)
    text = " ".join(["Merkel spoke with the press about the plan for the year."] * 12)
    out = names_privatizer(text)
    pseudonyms = {w for w in out.text.split(" ") if w not in text.split(" ")}
    assert len(pseudonyms) == 1 and out.report.draws == 1 and out.report.tokens_replaced == 12


def test_dataset_consistency_keys_each_name_and_pii_values_as_written():
    tokens = ["MERKEL", "merkel", "ann@x.org", "ANN@X.ORG", "ann@x.org", "Merkel's"]
    labels = ["PERSON", "PERSON", "EMAIL", "EMAIL", "EMAIL", "PERSON"]
    plan = plan_draws(tokens, labels, [0, 1, 0, 0, 1, 0], ["any"] * 6, replace="name",
                      consistency="dataset")
    # Within a text mentions share; across texts the keyed draw is the same function of the
    # key anyway, so each text plans its own draw under the same key. A PII value is keyed
    # as written (its surrogate keeps its format).
    assert plan.of_target.tolist() == [0, 1, 2, 3, 4, 0]
    assert plan.keys == ["merkel", "merkel", "ann@x.org", "ANN@X.ORG", "ann@x.org"]
    assert plan.kinds == ["last", "last", "pii", "pii", "pii"]


def test_a_names_kind_comes_from_the_census_lists_before_its_position():
    words = ["Smith", "Mary", "and", "Zorblat", "Qwix", "and", "Vorn"]
    mask = [P, P, None, P, P, None, P]
    tokens = [w for w, m in zip(words, mask) if m]
    positions = ["first", "last", "first", "last", "any"]  # "Smith Mary", "Zorblat Qwix"
    context = {t: kind for t, kind in enumerate(k for k in name_kinds(mask, words)
                                                 if k is not None)}
    plan = plan_draws(tokens, ["PERSON"] * 5, [0] * 5, positions, replace="name",
                      consistency="document", context_kinds=context)
    assert plan.kinds == ["last", "first", "first", "last", "any"]
    # Without the context's kinds, the place in the run decides.
    plain = plan_draws(tokens, ["PERSON"] * 5, [0] * 5, positions, replace="name",
                       consistency="document")
    assert plain.kinds[:2] == ["first", "last"]
    words = plan_draws(tokens, ["PERSON"] * 5, [0] * 5, positions, replace="word",
                       consistency="document")
    assert set(words.kinds) == {"word"}


def test_an_address_spelt_from_names_of_its_text_has_no_draw_of_its_own():
    tokens = ["Anna", "Lee", "anna.lee@acme.org", "Anna"]
    plan = plan_draws(tokens, ["PERSON"] * 4, [0] * 4, ["first", "last", "any", "any"],
                      replace="name", consistency="document", spell_addresses=True)
    assert plan.of_target.tolist() == [0, 1, -1, 0] and plan.spelt[2].keys == ("anna", "lee")
    # Names of an earlier batch of the text spell it too; another text's names do not.
    later = plan_draws(["anna.lee@acme.org"], ["PERSON"], [0], ["any"], replace="name",
                       consistency="document", spell_addresses=True,
                       remembered={0: ["anna", "lee"]})
    assert later.of_target.tolist() == [-1]
    other = plan_draws(["anna.lee@acme.org"], ["PERSON"], [1], ["any"], replace="name",
                       consistency="document", spell_addresses=True,
                       remembered={0: ["anna", "lee"]})
    assert other.of_target.tolist() == [0] and not other.spelt


def _kinds(text: str, names: set[str]) -> dict[str, str | None]:
    words = text.split(" ")
    mask = [P if w in names else None for w in words]
    return {w: k for w, k in zip(words, name_kinds(mask, words)) if w in names}


@pytest.mark.parametrize("text, name, kind", [
    ("Hi Qzyx , see you", "Qzyx", "first"),           # after a greeting
    ("happy bday qzyx", "qzyx", "first"),
    ("Qzyx from the plumbing company called", "Qzyx", "first"),  # before "from"
    ("Qzyx says hi", "Qzyx", "first"),
    ("Qzyx , can you call me", "Qzyx", "first"),       # a comma address opening the text
    ("Dr. Qzyx will see you", "Qzyx", "last"),         # after an honorific
    ("Mr Qzyx said so", "Qzyx", "last"),
    ("we saw Qzyx yesterday", "Qzyx", "any"),          # nothing tells
    ("we saw Aditya yesterday", "Aditya", "first"),    # the multi-origin lists tell
    ("we saw Okafor yesterday", "Okafor", "last"),
    ("Dr. Aditya will see you", "Aditya", "last"),     # context before the lists
    ("Daughter ( Qzyx ) called", "Qzyx", "first"),     # after a kinship word
    ("Wife Okafor at bedside", "Okafor", "first"),
])
def test_a_lone_name_takes_its_kind_from_context_then_the_lists(text, name, kind):
    assert _kinds(text, {name}) == {name: kind}


def test_in_a_name_the_census_then_the_place_decide_and_particles_are_not_names():
    words = ["Sofia", "van", "den", "Heuvel", "and", "Qzyxa", "Qzyx", "and", "Ibn", "Khaldun"]
    names = {"Sofia", "van", "den", "Heuvel", "Qzyxa", "Qzyx", "Ibn", "Khaldun"}
    mask = [P if w in names else None for w in words]
    assert [is_particle(words, mask, k) for k in range(len(words))] == \
        [False, True, True, False, False, False, False, False, True, False]
    assert name_kinds(mask, words) == ["first", None, None, "last", None, "first", "last",
                                       None, None, "last"]
    words = ["Mary", "James", "and", "Aditya", "Qzyx"]  # census kind, else the place
    mask = [P, P, None, P, P]
    assert name_kinds(mask, words) == ["first", "first", None, "first", "last"]
    words = ["Sofia", "van", "den", "Heuvel"]  # only "Sofia van" detected: "van" is kept
    assert is_particle(words, [P, P, None, None], 1)
    # "Van" opening a name is a name; a particle ending a name is a name too.
    words = ["Van", "Morrison", "sang", "with", "Jan", "de"]
    mask = [P, P, None, None, P, P]
    assert not any(is_particle(words, mask, k) for k in range(len(words)))


def test_hyphenated_names_are_one_unit_in_the_same_shape():
    def units(words, targets, spaced=(), is_word=lambda w: w in {"era"}):
        mask = [P if k in targets else None for k in range(len(words))]
        after = [k in spaced for k in range(len(words))]  # whitespace after listed tokens
        return compound_names(words, after, mask, is_word)

    assert units(["AL", "-", "SAYED", "now"], {0}, spaced={2}) == {0: 3}
    assert units(["Hi", "Seo", "-", "yeon", ","], {1, 3}, spaced={0}) == {1: 4}
    assert units(["Heinz", "-", "gerd"], {0}) == {0: 3}
    assert units(["Obama", "-", "era", "policy"], {0}, spaced={2}) == {}
    assert units(["Obama", "-", "Biden"], {0}) == {0: 3}
    assert units(["Smith", "-", "x"], {0}, spaced={0}) == {}   # "Smith - x": not joined
    sub = compound_substitute("AL-SAYED", "Cooper", [])
    assert surface_form(sub, "AL-SAYED") == "AL-COOPER"
    assert surface_form(sub, "al-Sayed") == "al-Cooper"
    assert surface_form(compound_substitute("Seo-yeon", "Ji", ["Woo"]), "Seo-yeon") == "Ji-woo"
    assert surface_form(compound_substitute("ANNE-MARIE", "Ji", ["Woo"]),
                        "Anne-Marie") == "Ji-Woo"


def test_place_runs_and_place_draws():
    """A run of one place label is one target (its first token carries the place, the others
    draw nothing); places decode by their gazetteer kind, and every mention of a place in a
    text shares its draw, whatever its casing or article."""
    from textdp.pipeline.draw_plan import place_runs

    mask = ["GPE", "GPE", None, "GPE", "LOC", "LOC", "LOC", "PERSON", "GPE"]
    assert place_runs(mask) == {0: 2, 4: 7}
    tokens = ["New York", "York", "Germany", "the Alps", "NEW YORK", "Paris"]
    labels = ["GPE", "GPE", "GPE", "LOC", "GPE", "GPE"]
    plan = plan_draws(tokens, labels, [0] * 6, [None] * 6, replace="name",
                      consistency="document", continued={1})
    assert plan.of_target.tolist() == [0, -2, 1, 2, 0, 3]
    assert plan.kinds == ["city", "country", "place", "city"]
    assert plan.keys == ["new york", "germany", "alps", "paris"]
    assert plan.continued == frozenset({1})
    word = plan_draws(tokens, labels, [0] * 6, [None] * 6, replace="word",
                      consistency="document")
    assert set(word.kinds) == {"word"}  # replace="word": the whole table, as before
