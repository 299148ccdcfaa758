"""The recall rules on crafted sentences: titles, other mentions, possessives, address words."""

from __future__ import annotations

import pickle

import pytest

from textdp.detect import create_detector
from textdp.detect.rules import (
    ABBREVIATIONS,
    ADDRESS_WORDS,
    NameRules,
    drop_non_names,
    expand_mentions,
    extend_names,
    is_capitalised,
    name_key,
    runs,
    title_spans,
)


def names(words, spans):
    return [" ".join(words[s:e]) for s, e, lab in spans if lab == "PERSON"]


def toks(text):
    """Whitespace tokens (the rules see words, whatever the tokenizer)."""
    return text.split()


@pytest.mark.parametrize("text, expected", [
    ("Yesterday Mr. John Smith arrived .", ["John Smith"]),
    ("Mrs Jones and Dr Ann van Lee met Prof. Ito .", ["Jones", "Ann van Lee", "Ito"]),
    ("Prime Minister Tony Blair spoke .", ["Tony Blair"]),
    ("Gen. J. Doe ordered it .", ["J. Doe"]),
    ("SIR ELTON JOHN SINGS", ["ELTON JOHN"]),
    ("Mrs May said .", ["May"]),
    # titles of Spanish, Italian, German, Dutch and Polish letters
    ("Estimado Sr. Gutiérrez :", ["Gutiérrez"]), ("Gentile dott.ssa Ferrari ,", ["Ferrari"]),
    ("Sehr geehrter Hr. Müller ,", ["Müller"]), ("Geachte dhr. Jansen ,", ["Jansen"]),
    ("Szanowny Panie Kowalski ,", ["Kowalski"]),
])
def test_titles(text, expected):
    words = text.split()
    assert names(words, title_spans(words)) == expected


def test_title_without_a_name_marks_nothing():
    for text in ("Mr. and Mrs. went home", "the president said", "Dr .", "Sir"):
        words = text.split()
        assert title_spans(words) == []


def test_particle_at_the_end_is_not_taken():
    words = toks("Dr Ann van")
    assert names(words, title_spans(words)) == ["Ann"]


def test_name_key_and_capitalisation():
    assert name_key("Smith's") == name_key("SMITH’s") == name_key("Smith") == "smith"
    assert name_key("Jones'") == "jones"
    assert name_key("'s") == "'s"  # a bare ending is not shortened to nothing
    assert is_capitalised("Smith") and is_capitalised("O'Neil") and not is_capitalised("smith")
    assert not is_capitalised("1990s") and not is_capitalised("")


def test_other_mentions_of_a_found_name():
    words = toks("John Smith met Ann . Later Smith said Smith's plan and SMITH 's dog were fine")
    spans = expand_mentions(words, [(0, 2, "PERSON")])
    assert names(words, spans) == ["John Smith", "Smith", "Smith's", "SMITH"]


def test_lower_case_and_stop_words_are_not_mentions():
    words = toks("Will Smith will go . The smith left in May")
    spans = expand_mentions(words, [(0, 2, "PERSON")])
    assert names(words, spans) == ["Will Smith"]  # "will", "smith" lower case: not names
    words = toks("The May . May came")
    assert expand_mentions(words, [(1, 2, "PERSON")], evidence=[(1, 2, "PERSON")]) == \
        [(1, 2, "PERSON")]


def test_evidence_protection_and_joining():
    words = toks("Smith won . John Smith , not Jordan , lost to Michael Jordan")
    spans = [(0, 1, "PERSON"), (7, 8, "LOC"), (11, 13, "PERSON")]
    # Only the full name is evidence: the one-word "Smith" spreads nowhere, and Jordan at 7
    # (a LOC) is protected when asked.
    assert expand_mentions(words, spans, protect={7}, override_protected=False) == spans
    # By default the full name "Michael Jordan" re-labels the LOC (the LOC span is dropped).
    out = expand_mentions(words, spans, protect={7})
    assert (7, 8, "PERSON") in out and (7, 8, "LOC") not in out
    assert not any(s <= 4 < e for s, e, _ in out)
    # With "Smith" as evidence (e.g. found after a title) its other mention is taken.
    out = expand_mentions(words, spans, evidence=[(0, 1, "PERSON")], protect={7})
    assert (4, 5, "PERSON") in out and (7, 8, "LOC") in out
    # New mentions join the person spans they touch.
    words = toks("Anna Lee spoke . Lee and Anna Lee")
    out = expand_mentions(words, [(0, 2, "PERSON"), (6, 7, "PERSON")])
    assert names(words, out) == ["Anna Lee", "Lee", "Anna Lee"]


def test_runs():
    assert runs([5, 1, 2, 3, 7, 6]) == [(1, 4), (5, 8)]
    assert runs([]) == []


def test_detector_on_tokenized_text(nlp):
    rules = create_detector("rules")
    assert isinstance(rules, NameRules)
    text = "Dr. Oluwaseun Adeyemi wrote to Ms Kowalska. Adeyemi's reply reached Kowalska's desk."
    doc = nlp.tokenizer(text)
    (spans,) = rules([doc])
    found = [doc[s:e].text for s, e, lab in spans]
    assert found == ["Oluwaseun Adeyemi", "Kowalska", "Adeyemi", "Kowalska"]


def test_expand_adds_titles_and_mentions_to_other_spans(nlp):
    doc = nlp.tokenizer("Oluwaseun Adeyemi met Mr Lee in Lagos. Later Adeyemi and Lee left.")
    words = [t.text for t in doc]
    base = [[(0, 2, "PERSON"), (6, 7, "GPE")]]
    (out,) = NameRules().expand([doc], base)
    assert names(words, out) == ["Oluwaseun Adeyemi", "Lee", "Adeyemi", "Lee"]
    assert (6, 7, "GPE") in out
    assert NameRules(coreference=False).expand([doc], base)[0] == sorted(
        [(0, 2, "PERSON"), (4, 5, "PERSON"), (6, 7, "GPE")])


def test_address_words_are_cut_out_of_person_spans():
    words = toks("Dear Ann Lee , Sincerely , LOL Bob ! Hey")
    spans = [(0, 3, "PERSON"), (4, 5, "PERSON"), (6, 8, "PERSON"), (9, 10, "PERSON"),
             (3, 4, "ORG")]
    out = drop_non_names(words, spans)
    assert names(words, out) == ["Ann Lee", "Bob"]
    assert (3, 4, "ORG") in out  # other labels are left alone
    assert drop_non_names(words, [(1, 3, "PERSON")]) == [(1, 3, "PERSON")]
    # Names that are also sign-off words are not in the list: they stay names.
    assert not {"love", "hope", "best", "kind", "ty"} & ADDRESS_WORDS


def test_abbreviations_of_chats_and_notes_are_cut_out_of_person_spans():
    words = toks("Pt. is seen by Ann . Pls ask Bob Lee re : Ed")
    spans = [(0, 1, "PERSON"), (4, 5, "PERSON"), (6, 7, "PERSON"), (8, 10, "PERSON"),
             (12, 13, "PERSON")]
    assert names(words, drop_non_names(words, spans)) == ["Ann", "Bob Lee", "Ed"]
    # Abbreviations that are names too are not in the list.
    assert not {"ed", "po", "cc", "ros"} & ABBREVIATIONS


def test_expand_keeps_greetings_and_sign_offs_out_of_names(nlp):
    """A tagger that takes "Dear" and "Sincerely" for names (MiniLM did) loses them in
    expand; the names next to them stay, and their other mentions are still found."""
    doc = nlp.tokenizer("Dear Ann Lee, thanks. Sincerely, Bob Stone. cc Lee")
    words = [t.text for t in doc]
    tagged = [[(0, 3, "PERSON"), (6, 7, "PERSON"), (8, 10, "PERSON")]]
    (out,) = NameRules().expand([doc], tagged)
    assert names(words, out) == ["Ann Lee", "Bob Stone", "Lee"]


def test_custom_titles_and_pickle():
    rules = NameRules(titles=["Coach."], coreference=False)
    words = toks("Coach Taylor and Mr Brown")
    assert names(words, rules.spans(words)) == ["Taylor"]
    again = pickle.loads(pickle.dumps(rules))
    assert again.spans(words) == rules.spans(words)


def test_expand_entity_options(nlp):
    doc = nlp.tokenizer("Neil Jordan filmed in Dublin. Jordan said Aung San Suu Kyi came.")
    words = [t.text for t in doc]
    base = [[(0, 2, "PERSON"), (4, 5, "GPE"), (6, 7, "GPE"), (8, 10, "PERSON"),
             (10, 12, "GPE")]]
    (out,) = NameRules().expand([doc], base)
    assert names(words, out) == ["Neil Jordan", "Jordan", "Aung San"]
    (out,) = NameRules(protect_entities=True).expand([doc], base)
    assert names(words, out) == ["Neil Jordan", "Aung San"]
    (out,) = NameRules(join_touching=True).expand([doc], base)
    assert names(words, out) == ["Neil Jordan", "Jordan", "Aung San Suu Kyi"]


def test_title_inside_another_entity_is_no_title(nlp):
    doc = nlp.tokenizer("General Motors hired General Lee.")
    (out,) = NameRules().expand([doc], [[(0, 2, "ORG")]])
    assert out == [(0, 2, "ORG"), (4, 5, "PERSON")]


def test_extend_names():
    words = toks("She met Fatima Al - Zahra and Ann Lee Smith at IBM Corp in PARIS TODAY")
    spaces = [True] * len(words)
    spaces[3] = spaces[4] = False  # "Al-Zahra" as spaCy splits it
    spans = [(2, 3, "PERSON"), (7, 8, "PERSON"), (11, 13, "ORG"), (14, 15, "PERSON")]
    out = extend_names(words, spans, spaces)
    assert names(words, out) == ["Fatima Al - Zahra", "Ann Lee Smith", "PARIS"]
    assert (11, 13, "ORG") in out  # another entity stops a name; upper case never extends
    # Without whitespace information a hyphen is not crossed.
    assert names(words, extend_names(words, spans))[0] == "Fatima Al"
    # A hashtag is closed: the title-case word after "#JuliaTalks" does not join it.
    tweet = toks("# JuliaTalks Tonight at 8")
    assert extend_names(tweet, [(0, 2, "PERSON")]) == [(0, 2, "PERSON")]
    # A listed first name right before a name opens it; a common word or a title does not.
    words = toks("o técnico Rui Pereira irá , and Doctor Pereira , and Will Pereira")
    out = extend_names(words, [(3, 4, "PERSON"), (8, 9, "PERSON"), (12, 13, "PERSON")])
    assert names(words, out) == ["Rui Pereira", "Pereira", "Pereira"]
    words = toks("the annual Jackson Hole symposium")  # a place that is a first name
    assert extend_names(words, [(3, 4, "PERSON")]) == [(3, 4, "PERSON")]


def test_a_common_word_ends_a_run_on_name():
    """BTC and Enron dev: a title-case headline or subject ran on from the name into its
    words ("Kanye West Writes Twitter Epic", "Blanco Hub Agreements"). The pipeline's own
    vectors say which words are common; a census name that is a word still runs on."""
    from textdp.defaults import load_pipeline
    from textdp.detect.rules import common_word

    common = common_word(load_pipeline().vocab)
    assert common("writes") and common("agreements")
    assert not common("stone") and not common("zahra")  # a census surname, an unknown word
    words = toks("Kanye West Writes Twitter Epic")
    assert names(words, extend_names(words, [(0, 2, "PERSON")], None, common)) == \
        ["Kanye West"]
    # Negative controls: a surname that is a word, and a name the tagger cut short.
    words = toks("I love Emma Stone films")
    assert names(words, extend_names(words, [(2, 3, "PERSON")], None, common)) == \
        ["Emma Stone"]
    words = toks("She met Fatima Zahra today")
    assert names(words, extend_names(words, [(2, 3, "PERSON")], None, common)) == \
        ["Fatima Zahra"]
    # A vocab without vectors knows no common word.
    import spacy

    assert not common_word(spacy.blank("en").vocab)("writes")
