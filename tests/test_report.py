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
                      "consistency", "spans", "date_offsets", "epsilon_date", "age_draws",
                      "epsilon_age"}


def test_dates_and_ages_compose_into_the_total():
    """Basic composition over the three releases: draws × ε + date offsets × ε_date + age
    draws × ε_age (textdp.quasi), kept by counted() and merge()."""
    rep = Report.for_tokens(5, mechanism="mlaplace", epsilon=0.3, delta=0.0,
                            guarantee="metric DP", draws=2, date_offsets=1, epsilon_date=0.01,
                            age_draws=3, epsilon_age=0.2)
    assert rep.epsilon_total == 1.21  # 0.6 + 0.01 + 0.6, as decimals
    again = rep.counted(4, draws=1, date_offsets=0, age_draws=1)
    assert again.epsilon_total == 0.5 and again.epsilon_date == 0.01
    merged = rep.merge(again)
    assert (merged.draws, merged.date_offsets, merged.age_draws) == (3, 1, 4)
    assert merged.epsilon_total == 1.71
    assert _report(2).epsilon_total == 1.0  # nothing else targeted: unchanged


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


# ====================================================================== issue 34, unstated items
def _smith_jones_brown(docs):
    """A fixed detector: Smith, Jones and Brown are persons."""
    return [[(t.i, t.i + 1, "PERSON") for t in doc if t.text in {"Smith", "Jones", "Brown"}]
            for doc in docs]


def test_the_scope_account_counts_each_shared_keyed_draw_once():
    """With consistency="dataset" each text's report charges every keyed draw it reads, so
    a name in three texts is charged three times there; the scope account charges it once
    per scope, and redacted (over-budget) targets not at all."""
    from textdp import Privatizer

    texts = ["Smith met Jones.", "Smith called.", "Jones and Brown.", "Brown, Smith."]
    p = Privatizer(epsilon=0.5, seed=1, consistency="dataset", detector=_smith_jones_brown)
    assert p.scope_account().keyed_draws == 0
    out = p.privatize(texts)
    assert sum(r.report.draws for r in out) == 7  # per text: each draw it reads
    account = p.scope_account()
    assert (account.scopes, account.keyed_draws, account.max_keyed_draws_per_scope) == (1, 3, 3)
    assert account.epsilon_total == account.epsilon_per_scope == 1.5
    assert "once" in account.composition and json.dumps(account.to_dict())
    scoped = Privatizer(epsilon=0.5, seed=1, consistency="dataset", detector=_smith_jones_brown)
    scoped.privatize(texts, scopes=["a", "a", "b", "b"])
    account = scoped.scope_account()
    assert (account.scopes, account.keyed_draws, account.max_keyed_draws_per_scope) == (2, 5, 3)
    assert (account.epsilon_per_scope, account.epsilon_total) == (1.5, 2.5)
    capped = Privatizer(epsilon=0.5, seed=1, consistency="dataset", detector=_smith_jones_brown,
                        max_epsilon_per_text=0.5)
    out = capped.privatize(texts)
    assert sum(r.report.tokens_redacted for r in out) == 3
    assert capped.scope_account().keyed_draws == 3  # smith, jones, brown: each within budget
    with pytest.raises(ValueError, match="no draw is shared"):
        Privatizer(epsilon=0.5).scope_account()


def test_report_spans_are_in_what_the_guarantee_holds_between():
    """report_spans=True releases each target's offsets (its length) and its detector's
    score: the guarantee holds only between texts that agree on them, and the report says so
    (issue 34)."""
    from textdp import Privatizer

    text = "Smith met Jones."
    plain = Privatizer(epsilon=1.0, seed=1, detector=_smith_jones_brown)(text).report
    spans = Privatizer(epsilon=1.0, seed=1, detector=_smith_jones_brown,
                       report_spans=True)(text).report
    assert spans.spans is not None and "score" in spans.holds_between
    assert "length" in spans.holds_between and spans.holds_between.startswith(
        plain.holds_between)
    assert "score" not in plain.holds_between
