"""The mechanism protocol: an abstract base class every mechanism implements.

A mechanism maps a batch of input vectors (static or contextual) to indices of public
candidates. Two families share this interface (a third, :class:`ContextMechanism`, draws
from each target's text instead, see below):

* :class:`NoiseMechanism`: add calibrated noise, decode to the nearest candidate (post-processing);
* exponential-mechanism draws (``tem``, ``santext``): sample a candidate directly from scores.

Every call works on a whole batch: ``vectors`` holds each *distinct* input once and
``inverse`` says which distinct vector each token uses, so repeated words are looked up once
but still get independent draws.

What a mechanism can do beyond :meth:`Mechanism.sample` is declared on its class, not found by
type checks: :attr:`~Mechanism.reads_context`, :attr:`~Mechanism.perturbs`,
:attr:`~Mechanism.releases_table` and :meth:`~Mechanism.radial_law`. A mechanism is registered
with :func:`register_mechanism` (``textdp.<name>.v1`` and its short name ``<name>``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np
import torch

from textdp.index import NeighbourIndex
from textdp.registries import VersionedRegistry, builtin_name
from textdp.rng import RandomSource
from textdp.validation import check_epsilon

#: Every mechanism, built-in (``textdp.mlaplace.v1`` and its alias ``mlaplace``) and from the
#: ``textdp_mechanisms`` entry-point group. The registered object is called with ``epsilon``
#: and its own keyword arguments and returns a :class:`Mechanism`.
registry = VersionedRegistry("textdp", "mechanisms")

M = TypeVar("M", bound="type[Mechanism]")


def register_mechanism(cls: M) -> M:
    """Class decorator: register ``cls`` as ``textdp.<cls.name>.v1`` with ``cls.name`` as its
    alias (one line under the class's own module; the instance's ``name`` stays the short
    name, which reports carry)."""
    return registry.register_versioned(builtin_name(cls.name), cls, alias=cls.name)


@dataclass(frozen=True)
class RadialLaw:
    """How a noise mechanism moves a candidate: ``noisy = base + R·v``, with directions ``v``
    whose law does not depend on ε and a radius ``R`` whose CDF is known in closed form.
    Calibration reads P(unchanged) off it exactly (see :mod:`textdp.calibration`).

    Attributes:
        space: the candidates in the space the mechanism decodes in.
        base: the decode-space points of the words asked about.
        direction: ``direction(n, rng)``: ``(n, dim)`` directions ``v`` (any ε).
        cdf: ``cdf(t, ε)``: P(R < t), elementwise over an array of radii ``t`` of shape
            ``(words, draws)`` (a per-word scale may broadcast over ``(words, 1)``).
    """

    space: np.ndarray
    base: np.ndarray
    direction: Callable[[int, RandomSource], torch.Tensor]
    cdf: Callable[[np.ndarray, float], np.ndarray]


class Mechanism(ABC):
    """Base class: a per-token ε-metric-DP (or (ε, δ)) substitution mechanism.

    Subclasses set ``name``, ``description`` and ``guarantee`` and implement :meth:`sample`.
    ``prepare`` is called once per candidate table before the first batch.
    """

    name: ClassVar[str] = "abstract"
    description: ClassVar[str] = ""
    guarantee: ClassVar[str] = ""
    #: False for mechanisms that release representations, not substitutes (dpnr).
    substitutes: ClassVar[bool] = True
    #: True where the guarantee holds only for inputs that are words of the table (nadp's
    #: per-neighbourhood σ), so contextual vectors are refused.
    table_words_only: ClassVar[bool] = False
    #: The distance ε multiplies: ``"euclidean"`` (metric DP in the table's L2 distance),
    #: ``"mahalanobis"``, or ``None`` where ε is a plain (ε, δ) budget (gaussian, nadp, dpmlm).
    #: Reports put ε × the space's distances beside ε only for ``"euclidean"``.
    metric: ClassVar[str | None] = None
    #: True where :meth:`sample` takes ``index``: a public subset of the candidates to decode
    #: to (the name vocabulary), built in :meth:`decode_space`. The noise (or the exponential
    #: mechanism's scores) does not depend on which public set is decoded to, so the guarantee
    #: is the same for any subset.
    decodes_subsets: ClassVar[bool] = False
    #: True where the mechanism draws each target from its text (a :class:`ContextMechanism`:
    #: ``load`` and ``sample_in_context`` instead of ``prepare`` and ``sample``).
    reads_context: ClassVar[bool] = False
    #: True where :meth:`perturb` gives the noisy vector the decode reads (noise-then-decode,
    #: a :class:`NoiseMechanism`); the others pick a candidate directly and have none.
    perturbs: ClassVar[bool] = False
    #: True where the noisy vectors may be published as they are (``textdp release-table``):
    #: ``release(vectors, rng)`` where the class has one, else :meth:`perturb`; one draw per
    #: row carries the mechanism's per-token guarantee. Declared per class, see
    #: :data:`DECLARED_PER_CLASS`.
    releases_table: ClassVar[bool] = False
    #: Capabilities that describe how one class draws its noise: a subclass may draw it
    #: differently (``vickrey_mahalanobis`` has ``mahalanobis``'s noise but Vickrey's choice),
    #: so it does not inherit them; it declares them again in its own body where they hold.
    DECLARED_PER_CLASS: ClassVar[tuple[str, ...]] = ("releases_table", "radial_law")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for capability in Mechanism.DECLARED_PER_CLASS:
            if capability not in vars(cls):
                setattr(cls, capability, vars(Mechanism)[capability])

    def __init__(self, epsilon: float) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.index: NeighbourIndex | None = None

    # ------------------------------------------------------------------ lifecycle
    def prepare(self, candidates: np.ndarray, index: NeighbourIndex, rng: RandomSource) -> None:
        """Bind the candidate matrix and its index; precompute what depends on them only."""
        self.index = index
        self.candidates = candidates

    @property
    def prepared(self) -> bool:
        return self.index is not None

    @abstractmethod
    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        """Candidate indices ``(len(inverse),)`` for tokens whose inputs are
        ``vectors[inverse]``; one independent draw per token. ``index`` (only where
        :attr:`decodes_subsets`): decode to that public subset instead of the prepared
        candidates; its vectors must be in :meth:`decode_space`."""

    def decode_space(self, candidates: np.ndarray) -> np.ndarray:
        """Candidate vectors as the decode step compares them (identity unless the mechanism
        works in another space, like ``projection``'s projected one)."""
        return candidates

    # ------------------------------------------------------------------ capabilities
    def perturb(self, vectors: torch.Tensor, rng: RandomSource) -> torch.Tensor:
        """Noisy copies of ``vectors`` where :attr:`perturbs`; the others refuse with a
        ``TypeError`` (they have no noisy vector)."""
        raise TypeError(f"mechanism {self.name!r} picks a candidate directly: it has no noisy "
                        "vector to perturb (perturbs is False)")

    def radial_law(self, rows: np.ndarray) -> RadialLaw | None:
        """The :class:`RadialLaw` of this prepared mechanism at the candidates ``rows`` (for
        any ε), or ``None`` where the noise has no known radial form (calibration then
        samples the mechanism instead). Declared per class, see :data:`DECLARED_PER_CLASS`."""
        return None

    # ------------------------------------------------------------------ reporting
    @property
    def delta(self) -> float:
        """δ per token (0 for pure metric DP)."""
        return 0.0

    def params(self) -> dict[str, Any]:
        """The mechanism's parameters as plain values (for reports, configs and hashing)."""
        return {"epsilon": self.epsilon}

    def describe(self) -> dict[str, Any]:
        """Name, parameters and guarantee as a JSON-friendly dict."""
        return {"mechanism": self.name, **self.params(), "guarantee": self.guarantee}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"

    def _decode_index(self, index: NeighbourIndex | None) -> NeighbourIndex:
        """The index a draw decodes to: ``index`` (a public subset, only where
        :attr:`decodes_subsets`), else the prepared candidates'."""
        if index is None:
            return self._require_index()
        if not self.decodes_subsets:
            raise ValueError(f"mechanism {self.name!r} draws from its prepared table only "
                             "(index must be None)")
        return index

    def _require_index(self) -> NeighbourIndex:
        if self.index is None:
            raise RuntimeError(f"mechanism {self.name!r} was used before prepare()")
        return self.index


class NoiseMechanism(Mechanism):
    """Noise-then-decode: ``decode(x + noise)`` against the candidate index (or any public
    subset of it: decoding is post-processing)."""

    decodes_subsets = True
    perturbs = True

    @abstractmethod
    def noise(self, n: int, dim: int, rng: RandomSource, device: torch.device) -> torch.Tensor:
        """``(n, dim)`` independent noise vectors."""

    def perturb(self, vectors: torch.Tensor, rng: RandomSource) -> torch.Tensor:
        """Noisy copies of ``vectors`` (opt-in: docs/architecture.md rule 4 keeps them out of
        outputs)."""
        return vectors + self.noise(vectors.shape[0], vectors.shape[1], rng, vectors.device)

    def sample(
        self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
        index: NeighbourIndex | None = None,
    ) -> torch.Tensor:
        index = self._decode_index(index)
        noisy = self.perturb(vectors.to(index.device)[inverse.to(index.device)], rng)
        return index.search(noisy, k=1)[1][:, 0]


def laplace_directions(n: int, dim: int, gen: torch.Generator | RandomSource,
                       device: torch.device) -> torch.Tensor:
    """``n`` directions uniform on the unit sphere in ``dim`` dimensions (``gen``: a torch
    generator, or a :class:`RandomSource`, whose secure mode draws from its CSPRNG)."""
    g = gen.normal((n, dim), device) if isinstance(gen, RandomSource) \
        else torch.randn((n, dim), generator=gen, device=device)
    return g / torch.linalg.vector_norm(g, dim=1, keepdim=True).clamp_min(1e-30)


def multivariate_laplace(n: int, dim: int, epsilon: float, rng: RandomSource,
                         device: torch.device) -> torch.Tensor:
    """Noise with density ∝ exp(−ε‖z‖) in ``dim`` dimensions (Feyisetan et al. 2020).

    A uniform direction times a Gamma(dim, 1/ε) magnitude: the norm of such a vector has exactly
    that Gamma law, which makes the density proportional to exp(−ε‖z‖).
    """
    radius = rng.numpy.gamma(shape=dim, scale=1.0 / epsilon, size=n).astype(np.float32)
    directions = laplace_directions(n, dim, rng, device)
    return directions * torch.from_numpy(radius).to(device)[:, None]


def sphere_directions(dim: int) -> Callable[[int, RandomSource], torch.Tensor]:
    """A :attr:`RadialLaw.direction`: ``n`` directions uniform on the unit sphere in ``dim``
    dimensions, drawn on the CPU."""
    def draw(n: int, rng: RandomSource) -> torch.Tensor:
        return laplace_directions(n, dim, rng, torch.device("cpu"))

    return draw


def laplace_radius_cdf(dim: int, scale: float = 1.0) -> Callable[[np.ndarray, float], np.ndarray]:
    """A :attr:`RadialLaw.cdf`: P(R < t) for the radius of :func:`multivariate_laplace` noise
    at ε / ``scale`` (a sensitivity), R ~ Gamma(dim, scale/ε): the regularised lower
    incomplete gamma function P(dim, t·ε/scale)."""
    from scipy.special import gammainc  # scipy on first use: 0.5 s off every import

    return lambda t, eps: gammainc(dim, t * eps / scale)


class ContextMechanism(Mechanism):
    """A mechanism that draws each target from its text, not from a vector (e.g. ``dpmlm``).

    It owns its model and its public candidate vocabulary, and returns the substitute words
    themselves. The :class:`~textdp.privatizer.Privatizer` calls :meth:`load` once (instead of
    :meth:`prepare`), then per batch :meth:`sample_in_context` with the texts and the character
    spans of their targets; :meth:`sample_free` replaces targets over a text's ε budget with
    draws that depend on no text. ``sample`` (the vector interface) does not apply
    (:attr:`reads_context` says so without a type check).
    """

    reads_context = True

    @abstractmethod
    def load(self, device: torch.device) -> None:
        """Load the model on ``device`` (once; later calls return at once)."""

    @property
    @abstractmethod
    def prepared(self) -> bool:
        """Whether the model is loaded."""

    @abstractmethod
    def sample_in_context(self, texts: Sequence[str], spans: Sequence[np.ndarray],
                          rng: RandomSource) -> list[str]:
        """One public word per span (``spans[i]``: ``(n_i, 2)`` sorted, non-overlapping
        ``[start, end)`` character offsets in ``texts[i]``), in text and span order; every
        span gets its own independent draw."""

    @abstractmethod
    def sample_free(self, n: int, rng: RandomSource) -> list[str]:
        """``n`` public words drawn independently of any text (they cost no ε)."""

    def sample(self, vectors: torch.Tensor, inverse: torch.Tensor, rng: RandomSource,
               index: NeighbourIndex | None = None) -> torch.Tensor:
        raise TypeError(f"mechanism {self.name!r} draws from the text around each target, not "
                        "from a vector: call sample_in_context")
