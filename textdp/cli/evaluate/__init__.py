"""``textdp evaluate ...``: measure textdp's parts on public data, one module per sub-command.

    textdp evaluate detection --data ../shared/data/conll2003/eng.testa
    textdp evaluate privacy --mechanism mlaplace,mahalanobis,nadp -o report/
    textdp evaluate utility --data ../shared/data --mechanism mlaplace,nadp -o report/
    textdp evaluate ner-utility --variants original,word,name --json ner-utility.json
    textdp evaluate pseudonyms --data ../shared/data
    textdp evaluate name-kinds --texts 600
    textdp evaluate polarized --quick
    textdp evaluate samples --split dev
    textdp evaluate pii
    textdp evaluate quasi

Each measurement is a function of :mod:`textdp.evaluate`; these modules only read the options
and write the reports. ``privacy`` and ``utility`` read ``--epsilon`` in one grammar
(:mod:`textdp.grid`).
"""

from __future__ import annotations

from typing import Any


def add_parser(sub: Any) -> None:
    """``textdp evaluate`` and its sub-commands (``sub``: the top-level subparsers)."""
    from textdp.cli.evaluate import (
        detection,
        name_kinds,
        ner_utility,
        pii,
        polarized,
        privacy,
        pseudonyms,
        quasi,
        samples,
        utility,
    )

    ev = sub.add_parser("evaluate", help="measure textdp's parts on public data")
    ev_sub = ev.add_subparsers(dest="what", required=True)
    for command in (detection, privacy, utility, ner_utility, pseudonyms, name_kinds, polarized,
                    samples, pii, quasi):
        command.add_parser(ev_sub)
