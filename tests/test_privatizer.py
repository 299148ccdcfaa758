"""textdp.privatizer.Privatizer on the embedded defaults (spaCy md vectors + NER).

Loading the defaults costs seconds, so the privatizers are module fixtures; the table, the
pipeline and the neighbour index are cached per process and shared by every privatizer here.
"""

from __future__ import annotations

import logging
import pickle
import re

import pytest
from scipy import stats

import textdp.defaults as defaults_module
from textdp.defaults import DEFAULT_EPSILON
from textdp.pipeline.chunking import CHUNK_CHARS, OVERLAP_CHARS
from textdp.privatizer import PrivatizedText, Privatizer, is_word
from textdp.report import Report
from textdp.surface import surface_form

MERKEL = "Angela Merkel met John Smith in Berlin on Tuesday."
# Replacement words are public candidates: letters, optionally joined by - or '.
WORD = r"[^\W\d_]+(?:-[^\W\d_]+|'[^\W\d_]{2,})*"
CANARY = "Quillonbrae Vexmorrow"


def is_public_word(word: str) -> bool:
    """A candidate after surface form: letters (any case), joined by - or ' only."""
    return bool(re.fullmatch(WORD, word)) and all(c.isalpha() or c in "-'" for c in word)
  # invented: in no table, so any leak is ours

_FIRST_NAMES = """James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David
Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy
Matthew Betty Anthony Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew Donna
Joshua Michelle Kenneth Carol Kevin Amanda Brian Dorothy George Melissa Timothy Deborah Ronald
Stephanie Edward Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary Amy Nicholas
Angela Eric Shirley Jonathan Anna Stephen Brenda Larry Pamela Justin Emma Scott Nicole Brandon
Helen Benjamin Samantha Samuel Katherine Gregory Christine Alexander Frank Rachel Patrick Carolyn
Raymond Janet Jack Catherine Dennis Maria Jerry Heather Tyler Diane Aaron Ruth Jose Julie Adam
Olivia Nathan Joyce Henry Virginia Douglas Victoria Kelly Peter Lauren Kyle Christina Ethan Joan
Walter Evelyn Noah Judith Jeremy Megan Keith Cheryl Roger Hannah Terry Gerald Martha Harold
Gloria Sean Teresa Austin Ann Carl Sara Arthur Lawrence Frances Dylan Jesse Janice Jordan Jean
Bryan Billy Alice Joe Judy Bruce Sophia Gabriel Grace Logan Albert Amber Willie Doris Alan Juan
Wayne Elijah Randy Roy Diana Vincent Natalie Ralph Eugene Charlotte Russell Marie Bobby Philip
Louis"""
_SURNAMES = """Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez
Lopez Gonzalez Wilson Anderson Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez
Clark Lewis Robinson Walker Young Allen King Wright Torres Hill Flores Green Adams Nelson Baker
Hall Rivera Campbell Mitchell Carter Roberts Obama Trump Clinton Bush Putin Blair Thatcher Reagan
Lincoln Kennedy Churchill Einstein Newton Darwin Shakespeare Mozart Beethoven"""
FIRST_NAMES, SURNAMES = _FIRST_NAMES.split(), _SURNAMES.split()


@pytest.fixture(scope="module")
def names_privatizer():
    """The defaults: PERSON targets via the embedded NER, mlaplace at the default ε."""
    return Privatizer(seed=0)


@pytest.fixture(scope="module")
def all_privatizer():
    return Privatizer(seed=1, targets="all")


def shape_pattern(text: str, nlp) -> re.Pattern[str]:
    """A regex the output must match: each word token → a public word (captured), every other
    token and all whitespace exactly as in the input."""
    parts = []
    for tok in nlp.tokenizer(text):
        parts.append(f"({WORD})" if is_word(tok.text) else re.escape(tok.text))
        parts.append(re.escape(tok.whitespace_))
    return re.compile("".join(parts))


def word_tokens(text: str, nlp) -> list[str]:
    return [t.text for t in nlp.tokenizer(text) if is_word(t.text)]


# ================================================================= names
def test_merkel_sentence_targets_the_four_names_only(names_privatizer):
    out = names_privatizer(MERKEL)
    before, after = MERKEL.split(" "), out.text.split(" ")
    assert len(after) == len(before)
    for i in (0, 1, 3, 4):  # Angela Merkel, John Smith: detected and sent through the mechanism
        assert is_public_word(after[i]), after[i]
        assert after[i][0].isupper()  # Title → Title
    for i in (0, 1, 4):  # P(unchanged) for these is ~0 (see the test below for John)
        assert after[i] != before[i]
    for i in (2, 5, 6, 7, 8):
        assert after[i] == before[i]
    assert out.text.endswith(" on Tuesday.")
    assert out.report.tokens_replaced == 4
    assert out.report.epsilon == DEFAULT_EPSILON
    assert out.report.epsilon_total == pytest.approx(4 * DEFAULT_EPSILON)
    assert out.report.delta_total == 0.0
    assert out.report.mechanism == "mlaplace"
    assert out.original is None


def _merkel_names(docs):
    return [[(0, 2, "PERSON"), (3, 5, "PERSON")] for _ in docs]


@pytest.fixture(scope="module")
def merkel_draws():
    """2000 draws of the sentence with the names marked (NER itself is tested above)."""
    p = Privatizer(seed=8, detector=_merkel_names)
    return [r.text.split(" ") for r in p.privatize([MERKEL] * 2000)]


# Position 3 is "John": its vector is long (norm 75 vs median 41) and, before the Privatizer
# clipped vectors to the median norm, it survived ~13 % of draws at ε = 0.5.
@pytest.mark.parametrize("position", [0, 1, 3, 4])
def test_merkel_each_name_is_replaced_in_almost_every_draw(merkel_draws, position):
    """P(unchanged) < 1 % per name token: one-sided binomial test rejecting p ≥ 0.01."""
    original = MERKEL.split(" ")[position]
    unchanged = sum(words[position] == original for words in merkel_draws)
    assert stats.binomtest(unchanged, len(merkel_draws), 0.01, alternative="less").pvalue < 1e-3
    assert all(words[2] == "met" and words[5:] == ["in", "Berlin", "on", "Tuesday."]
               for words in merkel_draws)


def test_text_without_names_is_unchanged(names_privatizer):
    text = "The weather in the valley was calm, and 42 boats left at noon.\n"
    out = names_privatizer(text)
    assert out.text == text
    assert out.report.tokens_replaced == 0 and out.report.epsilon_total == 0


def test_default_epsilon_is_used():
    assert Privatizer().epsilon == DEFAULT_EPSILON


def test_names_rarely_survive_at_the_default_epsilon(all_privatizer):
    """P(unchanged) < 1 % over ~200 person names that own a row of the table: one-sided
    binomial test of H0: p ≥ 0.01, rejected at 0.001."""
    p = all_privatizer
    assert p.epsilon == DEFAULT_EPSILON
    candidates = list(dict.fromkeys(FIRST_NAMES + SURNAMES))
    rows = p.table.lookup(candidates)
    names = [n for n, r in zip(candidates, rows) if r >= 0][:200]
    assert len(names) >= 180
    draws = 30
    results = p.privatize([n for n in names for _ in range(draws)])
    unchanged = sum(r.text == names[i // draws] for i, r in enumerate(results))
    n = len(results)
    assert stats.binomtest(unchanged, n, 0.01, alternative="less").pvalue < 1e-3, unchanged / n
    assert all(r.report.tokens_replaced == 1 for r in results)


# ================================================================= targets="all"
def test_all_targets_replace_words_and_keep_everything_else(all_privatizer, nlp):
    text = ("Hello, world! In 2024 the price was 3.50 dollars...\n\tOK?  Yes (really) -- "
            "50% off; 12:30 pm.  ")
    out = all_privatizer(text)
    match = shape_pattern(text, nlp).fullmatch(out.text)
    assert match, out.text
    originals = word_tokens(text, nlp)
    assert out.report.tokens_replaced == len(originals) == len(match.groups())
    assert all(is_public_word(g) for g in match.groups())
    unchanged = sum(a == b for a, b in zip(match.groups(), originals))
    assert unchanged <= len(originals) // 4
    for kept in ("2024", "3.50", "...\n\t", "?  ", "--", "50% ", "12:30"):
        assert kept in out.text


@pytest.mark.parametrize("text", [
    "  leading spaces",
    "trailing spaces and newline  \n",
    "\n\nJohn\n\n",
    "tabs\tbetween\twords\t",
    "one",
    "mixed   multiple    spaces, and\r\nwindows lines.",
    "émigré café naïveté — über",
])
def test_token_count_and_whitespace_preserved(all_privatizer, nlp, text):
    out = all_privatizer(text)
    match = shape_pattern(text, nlp).fullmatch(out.text)
    assert match, out.text
    assert all(is_public_word(g) for g in match.groups())
    assert out.report.tokens_replaced == len(word_tokens(text, nlp))
    assert out.text.split() and len(out.text.split()) == len(text.split())


def test_casing_rule_end_to_end(all_privatizer, nlp):
    text = "JOHN and Mary met GEORGE in Paris"
    outs = all_privatizer.privatize([text] * 20)
    for out in outs:
        groups = shape_pattern(text, nlp).fullmatch(out.text).groups()
        assert groups[0].isupper() and groups[4].isupper()  # UPPER → UPPER
        assert groups[2][0].isupper() and groups[6][0].isupper()  # Title → Title


def test_surface_form():
    assert surface_form("paris", "London") == "Paris"
    assert surface_form("paris", "LONDON") == "PARIS"
    assert surface_form("paris", "london") == "paris"
    assert surface_form("iPhone", "Apple") == "IPhone"
    assert surface_form("paris", "I") == "Paris"  # one capital letter is Title, not UPPER
    assert surface_form("well-known", "NASA") == "WELL-KNOWN"
    assert surface_form("McDonald", "mcdonald") == "mcdonald"  # lower → lower
    assert surface_form("NASA", "mike") == "nasa"
    assert surface_form("Paris", "iPhone") == "Paris"  # another pattern: as the table has it
    # a word shaped like an initial, not a name's, becomes a whole word in Title case
    assert surface_form("paris", "V.") == "Paris" and surface_form("Paris", "U.S.") == "Paris"


@pytest.mark.parametrize("original, written", [
    ("@jessie_k", "@vivian"), ("@BigMike99", "@Vivian"), ("(@JOHN)", "(@VIVIAN)"),
    # dots and hyphens inside a handle, a full stop after it
    ("@ashwin.dev", "@vivian"), ("@maria-g.", "@vivian."),
    (".@john", ".@vivian"), ("@@john", "@@vivian"),
    ("mary.johnson@acme.com", "vivian@example.com"),
    ("<J.Smith@uni.ac.uk>", "<Vivian@example.com>"),
    # not a handle or an address as a whole token: a word
    ("x@y", "vivian"), ("@", "Vivian"), ("mailto:a@b.com", "vivian"), ("RT:@john", "Vivian"),
])
def test_surface_form_keeps_handles_and_addresses(original, written):
    assert surface_form("Vivian", original) == written


def test_handles_and_addresses_keep_their_form_where_the_report_says_so():
    """A tweet keeps its @ and a header its address shape, with a domain that is always
    example.com; surface="table" writes the bare word and drops the form condition."""
    text = "RT @jessie_k: ask mary.johnson@acme.com"
    out = Privatizer(seed=2)(text)
    words = out.text.split(" ")
    assert words[0] == "RT" and words[1].startswith("@") and words[1].endswith(":")
    assert words[1] != "@jessie_k:" and words[3].endswith("@example.com")
    assert words[3] != "mary.johnson@example.com" and "acme" not in out.text
    assert "form (a word, or an @handle, e-mail address or profile URL" in \
        out.report.holds_between
    bare = Privatizer(seed=2, surface="table")(text)
    assert "@" not in bare.text and "form" not in bare.report.holds_between


def test_casing_is_released_only_where_the_report_says_so():
    """"births" and "BIRTHS" are one table row (distance 0), yet copying the casing told them
    apart in every draw: the default states the casing-class condition, and
    surface="table" releases the same output for both."""
    def draws(word, **options):
        p = Privatizer(seed=4, targets="all", epsilon=0.5, **options)
        return [r.text for r in p.privatize([word] * 300)]

    upper = draws("BIRTHS")
    lower = draws("births")  # same seed, same row: the draws differ only by the casing
    assert all(t.isupper() for t in upper) and sum(t.isupper() for t in lower) < 30
    assert "casing class" in Privatizer(targets="all")("births").report.holds_between
    public = Privatizer(targets="all", surface="table")
    assert draws("births", surface="table") == draws("BIRTHS", surface="table")
    assert "casing" not in public("BIRTHS").report.holds_between
    assert public.describe()["surface"] == "table"
    with pytest.raises(ValueError, match="surface"):
        Privatizer(surface="lower")


def test_is_word():
    for w in ["a", "John", "e-mail", "x2", "don't", "café"]:
        assert is_word(w)
    for w in ["", " ", "\n", ",", "...", "2024", "3.50", "%", "--", "12:30"]:
        assert not is_word(w)


def test_repeated_words_get_independent_draws(all_privatizer):
    out = all_privatizer("Smith " * 60)
    assert len(set(out.text.split())) > 10
    assert out.report.tokens_replaced == 60


# ================================================================= out-of-vocabulary targets
def test_oov_target_is_never_published_unchanged(all_privatizer):
    word = "Zqxvbnrtk"
    assert all_privatizer.table.lookup([word]).tolist() == [-1]
    results = all_privatizer.privatize([word] * 10_000)
    assert len(results) == 10_000
    assert not any(word.lower() in r.text.lower() for r in results)
    assert all(is_public_word(r.text) and r.text[0].isupper() for r in results)
    assert all(r.report.tokens_replaced == 1 for r in results)
    assert len({r.text for r in results}) > 100  # a real draw, not one fixed stand-in


def _first_token_is_a_person(docs):
    return [[(0, 1, "PERSON")] if len(doc) else [] for doc in docs]


def test_oov_person_draw_does_not_depend_on_the_word():
    """Rule 2: an OOV target is replaced by a draw from a public fallback, so two different
    OOV names with the same seed give exactly the same outputs."""
    a = Privatizer(seed=5, detector=_first_token_is_a_person)
    b = Privatizer(seed=5, detector=_first_token_is_a_person)
    out_a = [r.text for r in a.privatize(["Zqxvbnrtk left."] * 2000)]
    out_b = [r.text for r in b.privatize(["Wubblefrang left."] * 2000)]
    assert out_a == out_b
    assert not any("Zqxvbnrtk" in t for t in out_a)
    assert all(t.endswith(" left.") for t in out_a)


# ================================================================= reports
def test_report_fields(all_privatizer, nlp):
    text = "Alice paid Bob 20 dollars."
    out = all_privatizer(text)
    rep = out.report
    assert isinstance(rep, Report)
    assert rep.tokens_replaced == len(word_tokens(text, nlp)) == 4
    assert rep.epsilon == all_privatizer.epsilon
    assert rep.epsilon_total == pytest.approx(rep.tokens_replaced * rep.epsilon)
    assert rep.delta == 0.0 and rep.delta_total == 0.0
    assert rep.representation == "static"
    d = rep.to_dict()
    assert d["tokens_replaced"] == 4 and d["mechanism"] == "mlaplace"


def test_report_reads_epsilon_at_the_distances_of_the_space(names_privatizer):
    """ε is a rate per unit of distance: the report puts the typical name distance and the
    diameter of the clipped table beside it, and every guarantee names what it holds
    between (detection is released without noise)."""
    rep = names_privatizer("Angela Merkel met John Smith.").report
    radius = names_privatizer.space.radius
    assert rep.diameter == pytest.approx(2 * radius)
    assert 0.3 * rep.diameter < rep.name_distance < rep.diameter
    assert rep.epsilon_at_name_distance == pytest.approx(rep.epsilon * rep.name_distance)
    assert rep.epsilon_at_diameter == pytest.approx(rep.epsilon * rep.diameter)
    assert "detection outcome" in rep.holds_between and rep.scope == "token"
    gauss = Privatizer(mechanism="gaussian", epsilon=1.0, targets="all")("word").report
    assert gauss.name_distance is None and gauss.epsilon_at_diameter is None


def test_report_of_an_approximate_mechanism_composes_delta(nlp):
    p = Privatizer(seed=2, targets="all", mechanism={"name": "gaussian", "delta": 1e-5},
                   epsilon=1.0)
    text = "three small words and two more"
    rep = p(text).report
    assert rep.mechanism == "gaussian"
    assert rep.tokens_replaced == 6
    assert rep.epsilon_total == pytest.approx(6.0)
    assert rep.delta == 1e-5 and rep.delta_total == pytest.approx(6e-5)


@pytest.mark.parametrize("text", ["", " ", "   \n\t  \r\n", "\n"])
def test_empty_and_whitespace_only_texts_returned_as_is(all_privatizer, text):
    outs = all_privatizer.privatize([text, "word", text])
    assert outs[0].text == text and outs[2].text == text
    for o in (outs[0], outs[2]):
        assert o.report.tokens_replaced == 0 and o.report.epsilon_total == 0
    assert outs[1].report.tokens_replaced == 1


def test_empty_input_list(all_privatizer):
    assert all_privatizer.privatize([]) == []


def test_missing_texts_pass_through_as_none_and_cost_nothing(all_privatizer):
    """DESIGN's missing-value rule: ``None`` stays ``None`` in its place, drawing nothing."""
    outs = all_privatizer.privatize([None, "Some words here.", None])
    assert outs[0] is None and outs[2] is None
    assert outs[1].report.tokens_replaced == 3
    assert list(all_privatizer.privatize_iter(iter([None]))) == [None]


@pytest.mark.parametrize("bad, row", [([3], 0), (["fine", 3], 1), (["a", "b", b"c"], 2),
                                      (["a", ["b"]], 1)])
def test_non_string_rows_raise_naming_the_row(all_privatizer, bad, row):
    texts = [CANARY if isinstance(t, str) else t for t in bad]
    with pytest.raises(ValueError, match=rf"\brow {row}\b") as info:
        all_privatizer.privatize(texts)
    assert CANARY not in str(info.value)


def test_order_is_kept_across_batches():
    p = Privatizer(seed=3, targets="all", batch_size=3)
    texts = [f"{i}: some words here" if i % 4 else "" for i in range(20)]
    outs = p.privatize(iter(texts))  # any iterable
    assert len(outs) == 20
    for i, (t, o) in enumerate(zip(texts, outs)):
        if t:
            assert o.text.startswith(f"{i}: ") and o.report.tokens_replaced == 3
        else:
            assert o.text == "" and o.report.tokens_replaced == 0


# ================================================================= long texts
def test_two_megabyte_text():
    block = "0123456789 " * 900 + "Smith\n"
    n_blocks = 2_000_000 // len(block) + 1
    text = block * n_blocks
    assert len(text) > 2_000_000
    seen_lengths = []

    def smith_detector(docs):
        out = []
        for doc in docs:
            seen_lengths.append(len(doc.text))
            out.append([(t.i, t.i + 1, "PERSON") for t in doc if t.text == "Smith"])
        return out

    p = Privatizer(seed=4, detector=smith_detector)
    out = p(text)
    assert max(seen_lengths) <= CHUNK_CHARS + 2 * OVERLAP_CHARS
    assert len(seen_lengths) >= len(text) // CHUNK_CHARS
    assert out.report.tokens_replaced == n_blocks
    lines = out.text.split("\n")
    assert lines[-1] == "" and len(lines) == n_blocks + 1
    prefix = "0123456789 " * 900
    assert all(line.startswith(prefix) for line in lines[:-1])
    replaced = [line[len(prefix):] for line in lines[:-1]]
    assert all(is_public_word(w) and w[0].isupper() for w in replaced)
    assert sum(w == "Smith" for w in replaced) < n_blocks // 10
    assert abs(len(out.text) - len(text)) < 20 * n_blocks


# ================================================================= reproducibility
def test_seed_reproducibility():
    texts = ["Alice met Bob near the old mill.", "Numbers 1 2 3 stay; words move."]
    a = [r.text for r in Privatizer(seed=42, targets="all").privatize(texts)]
    b = [r.text for r in Privatizer(seed=42, targets="all").privatize(texts)]
    c = [r.text for r in Privatizer(seed=43, targets="all").privatize(texts)]
    assert a == b
    assert a != c


def test_unseeded_runs_differ():
    text = "Alice met Bob near the old mill and the river"
    assert Privatizer(targets="all")(text).text != Privatizer(targets="all")(text).text


def test_secure_mode_works(nlp):
    p = Privatizer(secure=True, targets="all")
    text = "secure mode still replaces words"
    outs = p.privatize([text, text])
    assert all(shape_pattern(text, nlp).fullmatch(o.text) for o in outs)
    assert outs[0].report.tokens_replaced == 5


# ================================================================= pickling
def test_pickle_excludes_the_table_and_is_small(names_privatizer):
    names_privatizer(MERKEL)  # make sure everything is loaded
    assert names_privatizer._table is not None
    data = pickle.dumps(names_privatizer)
    assert len(data) < 100_000, len(data)
    clone = pickle.loads(data)
    assert clone._table is None and not clone.loaded
    out = clone(MERKEL)
    assert out.report.tokens_replaced == 4 and out.text.endswith(" in Berlin on Tuesday.")


def test_unpickled_privatizer_restarts_from_its_seed():
    text = "Alice met Bob near the old mill."
    used = Privatizer(seed=11, targets="all")
    first = used(text).text
    used(text)
    clone = pickle.loads(pickle.dumps(used))
    assert clone(text).text == first
    assert len(pickle.dumps(used)) < 100_000
    # configuration only: a used privatizer pickles exactly like a fresh one (stable
    # fingerprints for datasets.map caching)
    assert pickle.dumps(used) == pickle.dumps(Privatizer(seed=11, targets="all"))


# ================================================================= never leak the text
def test_reprs_never_contain_the_text(names_privatizer):
    text = f"{CANARY} met {CANARY} in Berlin."
    out = names_privatizer(text)
    for shown in (repr(names_privatizer), repr(out), str(out), repr(out.report),
                  str(out.report.to_dict()), str(names_privatizer.describe())):
        assert "Quillonbrae" not in shown and "Vexmorrow" not in shown
    assert isinstance(out, PrivatizedText)
    assert "chars=" in repr(out) and "tokens_replaced=" in repr(out)


def test_keep_original():
    text = f"{CANARY} bought bread."
    kept = Privatizer(seed=6, targets="all", keep_original=True)(text)
    assert kept.original == text
    assert "Quillonbrae" not in kept.text
    assert "Quillonbrae" not in repr(kept)  # even when kept, never shown in reprs
    dropped = Privatizer(seed=6, targets="all")(text)
    assert dropped.original is None
    assert dropped.text == kept.text  # keeping the original changes nothing else


def test_no_text_in_logs_or_output(names_privatizer, all_privatizer, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    texts = [f"{CANARY} met John Smith.", f"Dear {CANARY},\nthanks!"]
    names_privatizer.privatize(texts)
    all_privatizer.privatize(texts)
    Privatizer(seed=9, targets="all", batch_size=1).privatize(texts)
    captured = capsys.readouterr()
    for blob in (caplog.text, captured.out, captured.err):
        assert "Quillonbrae" not in blob and "Vexmorrow" not in blob


# ================================================================= validation at construction
@pytest.mark.parametrize("kwargs, name", [
    (dict(epsilon=0), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"),
    (dict(epsilon=float("nan")), "epsilon"),
    (dict(epsilon=float("inf")), "epsilon"),
    (dict(epsilon=True), "epsilon"),
    (dict(mechanism="laplacian"), "mechanism"),
    (dict(mechanism={"name": "mahalanobis", "lam": 3}), "lam"),
    (dict(mechanism=42), "mechanism"),
    (dict(targets=[]), "targets"),
    (dict(targets=[""]), "targets"),
    (dict(targets=[1]), "targets"),
    (dict(targets=5), "targets"),
    (dict(targets=""), "targets"),
    (dict(table="/nonexistent/vectors.vec"), "table"),
    (dict(table=3.5), "table"),
    (dict(index="annoy"), "index"),
    (dict(device="quantum"), "device"),
    (dict(batch_size=0), "batch_size"),
    (dict(representation="dynamic"), "representation"),
    (dict(seed=-3), "seed"),
    (dict(seed=1, secure=True), "seed"),
    (dict(detector=5), "detector"),
])
def test_bad_configuration_raises_before_any_text_is_read(kwargs, name, monkeypatch):
    def no_loading(*args, **kw):
        raise AssertionError("a model or table was loaded before the parameters were checked")

    monkeypatch.setattr(defaults_module, "load_pipeline", no_loading)
    monkeypatch.setattr(defaults_module, "default_table", no_loading)
    with pytest.raises(ValueError, match=name):
        Privatizer(**kwargs)


def test_construction_loads_nothing(monkeypatch):
    def no_loading(*args, **kw):
        raise AssertionError("construction must be lazy")

    monkeypatch.setattr(defaults_module, "load_pipeline", no_loading)
    monkeypatch.setattr(defaults_module, "default_table", no_loading)
    p = Privatizer(epsilon=2.0, mechanism="vickrey", targets="PER,ORG")
    assert p.targets == ("PERSON", "ORG")
    assert p.describe()["mechanism"] == "vickrey"


def test_missing_table_file_error_names_the_path(tmp_path):
    missing = tmp_path / "glove.vec"
    with pytest.raises(ValueError, match=r"glove\.vec"):
        Privatizer(table=str(missing))


def test_word2vec_table_file_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "cache"))
    vec = tmp_path / "tiny.vec"
    vec.write_text("3 2\nalpha 0 0\nbravo 100 0\ncharlie 0 100\n", encoding="utf-8")
    p = Privatizer(seed=0, targets="all", table=str(vec), epsilon=50.0, index="exact")
    out = p("alpha bravo charlie delta")
    words = out.text.split()
    assert words[:3] == ["alpha", "bravo", "charlie"]  # large ε on a spread-out table
    assert words[3] in ("alpha", "bravo", "charlie")  # OOV: a public word, never "delta"
    assert out.report.tokens_replaced == 4


@pytest.mark.parametrize("bare", ["Angela Merkel met John Smith.", b"Angela Merkel"])
def test_a_bare_string_is_refused_not_iterated(all_privatizer, bare):
    # Iterated, the string would come back as its own characters: the original text.
    with pytest.raises(TypeError, match="one string") as info:
        all_privatizer.privatize(bare)
    assert "Merkel" not in str(info.value) and "Merkel" not in repr(info.value)
    assert "Merkel" not in all_privatizer("Angela Merkel met John Smith.").text


# ================================================================= spaCy's string store
def test_names_do_not_stay_in_the_pipelines_string_store(nlp):
    """The tokenizer and detectors add every token to the vocabulary's string store, which
    nlp.to_disk()/to_bytes() write out; the privatizer's batches run in a memory zone."""
    names = ["Zorbinthal", "Quexaprane"]  # used by no other test (tests share the pipeline)
    p = Privatizer(seed=0, nlp=nlp, detector=lambda docs: [[(1, 3, "PERSON")] for _ in docs])
    out = p.privatize([f"Yesterday {names[0]} {names[1]} met the press."] * 3)
    assert all(n not in r.text for r in out for n in names)
    for name in names:
        assert name not in nlp.vocab.strings
    assert not any(n in str(nlp.vocab.strings.to_bytes()) for n in names)
    again = p("Yesterday Zorbinthal Quexaprane waved.").text  # the pipeline still works
    assert again.startswith("Yesterday ") and again.endswith(" waved.")


def test_pii_values_leave_nothing_in_the_pipelines_vectors(nlp):
    """Merging the tokens of a multi-token value ("555 123 4567") must not store its vector:
    spaCy's retokenizer would put the value's hash in the shared vectors table (saved by
    nlp.to_disk, and a phone number's hash is found by trying every number) and grow the
    table with every value."""
    from spacy.strings import hash_string

    vectors = nlp.vocab.vectors
    shape, keys = vectors.shape, len(vectors.key2row)
    p = Privatizer(seed=0, nlp=nlp, targets=["PERSON", "PHONE", "CREDIT_CARD"])
    values = [f"555 123 {4100 + i:04d}" for i in range(20)] + ["4111 1111 1111 1111"]
    out = p.privatize([f"Call {v} now." for v in values])
    assert all(v not in r.text for r, v in zip(out, values))
    assert all(r.text.startswith("Call ") and r.text.endswith(" now.") for r in out)
    assert out[0].report.tokens_replaced == 1  # the value is one target
    assert (vectors.shape, len(vectors.key2row)) == (shape, keys)
    assert not any(hash_string(v) in vectors.key2row or v in nlp.vocab.strings
                   for v in values)


def test_one_privatizer_shared_by_eight_threads():
    """Issue 37: threads sharing a privatizer failed (KeyError E018, a freed string) and
    replaced non-name words. Keyed pseudonyms (``consistency="dataset"``) do not depend on
    the order of batches, so each thread's outputs must be the single-threaded ones."""
    import threading

    privatizer = Privatizer(seed=3, consistency="dataset")  # set up by the threads' calls
    texts = [f"Hello John Smith and Mary Jones, said Karen Whitfield. Room {i} is in Paris."
             for i in range(6)]
    errors: list[BaseException] = []
    outputs: dict[int, list[str]] = {}

    def work(k: int) -> None:
        try:
            outputs[k] = [privatizer(t).text for t in texts]
        except BaseException as error:  # reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors
    expected = [r.text for r in Privatizer(seed=3, consistency="dataset").privatize(texts)]
    assert outputs == {k: expected for k in range(8)}


# ---------------------------------------------------------------- issue 37: misuse refused
def test_exclude_of_the_wrong_type_names_the_parameter():
    with pytest.raises(ValueError, match="exclude must be"):
        Privatizer(exclude=123)


def test_a_mapping_is_not_a_list_of_texts():
    """privatize({"a": 1}) privatized the dict's keys."""
    with pytest.raises(TypeError, match="mapping"):
        Privatizer().privatize({"a": 1})
    with pytest.raises(TypeError, match="mapping"):
        list(Privatizer().privatize_iter({"John Smith": "x"}))


def test_scopes_must_be_one_per_text():
    """scopes="ab" was split into the scopes "a" and "b"."""
    privatizer = Privatizer(consistency="dataset", seed=1)
    with pytest.raises(TypeError, match="scopes must be an iterable"):
        privatizer.privatize(["x", "y"], scopes="ab")


def test_scopes_without_dataset_consistency_are_refused():
    """They were silently ignored."""
    with pytest.raises(ValueError, match="consistency='dataset'"):
        Privatizer().privatize(["x"], scopes=["case-1"])


def test_a_detector_with_every_word_a_target_is_refused():
    """It was silently ignored."""
    with pytest.raises(ValueError, match="detector"):
        Privatizer(targets="all", detector="spacy")


def test_missing_texts_of_a_pandas_series_pass_through(names_privatizer):
    """README: missing texts pass through; NaN (how a pandas Series holds one) was refused."""
    pd = pytest.importorskip("pandas")
    texts = pd.Series(["the weather is nice", float("nan"), None, pd.NA])
    out = names_privatizer.privatize(texts)
    assert out[0].text == "the weather is nice" and out[1:] == [None, None, None]
