"""Toy fixtures of the stage tests: a tiny public table built here, no embedded model."""

from __future__ import annotations

import numpy as np
import pytest
import torch

#: The toy table's words: one axis each, so a draw at a large ε decodes to its own word. Two
#: are anchors of the public person stand-in (textdp.pipeline.candidates.NAME_ANCHORS).
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "John", "Mary")
CPU = torch.device("cpu")


@pytest.fixture(scope="session")
def toy_table():
    """Ten words on ten orthogonal axes (length 10): every word its own nearest neighbour,
    the others all at one distance."""
    from textdp.tables import EmbeddingTable

    return EmbeddingTable(list(WORDS), np.eye(len(WORDS), dtype=np.float32) * 10, name="toy")


@pytest.fixture
def toy_substituter(toy_table):
    """A factory: ``(epsilon=1000.0, key=None, seed=0, **settings) -> (Substituter, rng)``
    on the toy table, static representation, ``replace="word"`` unless ``settings`` say."""
    from textdp.config import PrivatizerConfig
    from textdp.keyed_sources import resolve_key
    from textdp.mechanisms import create_mechanism
    from textdp.pipeline.candidates import CandidateSpace
    from textdp.pipeline.substitution import Substituter
    from textdp.rng import RandomSource

    def make(epsilon: float = 1000.0, key: str | None = None, seed: int = 0, **settings):
        settings.setdefault("replace", "word")
        settings.setdefault("targets", ["PERSON", "EMAIL"])
        config = PrivatizerConfig(table=toy_table, epsilon=epsilon, seed=seed, key=key,
                                  **settings)
        rng = RandomSource(seed)
        mechanism = create_mechanism(config.mechanism, epsilon)
        space = CandidateSpace(toy_table, mechanism, clip_norm=None, exclude=frozenset(),
                               index_backend="exact", device=CPU, rng=rng,
                               replace=config.effective_replace, name_required=False)
        secret = None if key is None else resolve_key(key, None)
        return Substituter(config, mechanism, space, key=secret, encoder=None, device=CPU), rng

    return make
