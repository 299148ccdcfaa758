"""Keyed sources: the secret key of ``consistency="dataset"`` and each name's keyed draw.

With ``consistency="dataset"`` each name's draw comes from a keyed pseudo-random function of
(secret key, scope, name) (:func:`keyed_source`), so every process, worker and rerun with the
same key agrees without shared state. No name → pseudonym table is stored or written: the draw
is recomputed from the key, which is therefore as sensitive as ``seed`` (:func:`resolve_key`).
"""

from __future__ import annotations

import hashlib
import hmac
import os

from textdp.rng import RandomSource

#: Key-derivation label: changes whenever the derivation does, so old keys never collide.
_PRF_LABEL = b"textdp.pseudonym.v2"


def resolve_key(key: bytes | str | None, seed: int | None) -> bytes:
    """The secret key of ``consistency="dataset"``: the caller's (bytes, or a string of at
    least 16 characters), else derived from ``seed`` (reproducible, and NOT private against
    anyone who knows the seed), else 32 bytes from the OS."""
    if key is None:
        if seed is not None:
            return hashlib.sha256(b"textdp.seed-key\0" + str(seed).encode()).digest()
        return os.urandom(32)
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes):
        raise ValueError(f"key must be bytes or a string, got {type(key).__name__}")
    if len(key) < 16:
        raise ValueError(f"key must hold at least 16 bytes (it guards every pseudonym of a "
                         f"dataset, like a seed), got {len(key)}")
    return key


def keyed_source(key: bytes, scope: str, label: str, name: str, kind: str = "",
                 *, secure: bool = False) -> RandomSource:
    """The random source of one name's draw in one scope: the stream of HMAC-SHA256 of
    (scope, label, name, kind) under ``key`` (:meth:`RandomSource.from_digest`: ChaCha20
    keyed with it when ``secure``, else PCG64 seeded with it). The same key gives the same
    draw in any process; without the key the draws are unpredictable; different keys give
    independent draws.

    ``kind`` (the candidate set the draw decodes to: a name kind, ``"word"``, ``"pii"``) is
    part of the message because one noisy point decoded to two candidate sets is two
    releases for the exponential mechanisms, whose draw is over the candidates: a name that
    is a lone word in one text and a surname in another gets one draw per kind. The draw
    reads one vector per name (:func:`canonical_token`), so every text of a scope that names
    it releases the same function of the same noisy vector."""
    message = b"\0".join((_PRF_LABEL, scope.encode("utf-8"), label.encode("utf-8"),
                          name.encode("utf-8"), kind.encode("utf-8")))
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return RandomSource.from_digest(digest, secure=secure)


def canonical_token(key: str) -> str:
    """The form of a name key whose table row a keyed draw (``consistency="dataset"``) reads:
    its Title case, then (by the table's own fall-back) its lower case. A function of the
    key only, so every casing and possessive of one name reads one vector: "SMITH" would
    read the row of "HEY" on the default table and "smith" that of "butcher", and the same
    keyed noise added to two vectors releases their difference, which no ε bounds."""
    return key.title()
