# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""In Chinese, everything the terminal UI and the transcript say is Chinese (counts, examples,
timings, keys' words): a message elicitkit forgot to translate shows up here as English words.
Sentences read as Chinese does (no space around its fullwidth punctuation), and columns line up
by display width, where a CJK character takes two columns."""

from __future__ import annotations

import asyncio
import io
import re
import time
from typing import Any

from prompt_toolkit.input import create_pipe_input
from rich.cells import cell_len
from rich.console import Console
from support.client_uis import terminal_ui

from elicitkit.client import AcceptedElicitation, FormQuestion, ScriptedUI, UrlQuestion, Waiting
from elicitkit.client._terminal.narrated import NarratedUI, Transcript
from elicitkit.i18n import speaking
from elicitkit.urls import examine

# Every title and message here is the server's, and Chinese, so any English left is elicitkit's.
FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "size": {"type": "integer", "title": "人数", "minimum": 1, "maximum": 12},
        "mail": {"type": "string", "title": "电子邮箱", "format": "email"},
        "extras": {
            "type": "array",
            "title": "附加",
            "minItems": 1,
            "items": {"anyOf": [{"const": "a", "title": "靠窗"}, {"const": "b", "title": "儿童椅"}]},
        },
        "note": {"type": "string", "title": "备注", "maxLength": 3},
    },
    "required": ["size", "extras"],
}
# Words that are the same in Chinese: key names, acronyms, the date shape, the example address.
KEPT = {
    "Ctrl",
    "Enter",
    "Space",
    "MCP",
    "URL",
    "punycode",
    "UTC",
    "YYYY",
    "MM",
    "DD",
    "name",
    "example",
    "com",
}
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[=>]")
# A space next to fullwidth punctuation, or one space alone between two Chinese characters
# (two or more are a gap between columns).
STRAY_SPACE = re.compile(
    r"(?<=[\u4e00-\u9fff]) +(?=[，。：；！？、（）“”])|(?<=[，。：；！？、（“]) +(?=[\w\u4e00-\u9fff])"
    r"|(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])"
)


def english(shown: str) -> list[str]:
    """English words, leaving out the URL and host names (the server's) and warning codes."""
    shown = re.sub(r"\S+://\S+|[\w.-]*\w\.example\S*|\[[a-z-]+\]", " ", shown)
    return sorted({w for w in re.findall(r"[A-Za-z]{2,}", shown) if w not in KEPT})


def plain(screens: str) -> str:
    return ANSI.sub("", screens)


async def test_every_word_the_terminal_ui_shows_is_chinese() -> None:
    with create_pipe_input() as pipe:
        ui, drawn, screens = terminal_ui(pipe, "zh_CN")
        # 40 is refused (1 to 12), then 4; no email; an extra ticked; a note too long, then fixed.
        asking = asyncio.create_task(ui.ask_form(FormQuestion("演示服务器", "订一张桌子？", FORM, {})))
        for keys in ("40\r", "\x7f\x7f4\r" + "\r" + " \r" + "1234\r", "\x7f\r" + "s"):
            await asyncio.sleep(0.4)  # each refusal is drawn before the next keys come
            pipe.send_text(keys)
        form = await asyncio.wait_for(asking, 10)
        pipe.send_text("d")
        url = UrlQuestion("演示服务器", "连接日历。", examine("https://xn--fiqs8s.example/pay"))
        await asyncio.wait_for(ui.ask_url_consent(url), 10)
        waiting = Waiting("演示服务器", [("一号", "连接日历")], time.monotonic() - 3)
        task = asyncio.create_task(ui.wait(waiting))
        await asyncio.sleep(0.6)
        pipe.send_text("c")
        await asyncio.wait_for(task, 10)
    assert form == AcceptedElicitation({"size": 4, "extras": ["a"], "note": "123"})
    shown = drawn.getvalue() + plain(screens.getvalue())
    for chinese in ("例如 6", "已选 1 项", "不能大于 12。", "最多只能有 3 个字符。", "人数：4"):
        assert chinese in shown, chinese
    assert english(shown) == [], [line for line in shown.splitlines() if english(line)]
    assert STRAY_SPACE.findall(shown) == [], [line for line in shown.splitlines() if STRAY_SPACE.search(line)]


async def test_every_word_of_the_transcript_is_chinese_and_its_columns_line_up() -> None:
    out = io.StringIO()
    with speaking("zh_CN"):
        t = Transcript(Console(file=out, width=200, soft_wrap=True), hold_steps=True)
        t.step(1, 1, "一张表单", "服务器提问")
        ui = NarratedUI(ScriptedUI(AcceptedElicitation({"size": 4, "extras": ["a", "b"]})), t, "小明")
        await ui.ask_form(FormQuestion("演示服务器", "订一张桌子？", FORM, {}))
        t.end_step()
    shown = out.getvalue()
    assert english(shown) == [], shown
    assert STRAY_SPACE.findall(shown) == [], shown
    assert re.search(r"^\[1/1\] 一张表单（\d+\.\d 秒）$", shown, re.MULTILINE), shown
    assert "靠窗、儿童椅" in shown, shown
    # each table of rows (the questions, then the answers): its values start at one display column
    tables: list[list[str]] = [[]]
    for line in shown.splitlines():
        if line.startswith("    ") and not line.startswith('    "'):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    assert [len(rows) for rows in tables if rows] == [4, 2], tables
    for rows in filter(None, tables):
        starts = {cell_len(line[: re.search(r"\S  +(?=\S)", line).end()]) for line in rows}  # type: ignore[union-attr]
        assert len(starts) == 1, rows
