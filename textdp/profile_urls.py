"""Profile URLs of public social platforms: the account in them is a handle.

``linkedin.com/in/mary-johnson`` in an e-mail signature or ``https://twitter.com/mary_johnson``
in a tweet carries a person's name as plainly as ``@mary_johnson`` does, and a tagger reads
the URL as one odd token. :func:`parse_profile_url` finds the account of a URL on one of the
platforms of :data:`PROFILE_PATHS`, at the place its profile URLs put it (after ``/in/`` on
LinkedIn, after ``/@`` on YouTube or TikTok, first on X or GitHub), so that the handle detector
can judge it like an @handle and the surface form can write a pseudonym in its place.

The list is fixed and public: a platform's host says which of these platforms the account is
on, nothing about the person. What follows the account (``/status/123``, ``?lang=en``) is
never written back: a post's number finds its author as surely as the account does.
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: Per platform host, the path prefixes in front of the account segment of a profile URL.
PROFILE_PATHS: dict[str, tuple[str, ...]] = {
    "twitter.com": ("",), "x.com": ("",), "facebook.com": ("",), "fb.com": ("",),
    "instagram.com": ("",), "threads.net": ("@",), "linkedin.com": ("in/", "pub/"),
    "github.com": ("",), "gitlab.com": ("",), "tiktok.com": ("@",),
    "youtube.com": ("@", "c/", "user/"), "medium.com": ("@",), "reddit.com": ("u/", "user/"),
    "pinterest.com": ("",), "soundcloud.com": ("",), "twitch.tv": ("",), "vk.com": ("",),
    "t.me": ("",), "snapchat.com": ("add/",),
}
_HOSTS = "|".join(re.escape(h) for h in sorted(PROFILE_PATHS, key=len, reverse=True))
_PREFIXES = "|".join(sorted({re.escape(p) for ps in PROFILE_PATHS.values() for p in ps if p},
                            key=len, reverse=True))
_PROFILE = re.compile(
    r"(?P<pre>[^\w]*(?:https?://)?(?:(?:www|m|mobile)\.)?(?P<host>" + _HOSTS + r")/"
    r"(?P<prefix>" + _PREFIXES + r")?)"
    # ``rest`` ends at its last word character or "/", and ``post`` takes what follows: the
    # same split as a lazy ``[/?#]\S*?`` before ``post`` (the longest ``post``), without
    # trying ``post`` to the end after every character of ``rest``, which took quadratic
    # time on "https://x.com/ab?" + "?" * 10000 + "a" (issue 37).
    r"(?P<body>[\w.-]*\w)(?P<rest>(?:[/?#](?:\S*[\w/])?)?)(?P<post>[^\w/]*)", re.IGNORECASE)


class ProfileURL(NamedTuple):
    """A profile URL split around its account: ``pre`` is everything before the account
    (punctuation glued in front, scheme, host, path prefix), ``body`` the account, ``rest``
    the path or query after it and ``post`` the punctuation glued after the URL."""

    pre: str
    body: str
    rest: str
    post: str


def parse_profile_url(token: str) -> ProfileURL | None:
    """``token`` as a :class:`ProfileURL` when it is a URL on a listed platform with an
    account where that platform's profile URLs put one, else ``None``."""
    if "/" not in token:  # the one check every other token pays
        return None
    m = _PROFILE.fullmatch(token)
    if m is None:
        return None
    prefix = (m["prefix"] or "").casefold()
    if prefix not in PROFILE_PATHS[m["host"].casefold()]:
        return None
    return ProfileURL(m["pre"], m["body"], m["rest"], m["post"])
