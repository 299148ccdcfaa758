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

One more domain is read for evaluation only (:data:`EVAL_DOMAINS`, never trained on):

* ``enron``: 36 Enron e-mail threads with person mentions annotated for coreference
  (``enron-email/``; Dakle et al., LREC 2020, Apache-2.0): real headers, quoted replies,
  signatures and address lists. A thread is one text, its lines kept apart by line-break
  tokens. The corpus marks every mention of a person (pronouns, roles, groups:
  ``you``, ``the IRS``); the gold names are the words of name-like mentions
  (:func:`read_enron`).

:func:`load_split` reads a split as :class:`~textdp.corpora.conll.Document` lists with one
text per unit (a CoNLL sentence, a post, a tweet). Only the reading lives here, so training,
evaluation and benchmarks share one definition of the splits; nothing reads a test set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from textdp.corpora.conll import LINE_BREAK, Document, Sentence, read_conll


@dataclass(frozen=True)
class Domain:
    """One corpus: its training files and its dev file, relative to the data folder."""

    name: str
    description: str
    train: tuple[str, ...]
    dev: str
    #: ``"conll"`` (a CoNLL file) or ``"enron"`` (a folder of coreference threads).
    reader: str = "conll"


DOMAINS: dict[str, Domain] = {
    "conll": Domain("conll", "newswire (CoNLL-2003)", ("conll2003/eng.train",),
                    "conll2003/eng.testa"),
    "wnut17": Domain("wnut17", "Reddit/YouTube/Twitter posts (WNUT-17)",
                     ("wnut17/wnut17train.conll",), "wnut17/emerging.dev.conll"),
    "btc": Domain("btc", "tweets (Broad Twitter Corpus; section b held out)",
                  ("btc/a.conll", "btc/e.conll", "btc/f.conll", "btc/g.conll"), "btc/b.conll"),
}


#: Domains read for evaluation only: the trained-on domains and the Enron e-mail threads
#: (no training split: all 36 threads are dev).
EVAL_DOMAINS: dict[str, Domain] = {
    **DOMAINS,
    "enron": Domain("enron", "e-mail threads (Enron, LREC 2020 coreference corpus)", (),
                    "enron-email", reader="enron"),
}


def default_data_dir() -> Path:
    """``../shared/data`` beside the source checkout (or ``$TEXTDP_DATA``)."""
    env = os.environ.get("TEXTDP_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def resolve_domains(names: str | Sequence[str] | None) -> list[Domain]:
    """Domains by name (``None`` or ``"all"``: every evaluation domain, e-mail included)."""
    if names is None or names == "all":
        return list(EVAL_DOMAINS.values())
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in names if n not in EVAL_DOMAINS]
    if unknown:
        raise ValueError(f"unknown domain(s) {', '.join(unknown)}; known: "
                         f"{', '.join(EVAL_DOMAINS)}")
    return [EVAL_DOMAINS[n] for n in names]


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
        if domain.reader == "enron":
            if not path.is_dir():
                raise FileNotFoundError(2, f"{domain.name} {split} data not found",
                                        os.fspath(path))
            out.extend([s] for s in read_enron(path))
            continue
        if not path.is_file():
            raise FileNotFoundError(2, f"{domain.name} {split} data not found", os.fspath(path))
        out.extend([s] for d in read_conll(path) for s in d)
    return out


# ---------------------------------------------------------------------------- e-mail
#: A mention mark of the Enron threads' entity column: ``(P0*``, ``P0)``, ``(P12)``.
_MARK = re.compile(r"^(\()?([A-Z])(\d+)\*?(\))?$")
# Words of a person mention that are not a name: pronouns, determiners, kinship and titles.
_NOT_NAME_WORDS = frozenset({
    "i", "you", "we", "he", "she", "they", "me", "him", "her", "us", "them", "my", "your",
    "our", "his", "their", "its", "the", "a", "an", "uncle", "aunt", "mom", "mommy", "dad",
    "daddy",
})
# Head words of a person mention that names a group of people, not a person ("Natural Gas
# Reliability Advisory Group", "The 3 SME", "DL - IT Calgary": a distribution list).
_GROUP_WORDS = frozenset({
    "group", "groups", "team", "teams", "department", "dept", "committee", "council", "board",
    "staff", "sme", "smes", "desk", "dl", "it", "office", "members", "association", "company",
    "inc", "corp", "llc", "ltd",
})
_INITIAL = re.compile(r"^[A-Z]\.$")  # "A." of "Sheri A. Righi", not the article "a"
_MAX_NAME_MENTION = 8  # tokens; longer person mentions are descriptions ("the head of ...")


def enron_mentions(path: str | os.PathLike[str]
                   ) -> tuple[list[list[str]], list[tuple[str, str, int, int]]]:
    """One thread file: its lines (lists of tokens) and its mentions ``(type, chain, start,
    end)`` in token positions of the thread (the lines concatenated, end exclusive)."""
    lines: list[list[str]] = [[]]
    mentions: list[tuple[str, str, int, int]] = []
    stack: list[tuple[str, str, int]] = []
    i = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or not parts[0]:
                if lines[-1]:
                    lines.append([])
                continue
            lines[-1].append(parts[0])
            if parts[2].strip() != "-":
                for mark in parts[2].split("|"):
                    m = _MARK.match(mark.strip())
                    if m is None:
                        continue
                    opens, kind, chain, closes = m.groups()
                    if opens:
                        stack.append((kind, chain, i))
                    if closes:
                        for k in range(len(stack) - 1, -1, -1):
                            if stack[k][:2] == (kind, chain):
                                mentions.append((kind, chain, stack.pop(k)[2], i + 1))
                                break
            i += 1
    return [ln for ln in lines if ln], mentions


def _name_like(tokens: Sequence[str]) -> bool:
    """A mention written as a name: short, every word capitalised or an address (particles
    such as ``de la`` aside)."""
    from textdp.detect.rules import PARTICLES

    words = [t for t in tokens if any(c.isalpha() for c in t)]
    return 0 < len(tokens) <= _MAX_NAME_MENTION and bool(words) and all(
        "@" in t or t[:1].isupper() or t.casefold() in PARTICLES for t in words)


def _name_token(token: str) -> bool:
    from textdp.detect.rules import TITLES

    if "@" in token or _INITIAL.match(token):
        return True
    key = token.casefold().rstrip(".")
    return (token[:1].isupper() and any(c.isalpha() for c in token)
            and key not in _NOT_NAME_WORDS and key not in TITLES)


def read_enron(folder: str | os.PathLike[str]) -> list[Sentence]:
    """The Enron threads of ``folder`` (``*.conll``, sorted), one :class:`Sentence` each: the
    thread's tokens with a line-break token between lines, ``B-PER``/``I-PER`` on its name
    tokens. A name token is a capitalised word (not a pronoun, kinship word or title), an
    initial (``A.``) or an e-mail address inside a name-like person mention
    (:func:`_name_like`) of a chain that shows a name: one of its name-like mentions holds a
    name token and no group word (:data:`_GROUP_WORDS`), so a group written in capitals
    ("Natural Gas Reliability Advisory Group") is not a name, while names of any origin
    (``Zhiyong``, ``Gulay Soykok``) are, whether or not the census lists know them."""
    out = []
    for path in sorted(Path(folder).glob("*.conll")):
        lines, mentions = enron_mentions(path)
        flat = [t for ln in lines for t in ln]
        persons = [(c, s, e) for kind, c, s, e in mentions
                   if kind == "P" and _name_like(flat[s:e])]
        named = {c for c, s, e in persons
                 if any(_name_token(t) for t in flat[s:e])
                 and not any(t.casefold() in _GROUP_WORDS for t in flat[s:e])}
        is_name = [False] * len(flat)
        for c, s, e in persons:
            if c in named:
                for k in range(s, e):
                    is_name[k] = is_name[k] or _name_token(flat[k])
        tokens: list[str] = []
        tags: list[str] = []
        k = 0
        for ln in lines:
            if tokens:
                tokens.append(LINE_BREAK)
                tags.append("O")
            for t in ln:
                tokens.append(t)
                if is_name[k]:
                    tags.append("I-PER" if tags and tags[-1] != "O" else "B-PER")
                else:
                    tags.append("O")
                k += 1
        out.append(Sentence(tuple(tokens), tuple(tags)))
    return out


def sentences(documents: Sequence[Document]) -> list[Sentence]:
    """All sentences of ``documents`` in order."""
    return [s for d in documents for s in d]
