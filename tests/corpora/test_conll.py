"""The CoNLL reader: IOB spans, documents and units, spaCy docs of the gold tokens
(textdp.corpora.conll)."""

from __future__ import annotations

from textdp.corpora.conll import iob_spans, read_conll, to_docs, token_count, units


def test_iob1_spans():
    # I- opens an entity after O or another type; B- splits two touching entities of a type.
    tags = ["I-PER", "I-PER", "O", "I-LOC", "I-PER", "B-PER", "I-PER", "I-ORG"]
    assert iob_spans(tags) == [(0, 2, "PERSON"), (3, 4, "LOC"), (4, 5, "PERSON"),
                               (5, 7, "PERSON"), (7, 8, "ORG")]


def test_iob2_and_biluo_spans():
    assert iob_spans(["B-PER", "I-PER", "B-PER", "O"]) == [(0, 2, "PERSON"), (2, 3, "PERSON")]
    assert iob_spans(["U-PER", "B-LOC", "L-LOC", "O"]) == [(0, 1, "PERSON"), (1, 3, "LOC")]
    assert iob_spans([]) == []


def test_read_conll_documents(conll_file):
    docs = read_conll(conll_file)
    assert [len(d) for d in docs] == [2, 1]  # the trailing -DOCSTART- adds no document
    assert docs[0][1].tokens == ("Mr", "Lee", "met", "Ann", "Kim", ".")
    assert docs[0][1].spans == [(1, 2, "PERSON"), (3, 4, "PERSON"), (4, 5, "PERSON")]
    # Document units put sentences on lines of their own (a line-break token between them)
    # and shift the spans; sentence units keep them apart.
    words, spaces, spans = units(docs, "document")[0]
    assert words[4:7] == [".", "\n", "Mr"] and spaces[3:7] == [True, False, False, True]
    assert len(words) == 12 and not spaces[-1]
    assert spans[:2] == [(0, 2, "PERSON"), (3, 4, "LOC")] and (10, 11, "PERSON") in spans
    assert [w for w, _, _ in units(docs, "sentence")][1] == list(docs[0][1].tokens)


def test_to_docs_keeps_gold_tokens(conll_file, nlp):
    docs, gold = to_docs(read_conll(conll_file))
    assert [t.text for t in docs[0]][:2] == ["John", "Smith"]
    assert docs[0].text.startswith("John Smith visited Berlin .\nMr Lee met")
    assert docs[0].vocab is nlp.vocab
    assert gold[1] == [(0, 1, "PERSON")]
    assert docs[0][gold[0][3][0]].text == "Ann"
    assert token_count(docs[0]) == 11
