"""Explicit random generators for every draw (docs/architecture.md rule 6).

Nothing in textdp touches numpy's or Python's global RNG. A :class:`RandomSource` owns one
numpy ``Generator`` and, on the fast path, one ``torch.Generator`` per device. Mechanisms draw
through :meth:`RandomSource.normal`, :meth:`RandomSource.uniform` and
:meth:`RandomSource.laplace` (tensors on any device) and ``RandomSource.numpy`` (scalars per
token, such as Gamma magnitudes), so the same mechanism code runs in both modes:

* default (fast): numpy ``PCG64`` and torch generators, both from one ``SeedSequence`` seeded
  from OS entropy; a fixed ``seed`` makes runs reproducible and is *not private* against anyone
  who knows it. Statistically sound, but not cryptographically secure: PCG64 and torch's
  Philox/Mersenne Twister state can be recovered from enough outputs.
* ``secure=True``: every random bit comes from ChaCha20 (``randomgen.ChaCha`` with 20 rounds, a
  cryptographically secure stream cipher), keyed with 256 bits from ``os.urandom`` (the
  operating system's CSPRNG) and re-keyed from ``os.urandom`` before every batch, so a leaked
  state reveals no other batch. Tensor draws are made on the CPU with that generator and moved
  to the device; there is no torch generator in this mode (``RandomSource.torch`` raises), so a
  draw that would bypass the CSPRNG fails loudly instead of silently. This is what Opacus'
  secure mode does with ``torchcsprng``. Like Opacus, it secures the *bits*; the floating-point
  sampling of continuous noise (Mironov 2012) is not hardened. The keyed streams of
  ``consistency="dataset"`` (:meth:`RandomSource.from_digest`) are ChaCha20 too in this mode,
  keyed with the 256-bit HMAC of the name instead of ``os.urandom``, and never re-keyed (the
  same key must give the same pseudonym).

A forked child (``nlp.pipe(n_process=2)``, ``datasets.map(num_proc=2)``) would inherit its
parent's generator state and draw the same noise as its siblings; unseeded sources (secure ones
included) are re-keyed from OS entropy in every forked child, and likewise when they are
unpickled or deep-copied. Seeded sources are copied as they are (reproducible, and not private,
like any fixed seed).
"""

from __future__ import annotations

import os
import secrets
import weakref
from collections.abc import Sequence

import numpy as np
import torch
from randomgen import ChaCha

# ChaCha20: the full-strength variant (RFC 8439); fewer rounds trade security for speed.
CHACHA_ROUNDS = 20
# Key size of ChaCha20 in bytes (256 bits), all of it from os.urandom.
KEY_BYTES = 32

Shape = int | Sequence[int]


def secure_generator() -> np.random.Generator:
    """A numpy ``Generator`` over ChaCha20 keyed with 256 bits from ``os.urandom``.

    The key is set directly (``key=``), not passed through numpy's ``SeedSequence`` hash,
    so the generator's whole state comes from the OS CSPRNG.
    """
    key = int.from_bytes(os.urandom(KEY_BYTES), "little")
    return np.random.Generator(ChaCha(key=key, rounds=CHACHA_ROUNDS))


class RandomSource:
    """The generators one privatizer or mechanism draws from.

    Args:
        seed: an integer for reproducible output (documented as not private against anyone
            who knows it), or ``None`` for fresh OS entropy.
        secure: draw every random bit from ChaCha20 keyed from ``os.urandom``, re-keyed per
            batch (see module docstring). Excludes ``seed``: a known seed is not secure.
    """

    def __init__(self, seed: int | None = None, *, secure: bool = False) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
        if not isinstance(secure, bool):
            raise ValueError(f"secure must be True or False, got {type(secure).__name__}")
        if secure and seed is not None:
            raise ValueError("seed and secure=True exclude each other: a known seed is not secure")
        self.seed = seed
        self.secure = secure
        self._torch: dict[str, torch.Generator] = {}
        if secure:
            self.numpy = secure_generator()
        else:
            entropy = seed if seed is not None else secrets.randbits(128)
            self._sequence = np.random.SeedSequence(entropy)
            self.numpy = np.random.default_rng(self._sequence.spawn(1)[0])
        if seed is None:
            _UNSEEDED.add(self)

    # ------------------------------------------------------------------ tensor draws
    def normal(self, shape: Shape, device: torch.device | str = "cpu",
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """Standard normal draws of ``shape`` on ``device``."""
        if self.secure:
            return self._from_numpy(self.numpy.standard_normal(_shape(shape),
                                                               dtype=_np_float(dtype)), device)
        return torch.randn(_shape(shape), generator=self.torch(device), device=device,
                           dtype=dtype)

    def uniform(self, shape: Shape, device: torch.device | str = "cpu",
                dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """Uniform draws on [0, 1) of ``shape`` on ``device``."""
        if self.secure:
            return self._from_numpy(self.numpy.random(_shape(shape), dtype=_np_float(dtype)),
                                    device)
        return torch.rand(_shape(shape), generator=self.torch(device), device=device,
                          dtype=dtype)

    def laplace(self, shape: Shape, scale: float, device: torch.device | str = "cpu",
                dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """Laplace(0, ``scale``) draws of ``shape`` on ``device`` (density ∝ exp(−|z|/scale)).

        Fast path: the difference of two independent Exponential(1) draws is Laplace(0, 1).
        """
        if not (scale > 0 and np.isfinite(scale)):
            raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
        if self.secure:
            draws = self.numpy.laplace(0.0, scale, _shape(shape))
            return self._from_numpy(draws.astype(_np_float(dtype), copy=False), device)
        gen = self.torch(device)
        pair = torch.empty((2, *_shape(shape)), device=device, dtype=dtype)
        pair.exponential_(1.0, generator=gen)
        return (pair[0] - pair[1]) * scale

    # ------------------------------------------------------------------ generators
    def torch(self, device: torch.device | str = "cpu") -> torch.Generator:
        """The torch generator for ``device`` (fast path only; created on first use).

        Raises ``RuntimeError`` in secure mode, where no draw may bypass the CSPRNG: use
        :meth:`normal`, :meth:`uniform`, :meth:`laplace` or ``numpy`` instead.
        """
        if self.secure:
            raise RuntimeError(
                "RandomSource(secure=True) has no torch generator: every draw must come from "
                "the ChaCha20 CSPRNG; use RandomSource.normal/uniform/laplace or .numpy")
        key = str(torch.device(device))
        gen = self._torch.get(key)
        if gen is None:
            gen = torch.Generator(device=key)
            gen.manual_seed(int(self._sequence.spawn(1)[0].generate_state(1, np.uint64)[0] >> 1))
            self._torch[key] = gen
        return gen

    def next_batch(self) -> None:
        """Called once per batch: in secure mode, re-key from ``os.urandom`` (not a stream of
        :meth:`from_digest`, which must stay reproducible from its digest)."""
        if self.secure and not self.__dict__.get("_keyed"):
            self._rekey()

    def _rekey(self) -> None:
        """Replace all generator state with fresh OS entropy."""
        if self.secure:
            self.numpy = secure_generator()
            return
        self._sequence = np.random.SeedSequence(int.from_bytes(os.urandom(32), "little"))
        self.numpy = np.random.default_rng(self._sequence.spawn(1)[0])
        self._torch.clear()

    @classmethod
    def keyed(cls, seed: int, *key: int) -> RandomSource:
        """The seeded stream of ``seed`` for ``key`` (e.g. a batch's first dataset index, a
        worker's rank, a partition and its row offset): distinct keys give independent streams,
        the same seed and key the same one. The one way front ends derive per-batch streams
        from a seed; as reproducible, and as NOT private against anyone who knows the seed,
        as the seed itself."""
        state = np.random.SeedSequence([seed, *key]).generate_state(2, np.uint32)
        return cls(int(state[0]) << 32 | int(state[1]))

    @classmethod
    def from_digest(cls, digest: bytes, *, secure: bool = False) -> RandomSource:
        """The stream of a secret 256-bit ``digest`` (a keyed pseudo-random function's output,
        e.g. one name's draw under ``consistency="dataset"``): the same digest gives the same
        stream in any process, which is what makes it consistent, so it is never re-keyed.

        ``secure=False``: PCG64 and torch generators seeded with it (statistically sound, not
        cryptographically secure: enough outputs recover the state). ``secure=True``: ChaCha20
        keyed with the digest itself, every bit from it, no torch generator (as a secure
        source, see the module docstring); deterministic given the digest, and as
        unpredictable as ChaCha20 without it.
        """
        if len(digest) != KEY_BYTES:
            raise ValueError(f"digest must hold {KEY_BYTES} bytes, got {len(digest)}")
        if not secure:
            return cls(int.from_bytes(digest, "little"))
        source = cls.__new__(cls)
        source.seed, source.secure, source._torch, source._keyed = None, True, {}, True
        source.numpy = np.random.Generator(ChaCha(key=int.from_bytes(digest, "little"),
                                                  rounds=CHACHA_ROUNDS))
        return source

    def spawn(self) -> RandomSource:
        """An independent child source (for a mechanism's one-off draws, e.g. a projection)."""
        if self.secure:
            return RandomSource(secure=True)
        child = RandomSource.__new__(RandomSource)
        child.seed, child.secure = self.seed, self.secure
        child._sequence = self._sequence.spawn(1)[0]
        child.numpy = np.random.default_rng(child._sequence.spawn(1)[0])
        child._torch = {}
        if child.seed is None:
            _UNSEEDED.add(child)
        return child

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: seeded sources continue as they were (reproducible);
        unseeded and secure ones get fresh OS entropy, so a copy never repeats the noise of
        its original (the same noise on two different inputs would reveal their difference)."""
        self.__dict__.update(state)
        if self.seed is None and not self.__dict__.get("_keyed"):
            self._rekey()
            _UNSEEDED.add(self)

    @staticmethod
    def _from_numpy(array: np.ndarray, device: torch.device | str) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(array)).to(device)

    def __repr__(self) -> str:
        if self.secure:
            mode = "secure-keyed" if self.__dict__.get("_keyed") else "secure"
        else:
            mode = "seeded" if self.seed is not None else "os-entropy"
        return f"RandomSource({mode})"


def _shape(shape: Shape) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def _np_float(dtype: torch.dtype) -> type[np.floating]:
    """The numpy dtype numpy's Generator can draw directly for a torch float dtype."""
    if dtype == torch.float64:
        return np.float64
    if dtype == torch.float32:
        return np.float32
    raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype}")


# Unseeded sources alive in this process: re-keyed in forked children (see module docstring).
_UNSEEDED: weakref.WeakSet[RandomSource] = weakref.WeakSet()


def _rekey_after_fork() -> None:
    for source in list(_UNSEEDED):
        source._rekey()


os.register_at_fork(after_in_child=_rekey_after_fork)
