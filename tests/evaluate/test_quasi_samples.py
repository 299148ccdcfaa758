"""The dev sample of dates and ages (textdp.evaluate.quasi_samples): valid values of many
styles, ordinary items that are neither, and its check through the privatizer."""

from __future__ import annotations

from textdp.detect import ages, dates
from textdp.evaluate.quasi_samples import check, negatives, positives
from textdp.mechanisms import geometric


def test_the_generator_makes_real_dates_and_ages_of_many_styles():
    items = positives(200, seed=4)
    assert items == positives(200, seed=4)  # a fixed seed, one sample
    by_label: dict[str, list[str]] = {}
    for it in items:
        assert it.value in it.text
        by_label.setdefault(it.label, []).append(it.value)
    assert all(dates.parse(v) is not None for v in by_label["DATE"])
    assert all(ages.parse(v) is not None for v in by_label["AGE"])
    shapes = {"".join("9" if c.isdigit() else c for c in v)[:6] for v in by_label["DATE"]}
    assert len(shapes) > 20  # many styles
    ordinary = negatives(300, seed=4)
    assert all(it.label is None and it.kind != "date" for it in ordinary)
    assert any(it.kind == "not an age" for it in ordinary)
    from textdp.place_vocabulary import place_kind

    kinds = [place_kind(v) for v in by_label["PLACE"]]
    assert set(kinds) == {"city", "country"} and 60 <= kinds.count("city") <= 140


def test_unchanged_means_the_value_as_itself():
    from textdp.evaluate.quasi_samples import unchanged

    assert unchanged("5 y/o", "A 5 y/o boy") and unchanged("March 1991", "in March 1991.")
    assert not unchanged("5 y/o", "A 15 y/o boy") and not unchanged("34M", "a 134M budget")
    assert not unchanged("1/2/2020", "on 11/2/2020")


def test_the_check_runs_through_the_quasi_preset():
    stats = check(per_label=15, n_ordinary=40, seed=2)
    assert stats["DATE"]["n"] == stats["PLACE"]["n"] == 15
    assert stats["AGE"]["n"] == 15 + 15 // 4  # and the ages stated (quasi_samples.STATED_AGES)
    # a place is found or left verbatim; the lookup finds nearly all (figures: docs/pii.md)
    assert stats["PLACE"]["unchanged"] <= 2 and stats["PLACE"]["missed"] <= 3
    assert stats["DATE"]["missed"] == stats["AGE"]["missed"] == 0
    assert stats["AGE"]["p_zero"] == geometric.zero_probability(0.2, 9) < 0.01
    assert stats["DATE"]["p_zero"] == geometric.zero_probability(0.01, 219) < 0.001
    assert stats["DATE"]["unchanged"] == 0
    assert sum(s["taken"] for label, s in stats.items() if label.startswith("ordinary:")) == 0
