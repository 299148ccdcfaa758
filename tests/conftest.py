"""Shared fixtures: the embedded defaults are loaded once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

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
