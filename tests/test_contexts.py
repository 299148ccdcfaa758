"""textdp.contexts: the public context each target is read in."""

from __future__ import annotations

import numpy as np

from textdp.contexts import mask_word, target_contexts


def _read(nlp, text, targets, wanted=None, *, isolate, window=32):
    doc = nlp.make_doc(text)
    flat = [(0, k) for k in targets]
    labels = ["PERSON"] * len(flat)
    wanted = np.ones(len(flat), bool) if wanted is None else np.asarray(wanted)
    texts, spans, rows = target_contexts([doc], flat, labels, wanted, isolate=isolate,
                                         window=window)
    return texts, [[t[s:e] for s, e in sp] for t, sp in zip(texts, spans)], rows.tolist()


def test_an_isolated_target_is_read_with_the_other_targets_masked(nlp):
    texts, words, rows = _read(nlp, "Angela Merkel met John Smith.", [0, 1, 3, 4],
                               isolate=True)
    assert texts == ["Angela someone met someone someone.", "someone Merkel met someone someone.",
                     "someone someone met John someone.", "someone someone met someone Smith."]
    assert words == [["Angela"], ["Merkel"], ["John"], ["Smith"]] and rows == [0, 1, 2, 3]


def test_the_context_of_a_target_does_not_depend_on_the_other_targets(nlp):
    a = _read(nlp, "Angela Merkel met her.", [0, 1], isolate=True)
    b = _read(nlp, "Angela Schmidt met her.", [0, 1], isolate=True)
    assert a[0][0] == b[0][0] == "Angela someone met her."


def test_the_window_is_counted_in_tokens(nlp):
    text = " ".join(["w"] * 10 + ["Bob"] + ["v"] * 10)
    texts, words, _ = _read(nlp, text, [10], isolate=True, window=3)
    assert texts == ["w w w Bob v v v "] and words == [["Bob"]]


def test_all_token_mode_reads_the_document_and_masks_only_redacted_targets(nlp):
    text = "Angela met Merkel today"
    texts, words, rows = _read(nlp, text, [0, 1, 2, 3], isolate=False)
    assert texts == [text] and words == [["Angela", "met", "Merkel", "today"]]
    texts, words, rows = _read(nlp, text, [0, 1, 2, 3], [True, True, False, True],
                               isolate=False)
    assert texts == ["Angela met someone today"] and words == [["Angela", "met", "today"]]
    assert rows == [0, 1, 3]


def test_a_document_without_wanted_targets_is_not_read(nlp):
    assert _read(nlp, "Angela met", [0], [False], isolate=False)[0] == []
    assert _read(nlp, "Angela met", [0], [False], isolate=True)[0] == []


def test_mask_words_are_public_constants():
    assert mask_word("PERSON") == "someone" and mask_word("ORG") == mask_word(None)
