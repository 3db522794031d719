"""A server that gives no name is still introduced to the person (C-30), in their language:
"An MCP server" is English only where a `str` is read (logs, the question's `server`), and a
UI says it in its own language, as it says everything else."""

from __future__ import annotations

import asyncio
import io
import json
import re

import httpx
from client_http import serve
from client_servers import NAME_SCHEMA, send
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ElicitRequestFormParams,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console
from support.web_door import enter

from elicitkit.client import DeclinedElicitation, ElicitationConfig, FormQuestion, ScriptedUI
from elicitkit.client._terminal import TerminalUI
from elicitkit.client._ui import said
from elicitkit.client._web import WebUI
from elicitkit.i18n import translator


def unnamed_server() -> Server:
    """serverInfo.name empty and no title, as a server of another SDK may send it (MCPServer
    itself fills in "mcp-server" for an empty name; the SDK's low-level server sends it as given)."""

    async def list_tools(ctx: ServerRequestContext, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="ask_form", input_schema={"type": "object"})])

    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        said = await send(ctx, ElicitRequestFormParams(message="Who are you?", requested_schema=NAME_SCHEMA))  # type: ignore[arg-type]
        return CallToolResult(content=[TextContent(type="text", text=said)])

    return Server("", on_list_tools=list_tools, on_call_tool=call_tool)


async def ask(handler: ElicitationConfig) -> dict[str, object]:
    with serve(unnamed_server().streamable_http_app()) as url:
        async with handler.connect(url, mode="legacy") as client:
            result = await client.call_tool("ask_form", {})
    return dict(json.loads(result.content[0].text))  # type: ignore[union-attr]


async def test_the_question_names_an_unnamed_server_in_english_and_says_it_in_chinese() -> None:
    ui = ScriptedUI(DeclinedElicitation())
    assert await ask(ElicitationConfig(ui)) == {"action": "decline", "content": None}
    [question] = ui.shown
    assert isinstance(question, FormQuestion)
    assert question.server == "An MCP server"
    assert said(question.server, translator("zh_CN").gettext) == "一个 MCP 服务器"
    assert said(question.server, translator("en").gettext) == "An MCP server"


async def test_the_chinese_terminal_introduces_an_unnamed_server_in_chinese() -> None:
    drawn = io.StringIO()
    with create_pipe_input() as pipe:
        ui = TerminalUI(
            input=pipe,
            output=Vt100_Output(io.StringIO(), lambda: Size(rows=30, columns=120), term="xterm"),
            console=Console(file=drawn, width=120),
            locale="zh_CN",
        )
        pipe.send_text("\x04")  # Ctrl-D: decline
        assert await asyncio.wait_for(ask(ElicitationConfig(ui)), 30) == {
            "action": "decline",
            "content": None,
        }
    shown = drawn.getvalue()
    assert "“一个 MCP 服务器”" in shown and "请你填写一份表单" in shown, shown
    assert "An MCP server" not in shown


async def test_the_chinese_web_ui_introduces_an_unnamed_server_in_chinese() -> None:
    async with WebUI(opener=lambda url: None, locale="zh_CN") as ui, httpx.AsyncClient(timeout=10) as http:
        address = await enter(http, await ui.start())
        asking = asyncio.create_task(ask(ElicitationConfig(ui)))
        html = ""
        for _ in range(500):
            if 'name="csrf"' in (html := (await http.get(address)).text):
                break
            await asyncio.sleep(0.02)
        page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
        assert "一个 MCP 服务器" in page and "An MCP server" not in page, page
        action = re.search(r'<form method="post" action="([^"]+)"', html)
        token = re.search(r'name="csrf" value="([^"]+)"', html)
        assert action is not None and token is not None
        origin = address.rstrip("/")
        await http.post(origin + action.group(1), data={"csrf": token.group(1), "action": "decline"})
        assert await asyncio.wait_for(asking, 30) == {"action": "decline", "content": None}
        idle = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (await http.get(address)).text))
        assert "一个 MCP 服务器" in idle and "An MCP server" not in idle, idle
