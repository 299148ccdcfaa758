"""The mechanism registry (versioned names, aliases, entry points) and the capabilities that
calibration, release-table and evaluate privacy ask a mechanism for instead of its type."""

from __future__ import annotations

import importlib.metadata
import string
from itertools import product

import catalogue
import numpy as np
import pytest
import torch

from textdp.calibration import UnchangedEstimator, calibrate_epsilon, sample_rows
from textdp.evaluate.privacy import evaluate_privacy
from textdp.mechanisms import (
    Mahalanobis,
    Mechanism,
    MultivariateLaplace,
    NoiseMechanism,
    VickreyMahalanobis,
    available,
    catalogue_rows,
    create_mechanism,
    registry,
    table_releasing,
    versioned_name,
)
from textdp.mechanisms.base import (
    ContextMechanism,
    RadialLaw,
    laplace_radius_cdf,
    multivariate_laplace,
    sphere_directions,
)
from textdp.release import can_release, check_releasable, release_table
from textdp.tables import EmbeddingTable

WORDS = ["".join(p) for p in product(string.ascii_lowercase[:8], repeat=2)]
BUILT_IN = ["custext", "diffractor", "dpmlm", "dpnr", "gaussian", "mahalanobis", "mlaplace",
            "nadp", "projection", "santext", "tem", "truncated_gumbel", "vickrey",
            "vickrey_mahalanobis"]
RELEASING = ["gaussian", "mahalanobis", "mlaplace", "nadp"]

pytestmark = pytest.mark.usefixtures("private_cache")


def _table(n: int = 40, dim: int = 6, seed: int = 0) -> EmbeddingTable:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return EmbeddingTable(WORDS[:n], vectors, name="random")


# ---------------------------------------------------------------- third-party test doubles
class ToyLaplace(NoiseMechanism):
    """A third-party noise mechanism that declares both capabilities (mlaplace's noise)."""

    name = "toy_laplace"
    guarantee = "ε·d(x, x') metric DP per token (test double)"
    releases_table = True

    def noise(self, n, dim, rng, device):
        return multivariate_laplace(n, dim, self.epsilon, rng, device)

    def radial_law(self, rows: np.ndarray) -> RadialLaw:
        dim = self.candidates.shape[1]
        return RadialLaw(self.candidates, self.candidates[rows], sphere_directions(dim),
                         laplace_radius_cdf(dim))


class UndeclaredLaplace(NoiseMechanism):
    """The same noise, declaring neither capability."""

    name = "undeclared_laplace"
    guarantee = "ε·d(x, x') metric DP per token (test double)"

    def noise(self, n, dim, rng, device):
        return multivariate_laplace(n, dim, self.epsilon, rng, device)


class ToyInContext(ContextMechanism):
    """A third-party mechanism that reads each target's text."""

    name = "toy_in_context"
    guarantee = "none (test double)"

    def load(self, device):
        return None

    @property
    def prepared(self):
        return True

    def sample_in_context(self, texts, spans, rng):
        return ["x" for s in spans for _ in range(len(s))]

    def sample_free(self, n, rng):
        return ["x"] * n


class ToyPick(Mechanism):
    """A third-party mechanism that picks a candidate directly (no noisy vector)."""

    name = "toy_pick"
    guarantee = "none (test double)"

    def sample(self, vectors, inverse, rng, index=None):
        self._require_index()
        return inverse.clone()


@pytest.fixture
def third_party():
    """The test doubles registered for the test, as a package's entry points would add them
    (a versioned name and a short alias), and removed afterwards."""
    doubles = (ToyLaplace, UndeclaredLaplace, ToyInContext, ToyPick)
    for cls in doubles:
        registry.register_versioned(f"acme.{cls.name}.v1", cls, alias=cls.name)
    yield
    for cls in doubles:
        registry.unregister(cls.name)


# ---------------------------------------------------------------- names
@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_has_a_versioned_name_and_its_short_alias(name):
    versioned = f"textdp.{name}.v1"
    assert versioned in registry and name in registry
    assert registry.get(versioned) is registry.get(name)
    assert versioned_name(name) == versioned and registry.short(versioned) == name


def test_available_lists_each_mechanism_once_by_its_short_name():
    assert available() == BUILT_IN
    assert not any(n.startswith("textdp.") for n in available())


@pytest.mark.parametrize("name", ["mlaplace", "tem", "nadp"])
def test_a_versioned_name_builds_the_same_mechanism_with_the_short_name(name):
    a = create_mechanism(f"textdp.{name}.v1", 2.0)
    b = create_mechanism({"name": f"textdp.{name}.v1", "epsilon": 2.0})
    assert type(a) is type(b) is registry.get(name)
    # Reports and golden outputs carry the short name.
    assert a.name == name and a.describe()["mechanism"] == name


def test_catalogue_rows_show_the_versioned_name_beside_the_short_one():
    rows = catalogue_rows()
    assert [r.name for r in rows] == available()
    row = next(r for r in rows if r.name == "mlaplace")
    assert row.versioned == "textdp.mlaplace.v1"
    assert row.label == "mlaplace (textdp.mlaplace.v1)"
    assert row.guarantee and row.description and row.decodes_subsets and row.releases_table
    assert not next(r for r in rows if r.name == "tem").releases_table
    assert table_releasing() == RELEASING


def test_a_registered_mechanism_is_listed_and_removed_cleanly(third_party):
    assert {"toy_laplace", "toy_pick"} <= set(available())
    assert "acme.toy_laplace.v1" not in available()
    assert create_mechanism("acme.toy_laplace.v1", 1.0).name == "toy_laplace"
    label = next(r.label for r in catalogue_rows() if r.name == "toy_laplace")
    assert label == "toy_laplace (acme.toy_laplace.v1)"


def test_registry_left_clean():
    assert available() == BUILT_IN
    assert "acme.toy_laplace.v1" not in registry and "toy_laplace" not in registry


def test_an_entry_point_mechanism_is_found_by_its_name(monkeypatch):
    point = importlib.metadata.EntryPoint(
        name="acme.laplace.v1", value="textdp.mechanisms.mlaplace:MultivariateLaplace",
        group="textdp_mechanisms")
    monkeypatch.setattr(catalogue, "AVAILABLE_ENTRY_POINTS",
                        importlib.metadata.EntryPoints([point]))
    assert "acme.laplace.v1" in available()
    assert isinstance(create_mechanism("acme.laplace.v1", 1.0), MultivariateLaplace)


def test_unknown_names_list_the_registered_ones():
    with pytest.raises(ValueError, match=r"mechanism must be one of \[.*'mlaplace'") as err:
        create_mechanism("textdp.mlaplace.v9", 1.0)
    assert "'textdp.mlaplace.v9'" in str(err.value)


# ---------------------------------------------------------------- capabilities
def test_capabilities_are_declared_on_the_classes():
    for name in BUILT_IN:
        cls = registry.get(name)
        assert cls.reads_context == (name == "dpmlm")
        assert cls.releases_table == (name in RELEASING)
    assert MultivariateLaplace.perturbs and not registry.get("tem").perturbs
    assert ContextMechanism.reads_context and not Mechanism.reads_context


def test_per_class_capabilities_are_not_inherited():
    class Shifted(MultivariateLaplace):  # may draw its noise differently
        name = "shifted"

    assert Shifted.releases_table is False
    assert Shifted.radial_law is Mechanism.radial_law
    # Mahalanobis noise, Vickrey's second-price choice: neither capability holds.
    assert issubclass(VickreyMahalanobis, Mahalanobis)
    assert not VickreyMahalanobis.releases_table
    assert VickreyMahalanobis.radial_law is Mechanism.radial_law
    # Ordinary class attributes still inherit.
    assert Shifted.perturbs and Shifted.metric == "euclidean"


def test_a_mechanism_without_a_noisy_vector_refuses_perturb():
    with pytest.raises(TypeError, match="no noisy vector"):
        create_mechanism("tem", 1.0).perturb(torch.zeros(1, 2), None)


# ---------------------------------------------------------------- calibration
def test_calibration_uses_a_declared_radial_law(third_party):
    table = _table()
    rows = sample_rows(table, 8, seed=0)
    toy = UnchangedEstimator("toy_laplace", table, rows, n_draws=50, seed=0)
    reference = UnchangedEstimator("mlaplace", table, rows, n_draws=50, seed=0)
    assert toy.method == reference.method == "radial"
    np.testing.assert_array_equal(toy.probabilities(2.0), reference.probabilities(2.0))


def test_calibration_samples_a_mechanism_without_a_radial_law(third_party):
    table = _table()
    rows = sample_rows(table, 8, seed=0)
    assert UnchangedEstimator("undeclared_laplace", table, rows, n_draws=50).method == "sampled"
    assert UnchangedEstimator("vickrey_mahalanobis", table, rows, n_draws=50).method == \
        "sampled"
    result = calibrate_epsilon("undeclared_laplace", table, target_unchanged=0.5, n_words=8,
                               n_draws=100, clip_norm=None, tol=0.05)
    assert result.method == "sampled" and result.achieved <= 0.5


@pytest.mark.parametrize("name, message", [
    ("toy_in_context", "draws from the text around each target"),
    ("dpnr", "releases representations"),
])
def test_calibration_refuses_what_has_no_table_vector(third_party, name, message):
    with pytest.raises(ValueError, match=message):
        calibrate_epsilon(name, "/nonexistent/table.vec")  # refused before the table loads


# ---------------------------------------------------------------- release-table
def test_a_third_party_mechanism_that_declares_releases_table_releases(third_party):
    table = _table()
    assert can_release(create_mechanism("toy_laplace", 1.0))
    words, noisy = release_table("toy_laplace", 1.0, table, clip_norm=None, seed=0)
    _, expected = release_table("mlaplace", 1.0, table, clip_norm=None, seed=0)
    assert words == table.words
    np.testing.assert_array_equal(noisy, expected)
    assert "toy_laplace" in table_releasing()


@pytest.mark.parametrize("name", ["undeclared_laplace", "toy_pick", "tem",
                                  "vickrey_mahalanobis", "dpnr"])
def test_a_mechanism_without_releases_table_is_refused_naming_those_with_it(third_party, name):
    assert not can_release(create_mechanism(name, 1.0))
    with pytest.raises(ValueError, match=f"mechanism '{name}' cannot release a table") as err:
        check_releasable(create_mechanism(name, 1.0))
    assert str(["gaussian", "mahalanobis", "mlaplace", "nadp", "toy_laplace"]) in str(err.value)


def test_the_releasable_list_is_unchanged_without_third_parties():
    with pytest.raises(ValueError, match=r"use one of \['gaussian', 'mahalanobis', 'mlaplace', "
                                         r"'nadp'\]"):
        check_releasable(create_mechanism("tem", 1.0))


# ---------------------------------------------------------------- evaluate privacy
def test_evaluate_privacy_refuses_a_mechanism_that_reads_context(third_party):
    for name in ("toy_in_context", "acme.toy_in_context.v1"):
        with pytest.raises(ValueError, match=f"mechanism '{name}' does not substitute"):
            evaluate_privacy([name], [1.0], table="/nonexistent/table.vec")


def test_evaluate_privacy_measures_geometry_only_where_the_mechanism_perturbs(third_party):
    table = EmbeddingTable(WORDS[:32], _table(32, 8).vectors, name="random")
    evaluation = evaluate_privacy(["toy_laplace", "toy_pick", "textdp.mlaplace.v1"], [1.0],
                                  table=table, n_words=8, n_draws=6, seed=0)
    rows = {r["mechanism"]: r for r in evaluation.rows}
    assert "noise_distance_mean" in rows["toy_laplace"]
    assert "noise_distance_mean" in rows["textdp.mlaplace.v1"]
    assert "noise_distance_mean" not in rows["toy_pick"]
