"""``textdp mechanisms``: the registered mechanisms, their guarantees and what they cover."""

from __future__ import annotations

import argparse
from typing import Any

from textdp.cli.settings import add_setting_arguments, settings_from_args

_CONFIG_FLAGS = ("mechanism", "epsilon", "targets", "representation", "precision", "replace",
                 "consistency", "surface", "report_spans", "epsilon_date", "epsilon_age",
                 "review")


def add_parser(sub: Any) -> None:
    """``textdp mechanisms`` (``sub``: the top-level subparsers)."""
    p = sub.add_parser("mechanisms", help="list the registered mechanisms and their guarantees")
    # A configuration to state exactly: what holds for it (the settings that change it), as
    # `privatize` offers them; only the ones given count.
    add_setting_arguments(p, _CONFIG_FLAGS, with_defaults=False)
    p.set_defaults(handler=run)


def configuration_statement(settings: dict[str, Any]) -> str:
    """What holds for the configuration these settings make, exactly as each of its reports
    states it (:func:`textdp.pipeline.substitution.report_template`); loads no model or table."""
    from textdp.config import PrivatizerConfig
    from textdp.pipeline.substitution import report_template
    from textdp.report import HOLDS_BETWEEN_BATCH

    config = PrivatizerConfig(**settings)
    report = report_template(config, config.build_mechanism(), None)
    lines = [f"mechanism: {report.mechanism}, ε = {report.epsilon:g}"
             + ("" if report.delta is None else f", δ = {report.delta:g}")
             + ("" if report.epsilon_date is None else
                f"; dates: ε_date = {report.epsilon_date:g} per day")
             + ("" if report.epsilon_age is None else
                f"; ages: ε_age = {report.epsilon_age:g} per year"),
             f"guarantee: {report.guarantee} (scope: {report.scope})",
             f"holds between: {report.holds_between}"]
    if config.representation == "contextual" and config.precision != "float32":
        lines.append("with a reduced-precision encoder (precision='auto' picks bfloat16 on a GPU "
                     "or an AMX CPU), also: " + HOLDS_BETWEEN_BATCH.format(dtype="bfloat16")
                     .lstrip("; "))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp mechanisms``: one entry per mechanism and what its guarantee covers; with
    configuration flags, exactly what holds for that configuration."""
    settings = {k: v for k, v in settings_from_args(args).items() if v is not None}
    if settings:
        print(configuration_statement(settings))
        return 0
    from textdp.mechanisms import catalogue_rows
    from textdp.report import HOLDS_BETWEEN

    rows = catalogue_rows()
    width = max(len(r.label) for r in rows)
    for row in rows:
        names = "" if row.decodes_subsets else \
            " (draws from its own candidates: person names become any word, replace='word')"
        print(f"{row.label:<{width}}  {row.description}\n{'':<{width}}  guarantee: "
              f"{row.guarantee}{names}")
        if row.name == "nadp":
            from textdp.mechanisms.nadp import table_shares

            print(f"{'':<{width}}  on the default table: {table_shares().line()}")
    print(f"\nEvery guarantee holds between {HOLDS_BETWEEN}: those are released without "
          "noise (surface='table' drops the casing condition). Metric-DP ε is a rate per "
          "unit of distance: reports give ε × the median distance between two person names "
          "and ε × the space's diameter beside it (README, \"Choosing ε\"). With "
          "representation='contextual' (or dpmlm) and targets='all' every draw reads the "
          "whole text, so the bound is per text, ε·Σ distances of all its tokens (report "
          "scope 'text'). Person names become public names by default (replace='name'): "
          "the noise or the draw is the same, only the candidates are the table's words in "
          "the census name lists, so decoding to them is post-processing and every guarantee "
          "above is unchanged; one draw serves every mention of a name in a text "
          "(consistency='document'), so ε is charged once per distinct name, and the output "
          "shows which mentions repeat a name.")
    from textdp.mechanisms import geometric
    from textdp.quasi import GUARANTEE_AGE, GUARANTEE_DATE

    print(f"\nDates and ages (targets DATE and AGE, preset quasi; textdp.quasi) are released "
          f"with {geometric.GUARANTEE}: {GUARANTEE_DATE}; {GUARANTEE_AGE}. ε per day "
          "(epsilon_date) and per year (epsilon_age) add to a report's epsilon_total; the "
          "intervals between a text's dates and each date's style are released as they are.")
    from textdp.place_vocabulary import GUARANTEE_PLACES, HOLDS_BETWEEN_PLACES

    print(f"\nPlaces (targets GPE, LOC and FAC, preset quasi; textdp.place_vocabulary) are "
          f"drawn as names are, with each mechanism's guarantee above: {GUARANTEE_PLACES}. "
          f"Released without noise{HOLDS_BETWEEN_PLACES.removeprefix(';')}. With "
          "replace='word' they decode to the whole table.")
    return 0
