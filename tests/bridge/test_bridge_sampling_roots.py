"""Sampling and roots through the bridge, with the reference "everything" server behind it.

A 2025-11-25 host (`mcp.Client`) that declares sampling and roots is what the server sees
through the bridge: the server's `sampling/createMessage` and `roots/list` reach the host's own
callbacks, their results (and errors, code and data kept) reach the server, and the host's
roots change reaches the server too. A host that declares neither sees what it sees directly.
Over stdio (the host runs the bridge, the bridge runs the server) and over HTTP (`--listen`).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from bridge_harness import ROOT, bridge_http, bridge_stdio, http_process, text_of
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ErrorData,
    ListRootsResult,
    LoggingMessageNotificationParams,
    Root,
    SamplingCapability,
    SamplingContextCapability,
    SamplingToolsCapability,
    TextContent,
)
from test_bridge_association import messages
from test_bridge_everything import EVERYTHING

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::DeprecationWarning")]

HOW = ["stdio", "http"]
ANSWER = "Paris, said the host's model."


def through(how: str, bridged: str) -> Any:
    return bridged if how == "http" else bridge_stdio(EVERYTHING, "host")


def direct(how: str, everything_http: str) -> Any:
    if how == "http":
        return everything_http
    return StdioServerParameters(command=EVERYTHING[0], args=EVERYTHING[1:])


class Host:
    """A host's sampling and roots: a model that answers `reply` (text or an error), and roots."""

    def __init__(self, reply: str | ErrorData = ANSWER) -> None:
        self.reply = reply
        self.sampled: list[CreateMessageRequestParams] = []
        self.roots = [Root(uri="file:///work/atlas", name="Atlas")]
        self.listed = 0
        self.logs: list[str] = []

    async def sample(
        self, context: Any, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        self.sampled.append(params)
        if isinstance(self.reply, ErrorData):
            return self.reply
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=self.reply), model="host-model"
        )

    async def list_roots(self, context: Any) -> ListRootsResult:
        self.listed += 1
        return ListRootsResult(roots=self.roots)

    async def log(self, params: LoggingMessageNotificationParams) -> None:
        self.logs.append(str(params.data))

    def client(self, server: Any) -> Client:
        return Client(
            server,
            mode="legacy",
            sampling_callback=self.sample,
            list_roots_callback=self.list_roots,
            logging_callback=self.log,
        )


async def eventually(check: Any, within: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "the host was not asked in time"
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("how", HOW)
async def test_the_servers_sampling_request_reaches_the_hosts_model(
    how: str, everything_bridged: str
) -> None:
    host = Host()
    async with host.client(through(how, everything_bridged)) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "trigger-sampling-request" in tools  # the server saw the host's `sampling`
        result = await client.call_tool("trigger-sampling-request", {"prompt": "capital of France?"})
    assert not result.is_error, text_of(result)
    assert ANSWER in text_of(result) and "host-model" in text_of(result), text_of(result)
    [asked] = host.sampled
    assert asked.system_prompt == "You are a helpful test server."
    assert asked.max_tokens == 100
    [message] = asked.messages
    assert isinstance(message.content, TextContent) and "capital of France?" in message.content.text


async def test_sampling_reaches_the_host_whoever_answers_elicitation() -> None:
    """`--answer auto` (the bridge's page for what the host did not declare) and `browser`:
    neither has a model, so sampling still goes to the host."""
    for answer in ("auto", "browser"):
        host = Host()
        async with host.client(bridge_stdio(EVERYTHING, answer)) as client:
            result = await client.call_tool("trigger-sampling-request", {"prompt": answer})
        assert ANSWER in text_of(result), text_of(result)
        assert len(host.sampled) == 1


@pytest.mark.parametrize("how", HOW)
async def test_the_hosts_sampling_error_reaches_the_server_as_it_reaches_it_directly(
    how: str, everything_http: str, everything_bridged: str
) -> None:
    refusal = ErrorData(code=-32001, message="The person did not allow sampling.", data={"why": "policy"})
    said: list[str] = []
    for server in (direct(how, everything_http), through(how, everything_bridged)):
        host = Host(refusal)
        async with host.client(server) as client:
            result = await client.call_tool("trigger-sampling-request", {"prompt": "hello?"})
        assert result.is_error and len(host.sampled) == 1
        said.append(text_of(result))
    assert said[0] == said[1], said
    assert "-32001" in said[1] and "The person did not allow sampling." in said[1], said[1]


@pytest.mark.parametrize("how", HOW)
async def test_the_servers_roots_request_reaches_the_host_and_a_change_goes_upstream(
    how: str, everything_bridged: str
) -> None:
    host = Host()
    async with host.client(through(how, everything_bridged)) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "get-roots-list" in tools  # the server saw the host's `roots`
        first = await client.call_tool("get-roots-list", {})
        assert "file:///work/atlas" in text_of(first) and "Atlas" in text_of(first), text_of(first)
        asked = host.listed
        host.roots = [*host.roots, Root(uri="file:///work/beacon", name="Beacon")]
        await client.send_roots_list_changed()
        await eventually(lambda: host.listed > asked)  # the server asked again, told of the change
        await eventually(lambda: any("2 root(s)" in log for log in host.logs))
        second = await client.call_tool("get-roots-list", {})
    assert "file:///work/beacon" in text_of(second) and "Beacon" in text_of(second), text_of(second)


@pytest.mark.parametrize("how", HOW)
async def test_a_host_without_sampling_or_roots_sees_what_it_sees_directly(
    how: str, everything_http: str, everything_bridged: str
) -> None:
    seen: list[tuple[list[str], str, str]] = []
    for server in (direct(how, everything_http), through(how, everything_bridged)):
        async with Client(server, mode="legacy") as client:
            tools = sorted(tool.name for tool in (await client.list_tools()).tools)
            sampling = await client.call_tool("trigger-sampling-request", {"prompt": "hello?"})
            roots = await client.call_tool("get-roots-list", {})
        assert sampling.is_error and roots.is_error
        seen.append((tools, text_of(sampling), text_of(roots)))
    assert seen[0] == seen[1], seen
    assert "trigger-sampling-request" not in seen[1][0] and "get-roots-list" not in seen[1][0]


DECLARED = """
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import CreateMessageRequest, CreateMessageResult, ListRootsRequest, Result

mcp = MCPServer("Declared")


@mcp.tool()
async def declared(ctx: Context) -> str:
    capabilities = ctx.session.client_capabilities
    return capabilities.model_dump_json(by_alias=True, exclude_none=True) if capabilities else "{}"


@mcp.tool()
async def ask_anyway(ctx: Context) -> str:
    sampling = CreateMessageRequest(params={"messages": [], "maxTokens": 5})
    said = []
    for request in (sampling, ListRootsRequest()):
        try:
            metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
            await ctx.session.send_request(request, Result, metadata=metadata)
            said.append("answered")
        except MCPError as error:
            said.append(f"{error.code} {error.message}")
    return "; ".join(said)


@mcp.tool()
async def sample_as(ctx: Context, label: str, delay: float = 0.0, hold: float = 0.0) -> str:
    await anyio.sleep(delay)
    text = {"type": "text", "text": f"Sample for {label}"}
    request = CreateMessageRequest(params={"messages": [{"role": "user", "content": text}], "maxTokens": 5})
    metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
    result = await ctx.session.send_request(request, CreateMessageResult, metadata=metadata)
    await anyio.sleep(hold)
    return result.content.text


@mcp.tool()
async def sample_briefly(ctx: Context) -> str:
    text = {"type": "text", "text": "Answer within a second"}
    request = CreateMessageRequest(params={"messages": [{"role": "user", "content": text}], "maxTokens": 5})
    metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
    try:
        await ctx.session.send_request(request, CreateMessageResult, 1.0, metadata)
    except MCPError as error:
        return f"gave up: {error.code}"
    return "answered"


if len(sys.argv) > 2:
    uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
else:
    mcp.run("stdio")
"""
"""An SDK server: the capabilities its client declared, as JSON; what its client says to
sampling and roots requests it sends whatever the client declared; a sampling request tied to
its call (`python declared.py http PORT` serves Streamable HTTP)."""


@pytest.fixture
def declared_server(tmp_path: Path) -> list[str]:
    script = tmp_path / "declared.py"
    script.write_text(DECLARED)
    return [sys.executable, str(script)]


def declared_of(text: str) -> dict[str, Any]:
    declared: dict[str, Any] = json.loads(text)
    return {name: declared[name] for name in ("sampling", "roots", "elicitation") if name in declared}


async def test_upstream_is_declared_exactly_the_sampling_and_roots_a_stdio_host_declared(
    declared_server: list[str],
) -> None:
    """A host on stdio, speaking JSON-RPC itself: roots without `listChanged`, sampling with
    `context` and `tools`, no elicitation; the server behind the bridge is told just that."""
    bridge = bridge_stdio(declared_server, "host")
    process = await asyncio.create_subprocess_exec(
        bridge.command,
        *bridge.args,
        env=bridge.env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        await stdin.drain()

    async def response(request_id: int) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(stdout.readline(), 60))
            if message.get("id") == request_id and "method" not in message:
                return message

    capabilities: dict[str, Any] = {"roots": {}, "sampling": {"context": {}, "tools": {}}}
    try:
        await send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "raw-host", "version": "1"},
                },
            }
        )
        assert "result" in await response(1)
        await send({"method": "notifications/initialized"})
        await send({"id": 2, "method": "tools/call", "params": {"name": "declared", "arguments": {}}})
        result = (await response(2))["result"]
    finally:
        stdin.close()
        await asyncio.wait_for(process.wait(), 30)
    assert declared_of(result["content"][0]["text"]) == capabilities


async def test_upstream_is_declared_exactly_the_sampling_and_roots_an_http_host_declared(
    declared_server: list[str], tmp_path: Path
) -> None:
    async def sample(context: Any, params: CreateMessageRequestParams) -> ErrorData:
        return ErrorData(code=-1, message="unused")

    async def list_roots(context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[])

    sampling = SamplingCapability(context=SamplingContextCapability(), tools=SamplingToolsCapability())
    with bridge_http(declared_server, tmp_path / "bridge.log", "host") as url:
        async with Client(
            url,
            mode="legacy",
            sampling_callback=sample,
            sampling_capabilities=sampling,
            list_roots_callback=list_roots,
        ) as client:
            with_both = text_of(await client.call_tool("declared", {}))
        async with Client(url, mode="legacy", list_roots_callback=list_roots) as client:
            roots_only = text_of(await client.call_tool("declared", {}))
    assert declared_of(with_both) == {
        "sampling": {"context": {}, "tools": {}},
        "roots": {"listChanged": True},
    }
    assert declared_of(roots_only) == {"roots": {"listChanged": True}}


CONFORMANCE = [sys.executable, str(ROOT / "examples" / "conformance" / "server.py"), "--port", "PORT"]


async def test_a_2026_07_28_servers_sampling_round_reaches_a_2025_11_25_hosts_model(tmp_path: Path) -> None:
    """elicitkit's conformance server, asked at 2026-07-28 by a host that declared sampling and
    no elicitation, asks its question as a sampling round: the host answers it live."""
    host = Host("Good morning!")
    with (
        http_process(CONFORMANCE, tmp_path / "server.log") as upstream,
        bridge_http([upstream], tmp_path / "bridge.log", "host", "--upstream-protocol", "2026-07-28") as url,
    ):
        async with host.client(url) as client:
            result = await client.call_tool("test_input_required_result_capabilities", {})
    assert text_of(result) == "Sampled: Good morning!", text_of(result)
    [asked] = host.sampled
    assert asked.max_tokens == 50


@pytest.mark.parametrize("how", HOW)
async def test_a_host_without_them_refuses_a_servers_sampling_and_roots_as_directly(
    how: str, declared_server: list[str], tmp_path: Path
) -> None:
    """A server that asks anyway: through the bridge it gets the refusals it gets directly."""
    direct = StdioServerParameters(command=declared_server[0], args=declared_server[1:])
    async with Client(direct, mode="legacy") as client:
        directly = text_of(await client.call_tool("ask_anyway", {}))
    if how == "stdio":
        async with Client(bridge_stdio(declared_server, "host"), mode="legacy") as client:
            bridged = text_of(await client.call_tool("ask_anyway", {}))
    else:
        with bridge_http(declared_server, tmp_path / "bridge.log", "host") as url:
            async with Client(url, mode="legacy") as client:
                bridged = text_of(await client.call_tool("ask_anyway", {}))
    assert bridged == directly, (bridged, directly)
    assert "answered" not in bridged


SSE = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.mark.parametrize("elicitation", [False, True], ids=["sampling-only", "with-elicitation"])
async def test_each_sampling_request_arrives_on_the_host_call_that_caused_it(
    elicitation: bool, declared_server: list[str], tmp_path: Path
) -> None:
    """Two calls open on one host session (a raw HTTP host, which sees the streams): call
    "slow" opens first and asks later, while "fast" has asked and is still open; each sampling
    request reaches the host on its own call's stream, and each answer goes to its own call."""
    with (
        http_process([*declared_server, "http", "PORT"], tmp_path / "upstream.log") as upstream,
        bridge_http([upstream], tmp_path / "bridge.log", "host") as bridged,
    ):
        async with httpx2.AsyncClient(timeout=60) as http:
            init = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"sampling": {}, **({"elicitation": {}} if elicitation else {})},
                    "clientInfo": {"name": "raw-host", "version": "1"},
                },
            }
            response = await http.post(bridged, json=init, headers=SSE)
            headers = {
                **SSE,
                "mcp-session-id": response.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await http.post(bridged, json=initialized, headers=headers)
            asked: dict[str, list[str]] = {"slow": [], "fast": []}
            results: dict[str, str] = {}

            async def answer(request: dict[str, Any], label: str) -> None:
                said = {
                    "role": "assistant",
                    "content": {"type": "text", "text": f"answer-{label}"},
                    "model": "m",
                }
                await http.post(
                    bridged, json={"jsonrpc": "2.0", "id": request["id"], "result": said}, headers=headers
                )

            async def call(request_id: int, label: str, delay: float, hold: float) -> None:
                arguments = {"label": label, "delay": delay, "hold": hold}
                body = {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "tools/call",
                    "params": {"name": "sample_as", "arguments": arguments},
                }
                async with http.stream("POST", bridged, json=body, headers=headers) as stream:
                    async for message in messages(stream):
                        if message.get("method") == "sampling/createMessage":
                            asked[label].append(message["params"]["messages"][0]["content"]["text"])
                            tasks.start_soon(answer, message, label)
                        elif message.get("id") == request_id:
                            results[label] = message["result"]["content"][0]["text"]
                            return

            with anyio.fail_after(90):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(call, 11, "slow", 1.5, 0.0)
                    await anyio.sleep(0.3)  # the slow call is open before the fast one
                    tasks.start_soon(call, 12, "fast", 0.0, 3.0)

    assert asked == {"slow": ["Sample for slow"], "fast": ["Sample for fast"]}
    assert results == {"slow": "answer-slow", "fast": "answer-fast"}


@pytest.mark.parametrize("how", HOW)
async def test_a_server_that_gives_up_on_sampling_cancels_the_hosts_request(
    how: str, declared_server: list[str], tmp_path: Path
) -> None:
    """The server stops waiting (and says so, `notifications/cancelled`): the host's sampling
    is cancelled too, while the host's call is still open."""
    started, cancelled = anyio.Event(), anyio.Event()

    async def sample(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()
        raise AssertionError("unreachable")

    async def run(server: Any) -> str:
        async with Client(server, mode="legacy", sampling_callback=sample) as client:
            said = text_of(await client.call_tool("sample_briefly", {}))
            with anyio.fail_after(30):
                await cancelled.wait()
        return said

    if how == "stdio":
        said = await run(bridge_stdio(declared_server, "host"))
    else:
        with bridge_http(declared_server, tmp_path / "bridge.log", "host") as url:
            said = await run(url)
    assert started.is_set() and said.startswith("gave up"), said
