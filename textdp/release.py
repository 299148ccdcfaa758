"""Release a noisy embedding table: ``textdp release-table``.

    textdp release-table --mechanism nadp --epsilon 50 [--table default|FILE] -o noisy.vec

(the command is :mod:`textdp.cli.release_table`; :func:`release_table` and
:func:`write_word2vec` do the work.)

Every candidate word of the table (clipped to its median norm, as the Privatizer clips it)
gets one independent draw of the mechanism's noise, and the noisy vectors are written in
word2vec text format (a ``rows dim`` header, then ``word v1 ... vd`` per line), which
:meth:`~textdp.tables.EmbeddingTable.from_word2vec`, gensim and fastText read. The file is
written to a temporary name and renamed into place, so a failure never leaves half a table.

Which mechanisms can release a table: those whose class declares ``releases_table`` (see
:class:`~textdp.mechanisms.base.Mechanism`): ``nadp`` through its ``release(vectors, rng)``
method, and the additive-noise mechanisms whose noisy vector is itself the private output before
decoding: ``gaussian``, ``mlaplace`` and ``mahalanobis`` (their ``perturb``). Each released row
carries that mechanism's per-token guarantee for its word; releasing the whole table is one
draw per word, so a word's guarantee is not weakened by the others' rows, and the words
themselves (the public vocabulary) are not hidden.

With a fixed ``--seed`` the noise is reproducible and therefore not private against anyone who
knows the seed; by default it comes from OS entropy.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO

import numpy as np
import torch

from textdp.mechanisms import Mechanism, MechanismSpec, create_mechanism, table_releasing
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable

_ROWS_PER_CHUNK = 4096


def can_release(mechanism: Mechanism) -> bool:
    """Whether ``mechanism`` can release noisy table vectors: its class declares
    ``releases_table`` (see the module docstring).

    ``dpnr`` has a ``release`` too, but for a model's representations, not a table's rows
    (its ``prepare`` refuses a table): it does not declare it, and a mechanism that does not
    substitute is refused whatever it declares."""
    return bool(mechanism.substitutes and mechanism.releases_table)


def check_releasable(mechanism: Mechanism) -> Mechanism:
    """``mechanism`` if it can release vectors, else a ``ValueError`` naming the ones that can."""
    if not can_release(mechanism):
        releasable = table_releasing()
        raise ValueError(f"mechanism {mechanism.name!r} cannot release a table (it decodes to "
                         f"words, or changes the dimension); use one of {releasable}")
    return mechanism


def release_vectors(mechanism: Mechanism, vectors: np.ndarray, rng: RandomSource
                    ) -> np.ndarray:
    """Noisy float32 copies of ``vectors`` from a prepared mechanism, one draw per row: its
    ``release(vectors, rng)`` where it has one, else its ``perturb``."""
    check_releasable(mechanism)
    release = getattr(mechanism, "release", None)
    index = mechanism._require_index()
    out = np.empty(vectors.shape, dtype=np.float32)
    with torch.inference_mode():
        for lo in range(0, vectors.shape[0], _ROWS_PER_CHUNK):
            chunk = np.ascontiguousarray(vectors[lo:lo + _ROWS_PER_CHUNK], np.float32)
            if callable(release):
                out[lo:lo + len(chunk)] = release(chunk, rng)
            else:
                noisy = mechanism.perturb(torch.from_numpy(chunk).to(index.device), rng)
                out[lo:lo + len(chunk)] = noisy.cpu().numpy()
    return out


def release_table(
    mechanism: MechanismSpec,
    epsilon: float | None = None,
    table: EmbeddingTable | str | os.PathLike[str] | None = None,
    *,
    clip_norm: float | str | None = "median",
    seed: int | None = None,
) -> tuple[list[str], np.ndarray]:
    """The table's candidate words and one noisy vector each.

    Args:
        mechanism: ``nadp``, ``gaussian``, ``mlaplace``, ``mahalanobis`` (a name, a mapping
            with its arguments, or an instance).
        epsilon: ε of the mechanism (unless the spec carries it).
        table: ``None``/``"default"``, a word2vec/GloVe/fastText file or an EmbeddingTable.
        clip_norm: ``"median"`` (as the Privatizer), a radius, or ``None`` (as it is).
        seed: fixed seed (reproducible, NOT private against anyone who knows it); ``None``
            draws from OS entropy.
    """
    from textdp.calibration import resolve_table
    from textdp.index import shared_index

    mech = check_releasable(create_mechanism(mechanism, epsilon))
    space = resolve_table(table, clip_norm)
    rng = RandomSource(seed)
    mech.prepare(space.vectors, shared_index(space, "auto", torch.device("cpu")), rng)
    return list(space.words), release_vectors(mech, space.vectors, rng)


def write_word2vec(stream: IO[str], words: Sequence[str], vectors: np.ndarray,
                   precision: int = 6) -> None:
    """Write ``words`` and ``vectors`` as word2vec text (header ``rows dim``)."""
    if len(words) != vectors.shape[0]:
        raise ValueError(f"{len(words)} words but {vectors.shape[0]} vectors")
    for word in words:
        if not word or any(c.isspace() for c in word):
            raise ValueError("word2vec text cannot hold an empty word or one with whitespace")
    stream.write(f"{vectors.shape[0]} {vectors.shape[1]}\n")
    fmt = " ".join([f"%.{precision}g"] * vectors.shape[1])
    for lo in range(0, len(words), _ROWS_PER_CHUNK):
        block = vectors[lo:lo + _ROWS_PER_CHUNK]
        stream.write("".join(f"{w} {fmt % tuple(row)}\n"
                             for w, row in zip(words[lo:lo + _ROWS_PER_CHUNK], block.tolist())))
