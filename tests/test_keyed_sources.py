"""Keyed sources: consistency='dataset' draws each name from its key, scope and name
(textdp.keyed_sources)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from name_detectors import names, smiths

from textdp import Privatizer
from textdp.keyed_sources import keyed_source, resolve_key


def test_keys_are_validated_and_seed_keys_are_reproducible():
    assert resolve_key(None, 5) == resolve_key(None, 5) != resolve_key(None, 6)
    assert resolve_key(None, None) != resolve_key(None, None)  # OS entropy
    with pytest.raises(ValueError, match="at least 16 bytes"):
        resolve_key("short", None)
    with pytest.raises(ValueError, match="bytes or a string"):
        resolve_key(1234, None)


def test_keyed_sources_agree_per_key_scope_and_name_only():
    key = b"k" * 32

    def draws(*args):
        return keyed_source(*args).numpy.random(4).tolist()

    assert draws(key, "", "PERSON", "merkel") == draws(key, "", "PERSON", "merkel")
    assert draws(key, "", "PERSON", "merkel") != draws(b"j" * 32, "", "PERSON", "merkel")
    assert draws(key, "", "PERSON", "merkel") != draws(key, "case-7", "PERSON", "merkel")
    assert draws(key, "", "PERSON", "merkel") != draws(key, "", "PERSON", "smith")


def test_dataset_scope_agrees_across_privatizers_and_pickles_with_one_key():
    key = "a-secret-key-of-32-characters!!!"
    a = Privatizer(detector=names, consistency="dataset", key=key)
    b = pickle.loads(pickle.dumps(Privatizer(detector=names, consistency="dataset", key=key)))
    texts = ["John Smith called.", "Smith and Merkel met.", "merkel"]
    assert [r.text for r in a.privatize(texts)] == [r.text for r in b.privatize(texts)]
    first = a.privatize(texts)
    assert first[0].text.split(" ")[1] == first[1].text.split(" ")[0]  # Smith, across rows
    # A privatizer without a key draws one from the OS, and its pickles carry it.
    c = Privatizer(detector=names, consistency="dataset")
    assert pickle.loads(pickle.dumps(c)).key == c.key


@pytest.mark.slow  # 60 keyed privatizers
def test_scopes_separate_pseudonyms_and_keys_are_independent():
    words = [f"{n.title()}" for n in ["john", "mary", "smith", "merkel", "angela", "emily",
                                      "patel"]]
    text = " ".join(words)
    same = different_scope = different_key = 0
    trials = 60
    for t in range(trials):
        key = f"key-number-{t:04d}-padding-padding"
        p = Privatizer(detector=names, consistency="dataset", key=key)
        one, two, other = p.privatize([text, text, text], scopes=["a", "a", "b"])
        q = Privatizer(detector=names, consistency="dataset", key=key + "x")
        alt = q(text)
        same += one.text == two.text
        different_scope += one.text == other.text
        different_key += one.text == alt.text
    assert same == trials
    # Independent draws of 5 names coincide with probability far below 1 %.
    assert different_scope == 0 and different_key == 0


def test_key_only_with_dataset_consistency():
    with pytest.raises(ValueError, match="representation='static'"):
        Privatizer(consistency="dataset", representation="contextual")
    with pytest.raises(ValueError, match="key is the secret of consistency='dataset'"):
        Privatizer(key="a" * 16)
    with pytest.raises(ValueError, match="consistency"):
        Privatizer(consistency="per-name")


def test_a_keyed_draw_reads_one_vector_per_name_whatever_its_casing():
    """Issue 34, item 1: with consistency="dataset", "SMITH" read the row of "HEY" and
    "smith" that of "butcher" on the default table, and one keyed noise was added to both:
    the pair of outputs released their difference, unbounded by ε. Every casing of a name in
    a scope must now come out as one pseudonym (one draw, read from one vector)."""
    p = Privatizer(epsilon=1.0, seed=3, consistency="dataset", detector=smiths)
    assert len(set(p.table.lookup(["SMITH", "smith", "Smith"]).tolist())) == 3  # the premise
    scopes = [str(s) for s in range(20) for _ in range(3)]
    out = p.privatize(["SMITH called.", "smith called.", "Smith called."] * 20, scopes=scopes)
    for s in range(20):
        names = {r.text.split()[0].casefold() for r in out[3 * s:3 * s + 3]}
        assert len(names) == 1, names
    assert all(r.report.draws == 1 for r in out)


def _redacted_equals_drawn(budget: float | None, redacted: str, n: int) -> tuple[int, int]:
    """Over ``n`` scopes of two texts, "Smith called." and "Jones met <redacted>.": how often
    the second text's last name equals the first's, and how many targets were redacted."""
    p = Privatizer(epsilon=1.0, seed=5, consistency="dataset", detector=smiths,
                   max_epsilon_per_text=budget)
    texts = ["Smith called.", f"Jones met {redacted}."] * n
    out = p.privatize(texts, scopes=[str(s) for s in range(n) for _ in range(2)])
    hits = sum(out[2 * s].text.split()[0] == out[2 * s + 1].text.split()[-1].rstrip(".")
               for s in range(n))
    return hits, sum(r.report.tokens_redacted for r in out)


def test_a_redacted_name_does_not_reuse_its_keyed_draw():
    """Issue 34, item 2: over its text's budget, a name is redacted (a draw from a public
    stand-in, reported as costing nothing), but its draw reused the name's keyed noise, so
    it matched the name's pseudonym in another text of the scope (171 of 300 scopes, against
    2 of 300 for another redacted name). Two neighbouring datasets that differ only in the
    redacted name (Smith, which another text names, or Brown) must give one law of the
    output pair: bound 0, audited with Clopper–Pearson intervals. The positive control, the
    name drawn within budget (which does depend on it), fails the same audit."""
    from textdp.evaluate.privacy import worst_violation

    n, alpha, tolerance = 60, 1e-3 / 4, 0.05
    smith, redacted = _redacted_equals_drawn(1.0, "Smith", n)
    brown, _ = _redacted_equals_drawn(1.0, "Brown", n)
    assert redacted == n  # the premise: the second name of each pair is over budget
    counts = np.array([[smith, n - smith], [brown, n - brown]])
    assert worst_violation(counts, np.zeros((2, 2)), alpha) <= tolerance
    drawn, none = _redacted_equals_drawn(None, "Smith", n)
    assert none == 0
    control = np.array([[drawn, n - drawn], [brown, n - brown]])
    assert worst_violation(control, np.zeros((2, 2)), alpha) > tolerance


def test_secure_keyed_draws_come_from_chacha20(monkeypatch):
    """Issue 34, item 6: with secure=True and consistency="dataset" every name's draw came
    from PCG64 (and torch generators) seeded with its HMAC. Each keyed source must be
    ChaCha20, keyed by the HMAC (the same key gives the same pseudonyms in any process)."""
    from randomgen import ChaCha

    import textdp.pipeline.substitution as substitution

    made = []
    real = substitution.keyed_source

    def spy(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(substitution, "keyed_source", spy)
    key = "a secret of sixteen or more characters"
    text = "Smith met Jones and BROWN."
    first = Privatizer(epsilon=1.0, secure=True, consistency="dataset", key=key,
                       detector=smiths)(text)
    assert len(made) == 3 and first.report.draws == 3
    for source in made:
        assert source.secure and isinstance(source.numpy.bit_generator, ChaCha)
        with pytest.raises(RuntimeError, match="CSPRNG"):
            source.torch()
    again = Privatizer(epsilon=1.0, secure=True, consistency="dataset", key=key,
                       detector=smiths)(text)
    assert again.text == first.text  # keyed: consistent across privatizers and processes
