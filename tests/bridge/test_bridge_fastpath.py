"""The short way: a host that declared no elicitation gets its plain requests answered at the
HTTP level, as one JSON response, with the same results and errors the server gives directly.

The host here is raw HTTP (what any host sends on the wire), so what is compared is the
JSON-RPC message itself: the server's own reply, on its event stream, against the bridge's.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from bridge_harness import SDK, bridge_http, fastmcp_http, http_process
from support.url_harness import serve

from elicitkit.bridge import Bridge
from elicitkit.client import AcceptedElicitation, ScriptedUI

pytestmark = pytest.mark.timeout(300)

_ACCEPT = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fastmcp_http(tmp_path_factory.mktemp("fastmcp") / "upstream.log") as url:
        yield url


@pytest.fixture(scope="module")
def bridged(upstream: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with bridge_http([upstream], tmp_path_factory.mktemp("bridge") / "bridge.log") as url:
        yield url


class RawHost:
    """A host speaking 2025-11-25 Streamable HTTP by hand, declaring no elicitation."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http, self.url = http, url
        self.headers = {"accept": _ACCEPT, "content-type": "application/json"}
        self.next_id = 0

    async def open(self) -> None:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw-host", "version": "1"},
        }
        response, _ = await self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = "2025-11-25"
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def request(self, method: str, params: dict[str, Any] | None = None) -> tuple[str, Any]:
        """The response's content type, and its JSON-RPC reply without the id."""
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        response, reply = await self.post(message)
        assert reply is not None and reply.pop("id") == self.next_id
        return response.headers["content-type"].split(";")[0], reply

    async def post(self, message: dict[str, Any]) -> tuple[httpx.Response, Any]:
        response = await self.http.post(self.url, json=message, headers=self.headers)
        response.raise_for_status()
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            replies = [
                json.loads(line[5:])
                for line in response.text.splitlines()
                if line.startswith("data:") and line[5:].strip()
            ]
            answers = [reply for reply in replies if "result" in reply or "error" in reply]
            return response, answers[-1] if answers else None
        return response, response.json() if response.content else None


_REQUESTS: list[tuple[str, dict[str, Any] | None]] = [
    ("tools/list", None),
    ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
    ("tools/call", {"name": "broken", "arguments": {}}),
    ("tools/call", {"name": "add", "arguments": {"a": "two"}}),
    ("tools/call", {"name": "no-such-tool", "arguments": {}}),
    ("resources/list", None),
    ("resources/templates/list", {}),
    ("resources/read", {"uri": "memo://hello"}),
    ("resources/read", {"uri": "memo://notes/x"}),
    ("resources/read", {"uri": "memo://nowhere"}),
    ("prompts/list", None),
    ("prompts/get", {"name": "haiku", "arguments": {"topic": "sea"}}),
    ("prompts/get", {"name": "no-such-prompt"}),
    ("tools/list", {"cursor": "not-a-cursor"}),
]


async def test_plain_requests_come_back_as_one_json_reply_equal_to_the_servers(
    bridged: str, upstream: str
) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        direct, through = RawHost(http, upstream), RawHost(http, bridged)
        await direct.open()
        await through.open()
        await through.request("tools/list")  # the host session's upstream session opens on its first call
        for method, params in _REQUESTS:
            _, expected = await direct.request(method, params)
            kind, got = await through.request(method, params)
            assert got == expected, method
            assert kind == "application/json", method  # answered whole, without an event stream


async def test_a_host_that_cancels_a_call_gets_no_reply_and_the_bridge_serves_on(bridged: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        host = RawHost(http, bridged)
        await host.open()
        await host.request("tools/list")
        call = {"jsonrpc": "2.0", "id": "slow", "method": "tools/call"}
        call["params"] = {"name": "sleepy", "arguments": {"seconds": 60}}  # type: ignore[assignment]
        outcome: list[httpx.Response] = []

        async def slow() -> None:
            outcome.append(await http.post(bridged, json=call, headers=host.headers))

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(slow)
                await anyio.sleep(1)
                cancel = {"method": "notifications/cancelled", "params": {"requestId": "slow"}}
                await host.post({"jsonrpc": "2.0", **cancel})
        assert not outcome[0].content  # a cancelled request gets no reply
        _, reply = await host.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        assert reply["result"]["structuredContent"] == {"result": 2}


async def test_a_request_for_an_ended_session_is_refused_as_before(bridged: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        host = RawHost(http, bridged)
        await host.open()
        await host.request("tools/list")
        (await http.delete(bridged, headers=host.headers)).raise_for_status()
        message = {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}
        response = await http.post(bridged, json=message, headers=host.headers)
        assert response.status_code == 404


# -- questions from the server during a call on the short way


@pytest.fixture(scope="module")
def sdk_upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with http_process([*SDK, "http", "PORT"], tmp_path_factory.mktemp("sdk") / "upstream.log") as url:
        yield url


@asynccontextmanager
async def bridge_in_process(upstream: str, ui: ScriptedUI) -> AsyncIterator[str]:
    """The bridge as a library, answering questions itself with `ui` (what `--answer browser` does
    with its web page); yields its MCP URL."""
    bridge = Bridge(upstream, answer="browser", ui=ui)
    async with serve(lambda url: bridge.asgi_app(credential=None)) as base:
        yield f"{base}/mcp"


_FULL_WAY = {"_meta": {"progressToken": "full"}}
"""A progress token sends a request the full way (the short way does not carry progress)."""


async def both_ways(
    url: str, tool: str, arguments: dict[str, Any]
) -> tuple[tuple[str, Any], tuple[str, Any]]:
    """`tool` called on the short way, then the full way, each from a host session of its own."""
    async with httpx.AsyncClient(timeout=60) as http:
        short, full = RawHost(http, url), RawHost(http, url)
        await short.open()
        await full.open()
        await short.request("tools/list")  # the upstream session opens, and learns its session id
        await full.request("tools/list")
        fast = await short.request("tools/call", {"name": tool, "arguments": arguments})
        slow = await full.request("tools/call", {"name": tool, "arguments": arguments, **_FULL_WAY})
    return fast, slow


async def test_a_question_during_a_call_on_the_short_way_is_answered_by_the_bridge_as_on_the_full_way(
    sdk_upstream: str,
) -> None:
    ui = ScriptedUI(AcceptedElicitation({"name": "Ada"}), AcceptedElicitation({"name": "Ada"}))
    async with bridge_in_process(sdk_upstream, ui) as url:
        (kind, fast), (full_kind, slow) = await both_ways(url, "ask_name", {})
    assert kind == "application/json" and full_kind == "text/event-stream"  # the short way, then the full
    assert fast == slow
    assert json.loads(fast["result"]["content"][0]["text"]) == {
        "action": "accept",
        "content": {"name": "Ada"},
    }
    assert [question.message for question in ui.shown] == ["Your name?", "Your name?"]  # type: ignore[union-attr]


async def test_a_question_outside_the_form_subset_is_refused_on_the_short_way_too(sdk_upstream: str) -> None:
    """The client's rules hold on the short way: the server is told -32602, nobody is asked."""
    ui = ScriptedUI()
    async with bridge_in_process(sdk_upstream, ui) as url:
        (kind, fast), (_, slow) = await both_ways(url, "ask_nested", {})
    assert kind == "application/json"
    assert fast == slow
    assert json.loads(fast["result"]["content"][0]["text"])["error"] == -32602
    assert ui.shown == []


async def test_an_error_keeps_its_code_and_data_on_the_short_way(sdk_upstream: str) -> None:
    async with bridge_in_process(sdk_upstream, ScriptedUI()) as url, httpx.AsyncClient(timeout=30) as http:
        direct, through = RawHost(http, sdk_upstream), RawHost(http, url)
        await direct.open()
        await through.open()
        await through.request("tools/list")
        _, expected = await direct.request("tools/call", {"name": "fail_with_data", "arguments": {}})
        kind, got = await through.request("tools/call", {"name": "fail_with_data", "arguments": {}})
    assert kind == "application/json"
    assert got == expected
    assert got["error"]["data"] == {"retryAfter": 30, "plan": "free"}
