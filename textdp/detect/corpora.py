"""The person-annotated corpora the name detectors are trained and chosen on, per domain.

Three public corpora in ``../shared/data`` (see its README) cover three kinds of text:

* ``conll``: CoNLL-2003 English newswire (``PER``; train ``eng.train``, dev ``eng.testa``);
* ``wnut17``: WNUT-17 emerging entities, posts from Twitter, Reddit, YouTube and Stack
  Overflow, many lower case (``person``; train ``wnut17train.conll``, dev
  ``emerging.dev.conll``);
* ``btc``: the Broad Twitter Corpus (``PER``). It has no dev split of its own: section ``b``
  (UK non-directed tweets, 2012; 2,000 tweets, 865 persons) is held out as its dev set and
  sections ``a``, ``e``, ``f``, ``g`` are trained on. ``b`` is the section most like plain
  users' tweets, the text the detector does worst on, and it is never trained on.

:func:`load_split` reads a split as :class:`~textdp.detect.conll.Document` lists with one
text per unit (a CoNLL sentence, a post, a tweet). Only the reading lives here, so training,
evaluation and benchmarks share one definition of the splits; nothing reads a test set.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from textdp.detect.conll import Document, Sentence, read_conll


@dataclass(frozen=True)
class Domain:
    """One corpus: its training files and its dev file, relative to the data folder."""

    name: str
    description: str
    train: tuple[str, ...]
    dev: str


DOMAINS: dict[str, Domain] = {
    "conll": Domain("conll", "newswire (CoNLL-2003)", ("conll2003/eng.train",),
                    "conll2003/eng.testa"),
    "wnut17": Domain("wnut17", "Reddit/YouTube/Twitter posts (WNUT-17)",
                     ("wnut17/wnut17train.conll",), "wnut17/emerging.dev.conll"),
    "btc": Domain("btc", "tweets (Broad Twitter Corpus; section b held out)",
                  ("btc/a.conll", "btc/e.conll", "btc/f.conll", "btc/g.conll"), "btc/b.conll"),
}


def default_data_dir() -> Path:
    """``../shared/data`` beside the source checkout (or ``$TEXTDP_DATA``)."""
    env = os.environ.get("TEXTDP_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def resolve_domains(names: str | Sequence[str] | None) -> list[Domain]:
    """Domains by name (``None`` or ``"all"``: every domain)."""
    if names is None or names == "all":
        return list(DOMAINS.values())
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in names if n not in DOMAINS]
    if unknown:
        raise ValueError(f"unknown domain(s) {', '.join(unknown)}; known: "
                         f"{', '.join(DOMAINS)}")
    return [DOMAINS[n] for n in names]


def load_split(domain: Domain, split: str, data_dir: str | os.PathLike[str] | None = None
               ) -> list[Document]:
    """The ``"train"`` or ``"dev"`` documents of ``domain``, one sentence (post, tweet) per
    document, so every unit is a text of its own."""
    if split not in ("train", "dev"):
        raise ValueError(f"split must be 'train' or 'dev', got {split!r}")
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    files = domain.train if split == "train" else (domain.dev,)
    out: list[Document] = []
    for rel in files:
        path = root / rel
        if not path.is_file():
            raise FileNotFoundError(2, f"{domain.name} {split} data not found", os.fspath(path))
        out.extend([s] for d in read_conll(path) for s in d)
    return out


def sentences(documents: Sequence[Document]) -> list[Sentence]:
    """All sentences of ``documents`` in order."""
    return [s for d in documents for s in d]
