# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""What the client itself tells a person (its notices, the 2026-07-28 waiting note) is a
`Notice`: English text as before for any UI, said in the person's language by a UI that speaks
one (the terminal, web and narrated UIs)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import time

import httpx
from prompt_toolkit.input import create_pipe_input
from rich.console import Console
from support.web_door import enter

from elicitkit.client import ElicitationConfig, ScriptedUI
from elicitkit.client._connection import ServerElicitations
from elicitkit.client._rounds import _WAITING_NOTE
from elicitkit.client._terminal import TerminalUI
from elicitkit.client._ui import CancelledElicitation, Notice, Waiting, said
from elicitkit.client._web import WebUI
from elicitkit.i18n import noop, speaking, translator
from elicitkit.urls import examine

BLOCKED = "https://good.com@evil.com/"


def test_a_notice_is_its_english_text_and_says_itself_in_chinese() -> None:
    notice = Notice(noop("%(server)s: an elicitation completed."), server="Bistro")
    assert notice == "Bistro: an elicitation completed." and isinstance(notice, str)
    assert said(notice, translator("zh_CN").gettext) == "Bistro：一项征询已完成。"
    assert said("plain words", translator("zh_CN").gettext) == "plain words"  # not a Notice: as given
    reasons = tuple(w for w in examine(BLOCKED).warnings if w.severity == "block")
    blocked = Notice(
        noop("%(server)s asked to open a URL that was blocked and not opened: %(reasons)s."),
        server="Bistro",
        reasons=reasons,
    )
    english = "; ".join(w.message.rstrip(".") for w in reasons)
    assert blocked == f"Bistro asked to open a URL that was blocked and not opened: {english}."


async def test_the_english_notices_are_what_they_were() -> None:
    ui = ScriptedUI(CancelledElicitation())
    answers = ServerElicitations(ElicitationConfig(ui, server_name="Bistro"))
    assert await answers.consent_and_open("Pay.", BLOCKED) == "cancel"
    assert ui.notices == [
        "Bistro asked to open a URL that was blocked and not opened: The text before '@' ('good.com') "
        "is a user name, not the site; the site is 'evil.com'."
    ]


async def test_the_chinese_terminal_says_a_blocked_url_notice_in_chinese() -> None:
    drawn = io.StringIO()
    with create_pipe_input() as pipe:
        ui = TerminalUI(input=pipe, console=Console(file=drawn, width=300), locale="zh_CN")
        answers = ServerElicitations(ElicitationConfig(ui, server_name="Bistro"))
        pipe.send_text("d")
        assert await asyncio.wait_for(answers.consent_and_open("Pay.", BLOCKED), 10) == "decline"
    said_ = drawn.getvalue()
    assert (
        "Bistro 请求打开一个已被拦截的 URL，它没有被打开："
        "“@”之前的文字（'good.com'）是用户名，而不是网站；真正的网站是 'evil.com'。" in said_
    ), said_
    assert "was blocked" not in said_


async def test_the_chinese_web_page_shows_notices_and_the_waiting_note_in_chinese() -> None:
    async with WebUI(opener=lambda url: None, locale="zh_CN") as ui, httpx.AsyncClient(timeout=10) as http:
        task = asyncio.create_task(ui.wait(Waiting("Bistro", [], time.monotonic(), notes=(_WAITING_NOTE,))))
        address = await enter(http, await ui.start())
        ui.notice(
            Notice(noop("%(server)s is asking too often; extra questions are dismissed."), server="Bistro")
        )
        for _ in range(200):
            if "2026-07-28" in (html := (await http.get(address)).text):
                break
            await asyncio.sleep(0.01)
        task.cancel()
    assert "在页面完成之前，调用会不时重新发起（2026-07-28 版协议没有完成通知）" in html, html
    assert "The call is made again" not in html
    assert list(ui._board.notices) == ["Bistro 提问过于频繁；多出的问题已被忽略。"]


async def test_the_narration_says_notices_and_the_note_in_its_language() -> None:
    from elicitkit.demo.transcript import NarratedUI, Transcript

    drawn = io.StringIO()
    inner = ScriptedUI(CancelledElicitation())
    with speaking("zh_CN"):
        ui = NarratedUI(inner, Transcript(Console(file=drawn, width=300)), "alice")
        ui.notice(Notice(noop("%(server)s: an elicitation completed."), server="Bistro"))
        waiting = Waiting("Bistro", [("1", "Pay.")], time.monotonic(), notes=(_WAITING_NOTE,))
        with contextlib.suppress(TimeoutError):  # the scripted person waits for ever
            await asyncio.wait_for(ui.wait(waiting), 0.2)
    assert "Bistro：一项征询已完成。" in drawn.getvalue()
    assert "取消会停止它并告知服务器。" in drawn.getvalue()
    assert inner.notices == ["Bistro: an elicitation completed."]  # what it hands on stays English
