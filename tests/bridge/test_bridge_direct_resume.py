"""A server that polls (it closes a call's event stream before answering, SEP-1699) works on the
bridge's short way as it does directly: the bridge resumes the stream with a GET carrying
`Last-Event-ID`, as the SDK's client transport does, and gives up within the same bound when
resumes fail; a resume that brings nothing only slows the next one down.

The host is the SDK's `mcp.Client` on 2025-11-25 without elicitation, so its plain calls take the
short way (answered as one JSON reply; a progress token sends a call the full way); the bridge
answers the server's question itself. The server is stock FastMCP with its own event store.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from bridge_harness import HERE, PY, http_process
from mcp import Client
from mcp.client.streamable_http import MAX_RECONNECTION_ATTEMPTS, streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, ElicitResult
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


class Host:
    """The SDK's `mcp.Client` on 2025-11-25, declaring no elicitation; `kinds` holds the content
    type each of its `tools/call` POSTs was answered with (JSON on the short way, an event stream
    on the full way)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.kinds: list[str] = []

    async def note(self, response: httpx2.Response) -> None:
        request = response.request
        if request.method == "POST" and json.loads(request.content).get("method") == "tools/call":
            self.kinds.append(response.headers.get("content-type", "").split(";")[0])

    @asynccontextmanager
    async def client(self) -> AsyncIterator[Client]:
        hooks: dict[str, Any] = {"response": [self.note]}
        async with (
            httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120), event_hooks=hooks) as http,
            Client(streamable_http_client(self.url, http_client=http), mode="legacy") as client,
        ):
            assert client.protocol_version == "2025-11-25"
            await client.list_tools()  # the bridge's upstream session opens on a host's first request
            yield client


async def direct(upstream: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    """`tool` called on the server itself, by a client answering the question as the bridge's UI does."""

    async def answer(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(upstream, elicitation_callback=answer, mode="legacy") as client:
        return await client.call_tool(tool, arguments)


async def resumes(upstream: str) -> int:
    async with Client(upstream, mode="legacy") as client:
        result = await client.call_tool("resumes", {})
    return int(result.structured_content["result"])  # type: ignore[index]


@pytest.mark.parametrize("ask", [True, False], ids=["question-between-closes", "no-question"])
async def test_a_call_whose_stream_the_server_closes_gets_its_result_on_the_short_way(
    upstream: str, ask: bool
) -> None:
    arguments = {"label": "poll", "ask": ask}
    expected = await direct(upstream, "poll", arguments)
    assert not expected.is_error, expected
    ui = ScriptedUI(AcceptedElicitation({"name": "Ada"}), AcceptedElicitation({"name": "Ada"}))
    async with bridged(upstream, ui) as url:
        host = Host(url)
        async with host.client() as client:
            short = await client.call_tool("poll", arguments)
            full = await client.call_tool("poll", arguments, progress_callback=lambda *_: anyio.sleep(0))
    assert host.kinds == ["application/json", "text/event-stream"]  # the short way, then the full way
    assert short.model_dump() == expected.model_dump() == full.model_dump()
    assert short.content[0].text == ("poll: accept Ada" if ask else "poll: nothing asked")  # type: ignore[union-attr]
    assert [question.message for question in ui.shown] == (["Your name?"] * 2 if ask else [])  # type: ignore[union-attr]


async def test_a_long_job_that_keeps_closing_in_silence_gets_its_result_polled_at_a_falling_rate(
    upstream: str,
) -> None:
    """A resume that brings nothing is how a server polls through a long job: the call is not
    failed for it, and each quiet resume in a row doubles the wait before the next (the server's
    `retry` of 0.2 s: resumes at about 0.2, 0.6, 1.4 and 3.0 s into a 4 s job, where resuming
    every 0.2 s would have made a dozen)."""
    before = await resumes(upstream)
    async with bridged(upstream, ScriptedUI()) as url:
        host = Host(url)
        async with host.client() as client:
            with anyio.fail_after(60):
                result = await client.call_tool("keep_closing", {"seconds": 4})
    assert host.kinds == ["application/json"]  # the short way
    assert result.content[0].text == "done after 4 s"  # type: ignore[union-attr]
    assert 1 <= await resumes(upstream) - before <= 6


async def test_resumes_the_server_refuses_end_the_call_with_an_error_within_the_sdks_bound(
    upstream: str,
) -> None:
    before = await resumes(upstream)
    async with Client(upstream, mode="legacy") as switch, bridged(upstream, ScriptedUI()) as url:
        await switch.call_tool("refuse_resumes", {"on": True})
        try:
            host = Host(url)
            async with host.client() as client:
                with anyio.fail_after(60), pytest.raises(MCPError) as raised:
                    await client.call_tool("keep_closing", {"seconds": 120})
                assert host.kinds == ["application/json"]  # the short way
                assert await resumes(upstream) - before == MAX_RECONNECTION_ATTEMPTS
                await switch.call_tool("refuse_resumes", {"on": False})
                answered = await client.call_tool("poll", {"label": "after", "ask": False})  # serves on
        finally:
            await switch.call_tool("refuse_resumes", {"on": False})
    assert raised.value.error.code == CONNECTION_CLOSED
    assert answered.content[0].text == "after: nothing asked"  # type: ignore[union-attr]


async def test_a_stream_that_ends_with_nothing_to_resume_from_is_an_error_at_once(upstream: str) -> None:
    before = await resumes(upstream)
    async with bridged(upstream, ScriptedUI()) as url:
        host = Host(url)
        async with host.client() as client:
            with anyio.fail_after(30), pytest.raises(MCPError) as raised:
                await client.call_tool("vanish", {})
    assert host.kinds == ["application/json"]  # the short way
    assert raised.value.error.code == CONNECTION_CLOSED
    assert await resumes(upstream) == before
