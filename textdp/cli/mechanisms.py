"""``textdp mechanisms``: the registered mechanisms, their guarantees and what they cover."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    """``textdp mechanisms`` (``sub``: the top-level subparsers)."""
    p = sub.add_parser("mechanisms", help="list the registered mechanisms and their guarantees")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``textdp mechanisms``: one entry per mechanism and what its guarantee covers."""
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
    return 0
