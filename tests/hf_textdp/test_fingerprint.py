"""Dataset fingerprints of hf_textdp.Privatizer: equal configurations hash alike in every
process; anything that changes the release changes the hash; no generator enters it."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

datasets = pytest.importorskip("datasets")

from datasets.fingerprint import Hasher  # noqa: E402

from hf_textdp import Privatizer, privatize  # noqa: E402
from textdp.tables import EmbeddingTable  # noqa: E402

# Printed by each subprocess: hashes of a few configurations, built fresh in that process.
_CHILD = """
import json
from datasets.fingerprint import Hasher
from hf_textdp import Privatizer, privatize
print(json.dumps({
    "module": Hasher.hash(privatize),
    "default": Hasher.hash(Privatizer()),
    "custom": Hasher.hash(Privatizer(epsilon=3, mechanism={"name": "mahalanobis", "lam": 0.5},
                                     targets=["PERSON", "ORG"], seed=11, text_column="review",
                                     report_columns=True)),
}))
"""


def _configs(tmp_path: Path) -> dict[str, Privatizer]:
    vec = tmp_path / "tiny.vec"
    vec.write_text("3 2\nalpha 0.1 0.2\nbeta 0.3 0.1\ngamma -0.2 0.5\n", encoding="utf-8")
    table = EmbeddingTable(["alpha", "beta", "gamma"], np.eye(3, dtype=np.float32))
    return {
        "base": Privatizer(),
        "epsilon": Privatizer(epsilon=1.0),
        "mechanism": Privatizer(mechanism="mahalanobis"),
        "mechanism_args": Privatizer(mechanism={"name": "mahalanobis", "lam": 0.7}),
        "table_file": Privatizer(table=str(vec)),
        "table_object": Privatizer(table=table),
        "targets": Privatizer(targets="all"),
        "targets_labels": Privatizer(targets=["PERSON", "ORG"]),
        "seed": Privatizer(seed=1),
        "seed_other": Privatizer(seed=2),
        "column": Privatizer(text_column="review"),
    }


def test_same_hash_in_two_processes():
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env) for _ in range(2)]
    outputs = [json.loads(p.communicate(timeout=240)[0].strip().splitlines()[-1])
               for p in procs]
    assert outputs[0] == outputs[1]
    assert outputs[0]["module"] == Hasher.hash(privatize) == Hasher.hash(Privatizer())
    assert outputs[0]["custom"] == Hasher.hash(Privatizer(
        epsilon=3, mechanism={"name": "mahalanobis", "lam": 0.5}, targets=["PERSON", "ORG"],
        seed=11, text_column="review", report_columns=True))


def test_hash_differs_when_the_release_would(tmp_path):
    hashes = {name: Hasher.hash(p) for name, p in _configs(tmp_path).items()}
    assert len(set(hashes.values())) == len(hashes), hashes


def test_equal_configurations_spelled_differently_hash_alike():
    h = Hasher.hash(Privatizer(epsilon=0.5))
    assert Hasher.hash(Privatizer(epsilon=0.5, mechanism="mlaplace")) == h
    assert Hasher.hash(Privatizer(epsilon=0.5, mechanism={"name": "mlaplace"})) == h
    assert Hasher.hash(Privatizer(epsilon=0.5, targets="PER", table="default")) == h


def test_table_file_edit_changes_hash(tmp_path):
    vec = tmp_path / "t.vec"
    vec.write_text("2 2\nalpha 0.1 0.2\nbeta 0.3 0.1\n", encoding="utf-8")
    before = Hasher.hash(Privatizer(table=str(vec)))
    vec.write_text("2 2\nalpha 0.9 0.2\nbeta 0.3 0.1\nx\n", encoding="utf-8")
    assert Hasher.hash(Privatizer(table=str(vec))) != before


def test_unseeded_generator_never_enters_the_hash():
    a, b = Privatizer(), Privatizer()
    assert a.core.rng is not b.core.rng  # each has its own OS-entropy generator ...
    assert Hasher.hash(a) == Hasher.hash(b)  # ... and neither is hashed
    assert b"RandomSource" not in pickle.dumps(a)
    before = Hasher.hash(a)
    a({"text": ["Angela Merkel met John Smith in Berlin."]})  # loads models, draws noise
    assert Hasher.hash(a) == before


def test_dataset_cache_is_reused_exactly_for_equal_configurations(tmp_path):
    src = datasets.Dataset.from_dict({"text": ["Angela Merkel met John Smith in Berlin."] * 3,
                                      "n": [0, 1, 2]})
    src.save_to_disk(str(tmp_path / "ds"))
    ds = datasets.load_from_disk(str(tmp_path / "ds"))
    first = ds.map(Privatizer(), batched=True)
    again = ds.map(Privatizer(), batched=True)  # unseeded, yet the same release is re-served
    assert again._fingerprint == first._fingerprint
    assert again["text"] == first["text"]
    other = ds.map(Privatizer(epsilon=0.7), batched=True)
    assert other._fingerprint != first._fingerprint
    assert other.cache_files[0]["filename"] != first.cache_files[0]["filename"]
