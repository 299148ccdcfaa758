"""Accounting: the composed bound and the max_epsilon_per_text budget (issue 9, item 8)."""

from __future__ import annotations

import pytest

from textdp import Privatizer
from textdp.mechanisms import Vickrey

SIX = "one two three four five six"


@pytest.fixture(scope="module")
def budgeted():
    return Privatizer(targets="all", epsilon=1.0, max_epsilon_per_text=3.0, seed=0)


def test_composed_bound_is_the_sum_of_per_token_epsilons():
    out = Privatizer(targets="all", epsilon=0.7, seed=1)(SIX)
    assert out.report.tokens_replaced == 6
    assert out.report.epsilon_total == pytest.approx(6 * 0.7)
    assert out.report.tokens_redacted == 0


def test_truncate_spends_at_most_the_budget_and_still_replaces_every_target(budgeted):
    outs = budgeted.privatize([SIX] * 200 + ["a b"])
    for out in outs[:-1]:
        assert out.report.tokens_replaced == 6  # every target is replaced ...
        assert out.report.draws == 3 and out.report.tokens_redacted == 3  # ... 3 charged
        assert out.report.epsilon_total <= 3.0
        assert len(out.text.split()) == 6
    # The redacted tail never depends on the input: no original word survives there more often
    # than a word drawn from a fixed public point would, and never the input word itself here.
    tails = [out.text.split()[3:] for out in outs[:-1]]
    assert all(tail != SIX.split()[3:] for tail in tails)
    assert outs[-1].report.tokens_replaced == 2 and outs[-1].report.tokens_redacted == 0


def test_budget_is_per_text_across_pieces_of_a_long_text(budgeted, monkeypatch):
    import textdp.pipeline.chunking as mod

    monkeypatch.setattr(mod, "CHUNK_CHARS", 10)  # split SIX into several pieces
    out = budgeted(SIX)
    assert out.report.draws == 3 and out.report.tokens_redacted == 3


def test_refuse_names_the_row_and_returns_nothing():
    p = Privatizer(targets="all", epsilon=1.0, max_epsilon_per_text=3.0,
                   budget_policy="refuse")
    with pytest.raises(ValueError, match=r"row 1: .*max_epsilon_per_text") as err:
        p.privatize(["fine", SIX])
    assert "three" not in str(err.value)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "3"])
def test_budget_is_validated_at_construction(bad):
    with pytest.raises(ValueError, match="max_epsilon_per_text"):
        Privatizer(max_epsilon_per_text=bad)


def test_unknown_budget_policy_is_rejected():
    with pytest.raises(ValueError, match="budget_policy"):
        Privatizer(budget_policy="drop")


def test_epsilon_given_twice_must_agree():
    with pytest.raises(ValueError, match="conflicts"):
        Privatizer(epsilon=5.0, mechanism=Vickrey(1.0))
    with pytest.raises(ValueError, match="conflicts"):
        Privatizer(epsilon=5.0, mechanism={"name": "mlaplace", "epsilon": 1.0})
    assert Privatizer(mechanism=Vickrey(1.0)).epsilon == 1.0
    assert Privatizer(mechanism={"name": "tem", "epsilon": 2.0}).epsilon == 2.0
