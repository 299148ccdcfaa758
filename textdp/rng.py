"""Explicit random generators for every draw (DESIGN.md rule 6).

Nothing in textdp touches numpy's or Python's global RNG. A :class:`RandomSource` owns one
numpy ``Generator`` (scalar-per-token draws such as Gamma magnitudes) and one ``torch.Generator``
per device (bulk Gaussian directions, uniforms). Both come from one ``SeedSequence``: seeded from
OS entropy by default; a fixed ``seed`` makes runs reproducible and is *not private* against
anyone who knows it. ``secure=True`` re-keys both generators from ``os.urandom`` before every
batch, so no state outlives one batch and nothing predictable seeds the next.

A forked child (``nlp.pipe(n_process=2)``, ``datasets.map(num_proc=2)``) would inherit its
parent's generator state and draw the same noise as its siblings; unseeded sources are re-keyed
from OS entropy in every forked child. Seeded sources are copied as they are (reproducible, and
not private, like any fixed seed).
"""

from __future__ import annotations

import os
import secrets
import weakref

import numpy as np
import torch


class RandomSource:
    """The generators one privatizer or mechanism draws from.

    Args:
        seed: an integer for reproducible output (documented as not private against anyone
            who knows it), or ``None`` for fresh OS entropy.
        secure: re-key from ``os.urandom`` for every batch (see module docstring).
    """

    def __init__(self, seed: int | None = None, *, secure: bool = False) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
        if secure and seed is not None:
            raise ValueError("seed and secure=True exclude each other: a known seed is not secure")
        self.seed = seed
        self.secure = secure
        entropy = seed if seed is not None else secrets.randbits(128)
        self._sequence = np.random.SeedSequence(entropy)
        self.numpy = np.random.default_rng(self._sequence.spawn(1)[0])
        self._torch: dict[str, torch.Generator] = {}
        if seed is None:
            _UNSEEDED.add(self)

    def torch(self, device: torch.device | str = "cpu") -> torch.Generator:
        """The torch generator for ``device`` (created on first use, seeded from this source)."""
        key = str(torch.device(device))
        gen = self._torch.get(key)
        if gen is None:
            gen = torch.Generator(device=key)
            gen.manual_seed(int(self._sequence.spawn(1)[0].generate_state(1, np.uint64)[0] >> 1))
            self._torch[key] = gen
        return gen

    def next_batch(self) -> None:
        """Called once per batch: in secure mode, re-key everything from OS entropy."""
        if self.secure:
            self._rekey()

    def _rekey(self) -> None:
        """Replace all generator state with fresh OS entropy."""
        self._sequence = np.random.SeedSequence(int.from_bytes(os.urandom(32), "little"))
        self.numpy = np.random.default_rng(self._sequence.spawn(1)[0])
        self._torch.clear()

    def spawn(self) -> RandomSource:
        """An independent child source (for a mechanism's one-off draws, e.g. a projection)."""
        child = RandomSource.__new__(RandomSource)
        child.seed, child.secure = self.seed, self.secure
        child._sequence = self._sequence.spawn(1)[0]
        child.numpy = np.random.default_rng(child._sequence.spawn(1)[0])
        child._torch = {}
        if child.seed is None:
            _UNSEEDED.add(child)
        return child

    def __repr__(self) -> str:
        mode = "secure" if self.secure else ("seeded" if self.seed is not None else "os-entropy")
        return f"RandomSource({mode})"


# Unseeded sources alive in this process: re-keyed in forked children (see module docstring).
_UNSEEDED: weakref.WeakSet[RandomSource] = weakref.WeakSet()


def _rekey_after_fork() -> None:
    for source in list(_UNSEEDED):
        source._rekey()


os.register_at_fork(after_in_child=_rekey_after_fork)
