"""Where elicitkit meets the parts of the `mcp` SDK (2.3) that are not public.

This is the one module that imports a private SDK module, reads a private SDK attribute or
overrides a private SDK method (tests/test_architecture.py enforces it); both sides and the
bridge use it. tests/test_sdk_adapter.py pins the exact shape each piece relies on, so an SDK
release that moves one fails there first, with the name of what moved. Each piece is a public
hook asked for upstream in docs/upstream.md; when the SDK grows it, the piece goes.

- `ExtendedClient`: an `mcp.Client` that declares an exact `elicitation` capability (mcp 2.3
  declares both modes whenever an elicitation callback is set) and a `tasks` one, hands the
  2026-07-28 input rounds to a driver of its own (the SDK's driver is
  `Client._drive_input_required`), and answers server requests the SDK has no callback for
  (`tasks/get` and the rest of a client's own tasks) before the session's `_on_request` does.
- `ReadStream`, `WriteStream`, `TransportStreams`, `InMemoryTransport`: what a `Transport`
  yields, and the in-process transport the SDK's `Client` uses for a `Server`/`MCPServer`.
- `http_client`: an HTTP client with the SDK transports' default timeouts.
- `token_verifier_of`, `connection_of`: an `MCPServer`'s token verifier and the `Connection`
  behind a `ServerSession`.
- `run_in_lifespan`: run a context manager of elicitkit's inside an `MCPServer`'s lifespan.
- `IssuerAliasingOAuthProvider`: the SDK's OAuth client, told which issuer spelling an
  authorization server really uses.
- `send_raw_request`: a request whose result the SDK would check against the wrong shape (a
  task-augmented `tools/call` answers a `CreateTaskResult`, not a `CallToolResult`).
- `PrimitiveSchemaDefinition`: the SDK's type of one form field (2025-11-25), which `mcp_types`
  does not export; the tests check the schemas elicitkit builds against it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import httpx2
from mcp.client import Client, ClientSession
from mcp.client._memory import InMemoryTransport
from mcp.client._transport import ReadStream, TransportStreams, WriteStream
from mcp.client.auth import OAuthClientProvider
from mcp.server.auth.provider import TokenVerifier
from mcp.server.connection import Connection
from mcp.server.mcpserver import MCPServer
from mcp.server.session import ServerSession
from mcp.shared.dispatcher import CallOptions, DispatchContext
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    ClientCapabilities,
    ClientTasksCapability,
    ElicitationCapability,
    InputRequiredResult,
    InputResponses,
    Request,
    RequestId,
    RootsCapability,
)
from mcp_types._v2025_11_25 import PrimitiveSchemaDefinition
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = [
    "SDK_READ_TIMEOUT",
    "SDK_TIMEOUT",
    "ExtendedClient",
    "InMemoryTransport",
    "InputRequiredDriver",
    "IssuerAliasingOAuthProvider",
    "PrimitiveSchemaDefinition",
    "ReadStream",
    "ServerRequestHandler",
    "TransportStreams",
    "WriteStream",
    "connection_of",
    "http_client",
    "run_in_lifespan",
    "send_raw_request",
    "token_verifier_of",
]

_ResultT = TypeVar("_ResultT")


class InputRequiredDriver(Protocol):
    """Drives a call's 2026-07-28 input rounds from its first result to its final one."""

    async def __call__(
        self,
        first: _ResultT | InputRequiredResult,
        retry: Callable[[InputResponses | None, str | None], Awaitable[_ResultT | InputRequiredResult]],
    ) -> _ResultT: ...


class ServerRequestHandler(Protocol):
    """Answers a server request before the SDK's session does: the result as its wire dict, or
    None to leave the request to the SDK. An `MCPError` it raises is the JSON-RPC error sent."""

    async def __call__(
        self, session: ClientSession, request_id: RequestId, method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any] | None: ...


@dataclass
class ExtendedClient(Client):
    """`mcp.Client` with the hooks mcp 2.3 keeps private (docs/upstream.md).

    `elicitation_capability`, when set, is the `elicitation` capability declared, on every path
    the SDK builds capabilities from (initialize, discover, the 2026-07-28 per-request `_meta`);
    `roots_capability` likewise for `roots` (mcp 2.3 always declares `listChanged`), and
    `tasks_capability` for `tasks` at the revisions that have it (up to 2025-11-25).
    `input_required_driver`, when set, drives the input rounds of `call_tool`, `get_prompt` and
    `read_resource` in place of the SDK's driver. `server_requests`, when set, sees each request
    the server sends first (mcp 2.3 answers -32601 to a method it has no callback for, such as
    `tasks/get`). All are set by a subclass, not the caller.
    """

    elicitation_capability: ElicitationCapability | None = field(
        default=None, init=False, repr=False, compare=False
    )
    roots_capability: RootsCapability | None = field(default=None, init=False, repr=False, compare=False)
    input_required_driver: InputRequiredDriver | None = field(
        default=None, init=False, repr=False, compare=False
    )
    tasks_capability: ClientTasksCapability | None = field(
        default=None, init=False, repr=False, compare=False
    )
    server_requests: ServerRequestHandler | None = field(default=None, init=False, repr=False, compare=False)

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        declared = {"elicitation": self.elicitation_capability, "roots": self.roots_capability}
        update = {name: value for name, value in declared.items() if value is not None}
        tasks = self.tasks_capability
        if update or tasks is not None:
            sdk_build = session._build_capabilities

            def declare(version: str) -> ClientCapabilities:
                legacy = tasks is not None and version not in MODERN_PROTOCOL_VERSIONS
                return sdk_build(version).model_copy(update={**update, "tasks": tasks} if legacy else update)

            session._build_capabilities = declare  # type: ignore[method-assign]
        handler = self.server_requests
        if handler is not None:
            sdk_on_request = session._on_request

            async def on_request(
                dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
            ) -> dict[str, Any]:
                if dctx.request_id is not None:
                    answered = await handler(session, dctx.request_id, method, params)
                    if answered is not None:
                        return answered
                return await sdk_on_request(dctx, method, params)

            session._on_request = on_request  # type: ignore[method-assign]
        return session

    async def _drive_input_required(
        self,
        first: _ResultT | InputRequiredResult,
        retry: Callable[[InputResponses | None, str | None], Awaitable[_ResultT | InputRequiredResult]],
    ) -> _ResultT:
        if self.input_required_driver is None:
            return await super()._drive_input_required(first, retry)
        return await self.input_required_driver(first, retry)

    async def sdk_rounds(
        self,
        first: _ResultT | InputRequiredResult,
        retry: Callable[[InputResponses | None, str | None], Awaitable[_ResultT | InputRequiredResult]],
    ) -> _ResultT:
        """The SDK's own driver (each request to this client's callbacks), for a driver set
        here to fall back on."""
        return await super()._drive_input_required(first, retry)


SDK_TIMEOUT = 30.0
"""Seconds the SDK's transports allow to connect, write and wait for a pooled connection."""
SDK_READ_TIMEOUT = 300.0
"""Seconds the SDK's transports wait for a read: a server may hold a response stream open."""


def http_client(headers: dict[str, str] | None = None, auth: httpx2.Auth | None = None) -> httpx2.AsyncClient:
    """The HTTP client the SDK's streamable HTTP transport makes when given none (its factory,
    `create_mcp_http_client`, is private): its timeouts, redirects not followed."""
    timeout = httpx2.Timeout(SDK_TIMEOUT, read=SDK_READ_TIMEOUT)
    return httpx2.AsyncClient(timeout=timeout, headers=headers, auth=auth)


def token_verifier_of(server: MCPServer[Any]) -> TokenVerifier | None:
    """The verifier `server` checks its bearer tokens with (given, or made from its provider)."""
    verifier: TokenVerifier | None = server._token_verifier
    return verifier


def run_in_lifespan(
    server: MCPServer[Any], around: Callable[[], AbstractAsyncContextManager[object]]
) -> None:
    """Enter `around()` each time `server`'s lifespan is entered (once per process over HTTP,
    once per connection in memory), outside the author's own lifespan: the lifespan given to
    `MCPServer` is read into its low-level server, which is private, at construction."""
    lowlevel = server._lowlevel_server
    inner = lowlevel.lifespan

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[Any]:
        async with around(), inner(app) as state:
            yield state

    lowlevel.lifespan = lifespan


def connection_of(session: ServerSession) -> Connection | None:
    """The SDK `Connection` a session belongs to: its `state` and `exit_stack` (the per-connection
    teardown) are public, the way from the session to it is not. None if that way moved."""
    connection = getattr(session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


async def send_raw_request(
    session: ClientSession, request: Request[Any, Any], *, read_timeout: float | None = None
) -> dict[str, Any]:
    """Send `request` as `ClientSession.send_request` does and return its raw result, unchecked.

    `send_request` checks a `tools/call` result against `CallToolResult`, and mcp 2.3 knows no
    other shape for it, so a task-augmented call's `CreateTaskResult` fails there; the caller
    parses the raw result itself. Its dispatcher and stamp are private. `read_timeout` bounds the
    wait for the reply as `request_read_timeout_seconds` does.
    """
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: CallOptions = {}
    session._stamp(data, opts)
    if read_timeout is not None:
        opts["timeout"] = read_timeout
    return await session._dispatcher.send_raw_request(data["method"], data.get("params"), opts)


class IssuerAliasingOAuthProvider(OAuthClientProvider):
    """The SDK's OAuth client, told which issuer spelling an authorization server really uses:
    `issuer_aliases` maps the spelling protected resource metadata advertises to the server's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.issuer_aliases: dict[str, str] = {}

    def _select_authorization_server(self, advertised: list[str]) -> str:
        chosen = super()._select_authorization_server(advertised)
        return self.issuer_aliases.get(chosen, chosen)
