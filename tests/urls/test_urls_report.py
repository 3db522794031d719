"""What a report carries besides its verdict: the parts to draw, both forms of a host, JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from elicitkit.urls import examine, reveal


def drawn(url: str) -> list[tuple[str, str]]:
    return [(part.role, part.text) for part in examine(url).parts]


def test_the_registrable_domain_is_the_part_to_highlight() -> None:
    assert drawn("https://login.microsoft.com.evil.io:8443/a?b=1#c") == [
        ("scheme", "https://"),
        ("subdomain", "login.microsoft.com."),
        ("domain", "evil.io"),
        ("port", ":8443"),
        ("path", "/a"),
        ("query", "?b=1"),
        ("fragment", "#c"),
    ]
    report = examine("https://login.microsoft.com.evil.io/")
    assert (report.host, report.domain) == ("login.microsoft.com.evil.io", "evil.io")
    assert "'microsoft.com'" in report.warnings[0].message
    assert "'evil.io'" in report.warnings[0].message


def test_multi_label_and_private_suffixes_are_respected() -> None:
    assert examine("https://www.bbc.co.uk/").domain == "bbc.co.uk"
    assert examine("https://a.b.someone.github.io/").domain == "someone.github.io"


def test_the_domain_is_drawn_as_written() -> None:
    assert drawn("HTTPS://WWW.Example.COM./") == [
        ("scheme", "HTTPS://"),
        ("subdomain", "WWW."),
        ("domain", "Example.COM."),
        ("path", "/"),
    ]
    assert examine("HTTPS://WWW.Example.COM./").host == "www.example.com"


def test_userinfo_is_drawn_apart_from_the_real_site() -> None:
    report = examine("https://paypal.com@evil.com/")
    assert report.domain == "evil.com"
    assert drawn("https://paypal.com@evil.com/")[1:3] == [("userinfo", "paypal.com@"), ("domain", "evil.com")]


def test_a_backslash_is_read_as_a_browser_reads_it() -> None:
    report = examine("https://evil.com\\@good.com/")
    assert report.domain == "evil.com"
    assert report.verdict == "block"


def test_international_names_show_both_forms() -> None:
    report = examine("https://m\u00fcnchen.de/")
    assert (report.host, report.host_unicode) == ("xn--mnchen-3ya.de", "m\u00fcnchen.de")
    assert (report.domain, report.domain_unicode) == ("xn--mnchen-3ya.de", "m\u00fcnchen.de")
    assert "xn--mnchen-3ya.de" in report.warnings[0].message

    punycode = examine("https://xn--80ak6aa92e.com/")
    assert punycode.host_unicode == "\u0430\u0440\u0440\u04cf\u0435.com"
    assert "'\u0430\u0440\u0440\u04cf\u0435.com'" in punycode.warnings[0].message
    assert "'appie'" in {w.code: w.message for w in punycode.warnings}["confusable"]


def test_japanese_chinese_and_korean_script_mixes_are_fine() -> None:
    for host in ("\u4f8b\u3048.jp", "\u6e2c\u8a66abc.cn", "\ud55c\uad6dabc.kr"):
        assert "mixed-scripts" not in examine(f"https://{host}/").codes


def test_encoded_ips_name_the_real_address() -> None:
    for url in ("http://3232235777/", "http://0xc0a80101/", "http://0300.0250.1.1/", "http://192.168.257/"):
        report = examine(url)
        assert report.host == "192.168.1.1", url
        assert "encoded-ip" in report.codes


def test_plain_http_is_allowed_beyond_loopback_only_when_configured() -> None:
    assert examine("http://example.com/").verdict == "block"
    report = examine("http://example.com/", allow_http=True)
    assert (report.verdict, report.codes) == ("warn", ("insecure-http",))
    assert examine("http://127.0.0.1:9/", allow_http=True).verdict == "ok"
    assert examine("javascript:alert(1)", allow_http=True).verdict == "block"


def test_the_report_is_json() -> None:
    report = examine("https://good.com@evil.com/")
    data = json.loads(report.to_json())
    assert data["verdict"] == "block"
    assert data["domain"] == "evil.com"
    assert data["host"] == "evil.com"
    assert data["warnings"] == [
        {"code": "userinfo", "message": report.warnings[0].message, "severity": "block"}
    ]
    assert data["parts"][1] == {"text": "good.com@", "role": "userinfo"}
    assert data == report.to_dict()


def test_json_keeps_hidden_characters_visible() -> None:
    assert "\\u202e" in examine("https://evil.com/\u202emoc.lapyap").to_json()


def test_warnings_are_sentences_with_stable_severities() -> None:
    report = examine("http://user@3232235777:8080/\u202e")
    for warning in report.warnings:
        assert warning.message[0].isupper() and warning.message.endswith("."), warning
    assert {w.code: w.severity for w in report.warnings} == {
        "userinfo": "block",
        "encoded-ip": "block",
        "bidi-control": "block",
        "ip-address": "warn",
        "unusual-port": "warn",
        "insecure-http": "block",
    }


def test_reveal_escapes_what_a_terminal_would_hide() -> None:
    assert reveal("a\u202eb\u200bc\x1b[31md\u00a0e") == "a\\u202eb\\u200bc\\u001b[31md\\u00a0e"
    assert reveal("https://m\u00fcnchen.de/\u4f8b") == "https://m\u00fcnchen.de/\u4f8b"
    assert reveal("\ud800") == "\\ud800"


def test_messages_never_carry_hidden_characters() -> None:
    report = examine("https://\u202eevil.com@exa\u200bmple.com/")
    for warning in report.warnings:
        assert reveal(warning.message) == warning.message


def test_non_strings_are_blocked_not_raised() -> None:
    report = examine(None)  # type: ignore[arg-type]
    assert (report.verdict, report.codes) == ("block", ("unparseable",))


PROBE = textwrap.dedent(
    """
    import json, sys
    import elicitkit.urls as urls

    events = []

    def hook(event, args):
        watched = {"open", "os.mkdir", "os.rename", "os.remove", "subprocess.Popen", "urllib.Request"}
        if event.startswith("socket.") or event in watched:
            events.append([event, [str(a) for a in args[:2]]])

    sys.addaudithook(hook)
    urls_ = ["https://login.microsoft.com.evil.io/", "https://m\\u00fcnchen.de/", "http://127.0.0.1:1/x"]
    for url in urls_:
        urls.examine(url)
    first = list(events)
    events.clear()
    for url in urls_ + ["https://xn--80ak6aa92e.com/", "https://evil.github.io/"]:
        urls.examine(url)
    print(json.dumps({"first": first, "again": events}))
    """
)


def test_inspect_never_touches_the_network_or_a_cache(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    run = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    events = json.loads(run.stdout)
    # The first inspection reads the public-suffix snapshot bundled in publicsuffixlist and
    # Unicode's confusables data bundled in confusable-homoglyphs (and lazily imported code);
    # nothing else: no socket, no write, no cache directory.
    snapshot = os.path.join("publicsuffixlist", "public_suffix_list.dat")
    confusables = os.path.join("confusable_homoglyphs", "")
    for event, (path, mode) in events["first"]:
        assert event == "open" and mode in ("r", "rb"), (event, path, mode)
        packaged = confusables in path and path.endswith(".json")
        assert path.endswith((".pyc", ".py", snapshot)) or packaged, path
    assert any(path.endswith(snapshot) for _, (path, _) in events["first"])
    # After that, inspecting is pure computation.
    assert events["again"] == []
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("url", ["https://example.com/", "https://m\u00fcnchen.de:8443/x?y#z"])
def test_reports_are_equal_for_equal_input(url: str) -> None:
    assert examine(url) == examine(url)
