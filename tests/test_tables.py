"""textdp.tables.EmbeddingTable: loaders, lookup, candidate selection, cache."""

from __future__ import annotations

import re

import numpy as np
import pytest

import textdp.tables as tables_module
from textdp.tables import EmbeddingTable, cache_dir, is_real_word

WORDS = ["the", "The", "Paris", "apple", "Apple", ",", "1990", "n't", "well-known", "o'clock",
         "don't", "x2", "foo_bar", "Berlin", "BERLIN", "'s", "...", "café"]


pytestmark = pytest.mark.usefixtures("private_cache")


def _toy_table(words=WORDS, dim=4, seed=0) -> EmbeddingTable:
    vecs = np.random.default_rng(seed).standard_normal((len(words), dim)).astype(np.float32)
    return EmbeddingTable(words, vecs, name="toy")


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# ---------------------------------------------------------------- word2vec / GloVe / fastText
def test_word2vec_with_header(tmp_path):
    path = _write(tmp_path / "w2v.txt", ["3 4",
                                         "king 0.1 0.2 0.3 0.4",
                                         "queen -1 -2 -3 -4",
                                         "apple 1e-3 2.5 0 7"])
    table = EmbeddingTable.from_word2vec(path)
    assert table.row_words == ["king", "queen", "apple"]
    assert table.dim == 4
    assert table.lookup_vectors.dtype == np.float32
    np.testing.assert_allclose(table.lookup_vectors[1], [-1, -2, -3, -4])
    np.testing.assert_allclose(table.lookup_vectors[2], [1e-3, 2.5, 0, 7], rtol=1e-6)
    assert table.name == "w2v"


def test_glove_without_header(tmp_path):
    path = _write(tmp_path / "glove.6B.3d.txt", ["the 0.5 0.25 -1",
                                                 "cat 1 2 3",
                                                 "dog 4 5 6"])
    table = EmbeddingTable.from_word2vec(path, name="glove")
    assert table.row_words == ["the", "cat", "dog"]  # the first line is a word, not a header
    assert table.dim == 3
    np.testing.assert_allclose(table.lookup_vectors[0], [0.5, 0.25, -1])
    assert table.name == "glove"


def test_fasttext_vec_style(tmp_path):
    """fastText .vec: header, then each line ends with a space before the newline."""
    path = tmp_path / "wiki.vec"
    path.write_text("2 3\nhello 0.1 0.2 0.3 \nworld -0.1 -0.2 -0.3 \n", encoding="utf-8")
    table = EmbeddingTable.from_word2vec(path)
    assert table.row_words == ["hello", "world"]
    np.testing.assert_allclose(table.lookup_vectors, [[0.1, 0.2, 0.3], [-0.1, -0.2, -0.3]],
                               rtol=1e-6)


def test_word_with_inner_space_is_kept(tmp_path):
    path = _write(tmp_path / "phrases.txt", ["2 2", "new york 1 2", "paris 3 4"])
    table = EmbeddingTable.from_word2vec(path)
    assert table.row_words == ["new york", "paris"]
    np.testing.assert_allclose(table.lookup_vectors[0], [1, 2])
    assert "new york" not in table.words  # not a single real word: never a candidate


def test_limit_reads_only_the_first_rows(tmp_path):
    path = _write(tmp_path / "w.txt", ["4 2", "a 1 1", "b 2 2", "c 3 3", "d 4 4"])
    assert EmbeddingTable.from_word2vec(path, limit=2).row_words == ["a", "b"]


def test_bad_line_names_the_entry(tmp_path):
    path = _write(tmp_path / "bad.txt", ["3 3", "one 1 2 3", "two 1 2", "three 1 2 3"])
    with pytest.raises(ValueError, match=r"entry 2\b") as info:
        EmbeddingTable.from_word2vec(path)
    assert "bad.txt" in str(info.value)
    assert "expected 3" in str(info.value)


def test_bad_line_without_header_names_the_entry(tmp_path):
    path = _write(tmp_path / "bad.txt", ["one 1 2 3", "two 1 2 3", "three 1 2 3", "four 9"])
    with pytest.raises(ValueError, match=r"entry 4\b"):
        EmbeddingTable.from_word2vec(path)


def test_non_numeric_value_names_the_entry(tmp_path):
    path = _write(tmp_path / "bad.txt", ["3 3", "one 1 2 3", "two 1 2 3", "three 1 abc 3"])
    with pytest.raises(ValueError, match=r"entry 3\b.*not a number") as info:
        EmbeddingTable.from_word2vec(path)
    assert "bad.txt" in str(info.value)


def test_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        EmbeddingTable.from_word2vec(tmp_path / "nope.vec")
    with pytest.raises(ValueError, match="does not exist"):
        EmbeddingTable.from_word2vec(tmp_path)  # a directory is not a table file


# ---------------------------------------------------------------- cache
def test_cache_dir_follows_env(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "elsewhere"))
    assert cache_dir() == tmp_path / "elsewhere"


def test_cache_is_written_and_used_on_second_load(tmp_path, monkeypatch):
    path = _write(tmp_path / "w.txt", ["2 3", "alpha 1 2 3", "beta 4 5 6"])
    first = EmbeddingTable.from_word2vec(path)
    cached = list((tmp_path / "cache").glob("w2v-*/vectors.npy"))
    assert len(cached) == 1
    assert not list((tmp_path / "cache").glob("w2v-*/*.tmp.npy"))

    def no_parse(*args, **kwargs):
        raise AssertionError("the text file was parsed again instead of using the cache")

    monkeypatch.setattr(tables_module, "_parse_word2vec", no_parse)
    second = EmbeddingTable.from_word2vec(path)
    assert second.row_words == first.row_words
    np.testing.assert_array_equal(second.lookup_vectors, first.lookup_vectors)
    assert second.fingerprint() == first.fingerprint()


def test_cache_false_neither_writes_nor_reads(tmp_path, monkeypatch):
    path = _write(tmp_path / "w.txt", ["2 3", "alpha 1 2 3", "beta 4 5 6"])
    EmbeddingTable.from_word2vec(path, cache=False)
    assert not (tmp_path / "cache").exists()
    EmbeddingTable.from_word2vec(path)  # now cached
    calls = []
    real = tables_module._parse_word2vec
    monkeypatch.setattr(tables_module, "_parse_word2vec",
                        lambda *a: calls.append(1) or real(*a))
    EmbeddingTable.from_word2vec(path, cache=False)
    assert calls == [1]


def test_cache_is_invalidated_when_the_file_changes(tmp_path):
    path = _write(tmp_path / "w.txt", ["2 3", "alpha 1 2 3", "beta 4 5 6"])
    EmbeddingTable.from_word2vec(path)
    _write(path, ["3 3", "alpha 1 2 3", "beta 4 5 6", "gamma 7 8 9.5"])
    table = EmbeddingTable.from_word2vec(path)
    assert table.row_words == ["alpha", "beta", "gamma"]
    np.testing.assert_allclose(table.lookup_vectors[2], [7, 8, 9.5])


def test_unwritable_cache_does_not_fail(tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("TEXTDP_CACHE", str(blocker))
    path = _write(tmp_path / "w.txt", ["1 2", "alpha 1 2"])
    assert EmbeddingTable.from_word2vec(path).row_words == ["alpha"]


# ---------------------------------------------------------------- constructor checks
def test_constructor_rejects_bad_shapes_and_values():
    with pytest.raises(ValueError, match="must match"):
        EmbeddingTable(["a", "b"], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2-D"):
        EmbeddingTable(["a"], np.zeros(3))
    with pytest.raises(ValueError, match="2-D"):
        EmbeddingTable([], np.zeros((0, 3)))
    with pytest.raises(ValueError, match="NaN or inf"):
        EmbeddingTable(["a", "b"], np.array([[0.0, np.nan], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="NaN or inf"):
        EmbeddingTable(["a", "b"], np.array([[0.0, np.inf], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="no candidate"):
        EmbeddingTable([",", "1990", "..."], np.eye(3))


# ---------------------------------------------------------------- lookup
def test_lookup_exact_lower_and_title_fallback():
    table = _toy_table()
    row = {w: i for i, w in reversed(list(enumerate(WORDS)))}
    got = table.lookup(["the", "The", "THE", "Paris", "paris", "PARIS", "Apple", "APPLE",
                        "berlin", "BERLIN", "zzz", "", "Café"])
    expected = [row["the"], row["The"], row["the"], row["Paris"], row["Paris"], row["Paris"],
                row["Apple"], row["apple"], row["Berlin"], row["BERLIN"], -1, -1, row["café"]]
    assert got.tolist() == expected
    assert got.dtype == np.int64


def test_lookup_extra_keys_map_to_rows_but_rows_win():
    vecs = np.eye(3, dtype=np.float32)
    table = EmbeddingTable(["cat", "dog", "bird"], vecs,
                           extra_keys={"kitty": 0, "dog": 2, "birdie": 2})
    assert table.lookup(["kitty", "dog", "birdie", "Kitty"]).tolist() == [0, 1, 2, 0]


def test_lookup_of_missing_words_is_minus_one():
    table = _toy_table()
    assert table.lookup(["Zqxvbnrtk", "qwertyuiop"]).tolist() == [-1, -1]
    assert table.lookup([]).shape == (0,)


# ---------------------------------------------------------------- candidates
def test_is_real_word():
    for w in ["the", "Paris", "well-known", "o'clock", "café", "Müller", "naïve"]:
        assert is_real_word(w), w
    for w in [",", "1990", "n't", "'s", "x2", "foo_bar", "...", "don't", "-", "a-", "-a", "",
              "new york", "##ing", "[CLS]", "<row3>", "a.b", "½", "²", "km²", "co₂", "Ⅻ"]:
        assert not is_real_word(w), w


def test_candidates_exclude_punctuation_digits_and_dedupe_casing():
    table = _toy_table()
    words = table.words
    for bad in [",", "1990", "n't", "'s", "...", "x2", "foo_bar", "don't"]:
        assert bad not in words
    lowered = [w.lower() for w in words]
    assert len(lowered) == len(set(lowered))  # one candidate per casing group
    # the lower-case spelling is preferred; words without one keep their own casing
    assert "the" in words and "The" not in words
    assert "apple" in words and "Apple" not in words
    assert "Paris" in words and "Berlin" in words and "BERLIN" not in words
    assert {"well-known", "o'clock", "café"} <= set(words)
    assert all(is_real_word(w) for w in words)


def test_pruned_keys_never_swap_a_candidate_for_another_word():
    """spaCy maps pruned keys to a kept row ("john" -> the row of "mr"); the lower-case swap
    must only pick the row trained for the lower-case spelling, not such a pruned key."""
    table = EmbeddingTable(["mr", "John", "The", "the"], np.eye(4), extra_keys={"john": 0})
    assert table.words == ["mr", "John", "the"]
    assert table.lookup(["john"]).tolist() == [0]  # lookup still uses the pruned key


def test_candidate_vectors_are_the_candidate_rows():
    table = _toy_table()
    np.testing.assert_array_equal(table.vectors, table.lookup_vectors[table.candidate_rows])
    assert [table.row_words[r] for r in table.candidate_rows] == table.words
    assert len(table) == len(table.words)
    cor = table.candidate_of_row()
    assert cor.shape == (len(WORDS),)
    for cand, row in enumerate(table.candidate_rows):
        assert cor[row] == cand
    assert (cor >= 0).sum() == len(table)


def test_explicit_candidate_rows():
    table = EmbeddingTable(["a", "b", "c"], np.eye(3), candidate_rows=np.array([2, 0]))
    assert table.words == ["c", "a"]


def test_fingerprint_is_stable_and_content_sensitive():
    assert _toy_table().fingerprint() == _toy_table().fingerprint()
    assert _toy_table().fingerprint() != _toy_table(seed=1).fingerprint()


def test_repr_has_no_vectors():
    r = repr(_toy_table())
    assert "toy" in r and "dim=4" in r and len(r) < 100


# ---------------------------------------------------------------- the embedded spaCy table
def test_default_table_from_spacy_vectors(default_table):
    table = default_table
    assert table.dim == 300
    assert table.vectors.shape == (len(table), 300)
    assert table.vectors.dtype == np.float32
    assert 12_000 <= len(table) <= 16_000  # ~14k real words out of 20k rows
    assert all(is_real_word(w) for w in table.words)
    assert all(c.isalpha() or c in "-'" for w in table.words for c in w)  # no "½"
    lowered = [w.lower() for w in table.words]
    assert len(set(lowered)) == len(lowered)
    assert not any(w.startswith("<row") for w in table.words)
    assert np.isfinite(table.vectors).all()
    # ordinary words and names are in the lookup; punctuation has rows but is no candidate
    rows = table.lookup(["the", "John", "Berlin", "JOHN", ","])
    assert (rows >= 0).all()
    assert "," not in table.words and "the" in table.words
    # frequent names are candidates (not swapped away through spaCy's pruned lower-case keys)
    for name in ("John", "David", "Mary", "June", "America"):
        assert name in table.words or name.lower() in table.words, name
    assert table.lookup(["Zqxvbnrtk"]).tolist() == [-1]


def test_from_spacy_vectors_rejects_a_vocab_without_vectors():
    spacy = pytest.importorskip("spacy")
    with pytest.raises(ValueError, match="no vectors"):
        EmbeddingTable.from_spacy_vectors(spacy.blank("en").vocab)


# ---------------------------------------------------------------- the embedded transformer
@pytest.fixture(scope="module")
def transformer_table():
    from textdp.defaults import transformer_path

    return EmbeddingTable.from_transformer(transformer_path())


SPECIAL = re.compile(r"^\[.+\]$")


def test_from_transformer_whole_words_only(transformer_table):
    table = transformer_table
    assert table.dim == 384
    assert 15_000 <= len(table) <= 30_000
    assert not any(w.startswith("##") for w in table.row_words)
    assert not any(SPECIAL.match(w) for w in table.row_words)  # [CLS], [SEP], [unused0], ...
    for special in ("[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]", "[unused0]"):
        assert special not in table.key_to_row
    assert all(is_real_word(w) for w in table.words)
    assert all(c.isalpha() or c in "-'" for w in table.words for c in w)  # no "²", "km²"
    assert (table.lookup(["paris", "Paris", "the"]) >= 0).all()  # uncased model


def test_from_transformer_word_pieces_are_lookup_keys_only(transformer_table):
    from textdp.defaults import transformer_path

    pieces = EmbeddingTable.from_transformer(transformer_path(), word_pieces=True)
    assert any(w.startswith("##") for w in pieces.key_to_row)
    assert not any(w.startswith("##") for w in pieces.words)
    assert not any(SPECIAL.match(w) for w in pieces.row_words)
    assert pieces.words == transformer_table.words
    np.testing.assert_array_equal(pieces.vectors, transformer_table.vectors)


def test_cache_dir_honours_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.delenv("TEXTDP_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "textdp"
    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "own"))
    assert cache_dir() == tmp_path / "own"


def test_spacy_tables_find_pruned_keys_by_their_hash():
    """The default table reads spaCy's 494,157 pruned keys as hashes (HashedKeys): every
    key finds the row the vocab points it at, the row words win, and unknown words miss."""
    from textdp.defaults import default_table, load_pipeline
    from textdp.tables import HashedKeys, RowKeys

    vocab = load_pipeline().vocab
    table = default_table()
    keys = table.key_to_row
    assert isinstance(keys, RowKeys) and isinstance(keys.hashed, HashedKeys)
    assert len(keys) >= len(vocab.vectors.key2row)
    for word in ("delgado", "Delgado", "notified", "the", "walker"):
        assert keys.get(word) == vocab.vectors.key2row[vocab.strings[word]], word
        assert word in keys and keys[word] == keys.get(word)
    assert keys.get("xqzvw-not-a-word") is None and "xqzvw-not-a-word" not in keys
    with pytest.raises(KeyError):
        keys["xqzvw-not-a-word"]
    assert table.lookup(["DELGADO", "Notified"]).tolist() == [
        vocab.vectors.key2row[vocab.strings[w]] for w in ("DELGADO", "Notified")]
    assert set(keys) == set(keys.keys)  # only string keys are listed


def test_hashed_lookups_are_remembered_within_a_bound():
    from textdp.tables import HashedKeys, RowKeys

    class Counting(HashedKeys):
        calls = 0

        def get(self, word, default=None):
            Counting.calls += 1
            return super().get(word, default)

    keys = RowKeys({"the": 0}, Counting({101: 1, 202: 2}))
    keys.MEMO_SIZE = 2
    for word in ("a", "a", "b", "c", "a"):
        assert keys.get(word) is None
    assert keys.get("the") == 0
    assert Counting.calls == 4  # "a" twice from the memo, then again after it was emptied
    assert len(keys._memo) <= 2
