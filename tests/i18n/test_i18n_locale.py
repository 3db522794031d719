"""Choosing the language: a browser's Accept-Language, a terminal's environment, an option."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import jinja2
import pytest

from elicitkit.i18n import (
    UnsupportedLocaleError,
    choose,
    current,
    environment,
    from_environment,
    gettext,
    negotiate,
    speaking,
    translator,
)


@pytest.mark.parametrize(
    ("header", "locale"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh_CN"),
        ("zh", "zh_CN"),
        ("zh-Hans-CN", "zh_CN"),
        ("zh-TW", "zh_CN"),  # reads Simplified Chinese better than English
        ("en-US,en;q=0.9", "en"),
        ("fr-FR, de;q=0.8", "en"),  # nothing fits: the default
        ("fr, zh;q=0.5", "zh_CN"),
        ("en;q=0.4, zh-CN;q=0.9", "zh_CN"),  # by quality, not by order
        ("zh-CN;q=0, en", "en"),  # q=0: not acceptable
        ("*", "en"),
        ("", "en"),
        (None, "en"),
        ("zh-CN;q=abc, en", "en"),
        ("!!!, ;;;, zh", "zh_CN"),  # garbage tags are skipped, not fatal
    ],
)
def test_accept_language_is_negotiated(header: str | None, locale: str) -> None:
    assert negotiate(header) == locale


@pytest.mark.parametrize(
    ("header", "locale"),
    [
        ("en;Q=0.1, zh;q=0.5", "zh_CN"),  # parameter names are case-insensitive (RFC 9110)
        ("en;q=1.5, zh", "zh_CN"),  # a q above 1 is not a weight: that tag is not acceptable
        ("zh;q=inf, en", "en"),
        ("zh;q=nan, en", "en"),
        ("zh;q=-1, en", "en"),
        ("zh-CN;q=0, zh;q=0, *;q=0", "en"),  # everything refused: the default, not an error
        ("en-US,*;q=0.5", "en"),
        ("zh-Hant-HK", "zh_CN"),  # a script and another region still read the one Chinese catalog
        ("ZH-cn", "zh_CN"),
        ("sr-Latn, de-u-co-phonebk, x-pig-latin, i-klingon", "en"),
        ("\x00zh, zh;;q=, -, ;q=1, zh--CN", "zh_CN"),  # garbage is skipped; an empty q refuses
    ],
)
def test_a_header_in_any_shape_negotiates_without_raising(header: str, locale: str) -> None:
    assert negotiate(header) == locale


def test_headers_that_differ_only_in_their_weights_each_get_their_own_answer() -> None:
    for _ in range(3):  # asked again and again, in turn
        assert negotiate("zh;q=0.5, en") == "en"
        assert negotiate("zh, en;q=0.5") == "zh_CN"


def test_a_long_header_costs_bounded_work() -> None:
    assert negotiate(",".join(["fr"] * 100_000 + ["zh"])) == "en"  # only the first tags are read


@pytest.mark.parametrize(
    ("environ", "locale"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({"LANGUAGE": "fr:zh_CN:en", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LC_ALL": "POSIX", "LANG": "zh_CN.UTF-8"}, "en"),  # gettext's order: LC_ALL wins
        ({}, "en"),
    ],
)
def test_a_terminal_locale_comes_from_the_environment(environ: dict[str, str], locale: str) -> None:
    assert from_environment(environ) == locale


def test_an_explicit_option_accepts_common_spellings_and_refuses_unknown_ones() -> None:
    assert choose("zh_CN") == choose("zh-CN") == choose("zh") == choose("zh_CN.UTF-8") == "zh_CN"
    assert choose("en_GB") == "en"
    with pytest.raises(UnsupportedLocaleError, match="no translations for the locale 'fr'"):
        choose("fr")


def test_one_translator_per_locale() -> None:
    assert translator("zh-CN") is translator("zh_CN") is translator("zh")
    assert translator() is translator("en")
    assert translator("zh_CN").gettext("Save") == "保存"
    assert translator("en").gettext("Save") == "Save"


def test_dates_and_numbers_are_written_for_the_locale() -> None:
    moment = datetime(2026, 3, 5, 14, 30, tzinfo=UTC).timestamp()
    assert translator("zh_CN").format_datetime(moment) == "2026年3月5日 14:30:00 UTC"
    assert translator("en").format_datetime(moment) == "Mar 5, 2026, 2:30:00\u202fPM UTC"
    assert translator("en").format_number(1234567.5) == "1,234,567.5"
    assert translator("zh_CN").format_number(1234567.5) == "1,234,567.5"


def test_one_template_speaks_the_locale_of_each_render() -> None:
    """Jinja's newstyle gettext: each render in its own language, whichever came before, and a
    value inside a translated sentence escaped like any other value."""
    env = environment(
        jinja2.DictLoader(
            {
                "t.html": "{{ _('Save') }}|{% trans %}{{ name }} (authorization server){% endtrans %}|"
                "{{ ngettext('%(num)d chosen', '%(num)d chosen', 2) }}|{{ lang }}"
            }
        )
    )
    page = env.get_template("t.html")
    for _ in range(2):
        assert (
            page.render(name="<b>", **translator("zh_CN").jinja)
            == "保存|&lt;b&gt;\uff08授权服务器\uff09|已选 2 项|zh-CN"
        )
        assert (
            page.render(name="<b>", **translator("en").jinja)
            == "Save|&lt;b&gt; (authorization server)|2 chosen|en"
        )
    assert page.render(name="A") == "Save|A (authorization server)|2 chosen|en"  # no words given: the default


async def test_speaking_holds_for_the_block_and_the_tasks_it_starts() -> None:
    assert gettext("Cancel") == "Cancel"
    with speaking("zh_CN"):
        assert gettext("Cancel") == "取消"
        assert await asyncio.create_task(asyncio.sleep(0, result=None)) is None
        assert await asyncio.create_task(_said("Cancel")) == "取消"
    assert current().locale == "en" and gettext("Cancel") == "Cancel"


async def _said(message: str) -> str:
    await asyncio.sleep(0)
    return gettext(message)
