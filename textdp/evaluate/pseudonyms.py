"""Do names become names, consistently, at the stated cost? Measured on labelled text.

    textdp evaluate pseudonyms --data ../shared/data            # CoNLL dev articles, WNUT, BTC
    textdp evaluate pseudonyms --data ../shared/data --replace word --domains conll

(:func:`evaluate_pseudonyms` from Python; the command is :mod:`textdp.cli.evaluate.pseudonyms`.)

For every gold person word token (one with a letter) of each dev text (CoNLL-2003 dev: whole
articles; WNUT-17 and BTC: one post or tweet per text) the privatizer's output word is compared
with the original:

* ``survived``: the output is the original word (missed by the detector, or drawn unchanged);
* ``in_lexicon``: of the replaced person tokens, the share whose substitute is a name of the
  name lists (multi-origin lists, census lists at any rank), and ``in_lexicon_strict`` with
  the census lists within the vocabulary's rank cuts;
* ``consistent``: of the names repeated inside a text (same
  :func:`~textdp.name_vocabulary.name_key`, all mentions replaced), the share replaced the
  same way every time;
* ``draws``, ``epsilon_total``: what the reports charge, against the distinct names targeted
  (per text: distinct (label, name) among the tokens the detector marks) and the distinct
  gold names;
* ``unchanged``: P(a person word comes back unchanged), sampled ``--draws`` times per distinct
  gold person word with a table vector (its own kind's candidates, as the privatizer decodes
  it): the mean over words, the largest, and the share of words above 1 %.

Docs are built from the gold tokens, so output and gold tokens align one to one.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from textdp.corpora.conll import Document, read_conll, to_docs
from textdp.detect import lexicon
from textdp.name_vocabulary import (
    FIRST_NAME_MAX_RANK,
    PERSON,
    SURNAME_MAX_RANK,
    lexicon_kind,
    listed_names,
    name_key,
)
from textdp.pipeline.draw_plan import positional_kinds
from textdp.rng import RandomSource
from textdp.targets import is_word

UNCHANGED_LIMIT = 0.01  # the target: a name comes back unchanged in at most 1 % of draws


def is_lexicon_name(word: str, strict: bool = False) -> bool:
    """Whether ``word`` is in the name lists: the multi-origin lists of the vocabulary
    (:func:`~textdp.name_vocabulary.listed_names`) or the census lists (within the
    vocabulary's rank cuts when ``strict``)."""
    first, last = (FIRST_NAME_MAX_RANK, SURNAME_MAX_RANK) if strict else (None, None)
    return name_key(word) in listed_names() or lexicon.is_first_name(word, first) \
        or lexicon.is_surname(word, last)


def score_texts(privatizer: Any, documents: list[Document]) -> dict[str, Any]:
    """Survival, lexicon share, consistency and cost of ``privatizer`` on gold-labelled texts
    (one text per document)."""
    docs, gold = to_docs(documents, vocab=privatizer.nlp.vocab)
    person = n_replaced = in_lex = in_strict = survived = 0
    repeated = consistent = 0
    draws = distinct_names = targeted_names = 0
    epsilon_total = 0.0
    start = time.perf_counter()
    batch = max(1, privatizer.batch_size // 8)
    for lo in range(0, len(docs), batch):
        chunk = docs[lo:lo + batch]
        masks = privatizer.target_masks(chunk)
        for doc, mask in zip(chunk, masks):
            targeted_names += len({(label, name_key(t.text)) for t, label in zip(doc, mask)
                                   if label is not None})
        for doc, spans, (words, report) in zip(chunk, gold[lo:lo + batch],
                                               privatizer.privatize_docs(chunk)):
            outputs: dict[str, set[str]] = defaultdict(set)
            mentions: dict[str, int] = defaultdict(int)
            for s, e, label in spans:
                if label != PERSON:
                    continue
                for k in range(s, e):
                    original, new = doc[k].text, words[k]
                    if not is_word(original):
                        continue  # "@" of a tokenized handle: no policy replaces punctuation
                    person += 1
                    if new == original:
                        survived += 1
                        continue
                    n_replaced += 1
                    in_lex += is_lexicon_name(new)
                    in_strict += is_lexicon_name(new, strict=True)
                    key = name_key(original)
                    outputs[key].add(name_key(new))
                    mentions[key] += 1
            repeated += sum(1 for key, n in mentions.items() if n > 1)
            consistent += sum(1 for key, n in mentions.items()
                              if n > 1 and len(outputs[key]) == 1)
            distinct_names += len({name_key(doc[k].text) for s, e, label in spans
                                   if label == PERSON for k in range(s, e)})
            draws += report.draws
            epsilon_total += report.epsilon_total
    seconds = time.perf_counter() - start
    return {
        "texts": len(docs), "person_tokens": person,
        "survived": survived / person if person else 0.0,
        "in_lexicon": in_lex / n_replaced if n_replaced else 0.0,
        "in_lexicon_strict": in_strict / n_replaced if n_replaced else 0.0,
        "repeated_names": repeated,
        "consistent": consistent / repeated if repeated else None,
        "draws": draws, "distinct_gold_names": distinct_names,
        "distinct_targeted_names": targeted_names,
        "epsilon": privatizer.epsilon, "epsilon_total": epsilon_total,
        "seconds": seconds,
    }


def unchanged_rates(privatizer: Any, words: list[str], kinds: list[str], draws: int,
                    seed: int = 0, chunk: int = 50_000) -> np.ndarray:
    """P(unchanged) per word, estimated from ``draws`` draws of its vector decoded to its
    ``kinds`` candidates (``"word"`` or a name kind) exactly as the privatizer decodes; NaN
    for a word without a table vector (it is replaced by a draw from a public stand-in)."""
    space = privatizer.candidates
    rows = space.lookup(words)
    out = np.full(len(words), np.nan)
    rng = RandomSource(seed)
    for kind in dict.fromkeys(kinds):
        candidates = privatizer.space.decoder(kind)
        picked = [i for i, k in enumerate(kinds) if k == kind and rows[i] >= 0]
        if not picked:
            continue
        vecs = torch.from_numpy(space.lookup_vectors[rows[picked]]).to(privatizer.device)
        per = max(1, chunk // draws)
        for lo in range(0, len(picked), per):
            part = np.arange(lo, min(lo + per, len(picked)))
            inverse = torch.from_numpy(np.repeat(part, draws)).to(privatizer.device)
            with torch.inference_mode():
                drawn = candidates.draw(privatizer.mechanism, vecs, inverse, rng)
            original = np.repeat([words[picked[i]].casefold() for i in part], draws)
            same = np.fromiter((d.casefold() == o for d, o in zip(drawn, original)), bool,
                               count=len(drawn))
            out[np.asarray(picked)[part]] = same.reshape(len(part), draws).mean(axis=1)
    return out


def person_words(documents: list[Document]) -> tuple[list[str], list[str]]:
    """The distinct gold person words of ``documents`` and the kind the privatizer would
    give each (census list, else position in its first name span)."""
    kinds: dict[str, str] = {}
    for doc in documents:
        for sent in doc:
            mask: list[str | None] = [None] * len(sent.tokens)
            for s, e, label in sent.spans:
                if label == PERSON:
                    mask[s:e] = [PERSON] * (e - s)
            for word, kind in zip(sent.tokens, positional_kinds(mask)):
                if kind is not None and word.isalpha() and word not in kinds:
                    kinds[word] = lexicon_kind(name_key(word)) or kind
    return list(kinds), list(kinds.values())


def evaluate_pseudonyms(*, data_dir: str | os.PathLike[str] | None = None,
                        domains: str | Sequence[str] = "conll,wnut17,btc",
                        replace: str | None = None, epsilon: float | None = None,
                        consistency: str = "document", draws: int = 2000,
                        limit: int | None = None, seed: int = 0,
                        log: Callable[[str], Any] = lambda line: None) -> dict[str, Any]:
    """The figures of the module docstring on every domain's dev split.

    Args:
        data_dir: the data folder (default: ``../shared/data`` or ``$TEXTDP_DATA``).
        domains: comma-separated or a list of ``conll``, ``wnut17``, ``btc``.
        replace, epsilon, consistency: the privatizer's (``None``: its defaults).
        draws: draws per person word for P(unchanged) (0: not measured).
        limit: only the first N texts per domain.
        seed: the privatizer's and the draws' seed (figures are reproducible).
        log: called with one summary line per domain (counts and shares; never text).

    Returns:
        ``{"config": <the privatizer's description>, <domain>: <its row>, ...}``.
    """
    from textdp.corpora.domains import DOMAINS, default_data_dir, load_split, resolve_domains
    from textdp.privatizer import Privatizer

    privatizer = Privatizer(epsilon=epsilon, replace=replace, seed=seed,
                            consistency=consistency)
    root = data_dir or default_data_dir()
    results: dict[str, Any] = {"config": privatizer.describe()}
    for domain in resolve_domains(domains):
        # CoNLL dev as whole articles (names repeat inside them); the others post by post.
        documents = read_conll(f"{root}/{DOMAINS['conll'].dev}") if domain.name == "conll" \
            else load_split(domain, "dev", root)
        documents = documents[:limit] if limit else documents
        row = score_texts(privatizer, documents)
        if draws:
            words, kinds = person_words(documents)
            if privatizer.replace != "name":
                kinds = ["word"] * len(kinds)
            rates = unchanged_rates(privatizer, words, kinds, draws, seed=seed)
            known = rates[~np.isnan(rates)]
            row.update(unchanged_words=int(known.size),
                       unchanged_mean=float(known.mean()) if known.size else None,
                       unchanged_max=float(known.max()) if known.size else None,
                       unchanged_over_1pct=float((known > UNCHANGED_LIMIT).mean())
                       if known.size else None)
        results[domain.name] = row
        log(_line(domain.name, row))
    return results


def _line(name: str, row: dict[str, Any]) -> str:
    consistent = "n/a" if row["consistent"] is None else f"{row['consistent']:.1%}"
    line = (f"{name:8s} texts {row['texts']:5d}  person tokens {row['person_tokens']:5d}  "
            f"survived {row['survived']:.1%}  names of the lexicon {row['in_lexicon']:.1%} "
            f"(strict {row['in_lexicon_strict']:.1%})  repeated names {row['repeated_names']} "
            f"consistent {consistent}  draws {row['draws']} for "
            f"{row['distinct_targeted_names']} distinct names targeted "
            f"({row['distinct_gold_names']} distinct gold names), "
            f"epsilon_total {row['epsilon_total']:.4g}")
    if row.get("unchanged_mean") is not None:
        line += (f"  P(unchanged) mean {row['unchanged_mean']:.3%} max "
                 f"{row['unchanged_max']:.2%} over {row['unchanged_words']} words, "
                 f"{row['unchanged_over_1pct']:.1%} above 1 %")
    return line
