"""The generated register sample (issue 33): reproducible, labelled per chunk, two splits."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from textdp.evaluate import samples as S


def test_generation_is_reproducible_and_covers_every_kind():
    a, b = S.generate("dev", 5), S.generate("dev", 5)
    assert [x.text for x in a] == [x.text for x in b]
    assert {x.kind for x in a} == set(S.KINDS)
    assert len(a) == 5 * len(S.KINDS)
    for x in a:  # one label per chunk
        assert [len(ln) for ln in x.lines] == [len(ln) for ln in x.labels]


def test_dev_and_report_splits_draw_names_from_disjoint_pools():
    def names(split):
        return {c.strip(",.:<>@").casefold() for x in S.generate(split, 30)
                for ln, labs in zip(x.lines, x.labels) for c, lab in zip(ln, labs)
                if lab != S.WORD and "@" not in c and "." not in c.strip(",.")}

    dev, report = names("dev"), names("report")
    assert dev and report and not dev & report
    with pytest.raises(ValueError, match="split"):
        S.generate("test")


def test_word_like_names_are_labelled_and_spans_cover_the_name_chunks():
    xs = S.generate("dev", 20)
    word_names = [c for x in xs for ln, labs in zip(x.lines, x.labels)
                  for c, lab in zip(ln, labs) if lab == S.PER_WORD]
    assert word_names
    x = next(x for x in xs if x.kind == "email")
    got = [x.text[a:b] for a, b, _ in x.spans()]
    want = [c.strip(",.:<>") for ln, labs in zip(x.lines, x.labels)
            for c, lab in zip(ln, labs) if lab != S.WORD]
    assert got == want


def test_count_compares_chunk_by_chunk():
    sample = S.Sample("t", (("Hx", "of", "HTN."), ("Summer", "Rain", "called")),
                      ((S.WORD, S.WORD, S.WORD), (S.PER_WORD, S.PER_WORD, S.WORD)))
    c = S.count(sample, "Hx of Jones.\nSUMMER Kim called")
    assert (c.ordinary, c.replaced, c.names, c.names_surviving) == (4, 1, 2, 1)
    assert (c.word_names, c.word_names_surviving) == (2, 1)
    with pytest.raises(ValueError, match="skeleton"):
        S.count(sample, "Hx of\nSummer Rain called")


def test_measure_per_kind_and_overall(tmp_path):
    xs = S.generate("dev", 3)

    class Keep:  # publishes everything unchanged
        def privatize(self, texts):
            return [SimpleNamespace(text=t) for t in texts]

    per = S.measure(Keep(), xs)
    assert set(per) == {*S.KINDS, "all"}
    assert per["all"].replaced == 0 and per["all"].names_surviving == per["all"].names > 0
    assert per["all"].as_dict()["names_surviving_pct"] == 100.0
    path = tmp_path / "s.jsonl"
    S.write_jsonl(xs, str(path))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == len(xs) and all(r["spans"] for r in rows if r["kind"] == "email")


def test_the_written_split_reads_marked_names_chunk_by_chunk(tmp_path):
    from textdp.evaluate.samples import PER, PER_WORD, SKIP, WORD, generate, read_written

    path = tmp_path / "w.jsonl"
    path.write_text(json.dumps({"kind": "chat", "text": "[10:02] [[jamal_b]]: ask "
                                "[[Hope Okafor]]'s mum\nmail bob@shop.com"}) + "\n")
    (sample,) = read_written(path)
    assert sample.kind == "chat"
    assert sample.text == "[10:02] jamal_b: ask Hope Okafor's mum\nmail bob@shop.com"
    assert sample.labels == ((WORD, PER, WORD, PER_WORD, PER, WORD), (WORD, SKIP))
    # a chat's unmarked account names are left out; its times, ordinals and codes are words
    path.write_text(json.dumps({"kind": "chat", "text": "<anon42> q3 at 7pm, 3rd time "
                                "@here valkyrie99: ping <ops-bot> ferris_fan"}) + "\n")
    (sample,) = read_written(path)
    assert sample.labels == ((SKIP, WORD, WORD, WORD, WORD, WORD, SKIP, SKIP, WORD, SKIP,
                              SKIP),)
    # the shipped texts: four kinds of seventy, a few without any name (negative controls)
    written = generate("written")
    assert len(written) == 280
    assert {s.kind for s in written} == {"clinical", "caps", "chat", "support"}
    named = sum(any(lab in (PER, PER_WORD) for line in s.labels for lab in line)
                for s in written)
    assert 260 <= named < 280
