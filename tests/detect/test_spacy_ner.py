"""The spaCy NER detector skips what its recognizer does not need, with the same entities."""

from __future__ import annotations

from textdp.detect.spacy_ner import SpacyNERDetector, not_for_ner

TEXTS = ["Angela Merkel met John Smith in Berlin.", "call maria at the Acme office in Lyon",
         "Dr. Wanjiru Mwangi (Nairobi) wrote to Ivan on Monday."]


def test_the_shared_tok2vec_is_skipped_when_only_skipped_components_listen():
    from textdp.defaults import fresh_pipeline

    skipped = not_for_ner(fresh_pipeline())  # the md pipeline whole, as a user loads it
    assert {"tagger", "parser", "lemmatizer", "attribute_ruler", "tok2vec"} <= set(skipped)
    assert "ner" not in skipped


def test_a_tok2vec_the_recognizer_listens_to_is_kept():
    import spacy

    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": 96,
                "upstream": "tok2vec"}
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2",
                                             "tok2vec": listener}}).add_label("NN")
    nlp.initialize()  # links the listeners to their tok2vec
    assert not_for_ner(nlp) == ["tagger", "tok2vec"]
    nlp.add_pipe("ner", config={"model": {
        "@architectures": "spacy.TransitionBasedParser.v2", "state_type": "ner",
        "extra_state_tokens": False, "hidden_width": 8, "maxout_pieces": 2, "use_upper": True,
        "tok2vec": listener}}).add_label("PERSON")
    nlp.initialize()
    assert nlp.get_pipe("tok2vec").listening_components == ["tagger", "ner"]
    assert not_for_ner(nlp) == ["tagger"]


def test_entities_are_those_of_the_whole_pipeline(nlp):
    """The shared pipeline (NER alone) and a whole md pipeline run through all of its
    components read the same entities."""
    from textdp.defaults import fresh_pipeline

    whole_nlp = fresh_pipeline()
    found = SpacyNERDetector(nlp)([nlp.make_doc(t) for t in TEXTS])
    whole = [[(e.start, e.end, e.label_) for e in whole_nlp(t).ents] for t in TEXTS]
    assert [[(s, e) for s, e, _ in spans] for spans in found] == \
        [[(s, e) for s, e, _ in spans] for spans in whole]
    assert any(found)
