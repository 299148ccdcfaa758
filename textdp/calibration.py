"""Choose ε from a target instead of guessing: ``textdp calibrate``.

The useful ε depends on the table's scale (distances between words), so a number that is
private on one table keeps every word on another. :func:`calibrate_epsilon` finds the ε at which
a statistic (median, mean or a quantile over a sample of table words) of P(unchanged) — the
probability that the mechanism returns the word itself — meets a target, e.g. "the median word
survives at most 1 % of draws".

How P(unchanged) is estimated for a sampled word w:

* Noise mechanisms whose noise is a random direction times a radius with a known law, which
  their class declares (:meth:`~textdp.mechanisms.base.Mechanism.radial_law`: ``mlaplace``,
  ``mahalanobis``, ``projection``, ``gaussian``, ``nadp``): the noisy point
  w + R·v leaves w's Voronoi cell (the region decoded to w) exactly once along the ray, because
  the cell is convex, at the radius t*(v) = min over other words c with v·(c − w) > 0 of
  ‖c − w‖² / (2 v·(c − w)). So P(unchanged | v) = P(R < t*(v)), which the radius law gives in
  closed form (a Gamma CDF for the Laplace family, a chi CDF for Gaussians). The estimate
  averages that over ``n_draws`` sampled directions per word: the directions are drawn once and
  reused for every ε (common random numbers), so the estimate is a smooth, strictly monotone
  function of ε and the bisection converges to one answer.
* Every other mechanism: ``n_draws`` draws through the mechanism's own ``sample`` per word and
  step, from a generator re-seeded for every ε (common random numbers again).

ε is then found by bisection on log ε (bracketed by factors of 4 from ε = 1) and the returned ε
is the largest one found whose statistic is at most the target (the conservative side).
Results are cached on disk (``cache_dir()/calibration``) keyed by the table's fingerprint, the
mechanism's parameters, the target, the statistic and the sampling settings.

    textdp calibrate --table default --target-unchanged 0.01
    textdp calibrate --mechanism nadp --target-unchanged 0.05 --quantile 0.9

(the command is :mod:`textdp.cli.calibrate`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from textdp.defaults import carried_epsilon, resolve_table
from textdp.files import atomic_output
from textdp.index import shared_index
from textdp.mechanisms import Mechanism, MechanismSpec, RadialLaw, create_mechanism
from textdp.rng import RandomSource
from textdp.tables import EmbeddingTable, cache_dir
from textdp.validation import check_open_unit, check_positive, check_positive_int

DEFAULT_N_WORDS = 300
DEFAULT_N_DRAWS = 100
DEFAULT_TOL = 0.01
STATISTICS = ("median", "mean")
CACHE_VERSION = 1
# Search range for ε: targets not met inside it are reported as unreachable.
EPSILON_RANGE = (1e-9, 1e9)
# Rows of (draws × candidates) scores computed at once (memory bound: ~4 bytes each).
_CHUNK_CELLS = 1 << 24

Statistic = str | float


# ---------------------------------------------------------------------------- inputs
def mechanism_spec(mechanism: MechanismSpec) -> dict[str, Any]:
    """``{"name": ..., **params}`` without ε: what a calibration is keyed on."""
    if isinstance(mechanism, Mechanism):
        spec: dict[str, Any] = {"name": mechanism.name, **mechanism.params()}
    elif isinstance(mechanism, str):
        spec = {"name": mechanism}
    elif isinstance(mechanism, Mapping):
        spec = dict(mechanism)
    else:
        raise ValueError(f"mechanism must be a name, a mapping or a Mechanism, got "
                         f"{type(mechanism).__name__}")
    spec.pop("epsilon", None)
    # Validates the name, the arguments and that the mechanism can be calibrated, now.
    check_calibratable(create_mechanism(spec, 1.0))
    return spec


def statistic_label(statistic: Statistic) -> str:
    """``"median"``, ``"mean"`` or ``"quantile=q"``; validates the value."""
    if isinstance(statistic, str):
        if statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {list(STATISTICS)} or a quantile in "
                             f"(0, 1), got {statistic!r}")
        return statistic
    q = check_open_unit("statistic (quantile)", statistic)
    return f"quantile={q:g}"


def summarise(values: np.ndarray, statistic: Statistic) -> float:
    """The statistic of per-word probabilities."""
    if statistic == "median":
        return float(np.median(values))
    if statistic == "mean":
        return float(np.mean(values))
    return float(np.quantile(values, float(statistic)))


def sample_rows(table: EmbeddingTable, n_words: int, seed: int,
                words: Sequence[str] | None = None) -> np.ndarray:
    """Candidate indices of the words to measure: ``words`` if given (each must be a
    candidate of the table), else ``n_words`` drawn uniformly without replacement."""
    if words is not None:
        words = list(words)
        if not words:
            raise ValueError("words must not be empty")
        rows = table.candidate_of_row()[np.maximum(table.lookup(words), 0)]
        rows[table.lookup(words) < 0] = -1
        missing = [w for w, r in zip(words, rows.tolist()) if r < 0]
        if missing:
            raise ValueError(f"words must be candidates of the table; {len(missing)} are not "
                             f"(first: {missing[0]!r})")
        return np.unique(rows)
    n_words = check_positive_int("n_words", n_words)
    gen = np.random.default_rng(seed)
    n = min(n_words, len(table))
    return np.sort(gen.choice(len(table), size=n, replace=False))


# ---------------------------------------------------------------------------- estimators
def check_calibratable(mechanism: Mechanism) -> Mechanism:
    """``mechanism`` if P(unchanged) can be measured on table vectors, else a ``ValueError``:
    a mechanism that reads each target's text (``reads_context``, e.g. ``dpmlm``) or releases
    representations instead of substituting (``dpnr``) has no table words to keep."""
    if mechanism.reads_context:
        raise ValueError(f"mechanism {mechanism.name!r} draws from the text around each "
                         "target, not from a table vector: calibration measures vector "
                         "mechanisms on a table; give epsilon as a number")
    if not mechanism.substitutes:
        raise ValueError(f"mechanism {mechanism.name!r} releases representations, it never "
                         "substitutes a word: there is no P(unchanged) to calibrate")
    return mechanism


def exit_radii(space: np.ndarray, base: np.ndarray, own: np.ndarray,
               directions: torch.Tensor) -> np.ndarray:
    """t*(v): how far along each direction ``v`` the point ``base + t·v`` stays nearest to its
    own candidate ``own`` (∞ if it never leaves).

    ``directions`` is ``(words, draws, dim)``; returns ``(words, draws)``. The cell of a word
    is convex, so the ray leaves it once, at the first bisecting hyperplane it crosses:
    t* = 1 / max_c 2·v·(c − b) / ‖c − b‖² over the candidates c with v·(c − b) > 0. Exact
    duplicates of the word's vector (‖c − b‖ = 0) never separate from it and are skipped.
    """
    words, draws, _ = directions.shape
    space_t = torch.from_numpy(np.ascontiguousarray(space, np.float32))
    sq_space = (space_t.double() ** 2).sum(1)
    out = np.empty((words, draws), dtype=np.float64)
    per_chunk = max(1, _CHUNK_CELLS // max(1, draws * space.shape[0]))
    with torch.inference_mode():
        for lo in range(0, words, per_chunk):
            hi = min(words, lo + per_chunk)
            b = torch.from_numpy(np.ascontiguousarray(base[lo:hi], np.float32))
            v = directions[lo:hi].float()                           # (w, draws, dim)
            dist_sq = sq_space[None, :] - 2.0 * (b.double() @ space_t.double().T) \
                + (b.double() ** 2).sum(1, keepdim=True)            # ‖c − b‖², (w, N)
            weight = torch.where(dist_sq > 1e-12, 2.0 / dist_sq.clamp_min(1e-12),
                                 torch.zeros_like(dist_sq)).float()
            weight[torch.arange(hi - lo), torch.from_numpy(own[lo:hi]).long()] = 0.0
            # v·(c − b) = v·c − v·b, scaled by 2/‖c − b‖²: the inverse exit radius per c.
            along = torch.matmul(v, space_t.T)
            along -= (v * b[:, None, :]).sum(2, keepdim=True)
            along *= weight[:, None, :]
            best = along.amax(dim=2).double()
            out[lo:hi] = torch.where(best > 0, 1.0 / best.clamp_min(1e-300),
                                     torch.full_like(best, math.inf)).numpy()
    return out


class UnchangedEstimator:
    """P(unchanged) of sampled table words as a function of ε, from one set of draws.

    Args:
        mechanism: a registered name, a ``{"name": ..., **args}`` mapping or a
            :class:`Mechanism` (its own ε is ignored).
        table: the (already clipped) table; see :func:`textdp.defaults.resolve_table`.
        rows: candidate indices of the words to measure.
        n_draws: directions (radial mechanisms) or draws (others) per word.
        seed: seed of the draws; the same draws serve every ε.
    """

    def __init__(self, mechanism: MechanismSpec, table: EmbeddingTable, rows: np.ndarray, *,
                 n_draws: int = DEFAULT_N_DRAWS, seed: int = 0) -> None:
        self.spec = mechanism_spec(mechanism)
        self.table = table
        self.rows = np.asarray(rows, dtype=np.int64)
        self.n_draws = check_positive_int("n_draws", n_draws)
        self.seed = seed
        self.index = shared_index(table, "auto", torch.device("cpu"))
        reference = create_mechanism(self.spec, 1.0)
        reference.prepare(table.vectors, self.index, RandomSource(seed))
        # The class declares its noise's radial law where it has one (ε = 1 instance; ε
        # enters only through the law's cdf).
        self._law: RadialLaw | None = reference.radial_law(self.rows)
        self._radii: np.ndarray | None = None
        if self._law is not None:
            self._radii = self._exit_radii()

    @property
    def method(self) -> str:
        """``"radial"`` (closed-form radius law) or ``"sampled"`` (the mechanism's draws)."""
        return "radial" if self._law is not None else "sampled"

    def _exit_radii(self) -> np.ndarray:
        law = self._law
        assert law is not None
        rng = RandomSource(self.seed)
        out = np.empty((len(self.rows), self.n_draws))
        step = max(1, 4096 // self.n_draws)
        for lo in range(0, len(self.rows), step):
            hi = min(len(self.rows), lo + step)
            dirs = law.direction((hi - lo) * self.n_draws, rng)
            out[lo:hi] = exit_radii(law.space, law.base[lo:hi], self.rows[lo:hi],
                                    dirs.reshape(hi - lo, self.n_draws, -1))
        return out

    def probabilities(self, epsilon: float) -> np.ndarray:
        """``(words,)`` estimated P(unchanged) at ``epsilon``."""
        if self._law is not None:
            assert self._radii is not None
            return np.asarray(self._law.cdf(self._radii, float(epsilon))).mean(axis=1)
        mech = create_mechanism(self.spec, float(epsilon))
        mech.prepare(self.table.vectors, self.index, RandomSource(self.seed))
        rng = RandomSource(self.seed)  # common random numbers for every ε
        vectors = torch.from_numpy(self.table.vectors[self.rows])
        same = np.zeros(len(self.rows))
        step = max(1, 65536 // self.n_draws)
        with torch.inference_mode():
            for lo in range(0, len(self.rows), step):
                hi = min(len(self.rows), lo + step)
                inverse = torch.arange(hi - lo).repeat_interleave(self.n_draws)
                ids = mech.sample(vectors[lo:hi], inverse, rng).cpu().numpy()
                same[lo:hi] = (ids.reshape(hi - lo, self.n_draws)
                               == self.rows[lo:hi, None]).mean(axis=1)
        return same


# ---------------------------------------------------------------------------- calibration
@dataclass(frozen=True)
class CalibrationResult:
    """The calibrated ε and what it achieves on the sampled words."""

    epsilon: float
    achieved: float
    target: float
    statistic: str
    mechanism: dict[str, Any]
    table: str
    table_fingerprint: str
    n_words: int
    n_draws: int
    seed: int
    method: str
    evaluations: int
    seconds: float
    cached: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        return (f"epsilon {self.epsilon:.6g}: {self.statistic} P(unchanged) "
                f"{self.achieved:.4g} (target {self.target:g}) for {self.mechanism['name']} on "
                f"{self.table}, {self.n_words} words x {self.n_draws} draws, seed {self.seed}, "
                f"{self.method}{' (cached)' if self.cached else ''}")


def bisect_epsilon(evaluate: Callable[[float], float], target: float, tol: float = DEFAULT_TOL
                   ) -> tuple[float, float, int]:
    """Largest ε (to relative precision ``tol``) with ``evaluate(ε) <= target``, for a
    nondecreasing ``evaluate``; returns ``(ε, evaluate(ε), evaluations)``.

    Brackets by factors of 4 from ε = 1, then bisects on log ε. Raises ``ValueError`` if the
    target is not met inside :data:`EPSILON_RANGE`.
    """
    calls = 0

    def f(eps: float) -> float:
        nonlocal calls
        calls += 1
        return evaluate(eps)

    lo_limit, hi_limit = EPSILON_RANGE
    lo = hi = 1.0
    f_lo = f(lo)
    f_hi = f_lo
    while f_lo > target:
        hi, f_hi = lo, f_lo
        lo /= 4.0
        if lo < lo_limit:
            raise ValueError(f"target_unchanged={target:g} is not reached for any epsilon >= "
                             f"{lo_limit:g} (some words survive too often even with that much "
                             "noise); choose a larger target or another statistic")
        f_lo = f(lo)
    while f_hi <= target:
        lo, f_lo = hi, f_hi
        hi *= 4.0
        if hi > hi_limit:
            raise ValueError(f"the statistic stays <= target_unchanged={target:g} up to "
                             f"epsilon={hi_limit:g}: words are almost never kept on this table")
        f_hi = f(hi)
    while hi / lo > 1.0 + tol:
        mid = math.sqrt(lo * hi)
        f_mid = f(mid)
        if f_mid <= target:
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return lo, f_lo, calls


def calibrate_epsilon(
    mechanism: MechanismSpec = "mlaplace",
    table: EmbeddingTable | str | os.PathLike[str] | None = None,
    *,
    target_unchanged: float = 0.01,
    statistic: Statistic = "median",
    n_words: int = DEFAULT_N_WORDS,
    n_draws: int = DEFAULT_N_DRAWS,
    seed: int = 0,
    tol: float = DEFAULT_TOL,
    clip_norm: float | str | None = "median",
    words: Sequence[str] | None = None,
    cache: bool = True,
) -> CalibrationResult:
    """The ε at which ``statistic`` of P(unchanged) over sampled table words is
    ``target_unchanged`` (at most it; see the module docstring for the method).

    Args:
        mechanism: a registered name, ``{"name": ..., **args}`` (ε left out) or a Mechanism.
        table: ``None``/``"default"``, a word2vec file, or an :class:`EmbeddingTable`.
        target_unchanged: target P(unchanged) in (0, 1).
        statistic: ``"median"``, ``"mean"`` or a quantile in (0, 1) over the words (0.9: 90 %
            of the words survive at most the target share of draws).
        n_words: words sampled uniformly from the table's candidates (ignored with ``words``).
        n_draws: directions (or draws) per word.
        seed: seed of the word sample and the draws (a calibration is not private data).
        tol: relative precision of ε.
        clip_norm: as the Privatizer's (``"median"``); ``None`` for an already clipped table.
        words: measure these table words instead of a uniform sample (e.g. names).
        cache: read and write the result under ``cache_dir()/calibration``.
    """
    target = check_open_unit("target_unchanged", target_unchanged)
    label = statistic_label(statistic)
    tol = check_positive("tol", tol)
    spec = mechanism_spec(mechanism)
    space = resolve_table(table, clip_norm)
    rows = sample_rows(space, n_words, seed, words)
    key_fields = {
        "version": CACHE_VERSION, "table": space.fingerprint(), "mechanism": spec,
        "target": target, "statistic": label, "rows": hashlib.sha256(rows.tobytes()).hexdigest(),
        "n_draws": n_draws, "seed": seed, "tol": tol,
    }
    key = hashlib.sha256(json.dumps(key_fields, sort_keys=True, default=str).encode())
    path = cache_dir() / "calibration" / f"{key.hexdigest()[:24]}.json"
    if cache and path.is_file():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            return CalibrationResult(**{**stored, "cached": True})
        except (OSError, ValueError, TypeError):
            pass  # a damaged cache entry is recomputed
    start = time.perf_counter()
    estimator = UnchangedEstimator(spec, space, rows, n_draws=n_draws, seed=seed)
    epsilon, achieved, calls = bisect_epsilon(
        lambda eps: summarise(estimator.probabilities(eps), statistic), target, tol)
    result = CalibrationResult(
        epsilon=epsilon, achieved=achieved, target=target, statistic=label, mechanism=spec,
        table=space.name, table_fingerprint=space.fingerprint(), n_words=len(rows),
        n_draws=n_draws, seed=seed, method=estimator.method, evaluations=calls,
        seconds=time.perf_counter() - start)
    if cache:
        _write_json(path, {k: v for k, v in result.to_dict().items() if k != "cached"})
    return result


def _write_json(path: Path, data: dict[str, Any]) -> None:
    try:
        with atomic_output(path) as f:
            json.dump(data, f, indent=2, default=str)
    except OSError:
        pass  # a read-only cache is no reason to fail


def check_auto(epsilon: Any, mechanism: Any, representation: str,
                target_unchanged: float | None) -> bool:
    """Whether ε is to be calibrated (``epsilon="auto"``, the Privatizer's argument);
    rejects what cannot be, before anything is loaded."""
    if isinstance(epsilon, str):
        if epsilon != "auto":
            raise ValueError(f"epsilon must be a finite number > 0, 'auto' or None, "
                             f"got {epsilon!r}")
        if carried_epsilon(mechanism) is not None:
            raise ValueError("epsilon='auto' calibrates ε for the mechanism: give the "
                             "mechanism by name or as a mapping without 'epsilon'")
        if representation != "static":
            raise ValueError("epsilon='auto' calibrates on a static table; give a number for "
                             f"representation={representation!r}")
        if target_unchanged is not None:
            check_open_unit("target_unchanged", target_unchanged)
        return True
    if target_unchanged is not None:
        raise ValueError("target_unchanged is the calibration target of epsilon='auto'; "
                         f"it does not apply to epsilon={epsilon!r}")
    return False
