"""Stage: DP releases of quasi-identifiers, dates and ages (issue 36).

A date or an age is not a name: it has no vector and no public candidates, but it is a number
on a line, so it gets noise on that line (:mod:`textdp.mechanisms.geometric`, two-sided
geometric noise, exact on the integers):

* ``DATE`` (:mod:`textdp.detect.dates`): one offset in days per text, ``Z`` two-sided
  geometric of ``epsilon_date`` (per day) displaced by m days
  (:func:`~textdp.mechanisms.geometric.displacement_for`: the least m with
  ``P(|Z| ≤ 15)`` at most :data:`DATE_MAX_UNCHANGED`, so a date written as a month and a year,
  read as mid-month, keeps its month at most that often; m = 219 at the default ε_date 0.01,
  ``E|Z|`` ≈ 238 days against 100 undisplaced, where 10 % of month-and-year dates came back
  unchanged), drawn when the text's first date is replaced and added to every date of the
  text, each written back in its own style. One offset per text keeps the
  intervals between its dates (a stay of 5 days stays 5 days). With
  ``consistency="dataset"`` the offset is drawn from the key's stream of the text's scope
  (:func:`textdp.keyed_sources.keyed_source` of the scope and ``"DATE"``), so every text of a
  scope (a patient's key) shares one offset.

  Guarantee: between two texts whose dates differ by one common shift of k days (every date
  of the scope moved by the same k) and that agree on everything ``holds_between`` lists, the
  output's probabilities differ by at most e^(ε_date·|k|): ε_date-DP for one day (the
  displaced law's log-pmf changes by at most ε_date between neighbouring days, as the plain
  one's; the displacement depends on ε_date alone, never on the text). The
  intervals between the dates of a scope, and the style of each date (its order, separators,
  month form, ...; :mod:`textdp.detect.dates`), are released as they are. One offset costs
  ε_date per unit of shift; a report charges it once per text (``date_offsets``).

* ``AGE`` (:mod:`textdp.detect.ages`): each distinct age of a text (each mention with
  ``consistency="mention"``; per scope and age with ``"dataset"``) gets one draw
  ``a + Z``, ``Z`` two-sided geometric of ``epsilon_age`` (per year) displaced by m years
  (:func:`~textdp.mechanisms.geometric.displacement_for`: the least m with ``P(Z = 0)`` at
  most :data:`AGE_MAX_UNCHANGED`; m = 9 at the default ε_age 0.2, ``E|Z|`` ≈ 10 years
  against 5 undisplaced, where 10 % of ages came back unchanged), clamped to [0, 120]
  (post-processing). Sensitivity: one year; ε_age-DP between ages one year apart,
  ε_age·|a − a'| between a and a' (the displaced law's log-pmf changes by at most ε_age
  between neighbouring years, as the plain one's). A report charges ε_age per draw
  (``age_draws``).

The report composes ε by basic composition: ``draws × ε + date_offsets × ε_date + age_draws
× ε_age`` (:class:`textdp.report.Report`). A value the recognisers took but cannot read
(a ``DATE`` span of spaCy's NER such as ``last week``) is replaced by its tag (ε 0). With
``replace="tag"`` every date and age is a tag. ``max_epsilon_per_text`` budgets the name
draws only; dates and ages are charged in the report, not to that budget.

Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from textdp.detect import ages, dates
from textdp.detect.pii import tag
from textdp.keyed_sources import keyed_source
from textdp.mechanisms import geometric
from textdp.report import Report
from textdp.rng import RandomSource

QUASI_LABELS = (dates.DATE, ages.AGE)
#: Default ε per day of date shift (E|Z| ≈ 100 days) and per year of age (E|Z| ≈ 5 years).
DEFAULT_EPSILON_DATE = 0.01
DEFAULT_EPSILON_AGE = 0.2
#: At most this share of ages comes back unchanged: the age noise is displaced until its
#: ``P(Z = 0)`` is this low (a person's exact age is the value a reader looks for).
AGE_MAX_UNCHANGED = 0.01
#: At most this share of date offsets stays within :data:`DATE_MONTH_WINDOW` days: the date
#: noise is displaced until a date written as a month and a year (``March 1991``, read as
#: mid-month) keeps its month at most this often, and a full date far less often.
DATE_MAX_UNCHANGED = 0.01
DATE_MONTH_WINDOW = 15

#: What a report's guarantee adds when dates or ages are targets.
GUARANTEE_DATE = ("dates: one offset per text (per key scope with consistency='dataset'), "
                  "two-sided geometric on days, displaced so that at most 1 % of offsets "
                  "are within 15 days, e^(epsilon_date·|k|) between dates shifted by k days")
GUARANTEE_AGE = ("ages: two-sided geometric noise per distinct age, displaced so that at most "
                 "1 % of ages come back unchanged, e^(epsilon_age·|a − a'|) between ages a "
                 "and a' (sensitivity 1 year; clamped to 0–120)")
#: What ``holds_between`` adds.
HOLDS_BETWEEN_DATES = ("; for dates, the same intervals between the dates of a text (of a "
                       "scope with consistency='dataset') and the same style of each date "
                       "(order of day, month and year as read, separators, year digits, "
                       "month form and casing, ordinal suffix, weekday)")
HOLDS_BETWEEN_AGES = ("; for ages, the same form of each age expression (its words around "
                      "the number) and which mentions repeat an age")


@dataclass(frozen=True)
class Release:
    """What replaces one quasi-identifier and what it cost: ``date_offsets`` (0 or 1: this
    replacement drew its text's offset) and ``age_draws`` (0 or 1). Its repr holds no text."""

    text: str = field(repr=False)
    date_offsets: int = 0
    age_draws: int = 0


def targeted(targets: Any) -> tuple[str, ...]:
    """The quasi-identifier labels among resolved ``targets``."""
    return () if targets == "all" else tuple(x for x in QUASI_LABELS if x in targets)


class QuasiReleases:
    """The date offsets and noisy ages of one privatizer.

    Args:
        epsilon_date: ε per day of the date offset.
        epsilon_age: ε per year of an age.
        key: the secret of ``consistency="dataset"`` (``None`` otherwise).
        secure: draw keyed streams with ChaCha20 (the privatizer's ``secure``).
    """

    def __init__(self, epsilon_date: float, epsilon_age: float, *, key: bytes | None = None,
                 secure: bool = False) -> None:
        self.epsilon_date = geometric.check_epsilon(epsilon_date, "epsilon_date")
        self.epsilon_age = geometric.check_epsilon(epsilon_age, "epsilon_age")
        self.age_displacement = geometric.displacement_for(self.epsilon_age, AGE_MAX_UNCHANGED)
        self.date_displacement = geometric.displacement_for(
            self.epsilon_date, DATE_MAX_UNCHANGED, DATE_MONTH_WINDOW)
        self.key = key
        self.secure = secure

    def offset(self, state: Any, rng: RandomSource) -> tuple[int, bool]:
        """The text's day offset and whether it was drawn now. ``state``: the text's
        :class:`~textdp.budget.TextState` (it keeps the offset across the text's batches)."""
        if state.date_offset is not None:
            return state.date_offset, False
        source = rng if self.key is None else keyed_source(
            self.key, state.scope, dates.DATE, "", "offset", secure=self.secure)
        state.date_offset = int(geometric.sample(self.epsilon_date, source.numpy,
                                                 displacement=self.date_displacement))
        return state.date_offset, True

    def replace(self, label: str, value: str, replace: str, source: RandomSource,
                state: Any, rng: RandomSource) -> Release:
        """What replaces ``value`` of ``label`` (a :data:`QUASI_LABELS` label): its tag with
        ``replace="tag"`` or where it does not read as a date or an age; else the date moved
        by the text's offset (drawn from ``rng``, or the key's stream of the scope), or the
        age plus noise drawn from ``source`` (the draw's own stream)."""
        if replace == "tag":
            return Release(tag(label))
        if label == dates.DATE:
            if dates.parse(value) is None:
                return Release(tag(label))
            days, drawn = self.offset(state, rng)
            shifted = dates.shift(value, days)
            # Shifted out of the years the styles can write (1800–2199): a tag, the offset
            # still spent.
            return Release(tag(label) if shifted is None else shifted, date_offsets=int(drawn))
        parsed = ages.parse(value)
        if parsed is None:
            return Release(tag(label))
        low, high = ages.AGE_RANGE
        noisy = geometric.release(parsed[0], self.epsilon_age, source.numpy, low=low,
                                  high=high, displacement=self.age_displacement)
        out = ages.rewrite(value, noisy)
        return Release(tag(label) if out is None else out, age_draws=1)


def releases_for(config: Any, key: bytes | None) -> QuasiReleases | None:
    """The :class:`QuasiReleases` of a privatizer's ``config`` (``None`` where neither
    ``DATE`` nor ``AGE`` is a target); ``key``: its ``consistency="dataset"`` secret."""
    if not targeted(config.targets):
        return None
    return QuasiReleases(config.epsilon_date, config.epsilon_age, key=key,
                         secure=config.secure)


def with_quasi(report: Report, config: Any, replace: str) -> Report:
    """``report`` (a privatizer's template) with what its date and age releases add: their
    guarantees, what they hold between, and their ε per unit (none with ``replace="tag"``:
    tags draw nothing)."""
    labels = targeted(config.targets)
    if not labels or replace == "tag":
        return report
    guarantee, holds = report.guarantee, report.holds_between
    if dates.DATE in labels:
        guarantee += "; " + GUARANTEE_DATE
        holds += HOLDS_BETWEEN_DATES
    if ages.AGE in labels:
        guarantee += "; " + GUARANTEE_AGE
        holds += HOLDS_BETWEEN_AGES
    return dataclasses.replace(
        report, guarantee=guarantee, holds_between=holds,
        epsilon_date=config.epsilon_date if dates.DATE in labels else None,
        epsilon_age=config.epsilon_age if ages.AGE in labels else None)
