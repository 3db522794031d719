"""Whatever string a server sends, `examine` answers with a consistent report and never raises."""

from __future__ import annotations

import json
import urllib.parse

from hypothesis import given, settings
from hypothesis import strategies as st

from elicitkit.urls import UrlReport, examine, reveal

C0_OR_SPACE = "".join(map(chr, range(0x21)))  # what browsers strip around a URL
DROPPED = str.maketrans("", "", "\t\n\r")

# Characters that make URLs interesting: delimiters, look-alikes, hidden and direction characters.
TRICKY = (
    "\x00\x01\x1fabcxyz019.-_@:/\\?#%[]~ \t\n\u00ad\u200b\u202e\u0430\u03bf\uff0e\u3002\u00fc\u4f8b\ud800"
)
hosts = st.text(alphabet=TRICKY, max_size=40) | st.sampled_from(
    ["example.com", "127.0.0.1", "[::1]", "0x7f000001", "xn--80ak6aa92e.com", "a.b.c.d.e.co.uk", "localhost"]
)
urls = st.builds(
    lambda scheme, userinfo, host, port, rest: f"{scheme}{userinfo}{host}{port}{rest}",
    st.sampled_from(["https://", "http://", "HTTPS://", "javascript:", "https:\\\\", "//", "", "https:"]),
    st.sampled_from(["", "user@", "a:b@", "good.com@"]),
    hosts,
    st.sampled_from(["", ":443", ":8080", ":", ":99999", ":x"]),
    st.text(alphabet=TRICKY, max_size=20),
)


def check_consistent(url: str, report: UrlReport) -> None:
    severities = {w.severity for w in report.warnings}
    expected = "block" if "block" in severities else "warn" if report.warnings else "ok"
    assert report.verdict == expected
    assert len(set(report.codes)) == len(report.codes)
    if report.parts:
        assert "".join(p.text for p in report.parts) == url.strip(C0_OR_SPACE).translate(DROPPED)
        assert all(p.text for p in report.parts)
    if report.domain is not None:
        assert report.host == report.domain or report.host.endswith("." + report.domain)
        assert sum(p.role == "domain" for p in report.parts) == 1
    if report.verdict == "ok":
        assert report.domain is not None
    assert json.loads(report.to_json()) == json.loads(json.dumps(report.to_dict()))
    for warning in report.warnings:
        assert reveal(warning.message) == warning.message


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_inspect_never_raises_on_any_text(text: str) -> None:
    check_consistent(text, examine(text))


@settings(max_examples=400, deadline=None)
@given(urls)
def test_inspect_is_consistent_on_url_shaped_text(url: str) -> None:
    check_consistent(url, examine(url))


def cannot_be_read(text: str) -> bool:
    """Text a browser cannot read as a URL at all: nothing left once stripped, or no parse."""
    text = text.strip(C0_OR_SPACE).translate(DROPPED)
    end = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=len(text))
    try:
        urllib.parse.urlsplit(text[:end].replace("\\", "/") + text[end:])
    except ValueError:
        return True
    return not text


@settings(max_examples=300, deadline=None)
@given(st.text() | urls)
def test_no_input_needs_the_safety_net(text: str) -> None:
    """The checks themselves handle every input: "unparseable" (what the catch-all in `examine`
    answers) comes only for text that really cannot be read as a URL, and any other text is
    drawn in full."""
    report = examine(text)
    assert ("unparseable" in report.codes) == cannot_be_read(text), report.codes
    if not cannot_be_read(text):
        assert report.parts


@settings(max_examples=200, deadline=None)
@given(urls)
def test_allowing_http_never_makes_a_verdict_stricter(url: str) -> None:
    order = {"ok": 0, "warn": 1, "block": 2}
    assert order[examine(url, allow_http=True).verdict] <= order[examine(url).verdict]
