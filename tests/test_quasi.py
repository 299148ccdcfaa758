"""DP releases of dates and ages (textdp.quasi), end to end through the privatizer with the
`quasi` preset: one offset per text that keeps intervals, offsets and noisy ages following
the two-sided geometric law (χ², fixed seed, with a positive control), the keyed offset of a
scope, the report's composed ε and the tag fall-back."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from scipy import stats

from textdp import Privatizer
from textdp.detect.dates import parse
from textdp.mechanisms import geometric

N = 600


@pytest.fixture(scope="module")
def noisy() -> tuple[np.ndarray, np.ndarray]:
    """Per text, the date offset and the age noise of `A 50 y/o seen on 2020-06-15.` through
    one privatizer (ε_date = ε_age = 0.5)."""
    p = Privatizer(targets=["DATE", "AGE"], detector="rules", seed=3, epsilon_date=0.5,
                   epsilon_age=0.5)
    out = [r.text for r in p.privatize(["A 50 y/o seen on 2020-06-15."] * N)]
    days, years = [], []
    for text in out:
        m = re.fullmatch(r"A (\d+) y/o seen on (\S+)\.", text)
        assert m, "the form of both is kept"
        years.append(int(m.group(1)) - 50)
        days.append((parse(m.group(2))[0] - parse("2020-06-15")[0]).days)
    return np.asarray(days), np.asarray(years)


#: The age noise's displacement at ε_age = 0.5 (P(Z = 0) ≤ 1 %), and the date offset's at
#: ε_date = 0.5 (P(|Z| ≤ 15 days) ≤ 1 %).
AGE_SHIFT = geometric.displacement_for(0.5, 0.01)
DATE_SHIFT = geometric.displacement_for(0.5, 0.01, 15)


def chi2_pvalue(draws: np.ndarray, epsilon: float, cells: int = 4,
                displacement: int = 0) -> float:
    ks = np.arange(-cells - displacement, cells + displacement + 1)
    expected = geometric.pmf(ks, epsilon, displacement) * len(draws)
    observed = np.array([(draws == k).sum() for k in ks], dtype=float)
    observed = np.append(observed, len(draws) - observed.sum())
    expected = np.append(expected, len(draws) - expected.sum())
    return float(stats.chisquare(observed, expected).pvalue)


def test_date_offsets_and_age_noise_follow_the_geometric_law(noisy):
    days, years = noisy
    assert DATE_SHIFT == 24 and chi2_pvalue(days, 0.5, displacement=DATE_SHIFT) > 1e-3
    assert (np.abs(days) <= 15).mean() < 0.02  # P(|Z| ≤ 15) = 0.7 %
    assert AGE_SHIFT == 6 and chi2_pvalue(years, 0.5, displacement=AGE_SHIFT) > 1e-3
    assert (years == 0).mean() < 0.02  # P(Z = 0) = 0.8 %
    # independent draws: the two do not move together
    assert abs(np.corrcoef(days, years)[0, 1]) < 0.15


def test_the_same_test_rejects_another_epsilon(noisy):
    """Positive control: the draws are far from the law of half or twice their ε."""
    days, years = noisy
    for eps in (0.25, 1.0):
        assert chi2_pvalue(days, eps, displacement=DATE_SHIFT) < 1e-6
        assert chi2_pvalue(years, eps, displacement=AGE_SHIFT) < 1e-6
    # and both from the undisplaced law of their ε, or one displaced a day less or more
    assert chi2_pvalue(days, 0.5) < 1e-6 and chi2_pvalue(years, 0.5) < 1e-6
    for shift in (DATE_SHIFT - 1, DATE_SHIFT + 1):
        assert chi2_pvalue(days, 0.5, displacement=shift) < 1e-3


TEXT = ("Maria Lopez, a 67 y/o woman, was admitted on March 4, 2021 and discharged "
        "2021-03-09. Seen again 04/12/2021. Her son, aged 34, and Maria (67 y/o) came too.")


def _dates(text: str) -> list:
    from textdp.detect.dates import find_dates

    return [parse(text[m.start:m.end])[0] for m in find_dates(text)]


def test_one_offset_per_text_keeps_its_intervals_and_the_report_composes_epsilon():
    p = Privatizer(targets="quasi", seed=0)
    results = p.privatize([TEXT] * 40)
    before = _dates(TEXT)
    shifts = set()
    for r in results:
        after = _dates(r.text)
        assert len(after) == 3
        offsets = {(a - b).days for a, b in zip(after, before)}
        assert len(offsets) == 1  # every date of the text moved by one offset
        shifts |= offsets
        rep = r.report
        assert rep.date_offsets == 1 and rep.age_draws == 2  # 67 (twice: one draw) and 34
        assert rep.epsilon_date == 0.01 and rep.epsilon_age == 0.2
        assert rep.epsilon_total == pytest.approx(rep.draws * rep.epsilon + 0.01 + 2 * 0.2)
        assert "Maria" not in r.text
        ages = re.findall(r"(\d+) y/o", r.text)
        assert len(ages) == 2 and ages[0] == ages[1]  # a repeated age shares its draw
    assert len(shifts) > 20  # drawn per text
    assert "dates: one offset per text" in results[0].report.guarantee
    assert "same intervals between the dates" in results[0].report.holds_between


def test_a_long_text_cut_in_chunks_draws_one_offset():
    filler = " ".join(["The patient rested and the nurse checked the chart."] * 120)
    text = f"Admitted 2021-03-04. {filler} Discharged 2021-03-09. {filler} Seen 2021-04-01."
    p = Privatizer(targets=["DATE"], detector="rules", seed=1)
    r = p.privatize([text])[0]
    after = _dates(r.text)
    assert [(b - a).days for a, b in itertools.pairwise(after)] == [5, 23]
    assert r.report.date_offsets == 1


def test_a_key_scope_shares_one_offset_across_texts():
    p = Privatizer(targets=["DATE"], detector="rules", consistency="dataset",
                   key="quasi-test-key-0123456789abcdef")
    texts = ["Seen 2021-03-04.", "Back on 2021-05-01.", "Seen 2021-03-04.", "Seen 2021-03-04."]
    out = p.privatize(texts, scopes=["a", "a", "b", "c"])
    (d0,), (d1,), (d2,), (d3,) = (_dates(r.text) for r in out)
    assert (d1 - d0).days == (parse("2021-05-01")[0] - parse("2021-03-04")[0]).days
    again = Privatizer(targets=["DATE"], detector="rules", consistency="dataset",
                       key="quasi-test-key-0123456789abcdef").privatize(texts[:1], scopes=["a"])
    assert _dates(again[0].text) == [d0]  # the key's offset for scope "a", in any run
    assert len({d0, d2, d3}) > 1  # other scopes, other offsets


def test_tags_spend_nothing():
    r = Privatizer(targets="quasi", seed=0, replace="tag").privatize([TEXT])[0]
    assert "[DATE]" in r.text and "[AGE]" in r.text and "2021" not in r.text
    assert r.report.epsilon_total == 0 and r.report.date_offsets == 0


@pytest.mark.parametrize("name", ["epsilon_date", "epsilon_age"])
@pytest.mark.parametrize("bad", [0, -0.1, math.inf])
def test_epsilons_are_checked_before_any_text(name, bad):
    with pytest.raises(ValueError, match=name):
        Privatizer(targets="quasi", **{name: bad})
