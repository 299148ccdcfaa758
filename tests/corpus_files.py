"""Small corpus files shaped like ../shared/data's, as fixtures (tests/conftest.py offers them
to the corpora, detection and evaluation tests)."""

from __future__ import annotations

import pytest

TINY = {
    "conll2003/eng.train": "John NNP I-NP I-PER\nSmith NNP I-NP I-PER\nsaid VBD I-VP O\n\n"
                           "Paris NNP I-NP I-LOC\nis VBZ I-VP O\nbig JJ I-ADJP O\n\n",
    "conll2003/eng.testa": "Anna NNP I-NP I-PER\nlaughed VBD I-VP O\n\n",
    "wnut17/wnut17train.conll": "hey\tO\nmike\tB-person\n!\tO\n\n",
    "wnut17/emerging.dev.conll": "lol\tO\njessica\tB-person\n\n",
    **{f"btc/{s}.conll": "@\tB-PER\nkim\tI-PER\nrocks\tO\n\n" for s in "aefgb"},
    # An e-mail thread in the coreference format of ../shared/data/enron-email.
    "enron-email/t_1.conll": "#begin document (t_1)\nFrom\tA\t-\t-\n:\tA\t-\t-\n"
                             "ann.lee@x.com\tA\t(P0*)\t(0)\n\nThanks\tA\t-\t-\n"
                             "Ann\tA\t(P0)\t(0)\n\n",
}


@pytest.fixture
def tiny_corpora(tmp_path):
    """A data folder shaped like ../shared/data: every domain's files, a few lines each."""
    root = tmp_path / "data"
    for rel, text in TINY.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


CONLL = """\
John NNP I-NP I-PER
Smith NNP I-NP I-PER
visited VBD I-VP O
Berlin NNP I-NP I-LOC
. . O O

Mr NNP I-NP O
Lee NNP I-NP I-PER
met VBD I-VP O
Ann NNP I-NP I-PER
Kim NNP I-NP B-PER
. . O O

-DOCSTART- -X- O O

Smith NNP I-NP I-PER
said VBD I-VP O
so RB I-ADVP O
. . O O

-DOCSTART- -X- O O
"""


@pytest.fixture
def conll_file(tmp_path):
    """A small CoNLL-2003 file: two documents, IOB1 tags, a trailing -DOCSTART-."""
    path = tmp_path / "tiny.conll"
    path.write_text(CONLL, encoding="utf-8")
    return path
