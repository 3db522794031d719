"""A server that polls (it closes a call's event stream before answering, SEP-1699) works through
the bridge as it does directly: the bridge's client resumes the stream with a GET carrying
`Last-Event-ID`, and a question the server asks between closes is answered on the way.

The host is the SDK's `mcp.Client` on 2025-11-25 without elicitation; the bridge answers the
server's question itself. The server is stock FastMCP with its own event store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from bridge_harness import HERE, PY, http_process
from mcp import Client
from mcp_types import CallToolResult, ElicitResult
from support.url_harness import serve

from elicitkit.bridge import Bridge
from elicitkit.client import AcceptedElicitation, ScriptedUI

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("polling") / "upstream.log"
    with http_process([PY, str(HERE / "upstream_polling.py"), "PORT"], log) as url:
        yield url


@asynccontextmanager
async def bridged(upstream: str, ui: ScriptedUI) -> AsyncIterator[str]:
    """The bridge as a library answering questions itself with `ui`; yields its MCP URL."""
    bridge = Bridge(upstream, answer="browser", ui=ui)
    async with serve(lambda url: bridge.asgi_app(credential=None)) as base:
        yield f"{base}/mcp"


async def direct(upstream: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    """`tool` called on the server itself, by a client answering the question as the bridge's UI does."""

    async def answer(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(upstream, elicitation_callback=answer, mode="legacy") as client:
        return await client.call_tool(tool, arguments)


@pytest.mark.parametrize("ask", [True, False], ids=["question-between-closes", "no-question"])
async def test_a_call_whose_stream_the_server_closes_gets_its_result(upstream: str, ask: bool) -> None:
    arguments = {"label": "poll", "ask": ask}
    expected = await direct(upstream, "poll", arguments)
    assert not expected.is_error, expected
    ui = ScriptedUI(AcceptedElicitation({"name": "Ada"}))
    async with bridged(upstream, ui) as url, Client(url, mode="legacy") as client:
        got = await client.call_tool("poll", arguments)
    assert got.model_dump() == expected.model_dump()
    assert got.content[0].text == ("poll: accept Ada" if ask else "poll: nothing asked")  # type: ignore[union-attr]
    assert [question.message for question in ui.shown] == (["Your name?"] if ask else [])  # type: ignore[union-attr]
