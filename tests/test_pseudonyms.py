"""Pseudonyms: names become public names, consistently, at ε once per name (textdp.pseudonyms)."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
from scipy import stats

from textdp import Privatizer
from textdp.detect import lexicon
from textdp.evaluate.pseudonyms import is_lexicon_name, unchanged_rates
from textdp.pseudonyms import (
    HONORIFICS,
    NAME_SPREAD,
    check_replace,
    drop_honorifics,
    keyed_source,
    lexicon_kind,
    name_key,
    name_spaces,
    plan_draws,
    positional_kinds,
    resolve_key,
)

TEXT = "Angela Merkel met John Smith in Berlin. Later Merkel's aide called MERKEL again."
PERSONS = {0: "first", 1: "last", 3: "first", 4: "last"}  # token positions in TEXT


def _names(docs):
    """A fixed detector: the persons of TEXT-like texts are the title-case and upper-case words
    Merkel/Angela/John/Smith wherever they are."""
    wanted = {"angela", "merkel", "john", "smith", "emily", "patel", "dr."}
    return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text.casefold() in wanted]
            for doc in docs]


@pytest.fixture(scope="module")
def names_privatizer():
    return Privatizer(seed=11, detector=_names)


# ====================================================================== pure functions
@pytest.mark.parametrize("token", ["Merkel", "MERKEL", "merkel's", "Merkel’s", "ＭＥＲＫＥＬ"])
def test_name_key_ignores_case_possessive_and_width(token):
    assert name_key(token) == "merkel"


def test_positional_kinds_read_runs_of_person_targets():
    mask = ["PERSON", "PERSON", None, "PERSON", None, "PERSON", "PERSON", "PERSON", "ORG"]
    assert positional_kinds(mask) == ["first", "last", None, "any", None, "first", "first",
                                      "last", None]


def test_lexicon_kind_prefers_first_names_and_knows_surnames():
    assert lexicon_kind("mary") == "first"
    assert lexicon_kind("james") == "first"  # in both lists: a first name
    assert lexicon_kind("hutchinson") == "last"
    assert lexicon_kind("qwzx") is None


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


def test_honorifics_are_not_part_of_the_name():
    words = ["Dear", "Dr.", "Patel", ",", "Mrs", "Emily", "Jones", "Dear", "Prof", "Lee"]
    mask = [None, "PERSON", "PERSON", None, "PERSON", "PERSON", "PERSON", "PERSON", "PERSON",
            "PERSON"]
    assert drop_honorifics(mask, words) == [None, None, "PERSON", None, None, "PERSON",
                                            "PERSON", "PERSON", None, "PERSON"]
    assert {"dr", "mrs", "prof"} <= HONORIFICS


def test_check_replace():
    assert check_replace(None, True, "mlaplace") == "name"
    assert check_replace(None, False, "dpmlm") == "word"
    with pytest.raises(ValueError, match=r"replace='name'.*dpmlm"):
        check_replace("name", False, "dpmlm")
    with pytest.raises(ValueError, match="replace must be one of name, word, tag"):
        check_replace("names", True, "mlaplace")


def test_keys_are_validated_and_seed_keys_are_reproducible():
    assert resolve_key(None, 5) == resolve_key(None, 5) != resolve_key(None, 6)
    assert resolve_key(None, None) != resolve_key(None, None)  # OS entropy
    with pytest.raises(ValueError, match="at least 16 bytes"):
        resolve_key("short", None)
    with pytest.raises(ValueError, match="bytes or a string"):
        resolve_key(1234, None)


def test_keyed_sources_agree_per_key_scope_and_name_only():
    key = b"k" * 32

    def draws(*args):
        return keyed_source(*args).numpy.random(4).tolist()

    assert draws(key, "", "PERSON", "merkel") == draws(key, "", "PERSON", "merkel")
    assert draws(key, "", "PERSON", "merkel") != draws(b"j" * 32, "", "PERSON", "merkel")
    assert draws(key, "", "PERSON", "merkel") != draws(key, "case-7", "PERSON", "merkel")
    assert draws(key, "", "PERSON", "merkel") != draws(key, "", "PERSON", "smith")


# ====================================================================== the name vocabulary
def test_name_vocabulary_is_public_names_of_the_table(names_privatizer):
    spaces = name_spaces(names_privatizer.candidates)
    first, last = set(spaces.first.words), set(spaces.last.words)
    assert len(first) > 500 and len(last) > 300
    assert first.isdisjoint(last)
    assert set(spaces.any.words) == first | last
    assert all(w[0].isupper() and w[1:].islower() for w in first | last)
    assert all(lexicon.is_first_name(w) for w in first)
    assert all(lexicon.is_surname(w) for w in last)
    # Words that read as words, not names, are left out.
    assert not {"In", "January", "China", "Lady", "Judge"} & (first | last)


# ====================================================================== end to end
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


def test_replaced_person_tokens_are_names_of_the_lexicon(names_privatizer):
    outs = names_privatizer.privatize([TEXT] * 200)
    replaced = [o.text.split(" ")[i] for o in outs for i in PERSONS]
    assert np.mean([is_lexicon_name(w) for w in replaced]) == 1.0
    # ... and not always the same ones.
    assert len(set(replaced)) > 150


@pytest.mark.parametrize("word, kind", [("John", "first"), ("Smith", "last"),
                                        ("Angela", "first"), ("Merkel", "last")])
def test_a_name_comes_back_unchanged_in_under_one_percent(names_privatizer, word, kind):
    """P(unchanged) < 1 % at the default ε: one-sided binomial test on 20,000 draws decoded
    exactly as the privatizer decodes (rejecting p ≥ 1 % at the 0.1 % level)."""
    rate = unchanged_rates(names_privatizer, [word], [kind], 20_000, seed=3)[0]
    hits = round(rate * 20_000)
    assert stats.binomtest(hits, 20_000, 0.01, alternative="less").pvalue < 1e-3


def test_spreading_moves_each_draw_among_its_nearest_names(names_privatizer):
    spread = names_privatizer.space.decoder("first").spread
    assert spread.shape[1] == NAME_SPREAD
    assert (spread[:, 0] == np.arange(len(spread))).all()  # itself first


def test_word_and_tag_replacements():
    word = Privatizer(seed=2, detector=_names, replace="word", consistency="mention")
    out = word(TEXT)
    assert out.report.draws == out.report.tokens_replaced == 6
    assert out.report.replace == "word"
    tag = Privatizer(seed=2, detector=_names, replace="tag")
    out = tag(TEXT)
    assert out.text == "[PERSON] met [PERSON] in Berlin. Later [PERSON]'s aide called " \
                       "[PERSON] again."
    assert out.report.draws == 0 and out.report.epsilon_total == 0.0
    assert out.report.tokens_replaced == 6


def test_honorific_is_kept_and_the_name_replaced(names_privatizer):
    out = names_privatizer("Dear Dr. Patel, my daughter Emily called.")
    words = out.text.split(" ")
    assert words[:2] == ["Dear", "Dr."] and words[2] != "Patel,"
    assert out.report.draws == 2


def test_a_table_without_names_falls_back_to_words_unless_names_were_asked_for():
    from textdp.tables import EmbeddingTable

    rng = np.random.default_rng(0)
    table = EmbeddingTable(["alpha", "beta", "gamma", "delta"], rng.normal(size=(4, 8)),
                           name="tiny")
    out = Privatizer(seed=0, table=table, targets="all")("alpha beta")
    assert out.report.replace == "word"
    with pytest.raises(ValueError, match="no public name vocabulary"):
        Privatizer(seed=0, table=table, targets="all", replace="name")("alpha beta")


# ====================================================================== keyed (dataset) scope
def test_dataset_scope_agrees_across_privatizers_and_pickles_with_one_key():
    key = "a-secret-key-of-32-characters!!!"
    a = Privatizer(detector=_names, consistency="dataset", key=key)
    b = pickle.loads(pickle.dumps(Privatizer(detector=_names, consistency="dataset", key=key)))
    texts = ["John Smith called.", "Smith and Merkel met.", "merkel"]
    assert [r.text for r in a.privatize(texts)] == [r.text for r in b.privatize(texts)]
    first = a.privatize(texts)
    assert first[0].text.split(" ")[1] == first[1].text.split(" ")[0]  # Smith, across rows
    # A privatizer without a key draws one from the OS, and its pickles carry it.
    c = Privatizer(detector=_names, consistency="dataset")
    assert pickle.loads(pickle.dumps(c)).key == c.key


@pytest.mark.slow  # 60 keyed privatizers
def test_scopes_separate_pseudonyms_and_keys_are_independent():
    names = [f"{n.title()}" for n in ["john", "mary", "smith", "merkel", "angela", "emily",
                                      "patel"]]
    text = " ".join(names)
    same = different_scope = different_key = 0
    trials = 60
    for t in range(trials):
        key = f"key-number-{t:04d}-padding-padding"
        p = Privatizer(detector=_names, consistency="dataset", key=key)
        one, two, other = p.privatize([text, text, text], scopes=["a", "a", "b"])
        q = Privatizer(detector=_names, consistency="dataset", key=key + "x")
        alt = q(text)
        same += one.text == two.text
        different_scope += one.text == other.text
        different_key += one.text == alt.text
    assert same == trials
    # Independent draws of 5 names coincide with probability far below 1 %.
    assert different_scope == 0 and different_key == 0


def test_key_only_with_dataset_consistency():
    with pytest.raises(ValueError, match="representation='static'"):
        Privatizer(consistency="dataset", representation="contextual")
    with pytest.raises(ValueError, match="key is the secret of consistency='dataset'"):
        Privatizer(key="a" * 16)
    with pytest.raises(ValueError, match="consistency"):
        Privatizer(consistency="per-name")


# ====================================================================== other personal data
PII_TEXT = ("Call Anna Smith at 555 123 4567 or anna.smith@example.com; card 4111 1111 1111 "
            "1111, see https://x.org/a from 10.0.0.1. Anna said.")
PII_TARGETS = ["PERSON", "EMAIL", "PHONE", "CREDIT_CARD", "URL", "IP"]


def test_pii_values_become_surrogates_of_their_format_without_epsilon():
    out = Privatizer(seed=1, targets=PII_TARGETS)(PII_TEXT)
    text = out.text
    for original in ("555 123 4567", "anna.smith@example.com", "4111 1111 1111 1111",
                     "https://x.org/a", "10.0.0.1", "Anna", "Smith"):
        assert original not in text
    assert "@example." in text and "https://example.org/" in text and "192.0.2." in text
    assert re.search(r"at \d{3} 555 01\d\d or", text)  # the layout, a fictional number
    assert re.search(r"card \d{4} \d{4} \d{4} \d{4},", text)
    # Only the two distinct names drew (Anna twice: one draw); the surrogates cost nothing.
    assert out.report.draws == 2 and out.report.tokens_replaced == 8


def test_pii_tags_replace_each_value_once():
    # (Not "Call Anna ...": a capitalised first word is a borderline name for the tagger.)
    out = Privatizer(seed=1, targets=["PERSON", "EMAIL", "PHONE"], replace="tag")(
        "Please call Anna Smith at 555 123 4567 or anna.smith@example.com.")
    assert out.text == "Please call [PERSON] at [PHONE] or [EMAIL]."
    assert out.report.epsilon_total == 0.0


def test_allow_and_deny_lists_and_excluded_substitutes():
    out = Privatizer(seed=0, deny=["Zorblat"], allow=["Smith"])("Zorblat and Anna Smith met.")
    words = out.text.split(" ")
    assert words[0] != "Zorblat" and words[3] == "Smith" and words[2] != "Anna"
    with pytest.raises(ValueError, match="targets='all'"):
        Privatizer(targets="all", allow=["x"])
    with pytest.raises(ValueError, match="exclude must be"):
        Privatizer(exclude="none")
    # Excluded words are never written, in names or words.
    p = Privatizer(seed=0, targets="all", replace="word", exclude={"the", "a", "and"},
                   epsilon=50.0)
    outs = p.privatize(["the a and the a and"] * 50)
    assert not {"the", "a", "and"} & {w.lower() for o in outs for w in o.text.split(" ")}
    assert Privatizer().exclude >= {"islam", "qaeda"}


def test_report_spans_are_an_audit_trail_without_text(monkeypatch):
    """report_spans=True: each targeted span as offsets, label, detector and score, in the
    whole text's offsets across chunks; no text in the report."""
    import json

    import textdp.pipeline.chunking as chunking

    monkeypatch.setattr(chunking, "CHUNK_CHARS", 130)
    text = "Dear Dr. Patel, my daughter Emily (emily@example.com) called.\n" * 4
    p = Privatizer(seed=1, report_spans=True, targets=["PERSON", "EMAIL"])
    out = p(text)
    spans = out.report.to_dict()["spans"]
    found = [text[s["start"]:s["end"]] for s in spans]
    for target in ("Patel", "Emily", "emily@example.com"):  # offsets in the whole text
        assert found.count(target) == 4
    assert "Dr." not in found and "Dr. Patel" not in found  # the title is not a target
    assert {s["label"] for s in spans} == {"PERSON", "EMAIL"}
    assert all(s["detector"] for s in spans)
    dumped = json.dumps(out.report.to_dict())
    assert "Patel" not in dumped and "Emily" not in dumped and "example" not in dumped
    assert Privatizer(seed=1)(text).report.spans is None


# ====================================================================== keyed draws (issue 34)
def _smiths(docs):
    """A fixed detector: Smith, Jones and Brown in any casing are persons."""
    return [[(t.i, t.i + 1, "PERSON") for t in doc
             if t.text.casefold() in {"smith", "jones", "brown"}] for doc in docs]


def test_a_keyed_draw_reads_one_vector_per_name_whatever_its_casing():
    """Issue 34, item 1: with consistency="dataset", "SMITH" read the row of "HEY" and
    "smith" that of "butcher" on the default table, and one keyed noise was added to both:
    the pair of outputs released their difference, unbounded by ε. Every casing of a name in
    a scope must now come out as one pseudonym (one draw, read from one vector)."""
    p = Privatizer(epsilon=1.0, seed=3, consistency="dataset", detector=_smiths)
    assert len(set(p.table.lookup(["SMITH", "smith", "Smith"]).tolist())) == 3  # the premise
    scopes = [str(s) for s in range(20) for _ in range(3)]
    out = p.privatize(["SMITH called.", "smith called.", "Smith called."] * 20, scopes=scopes)
    for s in range(20):
        names = {r.text.split()[0].casefold() for r in out[3 * s:3 * s + 3]}
        assert len(names) == 1, names
    assert all(r.report.draws == 1 for r in out)


def _redacted_equals_drawn(budget: float | None, redacted: str, n: int) -> tuple[int, int]:
    """Over ``n`` scopes of two texts, "Smith called." and "Jones met <redacted>.": how often
    the second text's last name equals the first's, and how many targets were redacted."""
    p = Privatizer(epsilon=1.0, seed=5, consistency="dataset", detector=_smiths,
                   max_epsilon_per_text=budget)
    texts = ["Smith called.", f"Jones met {redacted}."] * n
    out = p.privatize(texts, scopes=[str(s) for s in range(n) for _ in range(2)])
    hits = sum(out[2 * s].text.split()[0] == out[2 * s + 1].text.split()[-1].rstrip(".")
               for s in range(n))
    return hits, sum(r.report.tokens_redacted for r in out)


def test_a_redacted_name_does_not_reuse_its_keyed_draw():
    """Issue 34, item 2: over its text's budget, a name is redacted (a draw from a public
    stand-in, reported as costing nothing), but its draw reused the name's keyed noise, so
    it matched the name's pseudonym in another text of the scope (171 of 300 scopes, against
    2 of 300 for another redacted name). Two neighbouring datasets that differ only in the
    redacted name (Smith, which another text names, or Brown) must give one law of the
    output pair: bound 0, audited with Clopper–Pearson intervals. The positive control, the
    name drawn within budget (which does depend on it), fails the same audit."""
    from textdp.evaluate.privacy import worst_violation

    n, alpha, tolerance = 60, 1e-3 / 4, 0.05
    smith, redacted = _redacted_equals_drawn(1.0, "Smith", n)
    brown, _ = _redacted_equals_drawn(1.0, "Brown", n)
    assert redacted == n  # the premise: the second name of each pair is over budget
    counts = np.array([[smith, n - smith], [brown, n - brown]])
    assert worst_violation(counts, np.zeros((2, 2)), alpha) <= tolerance
    drawn, none = _redacted_equals_drawn(None, "Smith", n)
    assert none == 0
    control = np.array([[drawn, n - drawn], [brown, n - brown]])
    assert worst_violation(control, np.zeros((2, 2)), alpha) > tolerance


def test_secure_keyed_draws_come_from_chacha20(monkeypatch):
    """Issue 34, item 6: with secure=True and consistency="dataset" every name's draw came
    from PCG64 (and torch generators) seeded with its HMAC. Each keyed source must be
    ChaCha20, keyed by the HMAC (the same key gives the same pseudonyms in any process)."""
    from randomgen import ChaCha

    import textdp.pipeline.substitution as substitution

    made = []
    real = substitution.keyed_source

    def spy(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(substitution, "keyed_source", spy)
    key = "a secret of sixteen or more characters"
    text = "Smith met Jones and BROWN."
    first = Privatizer(epsilon=1.0, secure=True, consistency="dataset", key=key,
                       detector=_smiths)(text)
    assert len(made) == 3 and first.report.draws == 3
    for source in made:
        assert source.secure and isinstance(source.numpy.bit_generator, ChaCha)
        with pytest.raises(RuntimeError, match="CSPRNG"):
            source.torch()
    again = Privatizer(epsilon=1.0, secure=True, consistency="dataset", key=key,
                       detector=_smiths)(text)
    assert again.text == first.text  # keyed: consistent across privatizers and processes
