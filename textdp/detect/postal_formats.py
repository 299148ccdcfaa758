"""The patterns of the postal codes that are read anywhere: UK postcodes and Canadian postal
codes, for the ``POSTCODE`` recogniser (:mod:`textdp.detect.postcodes`) and the place lookup
(:mod:`textdp.detect.places`: the town before one is an address's), which that recogniser
reads in turn (no import circle)."""

from __future__ import annotations

import re

# Royal Mail: outward code (area letters, district digit(s) and letter), inward code (a
# digit and two letters of ABD-HJLNP-UW-Z); GIR 0AA is Girobank's.
UK = re.compile(r"(?<![\w-])(?:GIR ?0AA|[A-PR-UWYZ](?:\d[A-HJKPSTUW\d]?|"
                r"[A-HK-Y]\d[ABEHMNPRVWXY\d]?) ?\d[ABD-HJLNP-UW-Z]{2})(?![\w-])")
# Canada Post: A1A 1A1 without D F I O Q U, and no W or Z first.
CA = re.compile(r"(?<![\w-])[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d"
                r"(?![\w-])")


def starts_with_postcode(text: str) -> bool:
    """Whether ``text`` starts with a UK postcode or a Canadian postal code (``"LS6 2AB"``,
    ``"M5V 2T6"``): the town before one is an address's (``Leeds LS6 2AB``)."""
    return any(p.match(text) for p in (UK, CA))
