"""Keyed random streams (Privatizer.use_stream): the core keys every front end's streams.

No front end assigns a privatizer's ``rng`` or calls a private method of the core; parallel
copies of one seeded privatizer (datasets workers, Spark tasks, spaCy's ``n_process``) draw
from distinct streams.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FRONT_ENDS = [*sorted((ROOT / "spacy_textdp").glob("*.py")),
              *sorted((ROOT / "hf_textdp").glob("*.py")), ROOT / "textdp" / "spark.py",
              *sorted((ROOT / "textdp" / "cli").glob("*.py"))]
# Names the front ends give a core privatizer.
CORE_NAMES = r"(?:core|privatizer|priv|self\.privatizer|self\.core|self\._privatizer)"


def test_no_front_end_assigns_rng_or_calls_private_core_methods():
    offences = []
    for path in FRONT_ENDS:
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            # A front end's own generator (self.rng) is its own; a core's is never assigned.
            if re.search(r"(?<!\bself)\.rng\s*=(?!=)", code) or \
                    re.search(rf"\b{CORE_NAMES}\._[a-z]\w*\(", code) or \
                    re.search(r"\b_?(?:core|privatizer)\(\)\._[a-z]\w*", code):
                offences.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offences == []


def test_use_stream_keys_distinct_reproducible_streams():
    from textdp.privatizer import Privatizer

    p = Privatizer(seed=5, targets="all", replace="tag")
    with pytest.raises(ValueError, match="stream kind"):
        p.use_stream("batch", 1)
    with pytest.raises(ValueError, match="non-negative"):
        p.use_stream("index", -1)

    def draws(kind, *key):
        p.use_stream(kind, *key)
        return p.rng.numpy.random(3).tolist()

    assert draws("index", 4) == draws("index", 4)  # an index stream starts at its key
    assert draws("index", 4) != draws("worker", 4) != draws("partition", 4)
    first = draws("worker", 1)
    assert draws("worker", 1) != first  # a worker's stream continues
    unseeded = Privatizer(targets="all", replace="tag")
    rng = unseeded.rng
    unseeded.use_stream("index", 1)
    assert unseeded.rng is rng  # without a seed nothing changes


def test_spacy_n_process_keys_each_process(tmp_path):
    """nlp.pipe(n_process=2) with a seed: 16 identical rows gave 8 distinct outputs, each
    twice (both processes restarted the parent's seeded stream)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("dp_privatizer", config={"seed": 7, "targets": "all", "epsilon": 0.5})
    text = "Mr John Smith wrote to Dr Angela Merkel about the Berlin meeting today"
    nlp(text)  # load the table before the processes fork
    outputs = [d.text for d in nlp.pipe([text] * 16, n_process=2, batch_size=1)]
    assert len(outputs) == 16
    assert len(set(outputs)) > 12
