# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""A URL's warnings are said in the person's language where they are shown (the terminal and
web consent); `urls.examine` stays free of language state: its `message` is the English it
always was, and `say(gettext)` renders the warning's template with its values."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from prompt_toolkit.input import create_pipe_input
from rich.console import Console
from support.client_uis import page_while_asking

from elicitkit.client._terminal import TerminalUI
from elicitkit.client._ui import DeclinedElicitation, UrlQuestion
from elicitkit.i18n import translator
from elicitkit.urls import examine

URLS = [
    "not a url",
    "https://xn--exmple-cua.com/pay",
    "https://exämple.com/",
    "http://example.com/",
    "ftp://example.com/",
    "https://good.com@evil.com/",
    "https://example.com:99999/",
    "https://example.com:8443/",
    "https://example.com:x/",
    "https://0x7f000001.example/",
    "https://0177.0.0.1/",
    "https://[::ffff:1.2.3.4]/",
    "https://93.184.216.34/",
    "https://ex%61mple.com/",
    "https://pаypal.com/",
    "https://login.microsoft.com.evil.io/",
    "https://a.b.c.d.e.example.com/",
    "https://host.invalidtld/",
    "https://exa\u200bmple.com/",
    "https://example.com/\u202e",
    "https:\\\\example.com/",
    "https://exam ple.com/",
    "https:///path",
    "example.com/path",
    "https://[::1/",
    "https://exa\x01mple.com/",
    "https://pаyпal.com/",
    "https://gοοgle.com/",
    "https://\u1d18aypal.com/",
    "   ",
]
PUNYCODE = "https://xn--exmple-cua.com/pay"


def test_the_english_is_the_message_and_every_warning_has_its_chinese() -> None:
    english, chinese = translator("en").gettext, translator("zh_CN").gettext
    templates = set()
    for url in URLS:
        for warning in (*examine(url).warnings, *examine(url, allow_http=True).warnings):
            templates.add(warning.template)
            assert warning.template, warning.code
            assert warning.say(english) == warning.message
            said = warning.say(chinese)
            assert said != warning.message and re.search("[\u4e00-\u9fff]", said), said
            for _, value in warning.params:
                assert value in said
    assert len(templates) == 28  # every sentence inspect can say


def test_the_report_as_json_is_what_it_was() -> None:
    warning = examine(PUNYCODE).to_dict()["warnings"][0]
    assert warning == {
        "code": "punycode",
        "message": "The host is written in punycode ('xn--exmple-cua.com'), which reads as 'exämple.com'.",
        "severity": "warn",
    }


async def test_the_chinese_terminal_consent_explains_punycode_in_chinese() -> None:
    drawn = io.StringIO()
    with create_pipe_input() as pipe:
        ui = TerminalUI(input=pipe, console=Console(file=drawn, width=160), locale="zh_CN")
        pipe.send_text("d")
        reply = await asyncio.wait_for(
            ui.ask_url_consent(UrlQuestion("Bistro", "Pay.", examine(PUNYCODE))), 10
        )
    assert reply == DeclinedElicitation()
    said = drawn.getvalue()
    assert "主机以 punycode 写成（'xn--exmple-cua.com'），读作 'exämple.com'。" in said, said
    assert "The host is written in punycode" not in said


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("zh_CN", "主机以 punycode 写成（&#39;xn--exmple-cua.com&#39;），读作 &#39;exämple.com&#39;。"),
        (
            "en",
            "The host is written in punycode (&#39;xn--exmple-cua.com&#39;), "
            "which reads as &#39;exämple.com&#39;.",
        ),
    ],
)
async def test_the_web_consent_explains_punycode_in_its_language(locale: str, expected: str) -> None:
    question = UrlQuestion("Bistro", "Pay.", examine(PUNYCODE))
    html = await page_while_asking(lambda ui: ui.ask_url_consent(question), locale=locale, until="punycode")
    assert expected in html, html


def test_a_warning_compares_as_before() -> None:
    from elicitkit.urls import UrlWarning

    warning = examine("https://xn--exmple-cua.com/").warnings[0]
    assert warning == UrlWarning("punycode", warning.message, "warn")
    assert "template" not in repr(warning)
