"""The verdict and warning codes for URLs covering each trick a client must catch (C-23)."""

from __future__ import annotations

import pytest

from elicitkit.urls import examine

C0_OR_SPACE = "".join(map(chr, range(0x21)))  # what browsers strip around a URL
OK, WARN, BLOCK = "ok", "warn", "block"

# (url, verdict, warning codes). The codes are compared as a set: exactly these, no others.
TABLE: list[tuple[str, str, set[str]]] = [
    # Plain, good links.
    ("https://example.com", OK, set()),
    ("https://example.com/path?q=1#frag", OK, set()),
    ("HTTPS://Example.COM/", OK, set()),
    ("https://www.bbc.co.uk/news", OK, set()),
    ("https://example.com:443/", OK, set()),
    ("https://example.com:/", OK, set()),
    ("https://example.com./", OK, set()),
    ("https://my_host.example.com/", OK, set()),
    ("https://evil.com#@good.com", OK, set()),
    ("https://evil.com/?next=https://good.com", OK, set()),
    ("https://good.com/a\\b", OK, set()),
    ("https://someone.github.io/", OK, set()),
    # Loopback may use plain http and any port.
    ("http://127.0.0.1:8123/elicit/abc", OK, set()),
    ("http://127.5.6.7/", OK, set()),
    ("http://localhost:3000/", OK, set()),
    ("http://app.localhost/", OK, set()),
    ("http://[::1]:8080/", OK, set()),
    # Schemes other than http(s).
    ("javascript:alert(1)", BLOCK, {"scheme-not-allowed"}),
    ("JaVaScRiPt:alert(document.cookie)", BLOCK, {"scheme-not-allowed"}),
    ("data:text/html,<script>alert(1)</script>", BLOCK, {"scheme-not-allowed"}),
    ("file:///etc/passwd", BLOCK, {"scheme-not-allowed"}),
    ("vbscript:msgbox(1)", BLOCK, {"scheme-not-allowed"}),
    ("about:blank", BLOCK, {"scheme-not-allowed"}),
    ("blob:https://example.com/1234", BLOCK, {"scheme-not-allowed"}),
    ("ftp://files.example.com/x", BLOCK, {"scheme-not-allowed"}),
    ("mailto:a@example.com", BLOCK, {"scheme-not-allowed"}),
    ("example.com/login", BLOCK, {"missing-scheme"}),
    ("//evil.com/login", BLOCK, {"missing-scheme"}),
    # Plain http beyond this computer.
    ("http://example.com/", BLOCK, {"insecure-http"}),
    ("http://localhost.evil.com/", BLOCK, {"insecure-http"}),
    ("http://10.0.0.5/", BLOCK, {"insecure-http", "ip-address"}),
    # Userinfo.
    ("https://good.com@evil.com/", BLOCK, {"userinfo"}),
    ("https://user:pass@example.com/", BLOCK, {"userinfo"}),
    ("https://@example.com/", BLOCK, {"userinfo"}),
    ("https://accounts.google.com%2F@evil.com", BLOCK, {"userinfo"}),
    # Punycode and international names.
    ("https://münchen.de/", WARN, {"idn"}),
    ("https://xn--mnchen-3ya.de/", WARN, {"punycode"}),
    ("https://例え.テスト/", WARN, {"idn", "no-registrable-domain"}),
    ("https://\uff47\uff4f\uff4f\uff47\uff4c\uff45.com/", WARN, {"idn"}),  # fullwidth google
    # Mixed scripts and look-alikes.
    ("https://p\u0430ypal.com/", BLOCK, {"idn", "mixed-scripts", "confusable"}),  # Cyrillic a
    ("https://xn--pypal-4ve.com/", BLOCK, {"punycode", "mixed-scripts", "confusable"}),
    ("https://\u0430\u0440\u0440\u04cf\u0435.com/", BLOCK, {"idn", "confusable"}),  # all-Cyrillic apple
    ("https://xn--80ak6aa92e.com/", BLOCK, {"punycode", "confusable"}),
    ("https://g\u03bfogle.com/", BLOCK, {"idn", "mixed-scripts", "confusable"}),  # Greek omicron
    ("https://\u0251pple.com/", BLOCK, {"idn", "confusable", "phonetic-letter"}),  # Latin alpha (IPA)
    ("https://пример.рф/", WARN, {"idn"}),
    ("https://\u0441\u0430\u0445\u0430\u0440.\u0440\u0444/", WARN, {"idn"}),  # Cyrillic look-alikes under .рф
    ("https://\u0441\u0430\u0445\u0430\u0440.com/", BLOCK, {"idn", "confusable"}),  # the same under .com
    ("https://0xgoogle.com/", OK, set()),
    ("https://\u0561\u0562.\u0570\u0561\u0575/", WARN, {"idn"}),  # Armenian under an Armenian TLD
    # Raw and encoded IP addresses.
    ("https://93.184.216.34/", WARN, {"ip-address"}),
    ("https://[2001:db8::1]/", WARN, {"ip-address"}),
    ("http://3232235777/", BLOCK, {"encoded-ip", "ip-address", "insecure-http"}),
    ("http://0x7f000001/", BLOCK, {"encoded-ip"}),
    ("http://0177.0.0.1/", BLOCK, {"encoded-ip"}),
    ("http://127.1/", BLOCK, {"encoded-ip"}),
    ("https://0xc0.0xa8.0x01.0x01/", BLOCK, {"encoded-ip", "ip-address"}),
    ("https://[::ffff:127.0.0.1]/", BLOCK, {"encoded-ip", "ip-address"}),
    ("https://[::ffff:c0a8:101]/", BLOCK, {"encoded-ip", "ip-address"}),
    ("https://1.2.3.4.5/", BLOCK, {"invalid-host"}),
    ("https://evil.123/", BLOCK, {"invalid-host"}),
    # Ports.
    ("https://example.com:8443/", WARN, {"unusual-port"}),
    ("https://example.com:80/", WARN, {"unusual-port"}),
    ("https://example.com:99999/", BLOCK, {"invalid-port"}),
    ("https://example.com:8o/", BLOCK, {"invalid-port"}),
    ("https://example.com:+443/", BLOCK, {"invalid-port"}),
    # Invisible and direction characters.
    ("https://exa\u200bmple.com/", BLOCK, {"invisible-character", "idn"}),
    ("https://pay\u00adpal.com/", BLOCK, {"invisible-character", "idn"}),
    ("https://example.com/\u200d", BLOCK, {"invisible-character"}),
    ("https://evil.com/\u202emoc.lapyap", BLOCK, {"bidi-control"}),
    ("https://\u202eevil.com", BLOCK, {"bidi-control", "invalid-host"}),
    ("https://example.com/\u2066x\u2069", BLOCK, {"bidi-control"}),
    # Percent-encoded hosts.
    ("https://%65vil.com/", BLOCK, {"percent-encoded-host"}),
    ("https://exa%6Dple.com/", BLOCK, {"percent-encoded-host"}),
    ("https://evil%2ecom/", BLOCK, {"percent-encoded-host"}),
    # Backslashes, whitespace and control characters.
    ("https://evil.com\\@good.com/", BLOCK, {"backslash"}),
    ("https:\\\\evil.com/", BLOCK, {"backslash"}),
    ("https://good.com\\evil.com", BLOCK, {"backslash"}),
    (" https://example.com/ ", WARN, {"whitespace"}),
    ("https://example.com/a b", WARN, {"whitespace"}),
    ("https://example.com/\u00a0", WARN, {"whitespace"}),
    ("java\nscript:alert(1)", BLOCK, {"control-character", "scheme-not-allowed"}),
    ("https://exam\tple.com/", BLOCK, {"control-character"}),
    ("https://example.com/\x00", BLOCK, {"control-character"}),
    ("https://example.com/\r\nSet-Cookie:x", BLOCK, {"control-character"}),
    ("\x01javascript:alert(1)", BLOCK, {"control-character", "scheme-not-allowed"}),
    ("\x00https://example.com/\x1f", BLOCK, {"control-character"}),
    ("https://exa mple.com/", BLOCK, {"whitespace", "invalid-host"}),
    # A real domain pushed out of view.
    ("https://login.microsoft.com.evil.io/", WARN, {"domain-in-subdomain"}),
    ("https://www.paypal.co.uk.secure.example.net/", WARN, {"domain-in-subdomain", "long-host"}),
    ("https://victim.github.io.evil.com/", WARN, {"domain-in-subdomain"}),
    ("https://a.b.c.d.example.com/", WARN, {"long-host"}),
    ("https://accounts-google-com-signin-verification-session-0001.example.com/", WARN, {"long-host"}),
    ("https://api.eu.example.com/", OK, set()),
    # No registrable domain.
    ("https://intranet/", WARN, {"no-registrable-domain"}),
    ("https://co.uk/", WARN, {"no-registrable-domain"}),
    ("https://evil.notatld/", WARN, {"no-registrable-domain"}),
    # No host, and things that are not URLs at all.
    ("https:///evil.com", BLOCK, {"missing-host"}),
    ("https://", BLOCK, {"missing-host"}),
    ("https:", BLOCK, {"missing-host"}),
    ("https://:443/", BLOCK, {"missing-host"}),
    ("", BLOCK, {"unparseable"}),
    ("   ", BLOCK, {"unparseable"}),
    ("https://[::1/", BLOCK, {"unparseable"}),
    ("https://[fe80::1%25eth0]/", BLOCK, {"invalid-host"}),
    ("https://[not-an-ip]/", BLOCK, {"unparseable"}),
    ("https://exa..mple.com/", BLOCK, {"invalid-host"}),
    ("https://google.com\uff0fevil.com/", BLOCK, {"unparseable"}),
    ("https://☃.net/", BLOCK, {"invalid-host"}),
]


def test_the_table_is_large_and_distinct() -> None:
    urls = [url for url, _, _ in TABLE]
    assert len(urls) >= 60
    assert len(set(urls)) == len(urls)


@pytest.mark.parametrize(("url", "verdict", "codes"), TABLE, ids=[repr(u)[1:-1][:60] for u, _, _ in TABLE])
def test_verdict_and_codes(url: str, verdict: str, codes: set[str]) -> None:
    report = examine(url)
    assert (report.verdict, set(report.codes)) == (verdict, codes), report.warnings


@pytest.mark.parametrize(("url", "verdict", "codes"), TABLE, ids=[repr(u)[1:-1][:60] for u, _, _ in TABLE])
def test_parts_spell_the_whole_url(url: str, verdict: str, codes: set[str]) -> None:
    report = examine(url)
    if report.parts:
        browser_reads = url.strip(C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
        assert "".join(part.text for part in report.parts) == browser_reads
