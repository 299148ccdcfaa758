"""textdp.evaluate.ner_utility: privatized training text stays aligned with its gold tags, the
training loop learns, the command's arguments are checked, and (with ../shared/data) real
CoNLL articles go through the default privatizer aligned."""

from __future__ import annotations

import json

import pytest

from textdp.cli import build_parser, main
from textdp.cli.evaluate import ner_utility as ner_utility_command
from textdp.corpora.conll import Sentence
from textdp.evaluate import ner_utility as nu

PERSON_WORDS = {"Angela", "Merkel", "John", "Smith", "Smiths", "Mary", "Jones"}


def name_detector(docs):
    """Marks the tokens in PERSON_WORDS as PERSON (runs of them as one span): a detector whose
    targets the test knows, so what must change and what must not is exact."""
    out = []
    for doc in docs:
        spans, start = [], None
        for t in [*doc, None]:
            if t is not None and t.text in PERSON_WORDS:
                start = t.i if start is None else start
            elif start is not None:
                spans.append((start, t.i if t is not None else len(doc), "PERSON"))
                start = None
        out.append(spans)
    return out


def _sentence(text: str, tags: str) -> Sentence:
    tokens, labels = text.split(), tags.split()
    assert len(tokens) == len(labels)
    return Sentence(tuple(tokens), tuple(labels))


# Two articles, IOB1 tags as in CoNLL (B- only where two persons touch).
DOCUMENTS = [
    [_sentence("Angela Merkel met John Smith in Berlin .",
               "I-PER I-PER O I-PER I-PER O I-LOC O"),
     _sentence("Smith said the talks in Paris went well , 3 - 1 .",
               "I-PER O O O O I-LOC O O O O O O O")],
    [_sentence("Mary Jones John Smith left Reuters .",
               "I-PER I-PER B-PER I-PER O I-ORG O"),
     _sentence("No names here at all .", "O O O O O O"),
     _sentence("The Smiths ' house .", "O I-PER O O O")],
]


@pytest.mark.parametrize("kwargs", [{}, {"targets": ["PERSON"]}, {"replace": "name"},
                                    {"replace": "word"}, {"replace": "tag"}])
def test_privatization_keeps_alignment(kwargs):
    privatizer = nu.make_privatizer("test", {**kwargs, "detector": name_detector}, seed=3)
    private, stats = nu.privatize_documents(DOCUMENTS, privatizer, batch_articles=1)
    assert len(private) == len(DOCUMENTS)
    persons = others = 0
    for document, new_document in zip(DOCUMENTS, private):
        assert len(new_document) == len(document)
        for sentence, new in zip(document, new_document):
            assert len(new.tokens) == len(sentence.tokens)
            assert new.tags == sentence.tags  # labels unchanged, position by position
            for old, word, tag in zip(sentence.tokens, new.tokens, sentence.tags):
                if tag.endswith("PER"):
                    persons += 1
                    assert word != old  # every gold person token replaced
                    assert "\n" not in word and word.strip()
                else:
                    others += 1
                    assert word == old  # everything else untouched
    assert stats.person_tokens == persons == 10
    assert stats.person_changed == 10 and stats.person_changed_share == 1.0
    # "others" counts word tokens only (punctuation and numbers are not words)
    assert stats.other_changed == 0 and 0 < stats.other_tokens < others
    assert stats.tokens_replaced == 10
    # one draw per distinct name per article (the default consistency), none for tags
    assert stats.draws == (0 if kwargs.get("replace") == "tag" else 9)


def test_names_are_consistent_within_an_article():
    privatizer = nu.make_privatizer("name", {"replace": "name", "detector": name_detector},
                                    seed=5)
    (first, second), _ = nu.privatize_documents(DOCUMENTS, privatizer, batch_articles=2)
    # "Smith" opens the second sentence of the first article: the same public name as in the
    # first sentence, since the article is privatized as one text.
    assert first[1].tokens[0] == first[0].tokens[4]
    assert second[2].tokens[1] != "Smiths"


def test_gold_targets_replace_the_gold_persons_only():
    def every_capital(docs):  # a detector that takes every capitalised word for a name
        return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text[:1].isupper()] for doc in docs]

    privatizer = nu.make_privatizer("gold", {"replace": "name", "detector": every_capital},
                                    seed=4)
    private, stats = nu.privatize_documents(DOCUMENTS, privatizer, gold_targets=True)
    assert stats.person_changed == stats.person_tokens > 0 and stats.other_changed == 0
    assert [s.tags for d in private for s in d] == [s.tags for d in DOCUMENTS for s in d]
    _, detected = nu.privatize_documents(DOCUMENTS, privatizer)  # the detector's targets
    assert detected.other_changed > 0
    assert nu.parse_variants("gold") == {"gold": {"replace": "name"}} and "gold" in nu.GOLD_TARGETS


def test_tags_replace_every_person_token():
    privatizer = nu.make_privatizer("tag", {"replace": "tag", "detector": name_detector})
    private, stats = nu.privatize_documents(DOCUMENTS, privatizer)
    tagged = [w for d in private for s in d for w, t in zip(s.tokens, s.tags) if t != "O"
              and t.endswith("PER")]
    assert tagged == ["[PERSON]"] * 10 and stats.draws == 0


def test_privatization_is_reproducible_with_a_seed_and_batching_does_not_matter():
    a = nu.make_privatizer("a", {"detector": name_detector}, seed=11)
    b = nu.make_privatizer("b", {"detector": name_detector}, seed=11)
    one, _ = nu.privatize_documents(DOCUMENTS, a, batch_articles=len(DOCUMENTS))
    two, _ = nu.privatize_documents(DOCUMENTS, b, batch_articles=len(DOCUMENTS))
    assert one == two


def test_variant_arguments_pass_through_unchanged():
    # epsilon and seed fill in only where the variant sets none
    p = nu.make_privatizer("v", {"epsilon": 7.0, "detector": name_detector}, epsilon=2.0,
                           seed=1)
    assert p.epsilon == 7.0 and p.seed == 1
    p = nu.make_privatizer("v", {"detector": name_detector}, epsilon=2.0, seed=1)
    assert p.epsilon == 2.0
    with pytest.raises(ValueError, match=r"variant 'bad'.*no_such_argument"):
        nu.make_privatizer("bad", {"no_such_argument": 1})


class _BrokenPrivatizer:
    """Writes one word too few for every doc."""

    def __init__(self, nlp):
        self.nlp = nlp

    def privatize_docs(self, docs):
        from textdp.report import Report

        return [([t.text for t in doc][:-1], Report.for_tokens(0, mechanism="none",
                                                               epsilon=1.0, delta=0.0,
                                                               guarantee="none"))
                for doc in docs]


def test_broken_alignment_is_refused_without_showing_text(nlp):
    with pytest.raises(ValueError, match=r"document 0: .* words for \d+ tokens") as err:
        nu.privatize_documents(DOCUMENTS, _BrokenPrivatizer(nlp))
    assert "Merkel" not in str(err.value) and "Smith" not in str(err.value)


def test_sample_documents_caps_whole_articles_in_file_order():
    docs = [[_sentence(f"w{i}{j} .", "O O") for j in range(n)]
            for i, n in enumerate([3, 5, 2, 4, 6])]
    assert nu.sample_documents(docs, None, 0) == docs
    picked = nu.sample_documents(docs, 7, seed=1)
    assert sum(len(d) for d in picked) == 7
    assert picked == nu.sample_documents(docs, 7, seed=1)
    firsts = [d[0].tokens[0] for d in picked]
    assert firsts == sorted(firsts, key=lambda w: int(w[1]))  # file order kept
    assert nu.sample_documents(docs, 100, seed=1) == docs


# ---------------------------------------------------------------------------- training
FIRST = ["Anna", "Boris", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines",
         "Jonas", "Katja", "Lars", "Mona", "Nils", "Olga", "Pavel"]
LAST = ["Berger", "Castro", "Dalton", "Eriksen", "Fischer", "Garcia", "Hansen", "Ivanov",
        "Jensen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Olsen", "Petrov", "Quinn"]
CITIES = ["Lyon", "Porto", "Graz", "Turku", "Brno", "Gdansk", "Bergen", "Malmo"]
TEMPLATES = [
    ("{f} {l} said on Monday that prices rose .", "I-PER I-PER O O O O O O O"),
    ("Police in {c} questioned {f} {l} .", "O O I-LOC O I-PER I-PER O"),
    ("The minister , {f} {l} , arrived in {c} .", "O O O I-PER I-PER O O O I-LOC O"),
    ("Shares fell in {c} after the report .", "O O O I-LOC O O O O"),
    ("{l} scored twice for the home side .", "I-PER O O O O O O O"),
]


def synthetic(n: int, first: list[str], last: list[str], seed: int) -> list[Sentence]:
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text, tags = rng.choice(TEMPLATES)
        out.append(_sentence(text.format(f=rng.choice(first), l=rng.choice(last),
                                         c=rng.choice(CITIES)), tags))
    return out


def test_training_learns_unseen_names():
    # Held-out sentences use first and last names never seen in training: the model has to
    # learn the contexts (and capitalisation), not memorise the names.
    train = synthetic(240, FIRST[:10], LAST[:10], seed=0)
    held_out = synthetic(80, FIRST[10:], LAST[10:], seed=1)
    settings = nu.TrainingSettings(epochs=4, batch_start=8.0, batch_stop=8.0)
    nlp, curve = nu.train_ner(train, settings, seed=0, dev=held_out)
    assert len(curve) == 4 and curve[-1]["loss"] < curve[0]["loss"]
    scores = nu.score_ner(nlp, held_out)
    assert scores == {k: v for k, v in curve[-1].items() if k not in ("epoch", "loss")}
    assert scores[f"gold_{nu.PERSON}"] == sum(
        len([s for s in s_.spans if s[2] == nu.PERSON]) for s_ in held_out)
    # Split by the names of the training text: the held-out persons are all unseen, the
    # training sentences' all seen; a mix splits its gold persons between the two.
    seen = nu.person_names(train)
    assert "Anna Berger" in seen and "Berger" in seen and "Olga Quinn" not in seen
    split = nu.score_ner(nlp, held_out, seen)
    assert split[f"{nu.PERSON}_r_seen"] is None and split[f"gold_{nu.PERSON}_seen"] == 0
    assert split[f"{nu.PERSON}_r_unseen"] == pytest.approx(scores[f"{nu.PERSON}_r"])
    mixed = nu.score_ner(nlp, held_out[:20] + train[:20], seen)
    assert mixed[f"gold_{nu.PERSON}_seen"] + mixed[f"gold_{nu.PERSON}_unseen"] == \
        mixed[f"gold_{nu.PERSON}"] and mixed[f"gold_{nu.PERSON}_seen"] > 0
    # Training seeds 0-4 (4 or 6 epochs) reach PERSON F1 0.96-1.0 here, ents F1 0.98-1.0;
    # an untrained model scores near 0 (next test).
    assert scores[f"{nu.PERSON}_f"] > 0.85
    assert scores["ents_f"] > 0.85


def test_untrained_model_does_not_score():
    held_out = synthetic(40, FIRST[10:], LAST[10:], seed=1)
    nlp = nu.new_ner_pipeline(0)
    nlp.initialize(lambda: nu.make_examples(nlp, synthetic(20, FIRST, LAST, seed=2)))
    assert nu.score_ner(nlp, held_out)[f"{nu.PERSON}_f"] < 0.5


def test_the_model_reads_the_embedded_pipelines_vectors_unless_told_not_to():
    from textdp.defaults import load_pipeline

    assert nu.ner_model(False) == nu.NER_MODEL
    assert nu.ner_model(True)["tok2vec"]["pretrained_vectors"] is True
    assert nu.NER_MODEL["tok2vec"]["pretrained_vectors"] is None  # not changed by the call
    with_vectors = nu.new_ner_pipeline(0)
    assert with_vectors.vocab.vectors is load_pipeline().vocab.vectors
    assert with_vectors.vocab["Berger"].has_vector
    assert not nu.new_ner_pipeline(0, vectors=False).vocab["Berger"].has_vector
    # trained without them, a model learns from the hashed features alone
    train = synthetic(120, FIRST[:10], LAST[:10], seed=0)
    settings = nu.TrainingSettings(epochs=2, vectors=False, batch_start=8.0, batch_stop=8.0)
    nlp, _ = nu.train_ner(train, settings, seed=0)
    assert not nlp.vocab["Berger"].has_vector
    assert nu.score_ner(nlp, train)[f"{nu.PERSON}_f"] > 0.5


def test_training_settings_are_checked():
    for bad in ({"epochs": 0}, {"epochs": 1, "dropout": 1.0},
                {"epochs": 1, "train_sentences": 0}):
        with pytest.raises(ValueError):
            nu.TrainingSettings(**bad)
    with pytest.raises(ValueError, match="at least one sentence"):
        nu.train_ner([], nu.QUICK)


# ---------------------------------------------------------------------------- command line
def test_cli_parses_variants():
    args = build_parser().parse_args(["evaluate", "ner-utility", "--variants", "original,word",
                                      "--variant", "word={}", "--epsilon", "2", "--quick"])
    assert args.handler is ner_utility_command.run and args.quick and args.epsilon == 2.0
    extra = dict(nu.parse_variant_definition(v) for v in args.variant)
    assert nu.parse_variants(args.variants, extra) == {"original": None, "word": {}}
    assert args.vectors
    assert not build_parser().parse_args(["evaluate", "ner-utility", "--no-vectors"]).vectors
    default = build_parser().parse_args(["evaluate", "ner-utility"])
    assert nu.parse_variants(default.variants) == {
        "original": None, "word": {"replace": "word"}, "name": {"replace": "name"}}
    assert nu.parse_variants(" word , word,tag") == {"word": {"replace": "word"},
                                                     "tag": {"replace": "tag"}}


@pytest.mark.parametrize("argv, message", [
    (["--variants", "original,bogus"], "variants must be a comma-separated subset of "
                                       "original, name, word, tag, gold; got bogus"),
    (["--variants", ","], "got nothing"),
    (["--variant", "noequals"], "--variant must look like NAME="),
    (["--variant", "x=[1]"], "expected a JSON object"),
    (["--variant", "x={bad"], "not valid JSON"),
    (["--variant", "original={}"], "cannot redefine"),
    (["--epsilon", "-1"], "epsilon"),
    (["--seeds", "0,x"], "--seeds must be comma-separated integers"),
    (["--seeds", "1,2,1"], "seed 1 is given twice"),
    (["--seeds", "-3"], "seeds must be integers >= 0"),
    (["--seeds", ","], "at least one seed"),
])
def test_cli_rejects_bad_arguments_before_any_work(argv, message, capsys, tmp_path):
    # --data points at an empty folder: the arguments are refused before the data is looked at
    code = main(["evaluate", "ner-utility", "--data", str(tmp_path), *argv])
    assert code == 2
    assert message in capsys.readouterr().err


def test_cli_reports_missing_data(capsys, tmp_path):
    assert main(["evaluate", "ner-utility", "--data", str(tmp_path), "--quick"]) == 2
    assert "eng.train" in capsys.readouterr().err


def _write_conll(path, documents: list[list[Sentence]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for document in documents:
        lines += ["-DOCSTART- -X- -X- O", ""]
        for sentence in document:
            lines += [f"{t} NN O {tag}" for t, tag in zip(sentence.tokens, sentence.tags)]
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def synthetic_detector(docs):
    """Marks every name of FIRST and LAST as PERSON, one span per token."""
    names = set(FIRST) | set(LAST)
    return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text in names] for doc in docs]


def test_seeds_run_each_variant_and_summarise_mean_and_spread(tmp_path):
    # Articles of 20 synthetic sentences in a data folder laid out as ../shared/data. The tag
    # variant hides every name behind one placeholder: a model trained on it finds fewer
    # persons in the original dev than the original variant's model.
    train = synthetic(160, FIRST[:10], LAST[:10], seed=0)
    dev = synthetic(60, FIRST[10:], LAST[10:], seed=1)
    _write_conll(tmp_path / "conll2003" / "eng.train",
                 [train[i:i + 20] for i in range(0, len(train), 20)])
    _write_conll(tmp_path / "conll2003" / "eng.testa", [dev])
    variants = {"original": None, "tag": {"replace": "tag", "detector": synthetic_detector}}
    settings = nu.TrainingSettings(epochs=3, batch_start=8.0, batch_stop=8.0)
    results = nu.evaluate_ner_utility(variants, data_dir=tmp_path, settings=settings,
                                      seeds=[4, 7])
    assert [(r.variant, r.seed) for r in results] == [
        ("original", 4), ("tag", 4), ("original", 7), ("tag", 7)]
    tagged = [r for r in results if r.variant == "tag"]
    assert all(r.stats.person_changed == r.stats.person_tokens > 0 for r in tagged)
    assert all(r.stats.other_changed == 0 for r in tagged)
    summary = {row["variant"]: row for row in nu.summarise(results)}
    f1 = f"{nu.PERSON}_f"
    for name, row in summary.items():
        values = [r.scores[f1] for r in results if r.variant == name]
        assert row["seeds"] == [4, 7]
        assert row[f1]["mean"] == pytest.approx(sum(values) / 2)
        assert row[f1]["sd"] == pytest.approx(abs(values[0] - values[1]) / 2 ** 0.5)
        assert (row[f1]["min"], row[f1]["max"]) == (min(values), max(values))
    assert summary["original"]["person_f_share"] == pytest.approx(1.0)
    # the dev names are none of the training names: every dev person is unseen
    assert summary["original"][f"{nu.PERSON}_r_seen"] is None
    assert summary["original"][f"{nu.PERSON}_r_unseen"]["mean"] == pytest.approx(
        summary["original"][f"{nu.PERSON}_r"]["mean"])
    assert summary["tag"]["person_f_share"] == pytest.approx(
        summary["tag"][f1]["mean"] / summary["original"][f1]["mean"])
    assert summary["original"][f1]["mean"] > 0.8
    assert summary["tag"]["person_f_share"] < 0.8
    table = nu.summary_table(results)
    assert "PER F1 / original's" in table and "4, 7" in table
    # without the original variant there is nothing to compare with
    assert nu.summarise(tagged)[0]["person_f_share"] is None


# ---------------------------------------------------------------------------- real data
def test_real_conll_articles_stay_aligned(shared_data):
    from textdp.corpora.conll import read_conll

    train, dev = nu.conll_paths(shared_data)
    assert dev.name == "eng.testa"
    documents = nu.sample_documents(read_conll(train), 60, seed=0)
    privatizer = nu.make_privatizer("word", {}, seed=0)  # the default detector
    private, stats = nu.privatize_documents(documents, privatizer)
    for document, new_document in zip(documents, private):
        assert [s.tags for s in new_document] == [s.tags for s in document]
        assert [len(s.tokens) for s in new_document] == [len(s.tokens) for s in document]
    assert stats.person_tokens > 20
    # The default detector finds most CoNLL names (README, detection figures).
    assert stats.person_changed_share > 0.8
    assert stats.other_changed_share < 0.1
    json.dumps(stats.as_dict())
