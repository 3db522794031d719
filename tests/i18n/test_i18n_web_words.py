# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""In Chinese, every word the web client's pages say is Chinese, and its sentences are spaced
as Chinese is: no space after a full stop, none before fullwidth brackets."""

from __future__ import annotations

import html
import re
from typing import Any

from support.client_uis import page_while_asking
from test_i18n_terminal_words import STRAY_SPACE, english

from elicitkit.client import FormQuestion, UrlQuestion
from elicitkit.client._web import WebUI
from elicitkit.schema import validate
from elicitkit.urls import examine

FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "size": {"type": "integer", "title": "人数", "minimum": 1, "maximum": 12},
        "mail": {"type": "string", "title": "电子邮箱", "format": "email"},
        "extras": {"type": "array", "title": "附加", "minItems": 1, "items": {"enum": ["靠窗", "儿童椅"]}},
    },
    "required": ["size"],
}


_BLOCK = (
    r"</?(?:p|div|h\d|li|ul|td|th|tr|table|section|blockquote|header|footer|main|nav|form"
    r"|fieldset|legend|label|button|option|select|dd|dt|dl)\b[^>]*>"
)


def shown(page: str) -> str:
    """The text a person reads, a line per block: no scripts, styles or tags; entities decoded.
    Inline tags leave nothing behind, so a space the page really has is not confused with one."""
    page = re.sub(r"<(script|style|title)\b.*?</\1>", " ", page, flags=re.DOTALL)
    page = re.sub(_BLOCK, "\n", page)
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


async def test_the_form_page_with_its_problems_is_all_chinese() -> None:
    problems = validate(FORM, {"size": 40})

    async def ask(ui: WebUI) -> object:
        return await ui.ask_form(FormQuestion("演示服务器", "订一张桌子？", FORM, {"size": 40}, problems))

    text = shown(await page_while_asking(ask, locale="zh_CN"))
    assert "表示必填项。在检查步骤提交之前" in text, text
    # the server's own words (a field's key, quoted in a problem) may be English; elicitkit's may not
    assert english(re.sub(r"elicitkit|'size'", " ", text)) == [], text
    assert STRAY_SPACE.findall(text) == [], text


async def test_the_url_consent_page_is_all_chinese() -> None:
    async def ask(ui: WebUI) -> object:
        return await ui.ask_url_consent(
            UrlQuestion("演示服务器", "连接日历。", examine("https://login.example.com/a"))
        )

    text = shown(await page_while_asking(ask, locale="zh_CN", until="login.example.com"))
    leftover = english(re.sub(r"elicitkit|https:// ?|login\.|\S*example\.com\S*", " ", text))
    assert leftover == [], text
    assert STRAY_SPACE.findall(text) == [], text
