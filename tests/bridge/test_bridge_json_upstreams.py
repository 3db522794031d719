"""The bridge in front of upstreams that answer a POST with one JSON body, not an event stream.

Stock servers in Streamable HTTP's JSON response mode (the SDK's `MCPServer` and FastMCP,
sessions kept) give the host behind the bridge the same results and errors (codes and data) as
they give the same host directly. A hostile upstream (a test double written here: a small
Starlette app on uvicorn, which speaks just enough Streamable HTTP to open a session) answers
the call's POST in ways a server should not: each becomes a JSON-RPC error for the host, and
the bridge serves on. A server whose endpoint moves within its origin is followed; one that
redirects elsewhere is not.

The host is the SDK's `mcp.Client` declaring no elicitation.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from bridge_harness import HERE, PY, bridge_http, http_process
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from support.url_harness import serve

from elicitkit.bridge import Answer, Bridge
from elicitkit.client import ScriptedUI

pytestmark = pytest.mark.timeout(300)


@asynccontextmanager
async def host(url: str) -> AsyncIterator[tuple[Client, list[str]]]:
    """`mcp.Client` declaring no elicitation, and the content type of each answer to its requests."""
    kinds: list[str] = []

    async def answered(response: httpx2.Response) -> None:
        request = response.request
        if request.method == "POST" and "id" in json.loads(request.content):
            kinds.append(response.headers.get("content-type", "").split(";")[0])

    http = httpx2.AsyncClient(event_hooks={"response": [answered]}, timeout=httpx2.Timeout(30, read=60))
    client = Client(streamable_http_client(url, http_client=http), mode="legacy", cache=None)
    async with http, client:
        await client.list_tools()  # as a host does first; the host session's upstream session opens
        kinds.clear()
        yield client, kinds


async def outcome(call: Awaitable[BaseModel]) -> tuple[Any, ...]:
    """A result as JSON, or a JSON-RPC error as its code, message and data."""
    try:
        result = await call
    except MCPError as error:
        return ("error", error.code, error.message, error.data)
    return ("result", result.model_dump(by_alias=True, mode="json", exclude_none=True))


Calls = list[tuple[str, Callable[[Client], Awaitable[BaseModel]]]]

SDK_CALLS: Calls = [
    ("tools/list", lambda c: c.list_tools()),
    ("a result", lambda c: c.call_tool("sleepy", {"seconds": 0})),
    ("an error with data", lambda c: c.call_tool("fail_with_data", {})),
    ("no such tool", lambda c: c.call_tool("no-such-tool", {})),
    ("arguments that do not fit", lambda c: c.call_tool("sleepy", {"seconds": "soon"})),
]

FASTMCP_CALLS: Calls = [
    ("tools/list", lambda c: c.list_tools()),
    ("a result", lambda c: c.call_tool("add", {"a": 2, "b": 3})),
    ("a tool that raises", lambda c: c.call_tool("broken", {})),
    ("arguments that do not fit", lambda c: c.call_tool("add", {"a": "two"})),
    ("no such tool", lambda c: c.call_tool("no-such-tool", {})),
    ("resources/list", lambda c: c.list_resources()),
    ("resources/templates/list", lambda c: c.list_resource_templates()),
    ("a resource", lambda c: c.read_resource("memo://hello")),
    ("a templated resource", lambda c: c.read_resource("memo://notes/x")),
    ("no such resource", lambda c: c.read_resource("memo://nowhere")),
    ("prompts/list", lambda c: c.list_prompts()),
    ("a prompt", lambda c: c.get_prompt("haiku", {"topic": "sea"})),
    ("no such prompt", lambda c: c.get_prompt("no-such-prompt")),
]


CALLS = {"sdk": SDK_CALLS, "fastmcp": FASTMCP_CALLS}


@pytest.fixture(scope="module", params=sorted(CALLS))
def json_upstream(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """The server's kind, and its URL."""
    kind: str = request.param
    log = tmp_path_factory.mktemp(kind) / "upstream.log"
    with http_process([PY, str(HERE / "upstream_json.py"), kind, "PORT"], log) as url:
        yield kind, url


@pytest.fixture(scope="module")
def bridged(json_upstream: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with bridge_http([json_upstream[1]], tmp_path_factory.mktemp("bridge") / "bridge.log") as url:
        yield url


async def test_a_json_upstream_gives_the_host_its_own_results_and_errors(
    json_upstream: tuple[str, str], bridged: str
) -> None:
    kind, upstream = json_upstream
    seen: dict[str, tuple[Any, ...]] = {}
    async with host(upstream) as (direct, direct_kinds), host(bridged) as (through, _):
        for name, call in CALLS[kind]:
            expected = await outcome(call(direct))
            seen[name] = await outcome(call(through))
            assert seen[name] == expected, name
    assert direct_kinds == ["application/json"] * len(direct_kinds)  # the server answers in JSON
    if kind == "sdk":  # a JSON-RPC error keeps its own code and data
        assert seen["an error with data"] == (
            "error",
            -32001,
            "quota exceeded",
            {"retryAfter": 30, "plan": "free"},
        )


# -- a hostile upstream (a test double): the call's POST answered as a server should not


def _reply(request_id: Any, **outcome: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, **outcome}


def _call_answer(name: str, request_id: Any) -> Response:
    """How the double answers a call of tool `name`."""
    refused = {"code": -32001, "message": "quota exceeded", "data": {"retryAfter": 30}}
    if name == "fine":
        return JSONResponse(_reply(request_id, result={"content": [{"type": "text", "text": "fine"}]}))
    if name == "error_body":  # 200, a JSON-RPC error for this request
        return JSONResponse(_reply(request_id, error=refused))
    if name == "error_status":  # an HTTP error status with a JSON-RPC error as its body
        return JSONResponse(_reply(request_id, error=refused), status_code=429)
    if name == "url_required":  # -32042 (S-24), for a bridge that leaves URL mode to the host
        listed = [
            {
                "mode": "url",
                "elicitationId": "e-1",
                "url": "https://example.com/connect",
                "message": "Connect.",
            }
        ]
        error = {"code": -32042, "message": "URL elicitation required", "data": {"elicitations": listed}}
        return JSONResponse(_reply(request_id, error=error))
    if name == "status_500":
        return Response(b"down for maintenance", status_code=500, media_type="text/plain")
    if name == "status_404":
        return Response(b"", status_code=404)
    return Response(b"fine", media_type="text/plain")  # "plain_text"


HOSTILE_TOOLS = ["fine", "error_body", "error_status", "status_500", "status_404", "plain_text"]
"""The tools the hostile upstream lists (and "url_required" and "moved_away", which it answers too)."""


def hostile_upstream(path: str = "/mcp", away: str = "", arrived: list[str] | None = None) -> Starlette:
    """A Streamable HTTP server at `path`, just good enough for a client to open a session with
    it (no standalone stream); its tools answer their calls as `_call_answer` says, but
    "moved_away", redirected to `away`. Each POST's method is added to `arrived`."""

    async def post(request: Request) -> Response:
        message = json.loads(await request.body())
        method, request_id = message.get("method"), message.get("id")
        if arrived is not None:
            arrived.append(str(method))
        if request_id is None:
            return Response(status_code=202)  # a notification or a response
        if method == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "1"},
            }
            return JSONResponse(_reply(request_id, result=result), headers={"mcp-session-id": "hostile-1"})
        if method == "tools/list":
            listed = [*HOSTILE_TOOLS, "url_required", "moved_away"]
            tools = [{"name": name, "inputSchema": {"type": "object"}} for name in listed]
            return JSONResponse(_reply(request_id, result={"tools": tools}))
        if method == "tools/call" and message["params"]["name"] == "moved_away":
            return RedirectResponse(away, status_code=307)  # to another origin
        if method == "tools/call":
            return _call_answer(message["params"]["name"], request_id)
        return JSONResponse(_reply(request_id, error={"code": -32601, "message": "Method not found"}))

    async def other(request: Request) -> Response:
        return Response(status_code=405)  # no standalone stream; DELETE not offered either

    async def moved(request: Request) -> Response:
        return RedirectResponse(path, status_code=307)

    routes = [Route(path, post, methods=["POST"]), Route(path, other, methods=["GET", "DELETE"])]
    if path != "/mcp":  # /mcp moved here, within the origin
        routes.append(Route("/mcp", moved, methods=["GET", "POST", "DELETE"]))
    return Starlette(routes=routes)


@asynccontextmanager
async def bridge_before_hostile(
    answer: Answer = "browser", path: str = "/mcp", away: str = ""
) -> AsyncIterator[tuple[str, str]]:
    """The hostile upstream serving at `path`, and the bridge (as a library) in front of it, told
    the upstream is at /mcp; yields both URLs."""
    async with serve(lambda url: hostile_upstream(path, away)) as upstream:
        bridge = Bridge(f"{upstream}/mcp", answer=answer, ui=ScriptedUI())
        async with serve(lambda url: bridge.asgi_app(credential=None)) as base:
            yield f"{upstream}/mcp", f"{base}/mcp"


async def test_what_a_hostile_json_upstream_answers_reaches_the_host_as_a_json_rpc_error() -> None:
    seen: dict[str, tuple[Any, ...]] = {}
    async with bridge_before_hostile() as (_, url), host(url) as (through, _):
        for name in HOSTILE_TOOLS:
            with anyio.fail_after(30):
                seen[name] = await outcome(through.call_tool(name, {}))
        assert (await outcome(through.call_tool("fine", {})))[0] == "result"  # and the bridge serves on
    assert seen["fine"][0] == "result"
    refused = ("error", -32001, "quota exceeded", {"retryAfter": 30})
    assert seen["error_body"] == refused
    assert seen["error_status"] == refused  # an HTTP error status keeps the JSON-RPC error it carries
    codes = {name: got[1] for name, got in seen.items() if got[0] == "error"}
    assert codes["status_500"] == INTERNAL_ERROR
    assert codes["status_404"] == codes["plain_text"] == INVALID_REQUEST


async def test_a_32042_the_bridge_leaves_to_the_host_reaches_it_with_its_code_and_data() -> None:
    """`--answer host` and a host that declared no elicitation: nobody on the way answers URL
    mode, so the server's -32042 is the host's, as the server sent it."""
    async with (
        bridge_before_hostile("host") as (upstream, url),
        host(upstream) as (direct, _),
        host(url) as (through, _),
    ):
        expected = await outcome(direct.call_tool("url_required", {}))
        got = await outcome(through.call_tool("url_required", {}))
    assert expected[:2] == ("error", -32042) and expected[3]["elicitations"][0]["elicitationId"] == "e-1"
    assert got == expected


async def test_an_upstream_that_moves_its_endpoint_within_its_origin_is_followed() -> None:
    """A server that moved /mcp (a 307 to /mcp/v2, as a trailing slash or a mount path is
    normalised): a redirect that stays within the origin is followed."""
    async with bridge_before_hostile(path="/mcp/v2") as (_, url), host(url) as (through, _):
        fine = await outcome(through.call_tool("fine", {}))
        refused = await outcome(through.call_tool("error_status", {}))
    assert fine[0] == "result"
    assert refused == ("error", -32001, "quota exceeded", {"retryAfter": 30})


async def test_a_redirect_to_another_origin_is_not_followed() -> None:
    """The call's body (its arguments) never reaches an origin the bridge was not given."""
    arrived: list[str] = []
    arguments = {"token": "t0p"}
    async with (
        serve(lambda url: hostile_upstream(arrived=arrived)) as elsewhere,
        bridge_before_hostile(away=f"{elsewhere}/mcp") as (_, url),
        host(url) as (through, _),
    ):
        moved = await outcome(through.call_tool("moved_away", arguments))
    assert moved[:2] == ("error", INVALID_REQUEST)
    assert arrived == []
