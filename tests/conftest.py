"""Shared fixtures: the embedded defaults are loaded once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_files import conll_file, tiny_corpora  # noqa: F401 (fixtures)

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def default_table():
    from textdp.defaults import default_table

    return default_table()


@pytest.fixture(scope="session")
def nlp():
    from textdp.defaults import load_pipeline

    return load_pipeline()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data, or skip the test cleanly when it is absent (a user's fresh checkout)."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture
def private_cache(tmp_path, monkeypatch) -> Path:
    """A test's own TEXTDP_CACHE under its tmp dir: nothing read from or written to ~/.cache.
    Modules whose every test needs it say ``pytestmark = pytest.mark.usefixtures(...)``."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TEXTDP_CACHE", str(cache))
    return cache


@pytest.fixture(scope="module")
def names_privatizer():
    """A seeded default privatizer whose persons are fixed (``name_detectors.names``)."""
    from name_detectors import names

    from textdp import Privatizer

    return Privatizer(seed=11, detector=names)
