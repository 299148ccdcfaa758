"""Names in @handles, #hashtags, e-mail addresses and profile URLs: marked, and replaced end to
end."""

from __future__ import annotations

import pickle

import pytest
from spacy.tokens import Doc

from textdp.detect.handles import (
    ORDINARY_WORDS,
    PLACE_NAMES,
    HandleDetector,
    split_camel,
    split_handle,
)
from textdp.detect.lexicon import first_name_rank


@pytest.fixture(scope="module")
def privatizer():
    from textdp.privatizer import Privatizer

    return Privatizer(seed=0)


@pytest.fixture(scope="module")
def detector():
    return HandleDetector()


def _marked(detector, nlp, text: str) -> list[str]:
    doc = nlp.tokenizer(text)
    (spans,) = detector([doc])
    return [doc[s:e].text for s, e, _ in spans]


# ---------------------------------------------------------------------------- splitting
@pytest.mark.parametrize(("body", "parts"), [
    ("john_smith", ["john", "smith"]),
    ("JohnSmith", ["John", "Smith"]),
    ("DanMISSIONBEAT", ["Dan", "MISSIONBEAT"]),
    ("LMartinezABC", ["L", "Martinez", "ABC"]),
    ("MikeCullen73", ["Mike", "Cullen"]),
    ("john.smith-jr+news", ["john", "smith", "jr", "news"]),
    ("johnsmith", ["johnsmith"]),
    ("Jöhn_Müller", ["Jöhn", "Müller"]),
    ("2pac", ["pac"]),
    ("___", []),
])
def test_split_handle(body, parts):
    assert split_handle(body) == parts


def test_split_camel():
    assert split_camel("TheRealMickyT") == ["The", "Real", "Micky", "T"]
    assert split_camel("NASA") == ["NASA"]
    assert split_camel("iPhone") == ["i", "Phone"]


# ---------------------------------------------------------------------------- the name test
@pytest.mark.parametrize(("body", "kind"), [
    ("john_smith", "@"), ("JohnSmith", "@"), ("JohnSmith", "#"), ("johnsmith", "#"),
    ("JuliaTalks", "#"), ("DanMISSIONBEAT", "@"), ("EdSheeran", "@"), ("GraceKelly", "#"),
    ("sydney", "@"), ("j.smith", "email"), ("JSmith", "@"), ("john.smith", "email"),
    ("MikeCullen73", "@"), ("boris", "#"),
])
def test_names_a_person(detector, body, kind):
    assert detector.names_person(body, kind)


@pytest.mark.parametrize(("body", "kind"), [
    ("support", "@"), ("tbt", "#"), ("info", "email"), ("sales", "email"),
    ("noreply", "email"), ("summer", "#"), ("RoyalWedding", "#"), ("Sydney", "#"),
    ("NED", "#"), ("ILoveNY", "#"), ("colgo", "@"), ("MH17", "#"), ("j.smith", "#"),
])
def test_names_no_person(detector, body, kind):
    assert not detector.names_person(body, kind)


def test_vocabulary_words_are_not_split_by_the_lexicon(detector, nlp):
    # "billboard" has a vector of its own in the pipeline: not bill + board.
    assert _marked(detector, nlp, "#billboard #johnsmith") == ["#johnsmith"]
    assert detector.names_person("billboard", "#")  # without the vocabulary it would split


def test_exclusion_lists_are_lexicon_first_names():
    assert not [w for w in ORDINARY_WORDS | PLACE_NAMES if first_name_rank(w) is None]
    assert not ORDINARY_WORDS & PLACE_NAMES


# ---------------------------------------------------------------------------- tokens
def test_how_the_embedded_tokenizer_splits_them(nlp):
    # The design rests on these splits of the embedded pipeline's tokenizer.
    split = {t: [w.text for w in nlp.tokenizer(t)] for t in (
        "@john_smith", "#JohnSmith", "john.smith@example.com", "(@john_smith)")}
    assert split == {"@john_smith": ["@john_smith"], "#JohnSmith": ["#", "JohnSmith"],
                     "john.smith@example.com": ["john.smith@example.com"],
                     "(@john_smith)": ["(", "@john_smith", ")"]}


@pytest.mark.parametrize(("text", "marked"), [
    ("Thanks @john_smith!", ["@john_smith"]),
    ("(@john_smith)", ["@john_smith"]),
    ("RT .@JohnSmith: yes", [".@JohnSmith"]),
    ("#JohnSmith and #JuliaTalks tonight", ["#JohnSmith", "#JuliaTalks"]),
    ("Write to john.smith@example.com, or <j.smith@example.co.uk>.",
     ["john.smith@example.com", "j.smith@example.co.uk"]),
    ("@support #tbt info@example.com x@y", []),
    ("see linkedin.com/in/john-smith, https://x.com/JohnSmith/status/12 or "
     "https://www.facebook.com/john.smith.9/",
     ["linkedin.com/in/john-smith", "https://x.com/JohnSmith/status/12",
      "https://www.facebook.com/john.smith.9/"]),
    # Not an account (a video, a subreddit, another host), or an account that names nobody.
    ("https://www.youtube.com/watch?v=JohnSmith reddit.com/r/JohnSmith "
     "https://news.example.com/john-smith github.com/pytorch", []),
])
def test_marked_tokens(detector, nlp, text, marked):
    assert _marked(detector, nlp, text) == marked


def test_tweet_corpus_tokens(detector, nlp):
    def spans(words, spaces, det=detector):
        (found,) = det([Doc(nlp.vocab, words=words, spaces=spaces)])
        return found

    # A bare "@" followed by a word is a mention, glued or not: marked unless the word is
    # spelt of two ordinary words or more and no name (an organisation's account).
    assert spans(["@", "colgo", "hey"], [False, True, False]) == [(0, 2, "PERSON")]
    assert spans(["@", "SkySports", "hey"], [True, True, False]) == []
    assert spans(["@", "BBC_News"], [True, False]) == []
    assert spans(["@", "EdSheeran"], [True, False]) == [(0, 2, "PERSON")]
    assert spans(["@", "SkyKelly"], [True, False]) == [(0, 2, "PERSON")]  # a surname part
    assert spans(["@", "sports"], [True, False]) == [(0, 2, "PERSON")]  # one word: may be
    assert detector.ordinary_body("SkySports", None) is False  # no vocabulary: no evidence
    assert spans(["@", "colgo", "hey"], [True, True, False]) == [(0, 2, "PERSON")]
    assert spans(["meet", "@", "5"], [True, True, False]) == []
    assert spans(["#", "JuliaTalks"], [True, False]) == [(0, 2, "PERSON")]
    assert spans(["#", "tbt"], [False, False]) == []
    # An address split at its "@" is judged by its local part.
    assert spans(["john", "@", "example.com"], [False, False, False]) == [(0, 3, "PERSON")]
    assert spans(["info", "@", "example.com"], [False, False, False]) == []
    # all_mentions: every @-mention, for corpora where any account is personal data.
    every = HandleDetector(all_mentions=True)
    assert spans(["@", "colgo"], [True, False], every) == [(0, 2, "PERSON")]
    assert spans(["@", "SkySports"], [True, False], every) == [(0, 2, "PERSON")]
    assert _marked(every, nlp, "ask @support or #tbt") == ["@support"]
    assert _marked(every, nlp, "see github.com/pytorch") == ["github.com/pytorch"]


def test_fast_skip_and_no_text_in_repr_or_pickle(detector, nlp):
    assert detector([nlp.tokenizer("Angela Merkel met John Smith.")]) == [[]]
    assert "john" not in repr(detector).lower()
    custom = HandleDetector(first_name_rank=500, ordinary_words=["Julia"], place_names=[])
    for det in (detector, custom):
        again = pickle.loads(pickle.dumps(det))
        assert again.__dict__ == det.__dict__
    assert pickle.dumps(detector) == pickle.dumps(HandleDetector())  # defaults by reference
    assert not custom.names_person("JuliaTalks", "#")
    with pytest.raises(ValueError):
        HandleDetector(first_name_rank=0)


# ---------------------------------------------------------------------------- end to end
@pytest.mark.parametrize(("text", "gone", "kept"), [
    ("Thanks @john_smith for the tip.", ["john_smith", "john", "smith"], "Thanks "),
    ("Great talk #JohnSmith today.", ["JohnSmith", "John", "Smith"], "Great talk #"),
    # (Not "Mail john...": a capitalised first word is a borderline name for the tagger.)
    ("Please mail john.smith@example.com today.", ["john", "smith"], "Please mail "),
    ("my profile: linkedin.com/in/john-smith/ and https://twitter.com/john_smith/status/99",
     ["john", "smith", "status", "99"], "my profile: linkedin.com/in/"),
])
def test_handles_are_replaced_by_the_default_privatizer(privatizer, text, gone, kept):
    out = privatizer(text)
    assert out.report.tokens_replaced >= 1
    for part in gone:
        assert part not in out.text.lower() and part not in out.text
    assert out.text.startswith(kept)


def test_default_detector_marks_handles_and_hashtags(nlp):
    # (That the name rules do not run on past a hashtag is tested in test_rules.py.)
    from textdp.detect import create_detector

    doc = nlp.tokenizer("Great talk by @john_smith tonight #JuliaTalks at 8")
    (spans,) = create_detector(None)([doc])
    marked = {doc[k].text for s, e, lab in spans if lab == "PERSON" for k in range(s, e)}
    assert {"@john_smith", "#", "JuliaTalks"} <= marked
    assert not marked & {"Great", "talk", "tonight", "at"}


def test_non_names_pass_unchanged(privatizer):
    text = "Questions? Write to info@example.com, ask @support or see #tbt."
    assert privatizer(text).text == text


# Issue 37: tokens that took quadratic time (timed by bench/crafted.py, not here).
@pytest.mark.parametrize("token", ["x@" + "a-" * 2500, "a." * 2500 + "@", "a" * 5000 + "@",
                                   "#" * 5000, "@" * 5000, "x@" * 2500])
def test_long_crafted_tokens_name_nobody(token):
    assert HandleDetector().spans([token], [False]) == []


def test_an_address_after_a_long_run_is_still_found():
    from textdp.detect.handles import _EMAIL

    token = "mailto:" + "x-" * 2500 + "john.smith@example.com"
    match = _EMAIL.search(token)
    assert match.start() == len("mailto:") and match.group(1).endswith("john.smith")
    assert HandleDetector().spans([token], [False]) == [(0, 1, "PERSON")]
