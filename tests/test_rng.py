"""textdp.rng.RandomSource: seeded reproducibility, OS entropy by default, and secure mode
(every draw from ChaCha20 keyed from os.urandom)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch
from randomgen import ChaCha
from scipy import stats

import textdp.rng as rng_module
from textdp.index import NeighbourIndex
from textdp.mechanisms import create_mechanism
from textdp.mechanisms.base import multivariate_laplace
from textdp.rng import RandomSource

CPU = torch.device("cpu")


def _draws(src: RandomSource) -> tuple[np.ndarray, np.ndarray]:
    return src.numpy.random(8), torch.rand(8, generator=src.torch("cpu")).numpy()


def test_seeded_sources_are_reproducible():
    a_np, a_t = _draws(RandomSource(1234))
    b_np, b_t = _draws(RandomSource(1234))
    np.testing.assert_array_equal(a_np, b_np)
    np.testing.assert_array_equal(a_t, b_t)


def test_seeded_noise_is_reproducible():
    a = multivariate_laplace(50, 20, 1.0, RandomSource(7), CPU)
    b = multivariate_laplace(50, 20, 1.0, RandomSource(7), CPU)
    assert torch.equal(a, b)
    c = multivariate_laplace(50, 20, 1.0, RandomSource(8), CPU)
    assert not torch.equal(a, c)


def test_different_seeds_differ():
    a_np, a_t = _draws(RandomSource(1))
    b_np, b_t = _draws(RandomSource(2))
    assert not np.array_equal(a_np, b_np)
    assert not np.array_equal(a_t, b_t)


def test_unseeded_sources_differ():
    draws = [_draws(RandomSource()) for _ in range(3)]
    for i in range(3):
        for j in range(i + 1, 3):
            assert not np.array_equal(draws[i][0], draws[j][0])
            assert not np.array_equal(draws[i][1], draws[j][1])


def test_numpy_and_torch_streams_are_not_the_same_numbers():
    src = RandomSource(5)
    a = src.numpy.random(16)
    b = torch.rand(16, generator=src.torch("cpu"), dtype=torch.float64).numpy()
    assert not np.allclose(a, b)


def test_torch_generator_is_cached_per_device():
    src = RandomSource(3)
    assert src.torch("cpu") is src.torch(torch.device("cpu"))


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, False, [1]])
def test_bad_seed_rejected(seed):
    with pytest.raises(ValueError, match="seed"):
        RandomSource(seed)


def test_seed_and_secure_exclude_each_other():
    with pytest.raises(ValueError, match="seed"):
        RandomSource(0, secure=True)
    RandomSource(secure=True)  # without a seed it is fine


def test_next_batch_is_a_no_op_without_secure():
    src = RandomSource(11)
    first_np, first_t = src.numpy.random(4), torch.rand(4, generator=src.torch("cpu"))
    gen_np, gen_t = src.numpy, src.torch("cpu")
    src.next_batch()
    assert src.numpy is gen_np and src.torch("cpu") is gen_t
    second_np, second_t = src.numpy.random(4), torch.rand(4, generator=src.torch("cpu"))
    ref = RandomSource(11)
    np.testing.assert_array_equal(np.concatenate([first_np, second_np]), ref.numpy.random(8))
    assert torch.equal(torch.cat([first_t, second_t]),
                       torch.rand(8, generator=ref.torch("cpu")))


def test_spawn_is_independent_and_reproducible():
    parent = RandomSource(21)
    child = parent.spawn()
    assert child.seed == 21 and child.secure is False
    c = child.numpy.random(8)
    assert not np.array_equal(c, RandomSource(21).numpy.random(8))
    np.testing.assert_array_equal(c, RandomSource(21).spawn().numpy.random(8))
    assert RandomSource(secure=True).spawn().secure is True


def test_global_generators_untouched():
    np_state = np.random.get_state()[1].copy()
    torch_state = torch.random.get_rng_state().clone()
    src = RandomSource(9)
    multivariate_laplace(100, 10, 1.0, src, CPU)
    src.numpy.random(10)
    RandomSource().numpy.random(3)
    np.testing.assert_array_equal(np.random.get_state()[1], np_state)
    assert torch.equal(torch.random.get_rng_state(), torch_state)


def test_repr_never_shows_the_seed():
    assert "987654321" not in repr(RandomSource(987654321))
    assert repr(RandomSource(987654321)) == "RandomSource(seeded)"
    assert repr(RandomSource()) == "RandomSource(os-entropy)"
    assert repr(RandomSource(secure=True)) == "RandomSource(secure)"


# ================================================================= fast-path tensor draws
def test_fast_path_draws_are_the_torch_generators_streams():
    """normal/uniform on the fast path are exactly torch's draws from the source's generator
    (the non-secure path is unchanged, so seeded outputs stay what they were)."""
    a, b = RandomSource(13), RandomSource(13)
    assert torch.equal(a.normal((3, 4), "cpu"), torch.randn((3, 4), generator=b.torch("cpu")))
    assert torch.equal(a.uniform(5, "cpu", torch.float64),
                       torch.rand(5, generator=b.torch("cpu"), dtype=torch.float64))


def test_seeded_multivariate_laplace_matches_the_direct_construction():
    src, ref = RandomSource(17), RandomSource(17)
    z = multivariate_laplace(40, 6, 2.0, src, CPU)
    radius = ref.numpy.gamma(shape=6, scale=0.5, size=40).astype(np.float32)
    g = torch.randn((40, 6), generator=ref.torch("cpu"))
    unit = g / torch.linalg.vector_norm(g, dim=1, keepdim=True)
    expected = unit * torch.from_numpy(radius)[:, None]
    assert torch.allclose(z, expected)


@pytest.mark.parametrize("secure", [False, True])
def test_laplace_draws_have_the_laplace_law(secure):
    src = RandomSource(secure=True) if secure else RandomSource(23)
    z = src.laplace((200, 100), 0.7, "cpu", torch.float64).numpy().ravel()
    alpha = 1e-6 if secure else 1e-3  # secure draws cannot be seeded: a tiny false-alarm rate
    assert stats.kstest(z, stats.laplace(scale=0.7).cdf).pvalue > alpha
    assert stats.kstest(z, stats.laplace(scale=0.8).cdf).pvalue < alpha  # positive control


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), float("nan")])
def test_laplace_rejects_bad_scale(bad):
    with pytest.raises(ValueError, match="scale"):
        RandomSource(0).laplace(3, bad)


def test_draws_reject_unsupported_dtypes():
    with pytest.raises(ValueError, match="dtype"):
        RandomSource(secure=True).normal(3, "cpu", torch.float16)


# ================================================================= secure mode
def test_secure_numpy_generator_is_chacha20():
    src = RandomSource(secure=True)
    assert isinstance(src.numpy.bit_generator, ChaCha)
    assert src.numpy.bit_generator.state["state"]["rounds"] == 20


def test_secure_key_is_256_bits_straight_from_urandom(monkeypatch):
    key = bytes(range(32))
    monkeypatch.setattr(rng_module.os, "urandom", lambda n: key[:n])
    src = RandomSource(secure=True)
    words = src.numpy.bit_generator.state["state"]["keysetup"]
    assert words.tobytes() == key  # the key is the OS bytes, no hashing or truncation


def test_secure_has_no_torch_generator():
    with pytest.raises(RuntimeError, match="CSPRNG"):
        RandomSource(secure=True).torch("cpu")


def test_secure_tensor_draws_come_from_the_csprng(monkeypatch):
    """With os.urandom fixed, two secure sources draw identical tensors: every draw depends on
    the ChaCha20 key alone (not on torch's or numpy's global state)."""
    monkeypatch.setattr(rng_module.os, "urandom", lambda n: b"\x07" * n)
    a, b = RandomSource(secure=True), RandomSource(secure=True)
    torch.manual_seed(1)
    draws_a = (a.normal((4, 3), "cpu"), a.uniform(5, "cpu", torch.float64),
               a.laplace(6, 2.0), multivariate_laplace(5, 4, 1.0, a, CPU))
    torch.manual_seed(2)
    draws_b = (b.normal((4, 3), "cpu"), b.uniform(5, "cpu", torch.float64),
               b.laplace(6, 2.0), multivariate_laplace(5, 4, 1.0, b, CPU))
    for x, y in zip(draws_a, draws_b):
        assert torch.equal(x, y)
    assert draws_a[0].dtype == torch.float32 and draws_a[1].dtype == torch.float64


def test_secure_rekeys_from_os_entropy_every_batch(monkeypatch):
    calls: list[int] = []
    real_urandom = rng_module.os.urandom

    def counting_urandom(n: int) -> bytes:
        calls.append(n)
        return real_urandom(n)

    monkeypatch.setattr(rng_module.os, "urandom", counting_urandom)
    src = RandomSource(secure=True)
    assert calls == [32]
    keys = [src.numpy.bit_generator.state["state"]["keysetup"].tobytes()]
    for batch in range(1, 4):
        src.next_batch()
        assert calls == [32] * (batch + 1)
        keys.append(src.numpy.bit_generator.state["state"]["keysetup"].tobytes())
    assert len(set(keys)) == 4


def test_secure_sources_are_not_reproducible_across_instances():
    a, b = RandomSource(secure=True), RandomSource(secure=True)
    assert not torch.equal(a.normal(16, "cpu"), b.normal(16, "cpu"))
    assert not np.array_equal(a.numpy.random(8), b.numpy.random(8))


def test_secure_spawn_and_fork_rekey_get_fresh_keys():
    src = RandomSource(secure=True)
    key = src.numpy.bit_generator.state["state"]["keysetup"].tobytes()
    child = src.spawn()
    assert child.secure and isinstance(child.numpy.bit_generator, ChaCha)
    assert child.numpy.bit_generator.state["state"]["keysetup"].tobytes() != key
    rng_module._rekey_after_fork()  # what a forked child runs
    assert src.numpy.bit_generator.state["state"]["keysetup"].tobytes() != key


def test_secure_flag_must_be_a_bool():
    with pytest.raises(ValueError, match="secure"):
        RandomSource(secure="yes")


@pytest.fixture(scope="module")
def toy_candidates() -> np.ndarray:
    return np.random.default_rng(0).normal(size=(60, 6)).astype(np.float32)


@pytest.mark.parametrize("name", ["mlaplace", "projection", "mahalanobis", "vickrey", "tem",
                                  "santext", "gaussian", "nadp"])
def test_every_builtin_mechanism_runs_in_secure_mode(name, toy_candidates):
    """Secure mode draws nothing from torch generators (they raise); outputs are valid ids and
    differ between two secure sources."""
    torch_state = torch.random.get_rng_state().clone()
    outs = []
    for _ in range(2):
        mech = create_mechanism(name, 1.0)
        src = RandomSource(secure=True)
        mech.prepare(toy_candidates, NeighbourIndex(toy_candidates, backend="exact"), src)
        src.next_batch()
        ids = mech.sample(torch.from_numpy(toy_candidates[:4]),
                          torch.arange(4).repeat_interleave(100), src)
        assert ids.shape == (400,) and ids.dtype == torch.int64
        assert int(ids.min()) >= 0 and int(ids.max()) < len(toy_candidates)
        outs.append(ids)
    assert not torch.equal(outs[0], outs[1])
    assert torch.equal(torch.random.get_rng_state(), torch_state)


def test_secure_multivariate_laplace_keeps_its_law():
    """The sampler statistics hold in secure mode: ‖z‖ ~ Gamma(d, 1/ε) and each direction
    coordinate in 3-d is uniform on [−1, 1] (Archimedes). Secure draws cannot be seeded, so
    the level is 1e-6; the positive control (10 % off in scale) is rejected at that level."""
    eps, d, n = 2.0, 3, 20_000
    z = multivariate_laplace(n, d, eps, RandomSource(secure=True), CPU).double()
    norms = torch.linalg.vector_norm(z, dim=1).numpy()
    assert stats.kstest(norms, stats.gamma(a=d, scale=1 / eps).cdf).pvalue > 1e-6
    assert stats.kstest(norms, stats.gamma(a=d, scale=1.1 / eps).cdf).pvalue < 1e-6
    first = (z[:, 0] / torch.linalg.vector_norm(z, dim=1)).numpy()
    assert stats.kstest(first, stats.uniform(loc=-1, scale=2).cdf).pvalue > 1e-6


@pytest.mark.parametrize("secure", [False, True])
def test_copies_of_unseeded_sources_never_repeat_the_noise(secure):
    src = RandomSource(secure=secure)
    for clone in (copy.deepcopy(src), pickle.loads(pickle.dumps(src))):
        assert clone.secure is secure
        assert not torch.equal(clone.normal(16, "cpu"), src.normal(16, "cpu"))


def test_copies_of_seeded_sources_continue_the_stream():
    src = RandomSource(31)
    src.numpy.random(3)
    clone = copy.deepcopy(src)
    np.testing.assert_array_equal(clone.numpy.random(5), src.numpy.random(5))
    assert torch.equal(clone.normal(4, "cpu"), src.normal(4, "cpu"))


def test_keyed_streams_are_reproducible_and_independent_per_key():
    """One derivation of per-batch streams from a seed (hf batches and ranks, Spark
    partitions): the same seed and key give the same draws, other keys or seeds others."""
    def draws(seed, *key):
        return RandomSource.keyed(seed, *key).numpy.standard_normal(8)

    np.testing.assert_array_equal(draws(5, 0, 100), draws(5, 0, 100))
    others = [draws(5, 0, 101), draws(5, 1, 100), draws(6, 0, 100), draws(5, 2, 0, 100)]
    assert all(not np.allclose(draws(5, 0, 100), o) for o in others)
    assert RandomSource.keyed(5, 0, 100).seed is not None  # a seeded, reproducible source


def test_a_secure_digest_stream_is_chacha20_reproducible_and_never_rekeyed():
    """The keyed streams of consistency="dataset" in secure mode (issue 34, item 6): ChaCha20
    keyed with the digest, the same digest the same stream, kept across batches and copies."""
    digest = bytes(range(32))
    source = RandomSource.from_digest(digest, secure=True)
    assert source.secure and isinstance(source.numpy.bit_generator, ChaCha)
    first = source.numpy.random(3).tolist()
    again = RandomSource.from_digest(digest, secure=True)
    again.next_batch()  # a keyed stream is not re-keyed from os.urandom
    assert copy.deepcopy(again).numpy.random(3).tolist() == first
    assert RandomSource.from_digest(bytes(32), secure=True).numpy.random(3).tolist() != first
    assert not isinstance(RandomSource.from_digest(digest).numpy.bit_generator, ChaCha)
    with pytest.raises(ValueError, match="32 bytes"):
        RandomSource.from_digest(b"short", secure=True)
