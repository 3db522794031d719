"""The shape of the SDK's and FastMCP's private surface that elicitkit's adapters rely on.

`elicitkit._sdk` (mcp) and `elicitkit.fastmcp._fastmcp` (FastMCP) are the only modules that use
it (tests/test_architecture.py). A release that renames, moves or changes one of these pieces
fails here, naming the piece, before any behaviour further up breaks in a puzzling way; the fix
goes in the adapter (or the piece goes, when docs/upstream.md's public hook has arrived).
scripts/sdk-range runs this file at both ends of the range pyproject.toml allows.
"""

from __future__ import annotations

import inspect
import os
import tomllib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from fastmcp import FastMCP
from mcp.client import Client, ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.server.auth.settings import AuthSettings
from mcp.server.connection import Connection
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolRequest,
    CallToolRequestParams,
    ClientCapabilities,
    ClientTasksCapability,
    ElicitationCapability,
    ElicitRequestParams,
    ElicitResult,
    FormElicitationCapability,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    InputRequiredResult,
    InputResponses,
    TasksListCapability,
)
from packaging.requirements import Requirement
from packaging.version import Version

from elicitkit._sdk import (
    ExtendedClient,
    InMemoryTransport,
    IssuerAliasingOAuthProvider,
    PrimitiveSchemaDefinition,
    connection_of,
    http_client,
    run_in_lifespan,
    send_raw_request,
    token_verifier_of,
)
from elicitkit.fastmcp._fastmcp import low_level_server

pytestmark = pytest.mark.timeout(30)

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text("utf-8"))


def declared(name: str) -> Requirement:
    """`name`'s requirement in pyproject.toml (the core dependencies or an extra)."""
    project = PYPROJECT["project"]
    lines = [
        *project["dependencies"],
        *(r for extra in project["optional-dependencies"].values() for r in extra),
    ]
    return next(Requirement(line) for line in lines if Requirement(line).name == name)


# -- the range


@pytest.mark.parametrize("name", ["mcp", "fastmcp"])
def test_the_installed_release_is_inside_the_tested_range(name: str) -> None:
    requirement = declared(name)
    installed = Version(version(name))
    assert requirement.specifier.contains(installed), (
        f"{name} {installed} is outside the tested range {requirement}: test it (scripts/sdk-range), "
        "then widen the pin in pyproject.toml"
    )
    assert requirement.specifier, f"{name} must be pinned to the range the suite is run on"


def test_the_release_scripts_sdk_range_asked_for_is_the_one_imported() -> None:
    """scripts/sdk-range sets ELICITKIT_SDK_EXPECT ("mcp==2.3.0 fastmcp==4.1.7") for each end of the
    range; without it (a plain run) there is nothing to compare."""
    expected = os.environ.get("ELICITKIT_SDK_EXPECT", "")
    for pin in expected.split():
        name, _, wanted = pin.partition("==")
        assert version(name) == wanted, (
            f"{name} {version(name)} imported, scripts/sdk-range installed {wanted}"
        )


# -- mcp: the client


def test_client_builds_its_session_in_a_private_method_that_returns_it_unentered() -> None:
    build = Client._build_session  # pyright: ignore[reportPrivateUsage]
    assert inspect.iscoroutinefunction(build)
    assert list(inspect.signature(build).parameters) == ["self", "exit_stack"]


def test_the_session_builds_its_capabilities_per_protocol_version() -> None:
    build = ClientSession._build_capabilities  # pyright: ignore[reportPrivateUsage]
    assert not inspect.iscoroutinefunction(build)
    assert list(inspect.signature(build).parameters) == ["self", "version"]
    assert inspect.signature(build).return_annotation in (ClientCapabilities, "types.ClientCapabilities")


def test_the_client_drives_input_rounds_in_a_private_method() -> None:
    drive = Client._drive_input_required  # pyright: ignore[reportPrivateUsage]
    assert inspect.iscoroutinefunction(drive)
    assert list(inspect.signature(drive).parameters) == ["self", "first", "retry"]


def probe_server() -> MCPServer:
    server = MCPServer("probe")

    @server.tool()
    async def capabilities(ctx: Context) -> dict[str, Any]:
        caps = ctx.session.client_capabilities
        return caps.model_dump(mode="json", exclude_none=True) if caps else {}

    @server.prompt()
    def greeting() -> str:
        return "hello"

    @server.resource("probe://it")
    def it() -> str:
        return "it"

    return server


async def no_answer(context: Any, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="decline")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_declared_elicitation_capability_is_exactly_the_one_set(mode: str) -> None:
    """mcp 2.3 declares form and url whenever a callback is set; the adapter declares what it is
    told, on the handshake (legacy) and on 2026-07-28 requests (auto)."""
    client = ExtendedClient(InMemoryTransport(probe_server()), mode=mode, elicitation_callback=no_answer)
    client.elicitation_capability = ElicitationCapability(form=FormElicitationCapability())
    async with client:
        result = await client.call_tool("capabilities")
    assert result.structured_content is not None
    assert result.structured_content["elicitation"] == {"form": {}}

    async with Client(InMemoryTransport(probe_server()), mode=mode, elicitation_callback=no_answer) as plain:
        result = await plain.call_tool("capabilities")
    assert result.structured_content is not None
    assert result.structured_content["elicitation"] == {"form": {}, "url": {}}


async def test_every_call_that_can_be_asked_in_goes_through_the_input_rounds_driver() -> None:
    seen: list[object] = []

    async def driver(
        first: Any | InputRequiredResult,
        retry: Callable[[InputResponses | None, str | None], Awaitable[Any]],
    ) -> Any:
        seen.append(type(first).__name__)
        return first

    client = ExtendedClient(InMemoryTransport(probe_server()), mode="legacy")
    client.input_required_driver = driver
    async with client:
        await client.call_tool("capabilities")
        await client.get_prompt("greeting")
        await client.read_resource("probe://it", cache_mode="refresh")
    assert seen == ["CallToolResult", "GetPromptResult", "ReadResourceResult"]


def test_the_session_answers_server_requests_in_a_private_method_read_when_it_is_entered() -> None:
    answer = ClientSession._on_request  # pyright: ignore[reportPrivateUsage]
    assert inspect.iscoroutinefunction(answer)
    assert list(inspect.signature(answer).parameters) == ["self", "dctx", "method", "params"]


def asking_server() -> MCPServer:
    """A tool that sends the client a request mcp 2.3's client has no callback for."""
    server = MCPServer("asking")

    @server.tool()
    async def ask_task(ctx: Context, task_id: str) -> str:
        try:
            got = await ctx.session.send_request(
                GetTaskRequest(params=GetTaskRequestParams(task_id=task_id)), GetTaskResult
            )
        except MCPError as error:
            return f"error {error.code}"
        return got.status

    return server


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_server_request_goes_to_the_handler_first_and_tasks_are_declared_where_they_exist(
    mode: str,
) -> None:
    """`server_requests` answers what it takes (here `tasks/get`) and leaves the rest to the SDK,
    which answers -32601 to a method it has no callback for; `tasks` is declared up to
    2025-11-25 only (2026-07-28 has no such capability)."""

    async def handler(
        session: ClientSession, request_id: Any, method: str, params: Any
    ) -> dict[str, Any] | None:
        if method != "tasks/get" or params["taskId"] != "known":
            return None
        now = "2025-11-25T10:30:00Z"
        return {"taskId": "known", "status": "working", "createdAt": now, "lastUpdatedAt": now, "ttl": 1000}

    tasks = ClientTasksCapability(list=TasksListCapability())
    for server in (asking_server(), probe_server()):
        client = ExtendedClient(InMemoryTransport(server), mode=mode, elicitation_callback=no_answer)
        client.server_requests, client.tasks_capability = handler, tasks
        async with client:
            if server.name == "asking":
                if mode == "legacy":  # a 2026-07-28 server sends no requests at all
                    assert (await client.call_tool("ask_task", {"task_id": "known"})).content[
                        0
                    ].text == "working"  # type: ignore[union-attr]
                    unknown = await client.call_tool("ask_task", {"task_id": "other"})
                    assert unknown.content[0].text == "error -32601"  # type: ignore[union-attr]
            else:
                declared = (await client.call_tool("capabilities")).structured_content or {}
                assert declared.get("tasks") == ({"list": {}} if mode == "legacy" else None)


def test_the_in_memory_transport_takes_a_server_and_yields_the_transport_streams() -> None:
    parameters = inspect.signature(InMemoryTransport).parameters
    assert list(parameters) == ["server", "raise_exceptions"]
    assert parameters["raise_exceptions"].kind is inspect.Parameter.KEYWORD_ONLY


async def test_the_http_client_is_the_one_the_sdk_transport_makes_when_given_none() -> None:
    from mcp.shared._httpx_utils import create_mcp_http_client

    assert list(inspect.signature(create_mcp_http_client).parameters) == ["headers", "timeout", "auth"]
    async with create_mcp_http_client() as sdk, http_client(headers={"x-probe": "1"}) as ours:
        assert ours.timeout == sdk.timeout
        assert ours.follow_redirects == sdk.follow_redirects is False
        assert ours.headers["x-probe"] == "1"


def test_the_sdk_types_one_form_field_of_2025_11_25() -> None:
    from pydantic import TypeAdapter, ValidationError

    field = TypeAdapter[Any](PrimitiveSchemaDefinition)
    field.validate_python({"type": "string", "format": "email"})
    field.validate_python({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}})
    with pytest.raises(ValidationError):
        field.validate_python({"type": "object", "properties": {}})


# -- mcp: the server


def test_an_mcp_server_keeps_the_token_verifier_it_was_given() -> None:
    class Verifier:
        async def verify_token(self, token: str) -> None:
            return None

    verifier = Verifier()
    auth = AuthSettings(issuer_url="https://auth.example", resource_server_url=None, required_scopes=["mcp"])  # type: ignore[arg-type]
    assert token_verifier_of(MCPServer("with auth", auth=auth, token_verifier=verifier)) is verifier
    assert token_verifier_of(MCPServer("without")) is None


async def test_a_context_manager_runs_around_the_authors_lifespan() -> None:
    events: list[str] = []

    @asynccontextmanager
    async def authors(app: MCPServer[Any]) -> AsyncIterator[dict[str, str]]:
        events.append("author in")
        yield {"state": "kept"}
        events.append("author out")

    @asynccontextmanager
    async def ours() -> AsyncIterator[None]:
        events.append("ours in")
        yield
        events.append("ours out")

    server = MCPServer("lifespan", lifespan=authors)
    run_in_lifespan(server, ours)

    @server.tool()
    async def state(ctx: Context) -> str:  # type: ignore[type-arg]
        return str(ctx.request_context.lifespan_context["state"])

    async with Client(server, mode="legacy", cache=None) as client:
        result = await client.call_tool("state", {})
        assert result.content[0].text == "kept"  # type: ignore[union-attr]
    assert events == ["ours in", "author in", "author out", "ours out"]


async def test_a_session_leads_to_its_connection_whose_teardown_runs_when_the_client_leaves() -> None:
    server = MCPServer("connection")
    found: list[Connection | None] = []
    closed = anyio.Event()

    @server.tool()
    async def hold(ctx: Context) -> str:
        connection = connection_of(ctx.session)
        found.append(connection)
        if connection is not None:
            connection.state["probe"] = True
            connection.exit_stack.callback(closed.set)
        return "held"

    async with Client(InMemoryTransport(server), mode="legacy") as client:
        await client.call_tool("hold")
        assert not closed.is_set()
    assert isinstance(found[0], Connection) and found[0].state["probe"] is True
    with anyio.fail_after(5):
        await closed.wait()


# -- mcp: OAuth


class MemoryTokens:
    async def get_tokens(self) -> OAuthToken | None:
        return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        return None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        return None


def test_the_oauth_client_chooses_its_authorization_server_in_a_private_method() -> None:
    select = OAuthClientProvider._select_authorization_server  # pyright: ignore[reportPrivateUsage]
    assert list(inspect.signature(select).parameters) == ["self", "advertised"]
    source = inspect.getsource(OAuthClientProvider)
    assert "self._select_authorization_server(" in source, "the flow no longer asks it"

    metadata = OAuthClientMetadata(redirect_uris=["http://127.0.0.1:1/callback"])  # type: ignore[list-item]
    provider = IssuerAliasingOAuthProvider("https://mcp.example/mcp", metadata, MemoryTokens())
    provider.issuer_aliases["https://auth.example/"] = "https://auth.example"
    chosen = provider._select_authorization_server(["https://auth.example/", "https://other.example"])  # pyright: ignore[reportPrivateUsage]
    assert chosen == "https://auth.example"


async def test_a_request_sent_raw_takes_the_sessions_own_way_and_comes_back_unchecked() -> None:
    """`send_raw_request` (a task-augmented `tools/call`): `send_request` stamps a request and
    sends it through its dispatcher, then checks the result; the raw way skips only the check."""
    source = inspect.getsource(ClientSession.send_request)
    assert "self._stamp(data, opts)" in source
    assert 'self._dispatcher.send_raw_request(method, data.get("params"), opts)' in source
    async with Client(probe_server()) as client:
        request = CallToolRequest(params=CallToolRequestParams(name="capabilities", arguments={}))
        raw = await send_raw_request(client.session, request)
    assert isinstance(raw, dict) and raw["content"][0]["type"] == "text", raw


# -- FastMCP


def test_fastmcp_keeps_the_sdk_server_it_dispatches_through() -> None:
    server: FastMCP[Any] = FastMCP("pinned", instructions="before")
    low = low_level_server(server)
    assert isinstance(low, Server) and low.name == "pinned"
    low.instructions = "after"
    assert server.instructions == "after"  # the very object FastMCP reads its own settings from


def test_the_http_client_the_sdk_gives_has_the_default_read_timeout() -> None:
    client = http_client()
    assert client.timeout == httpx2.Timeout(30.0, read=300.0)
