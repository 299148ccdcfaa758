"""PII pattern recognisers (textdp.detect.pii): each label on positive and negative examples,
the Luhn check, token spans on docs, the normalised view, and text-free surrogates."""

from __future__ import annotations

import ipaddress

import numpy as np
import pytest

from textdp.detect.pii import (
    PII_LABELS,
    TEST_CARDS,
    PIIDetector,
    Shape,
    Surrogates,
    find_pii,
    luhn_valid,
    shape_of,
    surrogate,
    tag,
)


def found(text, labels=PII_LABELS):
    return [(m.label, text[m.start:m.end]) for m in find_pii(text, labels)]


POSITIVE = {
    "EMAIL": ["maria.lopez@example.com", "j_o'neil+news@mail.co.uk", "élise@exemple.fr"],
    "PHONE": ["555-123-4567", "(555) 123-4567", "+1 (555) 123-4567", "+44 20 7946 0958",
              "01 23 45 67 89", "555.123.4567", "+15551234567", "555-1234", "07700 900123"],
    "URL": ["https://example.com/a?b=1", "http://localhost:8080/x", "www.example.org/path",
            "ftp://files.example.net/f.txt"],
    "HANDLE": ["@john_smith", "@j.doe", "@Anna2024"],
    "IP": ["192.168.1.20", "8.8.8.8", "2001:db8::ff00:42:8329", "fe80::1",
           "::ffff:192.0.2.1"],
    "CREDIT_CARD": ["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111",
                    "3782 822463 10005", "5555555555554444", "6011000990139424"],
}
NEGATIVE = {
    "EMAIL": ["maria at example dot com", "user@localhost", "@handle", "a@b"],
    "PHONE": ["2021-03-04", "04.03.2021", "1999-2003", "1,250,000", "1 000 000",
              "MRN 12345678", "BP 120/80", "10:30", "version 3.8.18", "5551234567"],
    "URL": ["example.com", "http://", "see www"],
    "HANDLE": ["a@b.com", "@ 5", "@123", "email@"],
    "IP": ["999.1.1.1", "1.2.3", "10.0.0.256", "10:30:45", "std::vector", "1.2.3.4.5"],
    "CREDIT_CARD": ["4111 1111 1111 1112", "4111111111111112", "1234 5678 9012 3456",
                    "0000 0000 0000 0000", "4111 11111 1111 111"],
}


@pytest.mark.parametrize("label, value", [(k, v) for k, vs in POSITIVE.items() for v in vs])
def test_each_recogniser_finds_its_positives(label, value):
    text = f"Contact: {value}, thanks."
    assert found(text) == [(label, value)]
    assert found(text, [label]) == [(label, value)]


@pytest.mark.parametrize("label, value", [(k, v) for k, vs in NEGATIVE.items() for v in vs])
def test_each_recogniser_rejects_its_negatives(label, value):
    text = f"Contact: {value}, thanks."
    assert label not in [lab for lab, _ in found(text)]


def test_luhn_checksum():
    for cards in TEST_CARDS.values():
        assert all(luhn_valid(c) for c in cards)
    assert luhn_valid("79927398713") and not luhn_valid("79927398710")
    assert not luhn_valid("") and not luhn_valid("4111-1111")


def test_invalid_card_number_is_neither_a_card_nor_a_phone():
    assert found("Card 4111 1111 1111 1112 declined.") == []


def test_overlaps_resolve_to_the_more_specific_label():
    text = "See https://example.org/?u=a@b.com and mailto:maria@example.com now."
    assert found(text) == [("URL", "https://example.org/?u=a@b.com"),
                           ("EMAIL", "maria@example.com")]
    # Without IP, a dotted quad is not taken for a phone number.
    assert found("Server 192.168.10.20 is down.", ["PHONE"]) == []


def test_url_drops_sentence_punctuation_and_unbalanced_brackets():
    assert found("(see https://example.com/a_(b).)") == [("URL", "https://example.com/a_(b)")]


def test_unknown_labels_are_refused():
    with pytest.raises(ValueError, match="EMAIL, PHONE"):
        find_pii("x", ["EMAILS"])
    with pytest.raises(ValueError):
        PIIDetector(["PERSON"])


def test_detector_marks_token_spans(nlp):
    doc = nlp.make_doc("Mail maria.lopez@example.com or call +1 (555) 123-4567 today.")
    spans = PIIDetector()([doc])[0]
    assert [(doc[s:e].text, lab) for s, e, lab in spans] == [
        ("maria.lopez@example.com", "EMAIL"), ("+1 (555) 123-4567", "PHONE")]
    assert PIIDetector(["PHONE"])([doc])[0] == [spans[1]]
    found_ = PIIDetector().findings([doc])[0]
    assert [f.span for f in found_] == spans and {f.detector for f in found_} == {"pii"}
    assert all(f.score is None for f in found_)


def test_detector_sees_through_unicode_tricks(nlp):
    # Fullwidth digits and a zero-width space inside the address.
    text = "Call ５５５-１２３-４５６７ or write to maria\u200b.lopez@example.com."
    doc = nlp.make_doc(text)
    spans = PIIDetector()([doc])[0]
    labels = [lab for _, _, lab in spans]
    assert labels == ["PHONE", "EMAIL"]
    s, e, _ = spans[1]
    assert "lopez@example.com" in doc[s:e].text


def test_with_pii_keeps_the_name_inside_an_address(nlp):
    from textdp.detect import PIIUnion, create_detector, find, with_pii

    handles = create_detector("handles")
    assert with_pii(handles, ["PERSON"]) is handles
    assert with_pii(handles, "all") is handles
    both = with_pii(handles, "PERSON,EMAIL")
    assert isinstance(both, PIIUnion) and both.labels == ("EMAIL",)
    doc = nlp.make_doc("Write to maria.lopez@example.com today.")
    spans = both([doc])[0]
    assert (2, 3, "EMAIL") in spans and (2, 3, "PERSON") in spans
    assert sorted((f.label, f.detector) for f in find(both, [doc])[0]) == [
        ("EMAIL", "pii"), ("PERSON", "handles")]


# ------------------------------------------------------------------ replacements
ORIGINALS = {
    "EMAIL": ("maria.lopez@example.com", "x@corp.io"),
    "PHONE": ("555-123-4567", "555-987-6543"),
    "URL": ("https://secret.example.com/patient/1234", "http://a.io"),
    "HANDLE": ("@john_smith", "@x"),
    "IP": ("10.1.2.3", "172.16.0.9"),
    "CREDIT_CARD": ("4111 1111 1111 1111", "5555 5555 5555 4444"),
}


@pytest.mark.parametrize("label", PII_LABELS)
def test_surrogates_depend_on_the_shape_only(label):
    a, b = ORIGINALS[label]
    assert shape_of(label, a) == shape_of(label, b)
    out_a = surrogate(label, shape_of(label, a), np.random.default_rng(3))
    out_b = surrogate(label, shape_of(label, b), np.random.default_rng(3))
    assert out_a == out_b  # the same draw: nothing of the value itself reaches the output
    # A surrogate is still of its kind: the recogniser reads it as the same label.
    assert [m.label for m in find_pii(f"x {out_a} y")] == [label]


def test_surrogates_use_reserved_ranges():
    rng = np.random.default_rng(0)
    for _ in range(50):
        email = surrogate("EMAIL", Shape("EMAIL"), rng)
        assert email.rsplit("@", 1)[1] in ("example.com", "example.org", "example.net")
        assert surrogate("URL", Shape("URL"), rng).startswith("https://example.org/")
        assert surrogate("HANDLE", Shape("HANDLE"), rng)[:5] == "@user"
        v4 = ipaddress.ip_address(surrogate("IP", shape_of("IP", "10.0.0.1"), rng))
        assert v4 in ipaddress.ip_network("192.0.2.0/24")
        v6 = ipaddress.ip_address(surrogate("IP", shape_of("IP", "fe80::1"), rng))
        assert v6 in ipaddress.ip_network("2001:db8::/32")
        phone = surrogate("PHONE", shape_of("PHONE", "(555) 123-4567"), rng)
        assert phone[:1] == "(" and phone[5:] == " 555-" + phone[10:] and phone[10:12] == "01"
        intl = surrogate("PHONE", shape_of("PHONE", "+44 20 7946 0958"), rng)
        assert intl.replace(" ", "").endswith(intl.replace(" ", "")[-7:]) and \
            intl.replace(" ", "")[-7:-2] == "55501" and len(intl) == len("+44 20 7946 0958")
        card = surrogate("CREDIT_CARD", shape_of("CREDIT_CARD", "4111-1111-1111-1111"), rng)
        assert card.replace("-", "") in TEST_CARDS[16] and card.count("-") == 3
        long_card = surrogate("CREDIT_CARD", Shape("CREDIT_CARD", "#" * 19), rng)
        assert luhn_valid(long_card) and long_card[0] == "0"


def test_phone_shape_keeps_only_layout_characters():
    assert shape_of("PHONE", "+1 (555) 123-4567").layout == "+# (###) ###-####"
    assert "Shape(" in repr(shape_of("EMAIL", "maria@example.com"))
    assert "maria" not in repr(shape_of("EMAIL", "maria@example.com"))


def test_tag_and_unknown_label():
    assert tag("email") == "[EMAIL]"
    with pytest.raises(ValueError):
        tag("PERSON")
    with pytest.raises(ValueError, match="shape is for"):
        surrogate("EMAIL", Shape("URL"), np.random.default_rng(0))


def test_surrogates_are_consistent_within_a_scope():
    s = Surrogates(np.random.default_rng(1))
    first = s("EMAIL", "maria@example.com")
    assert s("EMAIL", "maria@example.com") == first
    assert s("EMAIL", "other@example.com") != first
    assert "maria" not in repr(s)
    s.reset()
    assert repr(s) == "Surrogates(values=0)"


# Issue 37: crafted inputs that took quadratic time (timed by bench/crafted.py, not here).
@pytest.mark.parametrize("tail,kept", [
    (")" * 5000, ""),  # every closing bracket unbalanced: all dropped
    ("(" * 2500 + ")" * 2500, "(" * 2500 + ")" * 2500),  # balanced: all kept
    ("(" * 2000 + ")" * 3000 + ".,", "(" * 2000 + ")" * 2000),
    ("a)" * 2500, "a)" * 2499 + "a"),
])
def test_url_end_drops_unbalanced_closing_brackets_of_a_long_url(tail, kept):
    text = "https://x.com/" + tail
    (match,) = find_pii(text, ["URL"])
    assert (match.start, match.end) == (0, len("https://x.com/" + kept))


def test_a_long_run_before_a_missing_at_is_no_address():
    assert find_pii("x@" + "a-" * 2500, ["EMAIL"]) == []
    assert find_pii("a." * 2500 + "@", ["EMAIL", "HANDLE"]) == []
