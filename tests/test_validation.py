"""textdp.validation: every checker rejects bad values with a ValueError naming the parameter."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from textdp.validation import (
    check_choice,
    check_closed_unit,
    check_epsilon,
    check_open_unit,
    check_positive,
    check_positive_int,
)

NAN, INF = float("nan"), float("inf")
NOT_NUMBERS = [True, False, None, "1", "0.5", [1.0], 1 + 0j, object()]


def _raises_naming(name: str):
    return pytest.raises(ValueError, match=re.escape(name))


# ---------------------------------------------------------------- check_positive / check_epsilon
@pytest.mark.parametrize("value", [0, 0.0, -0.0, -1, -1e-300, NAN, INF, -INF, *NOT_NUMBERS])
def test_check_positive_rejects(value):
    with _raises_naming("my_param"):
        check_positive("my_param", value)


@pytest.mark.parametrize("value", [-1, -1e-9, NAN, INF, -INF, True, None, "0"])
def test_check_positive_allow_zero_rejects(value):
    with _raises_naming("scale"):
        check_positive("scale", value, allow_zero=True)


def test_check_positive_allow_zero_accepts_zero():
    assert check_positive("scale", 0, allow_zero=True) == 0.0


@pytest.mark.parametrize("value", [1e-300, 0.5, 1, 3, 1e300, np.float32(2.5), np.float64(0.1),
                                   np.int64(7), Fraction(1, 3)])
def test_check_positive_accepts_and_returns_float(value):
    out = check_positive("x", value)
    assert type(out) is float
    assert out == pytest.approx(float(value))


@pytest.mark.parametrize("value", [0, -1, NAN, INF, -INF, True, False, None, "1", 1j])
def test_check_epsilon_rejects(value):
    with _raises_naming("epsilon"):
        check_epsilon(value)


def test_check_epsilon_custom_name():
    with _raises_naming("eps_prime"):
        check_epsilon(0.0, name="eps_prime")
    assert check_epsilon(2) == 2.0


def test_messages_state_the_accepted_range():
    with pytest.raises(ValueError, match="> 0"):
        check_epsilon(-1)
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        check_open_unit("delta", 2)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        check_closed_unit("lam", 2)


# ---------------------------------------------------------------- δ: open unit interval
@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, -1e-12, 1 + 1e-12, -1, 2, NAN, INF, -INF,
                                   *NOT_NUMBERS])
def test_check_open_unit_rejects(value):
    with _raises_naming("delta"):
        check_open_unit("delta", value)


@pytest.mark.parametrize("value", [1e-300, 1e-6, 0.5, 1 - 1e-12, np.float64(0.25)])
def test_check_open_unit_accepts(value):
    assert check_open_unit("delta", value) == pytest.approx(float(value))


# ---------------------------------------------------------------- λ: closed unit interval
@pytest.mark.parametrize("value", [-1e-12, 1 + 1e-12, -1, 2, NAN, INF, -INF, *NOT_NUMBERS])
def test_check_closed_unit_rejects(value):
    with _raises_naming("lam"):
        check_closed_unit("lam", value)


@pytest.mark.parametrize("value", [0, 0.0, 0.2, 1, 1.0])
def test_check_closed_unit_accepts_bounds(value):
    out = check_closed_unit("lam", value)
    assert type(out) is float and out == float(value)


# ---------------------------------------------------------------- positive integers
@pytest.mark.parametrize("value", [0, -1, -100, 1.0, 2.5, NAN, INF, True, False, None, "3"])
def test_check_positive_int_rejects(value):
    with _raises_naming("batch_size"):
        check_positive_int("batch_size", value)


@pytest.mark.parametrize("value", [1, 2, 10**9])
def test_check_positive_int_accepts(value):
    assert check_positive_int("k", value) == value


# ---------------------------------------------------------------- choices
@pytest.mark.parametrize("value", ["EXACT", "exact ", "", None, 1, ["exact"]])
def test_check_choice_rejects(value):
    with _raises_naming("backend") as info:
        check_choice("backend", value, ("exact", "hnsw"))
    # the accepted options are listed so the user can fix the call
    assert "exact" in str(info.value) and "hnsw" in str(info.value)


def test_check_choice_accepts():
    assert check_choice("backend", "hnsw", ("exact", "hnsw")) == "hnsw"
    assert check_choice("backend", "exact", ["exact"]) == "exact"


def test_nan_is_never_accepted_anywhere():
    for checker in (lambda v: check_positive("p", v), check_epsilon,
                    lambda v: check_open_unit("p", v), lambda v: check_closed_unit("p", v)):
        with pytest.raises(ValueError):
            checker(math.nan)
