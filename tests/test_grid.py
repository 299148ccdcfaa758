"""textdp.grid: the one ε-grid grammar of the evaluations, from the command line and Python."""

from __future__ import annotations

import math

import numpy as np
import pytest

from textdp.grid import EVERY, epsilon_grid, parse_epsilons, parse_grid

MECHS = ["mlaplace", "nadp"]
DEFAULTS = {"*": (1.0, 2.0), "nadp": (10.0, 50.0), "gaussian": (100.0,)}


# ---------------------------------------------------------------- parse_epsilons
@pytest.mark.parametrize("value, expected", [
    ("0.5,1,2", [0.5, 1.0, 2.0]),
    (" 0.5 , 1,,2, ", [0.5, 1.0, 2.0]),      # blanks and empty items are skipped
    ("1e-3,1e4", [1e-3, 1e4]),
    (3, [3.0]),
    (2.5, [2.5]),
    ([0.5, 4], [0.5, 4.0]),
    ((1, "2"), [1.0, 2.0]),
    ("2,1,2", [2.0, 1.0]),                     # repeats dropped, order kept
    (np.float32(0.5), [0.5]),
])
def test_parse_epsilons_valid(value, expected):
    assert parse_epsilons(value) == expected


@pytest.mark.parametrize("value, message", [
    ("1,x", r"epsilon must be comma-separated numbers > 0, .*got 'x'"),
    ("-1", r"epsilon must be a finite number > 0, got -1\.0"),
    ("0", "epsilon must be a finite number > 0"),
    ("nan", "epsilon must be a finite number > 0, got nan"),
    ("inf", "epsilon must be a finite number > 0, got inf"),
    ([math.inf], "epsilon must be a finite number > 0"),
    ([True], "epsilon must be a finite number > 0, got bool"),
    ("", "epsilon needs at least one value > 0"),
    (" , ", "epsilon needs at least one value > 0"),
    ([], "epsilon needs at least one value > 0"),
    (None, "epsilon must be numbers or comma-separated numbers"),
])
def test_parse_epsilons_refuses_with_the_parameter_named(value, message):
    with pytest.raises(ValueError, match=message):
        parse_epsilons(value)


def test_the_parameter_name_is_the_callers():
    with pytest.raises(ValueError, match=r"^epsilons must be a finite number > 0"):
        parse_epsilons("-2", name="epsilons")
    with pytest.raises(ValueError, match=r"^eps_grid is given for tem"):
        epsilon_grid(MECHS, "tem:1", name="eps_grid")


# ---------------------------------------------------------------- parse_grid
@pytest.mark.parametrize("values, expected", [
    (None, {}),
    ("0.5,1", {EVERY: [0.5, 1.0]}),
    ([0.5, 1], {EVERY: [0.5, 1.0]}),
    (2, {EVERY: [2.0]}),
    ("nadp:20,50", {"nadp": [20.0, 50.0]}),
    ("nadp=20,50", {"nadp": [20.0, 50.0]}),
    (" nadp : 20 , 50 ", {"nadp": [20.0, 50.0]}),
    ("*:1,2", {EVERY: [1.0, 2.0]}),
    (":1,2", {EVERY: [1.0, 2.0]}),              # an empty key is every mechanism
    (["0.5,1", "nadp:20,50"], {EVERY: [0.5, 1.0], "nadp": [20.0, 50.0]}),
    ("0.5,1;nadp=20,50", {EVERY: [0.5, 1.0], "nadp": [20.0, 50.0]}),
    ("mlaplace=0.5,1; tem=2,4;", {"mlaplace": [0.5, 1.0], "tem": [2.0, 4.0]}),
    ({"nadp": [20, 50], "*": "1,2"}, {"nadp": [20.0, 50.0], EVERY: [1.0, 2.0]}),
    ({"nadp": 7}, {"nadp": [7.0]}),
    ({}, {}),
])
def test_parse_grid_forms(values, expected):
    assert parse_grid(values) == expected


@pytest.mark.parametrize("values, message", [
    (["1", "2"], r"epsilon is given twice for every mechanism \(second time: '2'\)"),
    (["nadp:1", "nadp=2"], "epsilon is given twice for mechanism 'nadp'"),
    ("1;*:2", "epsilon is given twice for every mechanism"),
    ([1, "nadp:2"], "a list holds either numbers .* or entries like 'nadp:20,50', not both"),
    ("nadp:", r"epsilon: no values after 'nadp' in 'nadp:'"),
    ("nadp=  ", "epsilon: no values after 'nadp'"),
    (";", "epsilon needs at least one value > 0"),
    ([], "epsilon needs at least one value > 0, got an empty list"),
    ("nadp:1,x", r"epsilon must be comma-separated numbers > 0, .*got 'x'"),
    ("nadp:0", "epsilon must be a finite number > 0"),
    ({1: [2]}, "a mapping's keys are mechanism names or '\\*'"),
    ({"nadp": []}, "epsilon needs at least one value > 0"),
    (object(), "epsilon must be numbers, 'mechanism:values' strings or a mapping"),
])
def test_parse_grid_refuses(values, message):
    with pytest.raises(ValueError, match=message):
        parse_grid(values)


# ---------------------------------------------------------------- epsilon_grid
def test_each_mechanism_takes_its_own_then_every_then_its_default_then_the_default():
    assert epsilon_grid(MECHS, ["0.5", "nadp:20"], defaults=DEFAULTS) == \
        {"mlaplace": [0.5], "nadp": [20.0]}
    assert epsilon_grid(MECHS, "0.5", defaults=DEFAULTS) == {"mlaplace": [0.5], "nadp": [0.5]}
    assert epsilon_grid(MECHS, "nadp=20", defaults=DEFAULTS) == \
        {"mlaplace": [1.0, 2.0], "nadp": [20.0]}
    assert epsilon_grid(MECHS, None, defaults=DEFAULTS) == \
        {"mlaplace": [1.0, 2.0], "nadp": [10.0, 50.0]}
    assert epsilon_grid(MECHS, {"mlaplace": [7]}, defaults=DEFAULTS) == \
        {"mlaplace": [7.0], "nadp": [10.0, 50.0]}
    # The result follows the order of the mechanisms, and is a fresh list per mechanism.
    grid = epsilon_grid(["nadp", "mlaplace"], [1, 2])
    assert list(grid) == ["nadp", "mlaplace"] and grid["nadp"] is not grid["mlaplace"]


def test_defaults_may_name_mechanisms_that_are_not_measured():
    assert epsilon_grid(["mlaplace"], None, defaults=DEFAULTS) == {"mlaplace": [1.0, 2.0]}


def test_values_for_a_mechanism_that_is_not_measured_are_refused():
    with pytest.raises(ValueError, match="epsilon is given for tem, gaussian, which is not "
                                         "among the mechanisms mlaplace, nadp"):
        epsilon_grid(MECHS, ["tem:1", "gaussian=2"], defaults=DEFAULTS)


def test_a_mechanism_without_values_is_an_error_naming_it():
    with pytest.raises(ValueError, match="epsilon: no values for mechanism 'mlaplace'"):
        epsilon_grid(MECHS, "nadp:1")
    with pytest.raises(ValueError, match="no values for mechanism 'mlaplace'"):
        epsilon_grid(MECHS, None, defaults={"nadp": [1]})


def test_bad_defaults_are_refused_as_well():
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        epsilon_grid(MECHS, None, defaults={"*": [0]})


def test_both_evaluations_share_the_grammar_and_the_messages():
    from textdp.evaluate import privacy, utility

    for module in (privacy, utility):
        assert module.epsilon_grid(["mlaplace", "nadp"], ["1,2", "nadp=3"]) == \
            {"mlaplace": [1.0, 2.0], "nadp": [3.0]}
        assert module.epsilon_grid(["mlaplace"], "0.5;mlaplace:4") == {"mlaplace": [4.0]}
        for bad, message in (("1,x", "got 'x'"), ("tem:1", "epsilon is given for tem"),
                             (["1", "2"], "given twice")):
            with pytest.raises(ValueError, match=message):
                module.epsilon_grid(["mlaplace", "nadp"], bad)
    # Each keeps its own defaults.
    assert privacy.epsilon_grid(["nadp"]) == {"nadp": list(privacy.DEFAULT_EPSILONS["nadp"])}
    assert utility.epsilon_grid(["nadp"]) == {"nadp": list(utility.MECHANISM_EPSILONS["nadp"])}
