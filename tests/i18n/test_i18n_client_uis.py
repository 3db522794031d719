# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""The terminal and web client UIs speak the person's language: `locale=`, else the
environment (LANGUAGE, LC_ALL, LANG). The server's words (its message, the schema's titles)
are shown as given; everything the UI says, and every problem it finds, is translated."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import httpx
import pytest
from prompt_toolkit.input import create_pipe_input
from rich.console import Console
from support.client_uis import BOOKING, terminal_ui
from support.web_door import enter

from elicitkit.client._terminal import TerminalUI
from elicitkit.client._ui import AcceptedElicitation, DeclinedElicitation, FormQuestion, UrlQuestion
from elicitkit.client._web import WebUI
from elicitkit.urls import examine

SCHEMA = BOOKING


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# -- terminal -------------------------------------------------------------------------------------


async def test_the_terminal_ui_speaks_chinese_when_asked() -> None:
    with create_pipe_input() as pipe:
        ui, drawn, screens = terminal_ui(pipe, "zh_CN")
        pipe.send_text("Ann\r" + "40\r" + "\x7f\x7f4\r" + "s")  # 40 is refused, then fixed
        form = await asyncio.wait_for(ui.ask_form(FormQuestion("Bistro", "Book a table?", SCHEMA, {})), 10)
        pipe.send_text("d")
        question = UrlQuestion("Bistro", "Connect.", examine("https://login.example.com/elicit/abc"))
        consent = await asyncio.wait_for(ui.ask_url_consent(question), 10)
    assert form == AcceptedElicitation({"name": "Ann", "size": 4}) and consent == DeclinedElicitation()
    said = drawn.getvalue()
    for chinese in (
        "服务器",
        "请你填写一份表单",
        "✓ 回答已提交：",
        "请你打开一个网页",
        "域名",
        "✗ 未打开：你拒绝了。",
    ):
        assert chinese in said, chinese
    assert "Book a table?" in said and "Your name" in said  # the server's words, as given
    for english in ("asks you to", "Answers submitted", "Not opened"):
        assert english not in said, english
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screens.getvalue())
    # the hints, the screens and their keys, in Chinese
    for chinese in ("1 到 12", "检查你的回答", "提交回答", "打开这个页面吗？", "o：打开   d/Ctrl-D：拒绝"):
        assert chinese in shown, chinese


async def test_the_terminal_ui_follows_lang(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    with create_pipe_input() as pipe:
        assert TerminalUI(input=pipe, console=Console(file=io.StringIO())).words.locale == "zh_CN"
        monkeypatch.setenv("LC_ALL", "C")
        assert TerminalUI(input=pipe, console=Console(file=io.StringIO())).words.locale == "en"
        assert (
            TerminalUI(input=pipe, console=Console(file=io.StringIO()), locale="zh").words.locale == "zh_CN"
        )


# -- web ------------------------------------------------------------------------------------------


async def _post(http: httpx.AsyncClient, address: str, fields: dict[str, Any]) -> None:
    html = (await http.get(address)).text
    action = re.search(r'<form method="post" action="([^"]+)"', html)
    token = re.search(r'name="csrf" value="([^"]+)"', html)
    assert action is not None and token is not None, html
    await http.post(address.rstrip("/") + action.group(1), data={"csrf": token.group(1), **fields})


async def test_the_web_ui_speaks_chinese_and_its_problems_too(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")  # no option: the environment decides
    async with WebUI(opener=lambda url: None) as ui, httpx.AsyncClient(timeout=10) as http:
        task = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Book <a table>?", SCHEMA, {})))
        address = await enter(http, await ui.start())
        for _ in range(200):
            if 'name="csrf"' in (html := (await http.get(address)).text):
                break
            await asyncio.sleep(0.01)
        assert '<html lang="zh-CN">' in html
        page = text_of(html)
        for chinese in (
            "请你填写一份表单",
            "检查回答",
            "拒绝",
            "取消",
            "表示必填项。",
            "你的 MCP 客户端的页面",
        ):
            assert chinese in page, chinese
        assert "Book &lt;a table&gt;?" in html and "Your name" in page  # as given, escaped
        assert "Review answers" not in page and "asks you to" not in page
        await _post(http, address, {"action": "review", "f:name": "Annabel", "f:size": "40"})
        page = text_of((await http.get(address)).text)
        assert "有些回答需要修改" in page and "最多只能有 5 个字符。" in page and "不能大于 12。" in page
        await _post(http, address, {"action": "review", "f:name": "Ann", "f:size": "4"})
        page = text_of((await http.get(address)).text)
        assert "检查你的回答" in page and "尚未发送任何内容" in page and "提交回答" in page
        await _post(http, address, {"action": "submit"})
        assert await asyncio.wait_for(task, 5) == AcceptedElicitation({"name": "Ann", "size": 4})
        idle = text_of((await http.get(address)).text)
        assert "✓ 你的回答已发送给“Bistro”。" in idle and "目前没有需要回答的问题" not in idle  # one sentence


async def test_the_web_uis_option_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    async with WebUI(opener=lambda url: None, locale="en") as ui, httpx.AsyncClient(timeout=10) as http:
        html = (await http.get(await enter(http, await ui.start()))).text
        assert '<html lang="en">' in html and "Nothing to answer right now" in html
