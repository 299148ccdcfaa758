"""``COORDINATES``: a place written as latitude and longitude, and its layout-keeping surrogate.

A pair of coordinates names a place to within metres (a home, a clinic, where a photo was
taken): the ``quasi`` preset takes it, as it takes postcodes and street addresses
(:data:`textdp.detect.pii.LOCATION_LABELS`). Forms, latitude first:

* decimal degrees: ``40.7128, -74.0060``, ``[-71.6702, -107.6376]``, ``51.5074 -0.1278``,
  ``40.7128° N, 74.0060° W``, ``40.7128N 74.0060W``; |latitude| ≤ 90 and |longitude| ≤ 180.
  Each number has four decimals or more, or two or more with a degree sign, hemisphere
  letters or a context word (``GPS``, ``coordinates``, ``lat``/``long``, ``location``, ...)
  within :data:`CONTEXT_WINDOW` characters before (``GPS: 51.50, -0.12``). Not a pair inside
  a longer list of numbers (``0.8123, 0.7654, 0.9012``: scores), and not two numbers both
  under 1 without such a mark;
* a number of two decimals or more right after its own label (``lat 40.7128 lon -74.0060``,
  ``Longitude: -0.1278``): each number alone;
* degrees, minutes and seconds with hemisphere letters: ``40°42'46"N 74°00'22"W``,
  ``40° 42′ 46.1″ N, 74° 0′ 22″ W``; minutes and seconds under 60.

Surrogate (:func:`surrogate`): a point drawn uniformly in latitude [-90, 90] and longitude
[-180, 180] (it stands for no place), written in the value's layout (:func:`layout`): the
notation (decimal or degrees-minutes-seconds), each number's count of decimals, degree signs,
hemisphere letters or signs, and the separators. It releases that layout only: the
hemisphere, the sign and the count of integer digits are the drawn point's (``-0.1278``
would otherwise say "within 10° west of Greenwich").

Nothing here logs, prints or raises the text.
"""

from __future__ import annotations

import re

import numpy as np

COORDINATES = "COORDINATES"
#: How far before a pair its context word may stand (characters).
CONTEXT_WINDOW = 32

_CONTEXT = re.compile(r"\b(?:gps|coord(?:inate)?s?|lat(?:itude)?|long(?:itude)?|lng|lon|"
                      r"location|located|position|geo(?:tag|location)?|pin(?:ned)?|"
                      r"waypoint)\b", re.IGNORECASE)
_SIGN = r"[-+−]"
_DECIMAL = re.compile(
    rf"(?<![\w.,/:−+-])(?P<lat>{_SIGN}?\d{{1,2}}\.(?P<latd>\d+))(?P<latdeg> ?°)?"
    r"(?P<lath> ?[NS])?(?P<sep> ?[,;/] ?| )"
    rf"(?P<lon>{_SIGN}?\d{{1,3}}\.(?P<lond>\d+))(?P<londeg> ?°)?(?P<lonh> ?[EW])?"
    r"(?![\w°]|[.,]\d)")
# Each number after its own label: "lat 40.7128 lon -74.0060", "Latitude: 51.5074".
_LABELLED = re.compile(rf"\b(?:lat(?:itude)?|long(?:itude)?|lng|lon)\b[.:=]? ?"
                       rf"(?P<value>{_SIGN}?\d{{1,3}}\.\d{{2,}})(?![\w°]|[.,]\d)",
                       re.IGNORECASE)
_DMS_PART = (r"\d{1,3} ?° ?(?:\d{1,2}(?:\.\d+)? ?['′] ?(?:\d{1,2}(?:\.\d+)? ?(?:\"|″|'') ?)?)?"
             r"[NSEW]")
_DMS = re.compile(rf"(?<![\w.])(?P<a>{_DMS_PART})(?: ?[,;/]? ?)(?P<b>{_DMS_PART})(?!\w)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_HEMISPHERE_AFTER = re.compile(r" ?°? ?H")
# A number beside the pair with a comma: the pair is part of a list ("0.81, 0.76, 0.90").
_LIST_BEFORE = re.compile(r"\d[.,]?\d* ?[,;] ?$")
_LIST_AFTER = re.compile(r" ?[,;] ?[-+−]?\d")


def _value(number: str) -> float:
    return float(number.replace("−", "-"))


def _decimal_pair(text: str, m: re.Match[str]) -> bool:
    lat, lon = _value(m.group("lat")), _value(m.group("lon"))
    if abs(lat) > 90 or abs(lon) > 180:
        return False
    if _LIST_BEFORE.search(text[max(0, m.start() - 12):m.start()]) or \
            _LIST_AFTER.match(text, m.end()):
        return False
    marked = bool(m.group("latdeg") or m.group("lath") or m.group("londeg") or
                  m.group("lonh"))
    context = bool(_CONTEXT.search(text, max(0, m.start() - CONTEXT_WINDOW), m.start()))
    if ((abs(lat) < 1 and abs(lon) < 1) or m.group("sep") == " ") and not (marked or context):
        return False  # two small numbers, or two numbers a space apart: no mark, no pair
    if min(len(m.group("latd")), len(m.group("lond"))) >= 4:
        return True
    return min(len(m.group("latd")), len(m.group("lond"))) >= 2 and (marked or context)


def _dms_valid(part: str, hemispheres: str) -> bool:
    numbers = [float(x) for x in _NUMBER.findall(part)]
    if part[-1] not in hemispheres or not numbers:
        return False
    limit = 90 if hemispheres == "NS" else 180
    return numbers[0] <= limit and all(x < 60 for x in numbers[1:])


def find_coordinates(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each pair of coordinates in ``text`` (see the module doc), in
    order, without overlaps."""
    if "." not in text and "°" not in text:
        return []
    found = [(m.start(), m.end()) for m in _DMS.finditer(text)
             if _dms_valid(m.group("a"), "NS") and _dms_valid(m.group("b"), "EW")]
    found += [(m.start(), m.end()) for m in _DECIMAL.finditer(text)
              if _decimal_pair(text, m) and
              not any(a < m.end() and m.start() < b for a, b in found)]
    found += [(m.start("value"), m.end("value")) for m in _LABELLED.finditer(text)
              if abs(_value(m.group("value"))) <= 180 and
              not any(a < m.end() and m.start() < b for a, b in found)]
    return sorted(found)


def layout(value: str) -> str:
    """What a surrogate of ``value`` may depend on: each decimal number as ``I`` (its sign and
    integer digits, which are not released) and ``#`` for each decimal; in degrees, minutes
    and seconds, ``I`` for the degrees and ``#`` for each digit of the minutes and seconds;
    ``H`` for a hemisphere letter; degree signs, primes and separators as they stand."""
    out = re.sub(r"[NSEW]", "H", value)
    if "'" in out or "′" in out:  # degrees, minutes, seconds
        out = re.sub(r"\d+(?= ?°)", "I", out)
        return re.sub(r"\d", "#", out)
    out = re.sub(rf"{_SIGN}?\d+(?=\.)", "I", out)
    return re.sub(r"\d", "#", out)


def surrogate(layout_: str, rng: np.random.Generator) -> str:
    """A point drawn uniformly in latitude and longitude, written in ``layout_`` (see
    :func:`layout`); it depends on nothing else of the value."""
    point = [float(rng.uniform(-90, 90)), float(rng.uniform(-180, 180))]
    hemispheres = ["NS", "EW"]
    out: list[str] = []
    k = -1  # which coordinate is being written: 0 latitude, 1 longitude
    i = 0
    while i < len(layout_):
        c = layout_[i]
        if c == "I":
            k = min(k + 1, 1)
            degrees = abs(point[k])
            j = i + 1
            if layout_[j:j + 1] == ".":  # decimal degrees: as many decimals as the layout
                j += 1
                while layout_[j:j + 1] == "#":
                    j += 1
                decimals = j - i - 2
                # a hemisphere letter after the number (its degree sign, spaces) or a sign
                signed = _HEMISPHERE_AFTER.match(layout_, j) is None
                sign = "-" if signed and point[k] < 0 else ""
                out.append(f"{sign}{degrees:.{decimals}f}")
                i = j
                continue
            out.append(str(int(degrees)))
        elif c == "#":  # a minute or second digit (decimal degrees are written above)
            out.append(str(int(rng.integers(0, 6)) if not out or not out[-1][-1:].isdigit()
                           else int(rng.integers(0, 10))))
        elif c == "H":
            out.append(hemispheres[max(k, 0)][0 if point[max(k, 0)] >= 0 else 1])
        else:
            out.append(c)
        i += 1
    return "".join(out)
