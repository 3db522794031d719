"""A new kind of field touches the schema room and the UIs' drawing, nothing else (issue 34).

The test adds a colour picker the way a change to elicitkit would: one row in the schema
room's table of formats (`elicitkit.schema._formats.FORMATS`, read through the public
`elicitkit.schema.FORMATS`), and, for the web page only, the HTML input that draws it. Then
everything that reads a form handles the new field with no other change: `lint`, `validate`,
`fields`, `elicitkit check`'s answers, the client's size limits, and the scripted, narrated,
terminal and web UIs, the client answering a real server in between.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console
from support.web_door import enter

import elicitkit.client._web._forms as web_drawing
import elicitkit.schema._formats as schema_table
from elicitkit import schema
from elicitkit.check._answers import invalid_answers, valid_answer
from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI
from elicitkit.client._limits import Sizes
from elicitkit.client._terminal import TerminalUI
from elicitkit.client._web import WebUI
from elicitkit.demo.transcript import NarratedUI, Transcript

COLOUR = schema.Format(
    "color",
    accepts=lambda value: re.fullmatch(r"#[0-9a-f]{6}", value) is not None,
    described="a colour such as #3366ff",
    hint="a colour, #rrggbb",
    example="#3366ff",
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"tint": {"type": "string", "format": "color", "title": "Tint"}},
    "required": ["tint"],
}


@pytest.fixture
def colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """The change a colour picker needs: its row in the schema room, and the web page's input."""
    monkeypatch.setitem(schema_table.FORMATS, "color", COLOUR)
    monkeypatch.setitem(web_drawing.INPUTS, "color", "color")


_ASKED = itertools.count()


def fresh(requested: dict[str, Any]) -> dict[str, Any]:
    """The schema with a title no other test used, so no verdict cached before the row counts."""
    return {**requested, "title": f"Paint {next(_ASKED)}"}


def test_without_its_row_the_format_is_outside_the_subset() -> None:
    assert [f.code for f in schema.lint(SCHEMA)] == ["unknown-format"]
    assert [p.code for p in schema.validate(fresh(SCHEMA), {"tint": "#3366ff"})] == ["invalid-schema"]


@pytest.mark.usefixtures("colour")
def test_the_schema_room_knows_the_field() -> None:
    assert schema.lint(SCHEMA) == []
    assert schema.validate(fresh(SCHEMA), {"tint": "#3366ff"}) == []
    [problem] = schema.validate(fresh(SCHEMA), {"tint": "red"})
    assert problem.code == "format"
    assert problem.message == "'tint' must be a colour such as #3366ff, not 'red'."
    [field] = schema.fields(SCHEMA)
    assert (field.kind, field.format, field.title, field.required) == ("string", "color", "Tint", True)
    assert field.format_rules == COLOUR


@pytest.mark.usefixtures("colour")
def test_check_builds_a_valid_answer_and_a_wrong_one() -> None:
    assert valid_answer(SCHEMA) == {"tint": "#3366ff"}
    broken = {what: content for what, content, _ in invalid_answers(fresh(SCHEMA))}
    assert broken["'tint' outside its limits or choices"] == {"tint": "not a valid color"}


@pytest.mark.usefixtures("colour")
def test_the_client_limits_let_it_through() -> None:
    assert Sizes().schema_problem(SCHEMA) is None


def paint_shop(requested: dict[str, Any]) -> MCPServer:
    """A server written with the bare SDK that asks for a colour."""
    server = MCPServer("Paint shop")

    @server.tool()
    async def paint(ctx: Context) -> str:
        params = ElicitRequestFormParams(message="Which colour?", requested_schema=requested)
        metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
        result = await ctx.session.send_request(ElicitRequest(params=params), ElicitResult, metadata=metadata)
        return json.dumps({"action": result.action, "content": result.content})

    return server


async def ask_paint_shop(ui: Any, requested: dict[str, Any]) -> dict[str, Any]:
    async with ElicitationConfig(ui).connect(paint_shop(requested), mode="legacy") as client:
        result = await client.call_tool("paint", {})
    return json.loads(result.content[0].text)  # type: ignore[union-attr,no-any-return]


@pytest.mark.usefixtures("colour")
async def test_a_client_answers_a_server_through_the_scripted_and_narrated_uis() -> None:
    out = io.StringIO()
    transcript = Transcript(Console(file=out, width=100, highlight=False))
    ui = NarratedUI(ScriptedUI(AcceptedElicitation({"tint": "#3366ff"})), transcript, "alice")
    assert await ask_paint_shop(ui, fresh(SCHEMA)) == {"action": "accept", "content": {"tint": "#3366ff"}}
    written = re.sub(r"\s+", " ", out.getvalue())
    assert "Tint color, required" in written and "Tint #3366ff" in written


@pytest.mark.usefixtures("colour")
async def test_a_wrong_colour_is_never_sent() -> None:
    ui = ScriptedUI(AcceptedElicitation({"tint": "red"}), AcceptedElicitation({"tint": "#00ff00"}))
    assert await ask_paint_shop(ui, fresh(SCHEMA)) == {"action": "accept", "content": {"tint": "#00ff00"}}
    _, again = ui.shown
    assert isinstance(again, FormQuestion) and [p.code for p in again.problems] == ["format"]


@pytest.fixture
def terminal() -> Iterator[tuple[TerminalUI, Any]]:
    with create_pipe_input() as pipe:
        console = Console(file=io.StringIO(), width=100)
        yield TerminalUI(input=pipe, output=DummyOutput(), console=console), pipe


@pytest.mark.usefixtures("colour")
async def test_the_terminal_asks_for_it_as_text_with_its_hint(terminal: tuple[TerminalUI, Any]) -> None:
    ui, pipe = terminal
    pipe.send_text("#3366ff\r\r")
    reply = await asyncio.wait_for(ui.ask_form(FormQuestion("Paint shop", "Which?", fresh(SCHEMA), {})), 10)
    assert reply == AcceptedElicitation({"tint": "#3366ff"})
    from elicitkit.client._fields import check, form_fields, hint

    [field] = form_fields(SCHEMA)
    assert hint(field) == "a colour, #rrggbb"
    assert check(field, "red") == "Tint must be a colour such as #3366ff, not 'red'."
    assert check(field, "#3366ff") is None


@pytest.fixture
async def page() -> AsyncIterator[tuple[WebUI, httpx.AsyncClient]]:
    async with WebUI(opener=lambda url: None) as ui, httpx.AsyncClient(timeout=10) as client:
        yield ui, client


@pytest.mark.usefixtures("colour")
async def test_the_web_page_draws_a_colour_picker(page: tuple[WebUI, httpx.AsyncClient]) -> None:
    ui, client = page
    task = asyncio.create_task(ui.ask_form(FormQuestion("Paint shop", "Which?", fresh(SCHEMA), {})))
    address = await enter(client, await ui.start())
    html = ""
    for _ in range(500):
        await asyncio.sleep(0.01)
        html = (await client.get(address)).text
        if "f:tint" in html:
            break
    assert re.search(r'<input id="f0" type="color" name="f:tint"', html), html
    assert "a colour, #rrggbb" in html

    async def post(fields: dict[str, str]) -> str:
        """Post what the page's form would post; return the page that follows."""
        html = (await client.get(address)).text
        action = re.search(r'<form method="post" action="([^"]+)"', html)
        token = re.search(r'name="csrf" value="([^"]+)"', html)
        assert action is not None and token is not None
        origin = address.rstrip("/")
        await client.post(origin + action.group(1), data={"csrf": token.group(1), **fields})
        return (await client.get(address)).text if not task.done() else ""

    assert "a colour such as #3366ff" in await post({"action": "review", "f:tint": "red"})
    assert "#3366ff" in await post({"action": "review", "f:tint": "#3366ff"})
    await post({"action": "submit"})
    assert await asyncio.wait_for(task, 10) == AcceptedElicitation({"tint": "#3366ff"})
