"""textdp.evaluate.utility: metrics on known cases, readers, the command on a tiny fake data
folder written to tmp_path, and one small run on ../shared/data when it is present."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pytest

from textdp.cli.evaluate import utility as utility_command
from textdp.evaluate import utility
from textdp.tables import EmbeddingTable

# ---------------------------------------------------------------------------- a tiny world
# Three well separated clusters in 8-d: positive words, negative words and neutral words.
POS = ["good", "great", "fine", "nice", "happy", "joy", "love", "best"]
NEG = ["bad", "awful", "poor", "sad", "hate", "worst", "ugly", "grim"]
NEUTRAL = ["the", "movie", "film", "plot", "actor", "scene", "story", "cast"]


def tiny_table() -> EmbeddingTable:
    rng = np.random.default_rng(7)
    words = POS + NEG + NEUTRAL
    vectors = np.zeros((len(words), 8), dtype=np.float32)
    for k, group in enumerate((POS, NEG, NEUTRAL)):
        for w in group:
            v = rng.normal(0.0, 1.0, 8)
            v[k] += 10.0
            vectors[words.index(w)] = v
    return EmbeddingTable(words, vectors, name="tiny")


def _sentences(rng: np.random.Generator, group: list[str], n: int) -> list[str]:
    return [" ".join([*rng.choice(NEUTRAL, 3), *rng.choice(group, 2)]) for _ in range(n)]


def write_fake_data(root: Path, table: EmbeddingTable) -> Path:
    """Every file the utility tasks read, in ../shared/data's layout and encodings, with gold
    scores that the original table vectors rank perfectly."""
    rng = np.random.default_rng(0)
    vec = {w: table.lookup_vectors[table.lookup([w])[0]] for w in POS + NEG + NEUTRAL}

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    words = POS + NEG + NEUTRAL
    pairs = [(words[i], words[j]) for i in range(len(words)) for j in range(i + 1, len(words))]
    (root / "wordsim").mkdir(parents=True)
    for name in ("EN-MEN-TR-3k.txt", "EN-SIMLEX-999.txt", "EN-SimVerb-3500.txt"):
        lines = [f"{a}\t{b}\t{5 + 5 * cos(vec[a], vec[b]):.6f}" for a, b in pairs]
        lines.append("good\tzzzunknown\t3.0")  # not covered by the table
        (root / "wordsim" / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "oddmanout").mkdir()
    puzzles = []
    for i in range(12):
        group, other = (POS, NEG) if i % 2 else (NEG, POS)
        puzzles.append("\t".join(["cat", str(rng.choice(other)),
                                  *rng.choice(group, 4, replace=False)]))
    (root / "oddmanout" / "crowdsourced_filtered.tsv").write_text("\n".join(puzzles) + "\n",
                                                                  encoding="utf-8")
    (root / "stsbenchmark").mkdir()
    s1 = _sentences(rng, POS, 15) + _sentences(rng, NEG, 15)
    s2 = _sentences(rng, POS, 10) + _sentences(rng, NEG, 20)
    cent = utility.centroids([s.split() for s in s1 + s2], table)
    gold = 5 * utility.cosine(cent[:len(s1)], cent[len(s1):])
    sts = [f"main\tfile\t2012\t{i:04d}\t{g:.6f}\t{a}\t{b}" for i, (a, b, g) in
           enumerate(zip(s1, s2, gold))]
    (root / "stsbenchmark" / "sts-test.csv").write_text("\n".join(sts) + "\n", encoding="utf-8")
    (root / "senteval").mkdir()
    for split, n in (("train", 40), ("test", 20)):
        lines = [f"1 {s}" for s in _sentences(rng, POS, n)] + \
                [f"0 {s}" for s in _sentences(rng, NEG, n)]
        (root / "senteval" / f"stsa.binary.{split}").write_text("\n".join(lines) + "\n",
                                                                encoding="utf-8")
    for pos, neg, enc in (("rt-polarity.pos", "rt-polarity.neg", "latin-1"),
                          ("custrev.pos", "custrev.neg", "utf-8"),
                          ("subj.subjective", "subj.objective", "latin-1")):
        (root / "senteval" / pos).write_text("\n".join(_sentences(rng, POS, 20)) + "\n",
                                             encoding=enc)
        (root / "senteval" / neg).write_text("\n".join(_sentences(rng, NEG, 20)) + "\n",
                                             encoding=enc)
    return root


@pytest.fixture(scope="module")
def blank_nlp():
    import spacy

    return spacy.blank("en")


# ---------------------------------------------------------------------------- metrics
def test_spearman_known_case() -> None:
    # Ranks of y: [1, 2, 3, 5, 4] against [1..5]: Σd² = 2, ρ = 1 − 6·2 / (5·24) = 0.9.
    assert utility.spearman(np.arange(5), [10, 20, 30, 50, 40]) == pytest.approx(0.9)
    assert utility.spearman(np.arange(5), [5, 4, 3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(utility.spearman([1, 1, 1, 1], [1, 2, 3, 4]))
    assert utility.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)


def test_cosine_rows_and_zero_vectors() -> None:
    a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    b = np.array([[0.0, 2.0], [2.0, 2.0], [1.0, 0.0]])
    np.testing.assert_allclose(utility.cosine(a, b), [0.0, 1.0, 0.0])


def test_odd_man_out_on_constructed_puzzles() -> None:
    group = np.eye(4)[[0, 0, 0, 0]] + 0.1 * np.eye(4)[[1, 2, 3, 1]]
    right = np.vstack([np.eye(4)[3], group])  # the odd man (item 0) points elsewhere
    wrong = np.vstack([group[0], np.eye(4)[3], group[1:]])  # item 1 is the outsider
    assert utility.odd_man_out_accuracy(np.stack([right, right])) == 1.0
    assert utility.odd_man_out_accuracy(np.stack([right, wrong])) == 0.5
    # Identical vectors tie everywhere: chance (1/5), not a hit for the first item.
    assert utility.odd_man_out_accuracy(np.ones((3, 5, 4))) == pytest.approx(0.2)


def test_classification_beats_chance_on_separable_data() -> None:
    rng = np.random.default_rng(1)
    x = np.vstack([rng.normal(-2, 1, (60, 5)), rng.normal(2, 1, (60, 5))])
    y = np.repeat([0, 1], 60)
    assert utility.cv_accuracy(x, y, folds=10, seed=0) > 0.9
    assert utility.classifier(0).fit(x[::2], y[::2]).score(x[1::2], y[1::2]) > 0.9
    shuffled = rng.permutation(y)  # no signal: near chance
    assert utility.cv_accuracy(x, shuffled, folds=5, seed=0) < 0.75


def test_centroids_average_tokens_with_vectors() -> None:
    table = tiny_table()
    c = utility.centroids([["good", "bad", "?!"], ["zzz"]], table)
    expected = (table.lookup_vectors[table.lookup(["good"])[0]]
                + table.lookup_vectors[table.lookup(["bad"])[0]]) / 2
    np.testing.assert_allclose(c[0], expected, rtol=1e-5)
    np.testing.assert_array_equal(c[1], np.zeros(table.dim))


# ---------------------------------------------------------------------------- readers
def test_readers_handle_cr_endings_latin1_and_extra_columns(tmp_path: Path) -> None:
    omo = tmp_path / "common1.tsv"
    omo.write_bytes(b"fruit\tgrass\tcherry\tapple\tgrape\torange\r"
                    b"bad line\tonly\tthree\tanswers\r"
                    b"pets\tlion\tdog\tcat\thamster\tparrot\r")
    puzzles, skipped = utility.read_oddmanout(omo)
    assert puzzles == [("grass", "cherry", "apple", "grape", "orange"),
                       ("lion", "dog", "cat", "hamster", "parrot")]
    assert skipped == 1
    latin = tmp_path / "rt-polarity.pos"
    latin.write_bytes("caf\xe9 au lait\x85 still one line\nsecond\n".encode("latin-1"))
    texts, labels = utility.read_two_class(latin, latin, "latin-1")
    assert texts[:2] == ["café au lait\x85 still one line", "second"]
    assert labels.tolist() == [1, 1, 0, 0]
    sts = tmp_path / "sts.csv"
    sts.write_text('g\tf\t2012\t1\t4.0\tA "quoted" one.\tAnother.\textra\tcols\n',
                   encoding="utf-8")
    s1, s2, gold = utility.read_sts(sts)
    assert (s1, s2, gold.tolist()) == (['A "quoted" one.'], ["Another."], [4.0])


def test_unknown_task_lists_accepted_ones() -> None:
    with pytest.raises(ValueError, match=r"men, simlex, simverb.*got nope"):
        utility.parse_tasks("sst2,nope")
    assert utility.parse_tasks("SST2, mr") == ["sst2", "mr"]
    with pytest.raises(ValueError, match="epsilon"):
        utility.epsilon_grid(["mlaplace"], "1,-2")
    with pytest.raises(ValueError, match="mechanism"):
        utility.parse_mechanisms("mlaplace,nosuch")


def test_epsilon_grid_per_mechanism() -> None:
    mechs = ["mlaplace", "mahalanobis"]
    assert utility.epsilon_grid(mechs, ["1,2", "mahalanobis=3"]) == \
        {"mlaplace": [1.0, 2.0], "mahalanobis": [3.0]}
    assert utility.epsilon_grid(mechs, [0.5, 4]) == {"mlaplace": [0.5, 4.0],
                                                     "mahalanobis": [0.5, 4.0]}
    assert utility.epsilon_grid(mechs, {"mlaplace": [7]})["mlaplace"] == [7.0]
    defaults = utility.epsilon_grid(mechs)
    assert defaults["mlaplace"] == list(utility.DEFAULT_EPSILONS)
    with pytest.raises(ValueError, match="epsilon is given for tem"):
        utility.epsilon_grid(mechs, ["tem=1"])
    with pytest.raises(ValueError, match="epsilon"):
        utility.epsilon_grid(mechs, ["mlaplace=0"])


# ---------------------------------------------------------------------------- evaluation
def test_evaluate_on_fake_folder(tmp_path: Path, blank_nlp) -> None:
    table = tiny_table()
    root = write_fake_data(tmp_path / "data", table)
    sizes: list[dict] = []
    rows = utility.evaluate_utility(["mlaplace"], [1e-3, 1e4], data_dir=root, table=table,
                                    quick=True, seed=3, nlp=blank_nlp, log=lambda s: None,
                                    sizes_out=sizes)
    json.dumps(rows, allow_nan=False)  # JSON-able
    assert len(rows) == 3 * len(utility.TASKS)
    by = {(r["mechanism"], r["epsilon"], r["task"]): r for r in rows}
    orig = {t: by[("original", None, t)] for t in utility.TASKS}
    # Gold scores are the original cosines: a perfect ranking, and the unknown word is not
    # covered.
    assert orig["simlex"]["spearman"] == pytest.approx(1.0)
    assert orig["simlex"]["coverage"] == pytest.approx(276 / 277)
    assert orig["oddmanout"]["accuracy"] == 1.0
    for task in ("sst2", "mr", "cr", "subj"):
        assert orig[task]["accuracy"] > 0.9, task
    assert orig["sst2"]["downstream_accuracy"] == orig["sst2"]["accuracy"]
    # A huge ε keeps every word: the same figures as the original.
    kept = {t: by[("mlaplace", 1e4, t)] for t in utility.TASKS}
    assert kept["simlex"]["unchanged"] == 1.0 and kept["sst2"]["unchanged"] == 1.0
    assert kept["simlex"]["spearman"] == pytest.approx(1.0)
    assert kept["stsb"]["spearman"] == pytest.approx(orig["stsb"]["spearman"])
    # A tiny ε replaces words by draws that do not depend on them: utility drops.
    gone = {t: by[("mlaplace", 1e-3, t)] for t in utility.TASKS}
    assert gone["simlex"]["unchanged"] < 0.3
    assert gone["simlex"]["spearman"] < 0.6
    assert gone["sst2"]["accuracy"] < 0.8
    assert [s["task"] for s in sizes] == list(utility.TASKS)


def _run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="textdp evaluate")
    utility_command.add_parser(parser.add_subparsers(dest="what", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


def _write_word2vec(table: EmbeddingTable, path: Path) -> Path:
    lines = [f"{len(table.row_words)} {table.dim}"]
    lines += [w + " " + " ".join(f"{x:.6f}" for x in v)
              for w, v in zip(table.row_words, table.lookup_vectors)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_cli_quick_writes_report_and_pngs(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TEXTDP_CACHE", str(tmp_path / "cache"))
    table = tiny_table()
    root = write_fake_data(tmp_path / "data", table)
    vec_file = _write_word2vec(table, tmp_path / "tiny.vec")
    out = tmp_path / "report"
    assert _run_cli(["utility", "--data", str(root), "--mechanism", "mlaplace,mahalanobis",
                     "--epsilon", "0.5,50", "--table", str(vec_file), "--quick",
                     "--tasks", "simlex,stsb,sst2", "-o", str(out)]) == 0
    for name in ("index.md", "utility.md", "utility.json", "utility_overview.png",
                 "utility_vs_unchanged.png", "utility_sst2.png", "utility_stsb.png"):
        assert (out / name).is_file(), name
    assert (out / "utility_overview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / "utility.md").read_text(encoding="utf-8")
    assert "## SST-2" in page and "mahalanobis" in page and "![utility_overview]" in page
    data = json.loads((out / "utility.json").read_text(encoding="utf-8"))["data"]
    assert len(data["rows"]) == 3 * 5 and data["quick"] is True
    assert "utility.md" in (out / "index.md").read_text(encoding="utf-8")
    assert "sst2" in capsys.readouterr().out


def test_missing_file_is_named_before_any_work(tmp_path: Path, monkeypatch) -> None:
    root = write_fake_data(tmp_path / "data", tiny_table())
    (root / "senteval" / "custrev.neg").unlink()

    def no_work(*args, **kwargs):
        raise AssertionError("the data must be checked before any model or text is loaded")

    monkeypatch.setattr(utility, "_load", no_work)
    monkeypatch.setattr(utility, "_resolve_table", no_work)
    with pytest.raises(FileNotFoundError, match="task 'cr'") as err:
        _run_cli(["utility", "--data", str(root), "--epsilon", "1", "-o",
                  str(tmp_path / "r")])
    assert err.value.filename.endswith("senteval/custrev.neg")
    # Tasks that do not read it still run the check cleanly.
    assert utility.check_data(root, ["sst2", "simlex"]) == root
    with pytest.raises(FileNotFoundError, match="no such data folder"):
        utility.check_data(tmp_path / "absent", ["sst2"])
    with pytest.raises(ValueError, match="tasks must be"):
        _run_cli(["utility", "--data", str(root), "--tasks", "sst3", "-o", str(tmp_path)])


# ---------------------------------------------------------------------------- real data
@pytest.mark.shared_data
def test_shared_data_small_subsample(shared_data: Path, nlp) -> None:
    rows = utility.evaluate_utility(["mlaplace"], [3.0], data_dir=shared_data,
                                    tasks="simlex,stsb,sst2", limit=80, folds=2, seed=0,
                                    nlp=nlp, log=lambda s: None)
    by = {(r["mechanism"], r["task"]): r for r in rows}
    simlex = by[("original", "simlex")]
    # en_core_web_md vectors on SimLex-999: ρ ≈ 0.41 over all 999 pairs.
    assert simlex["n"] == 999 and simlex["coverage"] == 1.0
    assert 0.3 < simlex["spearman"] < 0.55
    assert by[("original", "sst2")]["n"] == 160
    assert by[("original", "stsb")]["n"] == 80
    assert 0.0 <= by[("mlaplace", "sst2")]["unchanged"] <= 1.0
    assert -1.0 <= by[("mlaplace", "simlex")]["spearman"] <= 1.0
