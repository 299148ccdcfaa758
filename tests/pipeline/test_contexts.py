"""textdp.pipeline.contexts: the public context each target is read in."""

from __future__ import annotations

import numpy as np
from tiny_models import save_tiny_bert

from textdp.pipeline.contexts import mask_word, target_contexts


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


def test_context_only_targets_are_masked_in_both_modes(nlp):
    """Targets of a neighbouring chunk's core (``context_targets``) are read masked."""
    doc = nlp.make_doc("Angela met Merkel today")
    wanted = np.ones(1, bool)
    for isolate in (True, False):
        texts, _, _ = target_contexts([doc], [(0, 0)], ["PERSON"], wanted, isolate=isolate,
                                      context_targets=[{2: "PERSON"}])
        assert texts == ["Angela met someone today"]


# ------------------------------------------------------- chunk edges, through the Privatizer
def _tiny_bert(folder) -> str:
    """A tiny BERT whose vocabulary holds the test's words (names included, so a changed name
    changes the model's input)."""
    return save_tiny_bert(folder, [".", "##s", "the", "cat", "sat", "on", "mat", "met", "john",
                                   "smith", "paris", "someone", "something", "big", "dog"])


def _name_detector(docs):
    return [[(t.i, t.i + 1, "PERSON") for t in doc
             if t.text.lower() in ("john", "smith", "paris")] for doc in docs]


def _edge_text(name: str) -> str:
    """A text over 20,000 characters cut at its only line end: "john" ends the first chunk's
    core, ``name`` starts the second's, four tokens apart (well inside the context window)."""
    from textdp.pipeline.chunking import CHUNK_CHARS

    filler = "the cat sat on the mat . "
    head = filler * ((CHUNK_CHARS - 200) // len(filler)) + "the dog met john .\n"
    text = head + f"the big {name} sat . " + filler * 60
    assert len(text) > CHUNK_CHARS
    return text


def test_a_target_at_a_chunk_edge_is_read_with_the_next_chunks_targets_masked(
        nlp, tmp_path, monkeypatch):
    """Issue 34 item 3: "john" (first chunk) reads the second chunk's overlap; the name there
    is drawn by the second chunk but must be masked in john's context too, so changing it
    does not move john's vector at all (the audit measured 0.644 before)."""
    import torch

    from textdp.contextual import ContextualEncoder
    from textdp.contextual_index import ContextualIndex
    from textdp.pipeline.chunking import chunk_text
    from textdp.privatizer import Privatizer

    model = _tiny_bert(tmp_path / "bert")
    index = ContextualIndex.from_vocabulary(ContextualEncoder(model, precision="float32"))
    seen: list[tuple[list[str], list[np.ndarray], torch.Tensor]] = []
    encode = ContextualEncoder.encode_spans

    def spy(self, texts, spans, **kw):
        out = encode(self, texts, spans, **kw)
        seen.append((list(texts), [np.asarray(s) for s in spans], out[0].clone()))
        return out

    monkeypatch.setattr(ContextualEncoder, "encode_spans", spy)

    def john_vector(name: str) -> tuple[str, torch.Tensor]:
        text = _edge_text(name)
        cut = next(chunk_text(text)).core_end
        assert text.index("john") < cut <= text.index(name) < cut + 30  # john's window
        seen.clear()
        p = Privatizer(representation="contextual", model=model, contextual_index=index,
                       precision="float32", epsilon=5.0, seed=0, detector=_name_detector,
                       nlp=nlp)
        out = p(text)
        assert out.report.tokens_replaced == 2
        hits = [(t, vecs[i]) for texts, spans, vecs in seen
                for i, (t, (s, e)) in enumerate(
                    (t, tuple(sp)) for t, sps in zip(texts, spans) for sp in sps)
                if t[s:e] == "john"]
        assert len(hits) == 1
        return hits[0]

    (ctx_a, vec_a), (ctx_b, vec_b) = john_vector("smith"), john_vector("paris")
    assert "someone" in ctx_a and "smith" not in ctx_a and ctx_a == ctx_b
    assert float((vec_a - vec_b).abs().max()) == 0.0
