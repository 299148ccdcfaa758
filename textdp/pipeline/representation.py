"""Representation: the vector each draw starts from.

Static: the target's row of the public table; a target without one (out of vocabulary) or
over its text's budget gets a public stand-in vector that does not depend on it
(docs/architecture.md rule 2). Contextual: the target's hidden state read in the context
:mod:`textdp.pipeline.contexts` builds, clipped like the candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from textdp.contextual import ContextualEncoder
from textdp.name_vocabulary import PERSON
from textdp.pipeline.candidates import CandidateSpace
from textdp.pipeline.contexts import target_contexts
from textdp.place_vocabulary import PLACE_LABELS, place_vector


def static_inputs(space: CandidateSpace, tokens: list[str], labels: list[str | None],
                  over: np.ndarray, device: torch.device
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """The distinct table vectors of the targets and which one each target uses. A place
    the table has no row for ("New York") reads the mean of its words' rows
    (:func:`~textdp.place_vocabulary.place_vector`)."""
    table = space.table
    rows = table.lookup(tokens)
    # Out-of-vocabulary (and over-budget) targets get a public fallback key: -1 (general)
    # or -2 (person); a place of several words its own key, -3 and below.
    rows = np.where(over, -1, rows)
    oov = rows < 0
    phrases: list[np.ndarray] = []
    if oov.any():
        person = np.fromiter((lab == PERSON for lab in labels), bool, count=len(labels))
        rows = np.where(oov & person, -2, rows)
        for i in np.flatnonzero(oov & ~over).tolist():
            if labels[i] in PLACE_LABELS:
                vec = place_vector(table, tokens[i])
                if vec is not None:
                    rows[i] = -3 - len(phrases)
                    phrases.append(vec)
    uniq, inverse = np.unique(rows, return_inverse=True)
    vecs = np.empty((len(uniq), table.dim), dtype=np.float32)
    known = uniq >= 0
    vecs[known] = table.lookup_vectors[uniq[known]]
    vecs[uniq == -1] = space.fallback["*"]
    vecs[uniq == -2] = space.fallback[PERSON]
    for u in np.flatnonzero(uniq <= -3).tolist():
        vecs[u] = phrases[-3 - int(uniq[u])]
    return (torch.from_numpy(vecs).to(device),
            torch.from_numpy(inverse.astype(np.int64).reshape(-1)).to(device))


def contextual_inputs(encoder: ContextualEncoder, space: CandidateSpace, docs: Sequence[Any],
                      flat: list[tuple[int, int]], labels: list[str], wanted: np.ndarray, *,
                      isolate: bool, device: torch.device,
                      context_targets: Sequence[dict[int, str]] | None = None) -> torch.Tensor:
    """Each target's contextual vector (``flat``: (doc, token) per target), read in the
    context :mod:`textdp.pipeline.contexts` builds (``isolate``: the other targets masked by public
    words), clipped to the space's radius; targets not ``wanted`` (over budget, or later
    mentions of a name) and, should a tokenizer drop a word's characters, words without a
    piece get the public stand-in vector instead. ``context_targets``: per doc, targets read
    as context only (a neighbouring chunk's), masked too."""
    texts, spans, rows = target_contexts(docs, flat, labels, wanted, isolate=isolate,
                                         context_targets=context_targets)
    person = torch.from_numpy(np.fromiter((lab == PERSON for lab in labels), bool,
                                          count=len(labels))).to(device)
    vecs = torch.where(person[:, None],
                       torch.from_numpy(space.fallback[PERSON]).to(device),
                       torch.from_numpy(space.fallback["*"]).to(device))
    if texts:
        with torch.inference_mode():
            found_vecs, found = encoder.encode_spans(texts, spans)
            radius = space.radius
            if radius is not None:
                norms = torch.linalg.vector_norm(found_vecs, dim=1, keepdim=True)
                found_vecs = found_vecs * (radius / norms.clamp_min(1e-12)).clamp(max=1.0)
            where = torch.from_numpy(rows).to(device)
            vecs[where[found]] = found_vecs[found]
    return vecs
