"""textdp evaluate pseudonyms: the figures on a small gold-labelled document."""

from __future__ import annotations

import pytest

from textdp import Privatizer
from textdp.corpora.conll import Sentence
from textdp.evaluate.pseudonyms import is_lexicon_name, person_words, score_texts

DOC = [
    Sentence(("Angela", "Merkel", "met", "John", "Smith", "."),
             ("B-PER", "I-PER", "O", "B-PER", "I-PER", "O")),
    Sentence(("Merkel", "said", "Smith", "agreed", "."), ("B-PER", "O", "B-PER", "O", "O")),
]


def _gold_persons(docs):
    """A detector that marks the gold persons of DOC (so detection is not what is tested)."""
    names = {"Angela", "Merkel", "John", "Smith"}
    return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text in names] for doc in docs]


def test_score_texts_counts_lexicon_names_consistency_and_cost():
    p = Privatizer(seed=4, detector=_gold_persons)
    row = score_texts(p, [DOC])
    assert row["person_tokens"] == 6 and row["survived"] == 0.0
    assert row["in_lexicon"] == 1.0 and row["repeated_names"] == 2 and row["consistent"] == 1.0
    assert row["draws"] == row["distinct_targeted_names"] == 4
    assert row["epsilon_total"] == pytest.approx(4 * p.epsilon)
    mention = score_texts(Privatizer(seed=4, detector=_gold_persons, consistency="mention",
                                     replace="word"), [DOC])
    assert mention["draws"] == 6 and mention["distinct_targeted_names"] == 4


def test_person_words_and_kinds():
    words, kinds = person_words([DOC])
    assert dict(zip(words, kinds)) == {"Angela": "first", "Merkel": "last", "John": "first",
                                       "Smith": "last"}
    assert is_lexicon_name("Smith") and not is_lexicon_name("Qwzx")


def test_evaluate_pseudonyms_and_its_command_on_a_small_dev_file(tmp_path, capsys):
    from textdp.cli import main
    from textdp.evaluate.pseudonyms import evaluate_pseudonyms

    dev = tmp_path / "conll2003" / "eng.testa"
    dev.parent.mkdir()
    lines = ["-DOCSTART- -X- -X- O", ""]
    for sentence in DOC:
        lines += [f"{w} NNP I-NP {t}" for w, t in zip(sentence.tokens, sentence.tags)] + [""]
    dev.write_text("\n".join(lines) + "\n", encoding="utf-8")
    logged: list[str] = []
    results = evaluate_pseudonyms(data_dir=tmp_path, domains="conll", draws=5, seed=1,
                                  log=logged.append)
    assert set(results) == {"config", "conll"} and len(logged) == 1
    row = results["conll"]
    assert row["texts"] == 1 and row["person_tokens"] == 6 and row["unchanged_words"] == 4
    assert logged[0].startswith("conll") and "Merkel" not in logged[0]
    out = tmp_path / "figures.json"
    assert main(["evaluate", "pseudonyms", "--data", str(tmp_path), "--domains", "conll",
                 "--draws", "0", "--json", str(out)]) == 0
    assert "conll" in capsys.readouterr().out and "conll" in out.read_text(encoding="utf-8")
