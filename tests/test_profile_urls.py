"""Profile URLs of public social platforms (textdp.profile_urls), and how they are written."""

from __future__ import annotations

import re

import pytest

from textdp import Privatizer
from textdp.profile_urls import PROFILE_PATHS, ProfileURL, parse_profile_url
from textdp.surface import surface_form


@pytest.mark.parametrize(("token", "parsed"), [
    ("linkedin.com/in/mary-johnson", ("linkedin.com/in/", "mary-johnson", "", "")),
    ("https://twitter.com/mary_johnson.", ("https://twitter.com/", "mary_johnson", "", ".")),
    ("(https://x.com/JohnSmith?lang=en)", ("(https://x.com/", "JohnSmith", "?lang=en", ")")),
    ("https://www.facebook.com/john.smith.9/", ("https://www.facebook.com/", "john.smith.9",
                                                "/", "")),
    ("https://twitter.com/mary/status/123),", ("https://twitter.com/", "mary",
                                               "/status/123", "),")),
    ("https://www.youtube.com/@MaryJohnson", ("https://www.youtube.com/@", "MaryJohnson", "",
                                              "")),
    ("LinkedIn.com/in/Mary", ("LinkedIn.com/in/", "Mary", "", "")),
    ("m.facebook.com/mary", ("m.facebook.com/", "mary", "", "")),
])
def test_the_account_is_found_where_the_platform_puts_it(token, parsed):
    assert parse_profile_url(token) == ProfileURL(*parsed)


@pytest.mark.parametrize("token", [
    "Mary", "mary/john", "http://t.co/vrO07oMH", "https://news.com/mary",
    "https://www.youtube.com/watch?v=abc",  # a video, not an account
    "reddit.com/r/python",                 # a subreddit
    "notlinkedin.com/in/mary",             # another host
    "linkedin.com/mary",                   # LinkedIn puts accounts after /in/
])
def test_other_urls_are_no_profile(token):
    assert parse_profile_url(token) is None


def test_every_platform_has_a_profile_path():
    for host, prefixes in PROFILE_PATHS.items():
        assert host == host.casefold() and prefixes
        url = f"https://{host}/{prefixes[0]}mary_johnson"
        assert parse_profile_url(url) == ProfileURL(f"https://{host}/{prefixes[0]}",
                                                    "mary_johnson", "", "")


def test_the_substitute_stays_a_profile_on_the_platform_without_the_rest():
    assert surface_form("vivian", "https://x.com/jessie_k/status/1") == "https://x.com/vivian"
    assert surface_form("vivian", "(linkedin.com/in/Mary-Johnson),") == \
        "(linkedin.com/in/Vivian),"


def test_a_profile_url_beside_its_name_is_spelt_from_its_pseudonyms():
    text = "Mary Johnson | linkedin.com/in/mary-johnson | https://twitter.com/MaryJohnson/status/9"
    out = Privatizer(seed=2)(text)
    m = re.fullmatch(r"(\w+) (\w+) \| linkedin\.com/in/(\w+)-(\w+) \| "
                     r"https://twitter\.com/(\w+)", out.text)
    assert m is not None, "the form of the text changed"
    first, last = m[1], m[2]
    assert "mary" not in out.text.lower() and "johnson" not in out.text.lower()
    assert (m[3], m[4]) == (first.lower(), last.lower()) and m[5] == first + last
    assert out.report.draws == 2 and "profile URL" in out.report.holds_between


# Issue 37: the lazy path pattern tried the rest of the token after every character of it
# (quadratic); timed by bench/crafted.py, not here.
@pytest.mark.parametrize("token,rest,post", [
    ("https://x.com/ab?" + "?" * 5000 + "a", "?" + "?" * 5000 + "a", ""),
    ("https://x.com/ab/" + "!" * 5000 + "x", "/" + "!" * 5000 + "x", ""),
    ("https://x.com/ab/" + "!" * 5000, "/", "!" * 5000),
    ("(https://x.com/ab?x=1)." + "." * 5000, "?x=1", ")." + "." * 5000),
])
def test_a_long_path_splits_as_before(token, rest, post):
    assert parse_profile_url(token) == ProfileURL(token[:token.index("ab")], "ab", rest, post)
