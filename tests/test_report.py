"""textdp.report.Report: what a call released and what it cost (basic composition only)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from textdp.report import Report


def _report(n: int, epsilon: float = 0.5, delta: float = 0.0) -> Report:
    return Report.for_tokens(n, mechanism="mlaplace", epsilon=epsilon, delta=delta,
                             guarantee="metric DP")


def test_for_tokens_composes_linearly():
    rep = _report(7, epsilon=0.5, delta=1e-6)
    assert rep.tokens_replaced == 7
    assert rep.epsilon == 0.5 and rep.delta == 1e-6
    assert rep.epsilon_total == pytest.approx(3.5)
    assert rep.delta_total == pytest.approx(7e-6)
    assert rep.representation == "static"


def test_zero_tokens_cost_nothing():
    rep = _report(0, delta=1e-5)
    assert rep.epsilon_total == 0 and rep.delta_total == 0


def test_delta_total_never_exceeds_one():
    assert _report(10**7, delta=1e-6).delta_total == 1.0


def test_merge_adds_tokens_and_recomposes():
    merged = _report(3, delta=1e-6).merge(_report(4, delta=1e-6))
    assert merged.tokens_replaced == 7
    assert merged.epsilon_total == pytest.approx(3.5)
    assert merged.delta_total == pytest.approx(7e-6)
    assert merged.mechanism == "mlaplace" and merged.epsilon == 0.5


def test_to_dict_is_json_and_complete():
    d = _report(2).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert set(d) == {"mechanism", "epsilon", "delta", "tokens_replaced", "epsilon_total",
                      "delta_total", "guarantee", "representation", "tokens_redacted",
                      "scope", "holds_between", "name_distance", "diameter",
                      "epsilon_at_name_distance", "epsilon_at_diameter", "draws", "replace",
                      "consistency", "spans"}


def test_report_is_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _report(1).tokens_replaced = 0  # type: ignore[misc]


def test_distances_are_carried_through_merge():
    rep = Report.for_tokens(2, mechanism="mlaplace", epsilon=0.5, delta=0.0, guarantee="g",
                            scope="text", name_distance=40.0, diameter=80.0)
    assert rep.epsilon_at_name_distance == 20.0 and rep.epsilon_at_diameter == 40.0
    merged = rep.merge(rep)
    assert merged.scope == "text" and merged.diameter == 80.0
    assert merged.epsilon_total == 2.0 and merged.epsilon_at_diameter == 40.0
    assert _report(1).name_distance is None and _report(1).epsilon_at_diameter is None


def test_composed_figures_print_as_the_decimal_product():
    rep = _report(6, epsilon=0.3, delta=1e-7)
    assert rep.epsilon_total == 1.8 and repr(rep.epsilon_total) == "1.8"
    assert rep.delta_total == 6e-7
    assert _report(3, epsilon=0.1).epsilon_total == 0.3
