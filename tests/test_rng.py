"""textdp.rng.RandomSource: seeded reproducibility, OS entropy by default, secure re-keying."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import textdp.rng as rng_module
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


def test_secure_rekeys_from_os_entropy_every_batch(monkeypatch):
    calls: list[int] = []
    real_urandom = rng_module.os.urandom

    def counting_urandom(n: int) -> bytes:
        calls.append(n)
        return real_urandom(n)

    monkeypatch.setattr(rng_module.os, "urandom", counting_urandom)
    src = RandomSource(secure=True)
    old_np, old_t = src.numpy, src.torch("cpu")
    for batch in range(1, 4):
        src.next_batch()
        assert len(calls) == batch
        assert all(n >= 16 for n in calls)  # at least 128 bits per re-key
    assert src.numpy is not old_np
    assert src.torch("cpu") is not old_t


def test_secure_rekey_breaks_the_stream():
    """After a re-key the draws are not the continuation of the old generators."""
    src = RandomSource(secure=True)
    state_np = src.numpy.bit_generator.state
    state_t = src.torch("cpu").get_state()
    src.next_batch()
    after_np = src.numpy.random(8)
    after_t = torch.rand(8, generator=src.torch("cpu"))
    cont_np = np.random.Generator(np.random.PCG64())
    cont_np.bit_generator.state = state_np
    cont_t = torch.Generator().set_state(state_t)
    assert not np.array_equal(after_np, cont_np.random(8))
    assert not torch.equal(after_t, torch.rand(8, generator=cont_t))


def test_secure_with_fixed_urandom_is_deterministic(monkeypatch):
    """The re-key really comes from os.urandom: fixing it fixes the next batch's draws."""
    monkeypatch.setattr(rng_module.os, "urandom", lambda n: b"\x07" * n)
    a, b = RandomSource(secure=True), RandomSource(secure=True)
    assert not np.array_equal(a.numpy.random(4), b.numpy.random(4))  # different initial keys
    a.next_batch()
    b.next_batch()
    np.testing.assert_array_equal(a.numpy.random(4), b.numpy.random(4))
    assert torch.equal(torch.rand(4, generator=a.torch("cpu")),
                       torch.rand(4, generator=b.torch("cpu")))


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
