"""Draw plan: which mentions share a draw, of which kind, at ε once per name
(textdp.pipeline.draw_plan)."""

from __future__ import annotations

import pytest
from name_detectors import PERSONS, TEXT

from textdp.name_vocabulary import lexicon_kind, name_key
from textdp.pipeline.draw_plan import plan_draws, positional_kinds


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
        assert words[i][0].isupper() and words[i][1:].islower()
        assert (lexicon_kind(name_key(words[i])) or kind) == kind
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
    tokens = ["Smith", "Mary", "Zorblat", "Qwix", "Vorn"]
    positions = ["first", "last", "first", "last", "any"]  # "Smith Mary", "Zorblat Qwix"
    plan = plan_draws(tokens, ["PERSON"] * 5, [0] * 5, positions, replace="name",
                      consistency="document")
    assert plan.kinds == ["last", "first", "first", "last", "any"]
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
