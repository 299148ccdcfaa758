"""DPNR on SST-2: a classifier trained and tested on differentially private representations.

The embedded all-MiniLM-L6-v2 (frozen) encodes each sentence; its hidden states are mean-pooled
to one 384-d vector. A trainable projection (the user-side extractor, ``--proj`` dims; the
paper fine-tunes its whole encoder instead) maps it to the representation that is released:
DPNR (Lyu, He & Li 2020; ``textdp.dpnr``) normalises it to [0, 1] and adds Laplace noise to
every coordinate. An MLP head classifies the released vectors. Models compared at each ε:

* clean model: trained without noise, tested on noisy released test vectors;
* robust: trained with the release noise in every epoch (ε_t = ε);
* adaptive: noise growing over the epochs, ε_t = ε₀ / t with ε₀ = T·ε (it ends at the
  release ε);
* and once, the non-private baseline (no noise at all).

Test vectors are released once (one noise draw per sentence, as a user would send them). With
``--mu`` > 0 the words are dropped at the encoder's input (one dropout draw per sentence, all
word pieces of a word together) for the private rows; that costs one more encoding pass.

Each row prints the guarantee of one released test vector: ε per coordinate, d·ε for the whole
d-dim vector (the L1 sensitivity of a [0, 1]^d vector is d), and the word-dropout bound for two
sentences one word apart. Training on fresh noise every epoch releases a training sentence once
per epoch; the composed cost per training sentence is printed too.

Run (about 2-3 minutes on 2 busy CPU cores, most of it encoding)::

    python examples/dpnr_sst2.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from textdp.defaults import transformer_path
from textdp.dpnr import (
    DPNR,
    AdaptiveSchedule,
    Normalize,
    RobustSchedule,
    encode_with_word_dropout,
    train_on_dpnr,
)
from textdp.mechanisms.dpnr import amplified_epsilon, vector_epsilon
from textdp.rng import RandomSource

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT_EPSILONS = "0.1,0.5,1,2,5"


def read_sst2(path: Path, limit: int | None, rng: np.random.Generator
              ) -> tuple[list[str], np.ndarray]:
    """SentEval's ``stsa.binary.*`` (``label sentence`` per line), optionally subsampled."""
    rows = [line.rstrip("\n").split(" ", 1) for line in path.open(encoding="utf-8")
            if line.strip()]
    if limit is not None and limit < len(rows):
        rows = [rows[i] for i in np.sort(rng.choice(len(rows), size=limit, replace=False))]
    return [text for _, text in rows], np.array([int(label) for label, _ in rows])


class FrozenEncoder:
    """Mean-pooled last hidden states of a frozen transformer, with optional input dropout."""

    def __init__(self, path: str, batch_size: int = 128) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()
        self.batch_size = batch_size

    @torch.inference_mode()
    def __call__(self, texts: list[str], mu: float, rng: RandomSource) -> torch.Tensor:
        """``(len(texts), dim)`` sentence vectors; words dropped at rate ``mu`` beforehand."""
        order = np.argsort([len(t) for t in texts], kind="stable")  # similar lengths batch well
        out = torch.empty((len(texts), self.model.config.hidden_size))
        for start in range(0, len(texts), self.batch_size):
            idx = order[start:start + self.batch_size]
            enc = self.tokenizer([texts[i] for i in idx], padding=True, truncation=True,
                                 max_length=512, return_tensors="pt")
            # Dropped words are masked and the kept tokens' positions renumbered, so a dropped
            # word leaves no trace whatever its piece count (what the 1-word bound needs).
            out[torch.from_numpy(idx)] = encode_with_word_dropout(self.model, enc, mu, rng)
        return out


def make_linear(n_in: int, n_out: int, gen: torch.Generator) -> nn.Linear:
    """A linear layer initialised from an explicit generator (never the global RNG)."""
    layer = nn.Linear(n_in, n_out)
    bound = 1.0 / n_in ** 0.5
    nn.init.uniform_(layer.weight, -bound, bound, generator=gen)
    nn.init.uniform_(layer.bias, -bound, bound, generator=gen)
    return layer


def make_model(dim: int, proj: int, hidden: int, seed: int) -> tuple[nn.Module, nn.Module]:
    """(extractor, head): a trainable projection to the released ``proj`` dims (identity when
    ``proj`` is 0) and an MLP classifier on the released vectors."""
    gen = torch.Generator().manual_seed(seed)
    extractor: nn.Module = make_linear(dim, proj, gen) if proj else nn.Identity()
    width = proj or dim
    head = nn.Sequential(make_linear(width, hidden, gen), nn.ReLU(), make_linear(hidden, 2, gen))
    return extractor, head


@torch.inference_mode()
def accuracy(model: nn.Module, release: nn.Module, features: torch.Tensor,
             labels: torch.Tensor) -> float:
    """Test accuracy when each test vector is released once through ``release``."""
    extractor, _, head = model
    released = release(extractor(features))  # one noise draw per test sentence
    return float((head(released).argmax(1) == labels).float().mean())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA,
                    help="folder laid out like ../shared/data (senteval/stsa.binary.*)")
    ap.add_argument("--epsilons", default=DEFAULT_EPSILONS, help="comma-separated ε values")
    ap.add_argument("--mu", type=float, default=0.0,
                    help="input word dropout rate (0: none; > 0 adds one encoding pass)")
    ap.add_argument("--train-size", type=int, default=3000, help="training sentences (subsample)")
    ap.add_argument("--test-size", type=int, default=1000, help="test sentences (subsample)")
    ap.add_argument("--proj", type=int, default=64,
                    help="dims of the released vector (a trainable projection of the encoder "
                         "output; 0: release the 384-d encoder output itself)")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hidden", type=int, default=256, help="MLP head width")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (on a busy 2-core machine 1 is fastest)")
    ap.add_argument("--seed", type=int, default=0,
                    help="fixed seed: reproducible, and NOT private against anyone who knows it")
    args = ap.parse_args(argv)
    folder = args.data / "senteval"
    if not (folder / "stsa.binary.train").is_file():
        raise SystemExit(f"SST-2 not found under {folder} (stsa.binary.train/test); use --data")
    epsilons = [float(e) for e in args.epsilons.split(",")]
    torch.set_num_threads(args.threads)

    t0 = time.perf_counter()
    sampler = np.random.default_rng(args.seed)
    train_x, train_y = read_sst2(folder / "stsa.binary.train", args.train_size, sampler)
    test_x, test_y = read_sst2(folder / "stsa.binary.test", args.test_size, sampler)
    print(f"SST-2: {len(train_x)} train / {len(test_x)} test sentences "
          f"(of 6920 / 1821; --train-size/--test-size)")
    rng = RandomSource(args.seed)
    encoder = FrozenEncoder(transformer_path())
    feats = {"train": encoder(train_x, 0.0, rng), "test": encoder(test_x, 0.0, rng)}
    if args.mu > 0:
        feats["train_drop"] = encoder(train_x, args.mu, rng)
        feats["test_drop"] = encoder(test_x, args.mu, rng)
    else:
        feats["train_drop"], feats["test_drop"] = feats["train"], feats["test"]
    dim = feats["train"].shape[1]
    released_dim = args.proj or dim
    print(f"encoded with all-MiniLM-L6-v2 (frozen, mean-pooled, d={dim}) in "
          f"{time.perf_counter() - t0:.0f} s; input word dropout mu={args.mu}; "
          f"released vector: {released_dim} dims"
          + (f" (trainable projection {dim}->{args.proj})" if args.proj else ""))
    ytr, yte = torch.from_numpy(train_y), torch.from_numpy(test_y)
    shuffle = torch.Generator().manual_seed(args.seed)

    def fit(schedule=None, dpnr=None) -> nn.Module:
        extractor, head = make_model(dim, args.proj, args.hidden, args.seed)
        x = feats["train"] if dpnr is None else feats["train_drop"]
        return train_on_dpnr(head, x, ytr, extractor=extractor, dpnr=dpnr, schedule=schedule,
                             epochs=None if schedule else args.epochs, generator=shuffle)

    clean = fit()
    baseline = accuracy(clean, Normalize(), feats["test"], yte)
    print(f"\nno noise (baseline): test accuracy {baseline:.3f}")
    print(f"\n{'eps':>5} {'eps vector':>10} {'eps 1-word':>10} | {'clean model':>11} "
          f"{'robust':>7} {'adaptive':>8} | {'spent robust':>12} {'spent adapt.':>12}")
    for eps in epsilons:
        release = DPNR(eps, seed=args.seed + 1)
        robust = RobustSchedule(eps, args.epochs)
        adaptive = AdaptiveSchedule(eps * args.epochs, args.epochs)  # ε_T = ε at the end
        acc_clean = accuracy(clean, release, feats["test_drop"], yte)
        acc_robust = accuracy(fit(robust, DPNR(eps, seed=args.seed + 2)), release,
                              feats["test_drop"], yte)
        acc_adapt = accuracy(fit(adaptive, DPNR(eps, seed=args.seed + 3)), release,
                             feats["test_drop"], yte)
        vec = vector_epsilon(eps, released_dim)
        one_word = amplified_epsilon(vec, args.mu) if args.mu > 0 else vec
        print(f"{eps:>5g} {vec:>10.1f} {one_word:>10.1f} | {acc_clean:>11.3f} "
              f"{acc_robust:>7.3f} {acc_adapt:>8.3f} | {robust.spent():>12.1f} "
              f"{adaptive.spent():>12.1f}")
    print(f"\neps: Laplace(0, 1/eps) per coordinate (the paper's noise; eps-LDP per "
          f"coordinate). eps vector: d*eps-LDP for the released {released_dim}-d vector. "
          "eps 1-word: the same after input word dropout, for sentences one word apart. "
          "spent: composed eps per coordinate of a training sentence over the epochs (fresh "
          "noise each epoch; times d for the vector).")
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
