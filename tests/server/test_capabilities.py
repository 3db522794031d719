"""Only ask in a mode the client declared, and refuse before sending anything (S-01, M-04)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from form_clients import MODES, Script, accept
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, ClientCapabilities, TextContent
from pydantic import BaseModel
from support.declaring import declaring

from elicitkit.server import Elicitation, ModeNotDeclaredError
from elicitkit.server._capabilities import declared_modes


class Answer(BaseModel):
    word: str


def make_server() -> MCPServer:
    server = MCPServer("caps-tests")
    elicit = Elicitation(server)

    @server.tool()
    async def modes(ctx: Context) -> str:
        return ",".join(m for m in ("form", "url") if elicit.supports(ctx, m))

    @server.tool()
    async def ask(ctx: Context) -> str:
        outcome = await elicit.form(ctx, "A word?", Answer)
        return outcome.action

    @server.tool()
    async def ask_politely(ctx: Context) -> str:
        try:
            await elicit.form(ctx, "A word?", Answer)
        except ModeNotDeclaredError as exc:
            return f"cannot ask in {exc.mode}"
        return "asked"

    return server


@pytest.mark.parametrize(
    ("elicitation", "modes"),
    [
        (None, frozenset()),
        ({}, frozenset({"form"})),
        ({"form": {}}, frozenset({"form"})),
        ({"url": {}}, frozenset({"url"})),
        ({"form": {}, "url": {}}, frozenset({"form", "url"})),
    ],
)
def test_declared_modes(elicitation: dict[str, Any] | None, modes: frozenset[str]) -> None:
    capabilities = ClientCapabilities.model_validate(
        {} if elicitation is None else {"elicitation": elicitation}
    )
    assert declared_modes(SimpleNamespace(client_capabilities=capabilities)) == modes  # type: ignore[arg-type]
    assert declared_modes(SimpleNamespace(client_capabilities=None)) == frozenset()  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("elicitation", "expected"),
    [
        ({}, "form"),
        ({"form": {}}, "form"),
        ({"url": {}}, "url"),
        (None, ""),
        ({"form": {}, "url": {}}, "form,url"),
    ],
)
async def test_modes_are_read_on_both_revisions(
    mode: str, elicitation: dict[str, Any] | None, expected: str
) -> None:
    script = Script(accept(word="x"))
    async with declaring(elicitation, make_server(), mode=mode, elicitation_callback=script) as client:
        result = await client.call_tool("modes", {})
    block = result.content[0]
    assert isinstance(block, TextContent) and block.text == expected


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("elicitation", [None, {"url": {}}])
async def test_a_client_without_form_mode_is_never_asked(
    mode: str, elicitation: dict[str, Any] | None
) -> None:
    script = Script(accept(word="x"))
    async with declaring(elicitation, make_server(), mode=mode, elicitation_callback=script) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("ask", {})
        polite = await client.call_tool("ask_politely", {})
    assert raised.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY
    assert raised.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}
    assert "did not declare form-mode elicitation" in raised.value.message
    block = polite.content[0]
    assert isinstance(block, TextContent) and block.text == "cannot ask in form"
    assert script.asked == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_bare_elicitation_capability_means_form(mode: str) -> None:
    script = Script(accept(word="yes"))
    async with declaring({}, make_server(), mode=mode, elicitation_callback=script) as client:
        result = await client.call_tool("ask", {})
    block = result.content[0]
    assert isinstance(block, TextContent) and block.text == "accept"
    assert len(script.asked) == 1
