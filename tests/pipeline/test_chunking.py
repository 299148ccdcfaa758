"""textdp.pipeline.chunking: long texts in bounded chunks whose cores tile the text, read
with overlap;
and the Privatizer's lazy, chunked path (privatize_iter, names at a cut)."""

from __future__ import annotations

import random
import re
from itertools import islice

import pytest

import textdp.pipeline.chunking as chunking
from textdp.pipeline.chunking import chunk_text
from textdp.privatizer import Privatizer


def _boundary(text: str, pos: int) -> bool:
    """A token boundary for spaCy: the text's ends, or a non-space after whitespace."""
    return pos in (0, len(text)) or (text[pos - 1].isspace() and not text[pos].isspace())


def test_a_short_text_is_one_chunk():
    assert [tuple(vars(c).values()) for c in chunk_text("short", 10)] == [(0, 5, 0, 5)]
    assert [tuple(vars(c).values()) for c in chunk_text("", 10)] == [(0, 0, 0, 0)]


def test_cuts_prefer_line_then_sentence_ends():
    text = "aaaa bbbb. cccc\ndddd eeee. ffff gggg hhhh"
    cores = [text[c.core_start:c.core_end] for c in chunk_text(text, 20, 0)]
    assert cores[0] == "aaaa bbbb. cccc\n"  # the line end beats the later spaces
    text = "aaaa bbbb. cccc dddd eeee"
    assert next(chunk_text(text, 18, 0)).core_end == text.index("cccc")  # sentence end


def test_chunks_tile_the_text_and_read_whole_tokens():
    rng = random.Random(0)
    for _ in range(300):
        alphabet = rng.choice(["abc de\nf\tgh  ijk. ", "abcdefghij\n", "ab. Cd!\n\n  e"])
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 500)))
        limit, overlap = rng.randint(1, 60), rng.randint(0, 30)
        chunks = list(chunk_text(text, limit, overlap))
        assert "".join(text[c.core_start:c.core_end] for c in chunks) == text
        for c in chunks:
            assert c.start <= c.core_start <= c.core_end <= c.end
            assert c.core_end - c.core_start <= limit
            assert c.core_start - c.start <= overlap and c.end - c.core_end <= overlap
            # read ranges end at token boundaries (at the core's own edge where none is near)
            assert _boundary(text, c.start) or c.start == c.core_start
            assert _boundary(text, c.end) or c.end == c.core_end
            # a core ends at a token boundary unless its window has none to cut at
            assert _boundary(text, c.core_end) or not any(
                _boundary(text, k) for k in range(c.core_start + 1, c.core_end + 1))


def test_a_run_without_whitespace_is_cut_hard():
    cores = [(c.core_start, c.core_end) for c in chunk_text("x" * 25, 10, 3)]
    assert cores == [(0, 10), (10, 20), (20, 25)]


# ----------------------------------------------------------------- through the Privatizer
def _full_name_detector(docs):
    """Finds "Angela Merkel" only as a pair: a chunk that saw half of it would miss it."""
    out = []
    for doc in docs:
        words = [t.text for t in doc]
        out.append([(i, i + 2, "PERSON") for i in range(len(words) - 1)
                    if words[i:i + 2] == ["Angela", "Merkel"]])
    return out


@pytest.mark.parametrize("overlap,found", [(60, True), (0, False)])
def test_a_name_cut_by_a_chunk_edge_is_found_through_the_overlap(monkeypatch, overlap, found):
    limit = 200
    monkeypatch.setattr(chunking, "CHUNK_CHARS", limit)
    monkeypatch.setattr(chunking, "OVERLAP_CHARS", overlap)
    head = "lorem " * ((limit - len("Angela ")) // 6)
    head = "x" * (limit - len("Angela ") - len(head)) + head  # "Merkel" starts at the cut
    text = head + "Angela Merkel " + "ipsum " * 100
    assert next(c.core_end for c in chunk_text(text)) == text.index("Merkel")
    p = Privatizer(seed=1, detector=_full_name_detector)
    out = p(text)
    assert ("Angela" in out.text or "Merkel" in out.text) != found
    if found:
        assert out.report.tokens_replaced == 2
        assert out.text.startswith(head) and out.text.endswith(" " + "ipsum " * 100)


def test_chunked_output_reassembles_the_text_exactly(monkeypatch):
    """Every character is written by exactly one chunk, whatever the cuts (hard ones too)."""
    monkeypatch.setattr(chunking, "CHUNK_CHARS", 23)
    monkeypatch.setattr(chunking, "OVERLAP_CHARS", 7)
    rng = random.Random(1)
    texts = ["".join(rng.choice(["ab", "c.", " ", "\n", "  ", "d(e)", "xxxxxxxx", "\t"])
                     for _ in range(rng.randint(0, 120))) for _ in range(60)]
    p = Privatizer(seed=0, detector=lambda docs: [[] for _ in docs], batch_size=5)
    assert [r.text for r in p.privatize(texts)] == texts


def test_privatize_iter_is_lazy_and_in_order():
    p = Privatizer(seed=2, targets="all", batch_size=1)

    def texts():
        yield from (f"row {i} words" for i in range(3))
        yield 3  # not a text: reached only when asked for a later result

    results = p.privatize_iter(texts())
    first = list(islice(results, 2))
    assert [r.text.split()[1] for r in first] == ["0", "1"]
    with pytest.raises(ValueError, match=r"\brow 3\b"):
        list(results)


def test_a_long_text_is_read_in_bounded_chunks_and_comes_back_whole(monkeypatch):
    monkeypatch.setattr(chunking, "CHUNK_CHARS", 500)
    seen = []

    def smith_detector(docs):
        seen.extend(len(doc.text) for doc in docs)
        return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text == "Smith"] for doc in docs]

    block = "Mr Smith met the press.\n" + "filler words here. " * 20
    text = block * 60
    out = Privatizer(seed=4, detector=smith_detector, batch_size=4)(text)
    assert max(seen) <= 500 + 2 * chunking.OVERLAP_CHARS and len(seen) >= len(text) // 500
    assert out.report.tokens_replaced == 60 and "Smith" not in out.text
    assert re.sub(r"Mr \S+ met", "Mr X met", out.text) == text.replace("Smith", "X")


@pytest.mark.parametrize("batch_size", [1, 8])
def test_a_later_mention_is_found_across_chunks(monkeypatch, batch_size):
    """The later-mention rule spans the whole text: a bare surname 25,000 characters (two
    chunks) after the full name is replaced though no chunk holds both."""
    filler = "The committee met again and the weather stayed mild. " * 480
    text = "Angela Merkel opened the session. " + filler + "Later Merkel closed it. " + \
        filler + "merkel (lower case) and Merkel again."
    assert len(list(chunk_text(text))) >= 3
    p = Privatizer(seed=1, detector=_full_name_detector, batch_size=batch_size)
    out = p(text)
    assert "Merkel" not in out.text and out.text.count("merkel") == 1
    assert out.text.endswith(" again.") and "Later " in out.text
    # A short text is left to the detector's own rules: nothing carried there.
    assert "Merkel" in p("Angela Merkel. " + "Merkel said.").text.split(". ", 1)[1]

